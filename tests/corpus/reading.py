"""Helpers for the tests of the format readers: the committed fixtures and what they load."""

from __future__ import annotations

from pathlib import Path

from tui.corpus.load import load_corpus
from tui.corpus.model import Abstract, Corpus
from tui.corpus.paper import Paper
from tui.corpus.readers import ReadResult

FIXTURES = Path(__file__).parent / "fixtures"


def load(name: str) -> Corpus:
    """The corpus `load_corpus` makes of one fixture file (what a user gets)."""
    return load_corpus([FIXTURES / name])


def by_title(corpus: Corpus, start: str) -> Abstract:
    """The one abstract whose title starts with `start`."""
    [found] = [a for a in corpus.abstracts if (a.title or "").startswith(start)]
    return found


def paper_of(abstract: Abstract) -> Paper:
    assert abstract.paper is not None
    return abstract.paper


def messages(corpus: Corpus) -> list[str]:
    return [p.message for p in corpus.problems]


def check_result_shape(result: ReadResult) -> None:
    """A result either has entries (papers parallel to texts) or an error, never both."""
    assert (result.error is None) == bool(result.texts)
    assert result.error is not None or len(result.papers or []) == len(result.texts)
