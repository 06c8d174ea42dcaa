"""Re-attaching orphans when library entries have no abstract."""

from __future__ import annotations

from pathlib import Path

from tui.corpus.model import Abstract, Collection, Corpus, SourceRef
from tui.corpus.paper import Paper
from tui.store.attach import Matcher, match_orphans

from .helpers import make_abstract

TEXT = (
    "We prove bounds on the generalization error of convolutional networks in terms of "
    "the training loss, the number of parameters and the distance from initialisation."
)


def _entry(title: str, key: str) -> Abstract:
    collection = Collection("refs")
    return Abstract(key, "", collection, [SourceRef(Path("refs.bib"), 1)], paper=Paper(title))


def test_an_orphan_without_text_attaches_to_nothing() -> None:
    corpus = Corpus([_entry("Deep Sets", "a" * 16), make_abstract(TEXT)], [], [])
    assert Matcher(corpus).candidates("") == []
    assert match_orphans({"gone": ""}, corpus) == ([], [])


def test_an_entry_without_abstract_is_never_a_candidate() -> None:
    entry = _entry("Deep Sets", "b" * 16)
    corpus = Corpus([entry, make_abstract(TEXT)], [], [])
    found = Matcher(corpus).candidates(TEXT)
    assert [i for i, _ in found] == [corpus.abstracts[1].id]
