"""Export, read back, get the same papers: through bibtexparser and rispy (what other tools
read), and through the app's own readers (the same papers, ids and fields)."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import pytest
import rispy
from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.store.citing import library
from tui.commands.export import render
from tui.corpus.latex import to_plain
from tui.corpus.load import load_corpus
from tui.corpus.model import Abstract
from tui.corpus.paper import Author, Paper
from tui.corpus.readers import READERS
from tui.store.cite import bibtex_entry
from tui.store.formats import bib_keys
from tui.store.records import Snapshot, StoreData

LIBRARY = library()
PAPERS = [a for a in LIBRARY if a.paper is not None]
KEYS = dict(zip((a.id for a in LIBRARY), bib_keys([Snapshot.of(a) for a in LIBRARY]), strict=True))


def _export(fmt: str) -> str:
    data = StoreData(
        records={a.id: Snapshot.of(a) for a in LIBRARY}, bookmarks={a.id: 1.0 for a in LIBRARY}
    )
    text = render(data, fmt, bookmarked=False, with_notes=False)
    assert text is not None
    return text


def _paper(a: Abstract) -> Paper:
    assert a.paper is not None
    return a.paper


def test_bibtexparser_reads_back_every_paper_and_field() -> None:
    lib = bibtexparser.parse_string(
        _export("bibtex"), append_middleware=[SeparateCoAuthors(), SplitNameParts()]
    )
    assert lib.failed_blocks == [] and len(lib.entries) == len(LIBRARY)
    by_key = {e.key: e.fields_dict for e in lib.entries}
    for a in PAPERS:
        paper, fields = _paper(a), by_key[KEYS[a.id]]
        names = [
            Author(" ".join(n.von + n.last).strip("{}"), " ".join(n.first))
            for n in fields["author"].value
        ]
        assert names == list(paper.authors)
        assert to_plain(fields["title"].value) == a.title
        assert fields["abstract"].value == a.text  # LaTeX sources with nothing to escape
        assert fields["year"].value == str(paper.year)
        if paper.venue:
            venue = fields.get("booktitle") or fields.get("journal")
            assert venue is not None and venue.value == paper.venue
        if doi := paper.id_of("doi"):
            assert fields["doi"].value == doi
        if arxiv := paper.id_of("arxiv"):
            assert (fields["eprint"].value, fields["archivePrefix"].value) == (arxiv, "arXiv")
        if paper.keywords:
            assert fields["keywords"].value.split(", ")[: len(paper.keywords)] == list(
                paper.keywords
            )
    assert by_key["vaswani2017attention"]["url"].value == "https://papers.nips.cc/paper/7181"
    assert by_key["kaplan2020scaling"]["primaryClass"].value == "cs.LG"


def test_rispy_reads_back_every_paper_and_field() -> None:
    records = {r["id"]: r for r in rispy.loads(_export("ris"))}
    assert len(records) == len(LIBRARY)
    for a in PAPERS:
        paper, record = _paper(a), records[KEYS[a.id]]
        assert record["title"] == a.title
        assert record["authors"] == [
            f"{x.family}, {x.given}" if x.given else x.family for x in paper.authors
        ]
        assert record["abstract"] == a.text
        assert record["year"] == str(paper.year)
        assert record.get("secondary_title") == paper.venue
        assert record.get("doi") == paper.id_of("doi")
        assert record.get("keywords", []) == list(paper.keywords)
        if page := paper.link("page") or paper.id_of("url"):
            assert record["urls"][0] == page
        if arxiv := paper.id_of("arxiv"):
            assert any(arxiv in url for url in record["urls"])


# Each export format, the extension it is saved with, and the app's reader for it.
APP_FORMATS = [("bibtex", ".bib", "bibtex"), ("ris", ".ris", "ris"), ("csljson", ".json", "json")]


@pytest.mark.parametrize(("fmt", "suffix", "reader"), APP_FORMATS)
def test_the_apps_readers_read_back_the_same_papers_ids_and_fields(
    fmt: str, suffix: str, reader: str, tmp_path: Path
) -> None:
    if reader not in READERS:
        pytest.skip(f"the app has no {reader} reader in this build (tui.corpus.readers.READERS)")
    path = tmp_path / f"export{suffix}"
    path.write_text(_export(fmt), encoding="utf-8")
    corpus = load_corpus([path])
    assert [p.message for p in corpus.problems if p.fatal] == []
    loaded = {a.id: a for a in corpus.abstracts}
    # Every paper comes back under its id: from its DOI or arXiv id, else its text.
    assert set(loaded) == {a.id for a in LIBRARY}
    for a in PAPERS:
        paper, back = _paper(a), loaded[a.id]
        assert back.paper is not None
        assert back.title == a.title
        assert back.text == a.text
        # Names as shown; an organisation (family name only) may come back split in two by
        # a format with no way to say so (RIS), a person never.
        assert [x.name for x in back.paper.authors] == [x.name for x in paper.authors]
        people = [i for i, x in enumerate(paper.authors) if x.given]
        assert [back.paper.authors[i] for i in people] == [paper.authors[i] for i in people]
        assert back.paper.year == paper.year
        assert back.paper.venue == paper.venue
        for kind in ("doi", "arxiv", "isbn"):
            assert back.paper.id_of(kind) == paper.id_of(kind)
        assert set(paper.keywords) <= set(back.paper.keywords)
        if page := paper.link("page"):
            assert back.paper.page_url == page
        if fmt == "bibtex":
            assert back.paper.id_of("citekey") == KEYS[a.id]


_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=60
).filter(str.strip)


@settings(max_examples=150, deadline=None)
@given(title=_TEXT, abstract=_TEXT, note=_TEXT, family=_TEXT, tag=_TEXT)
def test_any_text_makes_one_entry_that_bibtexparser_reads_whole(
    title: str, abstract: str, note: str, family: str, tag: str
) -> None:
    """Whatever the source and the user wrote, the entry parses as one entry with every
    field (no brace, `%` or `@` in a value can end it early or start another)."""
    paper = Paper(title=title, authors=(Author(family, "Ann"),), year=2020)
    entry = bibtex_entry(paper, abstract, key="k", tags=[tag], note=note)
    lib = bibtexparser.parse_string(entry)
    assert lib.failed_blocks == [] and [e.key for e in lib.entries] == ["k"]
    names = set(lib.entries[0].fields_dict)
    assert {"author", "title", "year", "keywords", "abstract", "note"} <= names
    for line in entry.splitlines()[1:-1]:
        assert line.startswith("  ") and line.endswith(("},", "}"))


def test_the_csl_json_export_keys_each_item_as_the_bibtex_export_does() -> None:
    items = json.loads(_export("csljson"))
    assert [(i["id"], i["citation-key"]) for i in items] == [(k, k) for k in _bibtex_keys()]


def _bibtex_keys() -> list[str]:
    return [e.key for e in bibtexparser.parse_string(_export("bibtex")).entries]
