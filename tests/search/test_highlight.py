"""Highlighting: exactly what the search matched is painted, phrases, words, prefixes and
symbols, and only the completions of the word being typed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.search.helpers import (
    full_matches,
    index_of,
)
from tui.corpus.tokens import token_spans
from tui.search.highlight import Highlighter


def test_highlight_paints_phrases_words_and_prefixes_together() -> None:
    h = Highlighter(frozenset({"graph"}), ("mol",), (("neural", "networks"),))
    text = "Graph neural networks on molecules; neural nets."
    assert [text[s:e] for s, e in h.spans(text)] == ["Graph", "neural", "networks", "molecules"]


def test_highlight_of_a_phrase_at_the_end_of_the_text() -> None:
    h = Highlighter(frozenset(), (), (("neural", "networks"),))
    text = "We train neural networks"
    assert [text[s:e] for s, e in h.spans(text)] == ["neural", "networks"]


def test_highlight_paints_symbols_only_in_text_that_has_them() -> None:
    h = Highlighter(frozenset({"\\times", "speed"}))
    text = "X-ray: a 3× speed up, 3 times."  # `X` is a letter, never a symbol
    assert [text[s:e] for s, e in h.spans(text)] == ["×", "speed"]
    plain = Highlighter(frozenset({"speed", "unknownmacro"}))
    assert [text[s:e] for s, e in plain.spans(text)] == ["speed"]


def test_highlighter_of_a_query_paints_what_the_search_matched() -> None:
    index = index_of(["Graph networks for molecules.", "Contrastive networking of images."])
    h = index.highlighter("network graph")
    text = "Graph networks, a network of networking."
    painted = [text[s:e] for s, e in h.spans(text)]
    assert painted[:3] == ["Graph", "networks", "network"]
    assert index.highlighter("-graph").spans(text) == []


def test_the_highlighter_paints_what_a_misspelt_word_being_typed_found() -> None:
    index = index_of(["Deep learning of graphs.", "Kernels for proteins."])
    text = "Deep learning of graphs."
    assert [text[s:e] for s, e in index.highlighter("lerni").spans(text)] == ["learning"]
    both = index.highlighter('-"deep learning" "of graphs"')
    assert [text[s:e] for s, e in both.spans(text)] == ["of", "graphs"]


def test_the_highlighter_paints_only_what_the_word_being_typed_matched() -> None:
    index = index_of(["A graph with a gap.", "Another graph."])
    text = "A graph with a gap."
    # `grap` being typed completes to `graph`; `gap` is a typo away, but the search
    # reads a short word that completes to something as that, not as a typo.
    assert sorted(full_matches(index, "grap")) == [0, 1]
    assert [text[s:e] for s, e in index.highlighter("grap").spans(text)] == ["graph"]


def test_the_highlighter_paints_completions_only_of_the_word_being_typed() -> None:
    index = index_of(["Graph and graphical models.", "Other things."])
    text = "Graph and graphical models."
    assert [text[s:e] for s, e in index.highlighter("graph ").spans(text)] == ["Graph"]
    assert [text[s:e] for s, e in index.highlighter("graph").spans(text)] == [
        "Graph",
        "graphical",
    ]


def test_the_highlighter_paints_a_stop_word_being_typed_as_the_search_reads_it() -> None:
    index = index_of(["Graph theory, whether or not.", "Other things."])
    text = "Graph theory, whether or not."
    # `the` being typed may become `theory`; `when` completes to nothing here, and a stop
    # word is never read as a typo (`whet...` is one letter off).
    assert [text[s:e] for s, e in index.highlighter("graph the").spans(text)] == [
        "Graph",
        "theory",
    ]
    assert [text[s:e] for s, e in index.highlighter("graph when").spans(text)] == ["Graph"]


def test_each_text_is_split_into_words_once_for_every_query(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    split: list[str] = []

    def spy(text: str) -> Iterator[tuple[int, int, str]]:
        split.append(text)
        return token_spans(text)

    monkeypatch.setattr("tui.search.highlight.token_spans", spy)
    # Texts no other test splits (the words are remembered for the whole process).
    headline = "Words split once: graph kernels for molecule retrieval"
    abstract = "A long abstract about graph kernels. " * 20
    for word in ("graph", "gra", "kernels"):
        h = Highlighter(frozenset({word}), (word,))
        assert [headline[s:e] for s, e in h.spans(headline)][:1] in (["graph"], ["kernels"])
        assert h.spans(abstract)
    assert split == [headline, abstract]
