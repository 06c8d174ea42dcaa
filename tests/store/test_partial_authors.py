"""A source that names only some authors (BibTeX's `and others`, a CSV's `et al.`):
BibTeX keeps `and others`; RIS and CSL-JSON, which have no such marker, list the named
authors only, never a person called Others."""

from __future__ import annotations

from tui.corpus.paper import Author, Paper
from tui.store.cite import bib_authors
from tui.store.formats import Item
from tui.store.interchange import csl_item, ris_record
from tui.store.records import Snapshot

PAPER = Paper(
    "Sparse Attention",
    authors=(Author("Müller", "Hans"), Author("others")),
    year=2021,
    ids=(("arxiv", "2101.00001"),),
)
ITEM = Item("i", Snapshot("We study sparse attention.", "h", paper=PAPER), False, None, None, ())


def test_ris_lists_the_named_authors_only() -> None:
    record = ris_record(ITEM, "muller2021sparse")
    assert [line for line in record.splitlines() if line.startswith("AU")] == ["AU  - Müller, Hans"]


def test_csl_json_lists_the_named_authors_only() -> None:
    assert csl_item(ITEM, "muller2021sparse")["author"] == [{"family": "Müller", "given": "Hans"}]


def test_bibtex_keeps_and_others() -> None:
    assert bib_authors(PAPER) == "Müller, Hans and others"
