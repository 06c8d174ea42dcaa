"""Full and close matches: which query words an abstract must hold, joined and split words,
macros and symbols found only as written, and what is offered when nothing is close."""

from __future__ import annotations

import pytest

from tests.search.helpers import (
    FILLER,
    Row,
    full_matches,
    hits,
    index_of,
    make_corpus,
)
from tui.search.index import SearchIndex, SearchResult


def test_words_written_together_are_found_from_the_words_apart() -> None:
    index = index_of(
        [
            "Graph pretraining at scale.",
            "Training graph models.",
            "Self supervised pretraining.",
        ]
    )
    assert hits(index, "graph pre training ")[:1] == [0]
    result = index.search("graph pre training ")
    assert result.indices[: result.matched] == [0]
    assert hits(index, "pre training ")[:2] in ([0, 2], [2, 0])
    h = index.highlighter("pre training ")
    text = "Pretraining and training."
    assert [text[s:e] for s, e in h.spans(text)] == ["Pretraining", "training"]


def test_with_nothing_close_the_abstracts_sharing_any_word_are_offered() -> None:
    texts = [f"A model of thing {i}." for i in range(24)]
    index = index_of(texts)
    result = index.search("model zebra quokka ")
    assert result.matched == 0 and result.close == 24
    assert index.search("venue:cvpr zebra ").indices == []


def test_a_macro_and_a_symbol_are_found_only_where_written() -> None:
    rows: list[Row] = [
        ("a.txt", "ICLR", 2023, "The λ calculus of types.", r"The $\lambda$ calculus of types."),
        ("a.txt", "ICLR", 2023, "A 3× speedup.", r"A $3\times$ speedup."),
        ("a.txt", "ICLR", 2023, "Bounds of order √n.", r"Bounds of order $\sqrt n$."),
        ("a.txt", "ICLR", 2023, "Plain text, no symbols."),
    ]
    index = SearchIndex.build(make_corpus(rows))
    assert hits(index, "\\lambda ") == [0]
    assert hits(index, "× ") == [1]
    assert hits(index, "∞ ") == []
    assert hits(index, "√ ") == [2]


def test_a_macro_is_found_only_as_written_not_by_its_stem() -> None:
    rows: list[Row] = [
        ("a.txt", "ICLR", 2023, "A ∑ of terms.", r"A $\sum$ of terms."),
        ("a.txt", "ICLR", 2023, "Plain sums."),
    ]
    index = SearchIndex.build(make_corpus(rows))
    assert hits(index, "\\sum ") == [0]
    assert hits(index, "\\sums ") == []


def _numbered(words_of: list[str]) -> list[str]:
    return [f"Doc number {i} about {words}." for i, words in enumerate(words_of)]


@pytest.mark.parametrize(("with_model", "matched"), [(11, 3), (10, 1)])
def test_a_word_in_more_than_half_of_twenty_abstracts_is_not_required(
    with_model: int, matched: int
) -> None:
    # `graph` in three abstracts, one of them with `model`; `model` in `with_model` of 20.
    words = ["graph model", "graph", "graph"] + ["model"] * (with_model - 1)
    index = index_of(_numbered(words + ["other"] * (20 - len(words))))
    assert index.search("graph model ").matched == matched


def test_with_nothing_close_one_informative_word_is_enough() -> None:
    words = ["alpha delta", "beta", "gamma"] + ["delta"] * 17
    result = index_of(_numbered(words)).search("alpha beta gamma delta ")
    assert (result.matched, sorted(result.indices)) == (0, [0, 1, 2])


def test_with_nothing_close_the_most_informative_words_decide() -> None:
    # `delta` is common (18 of 20); five rare words are asked for, and no abstract has
    # half of them: the one with the most rare words is offered, `delta` does not count.
    words = ["alpha beta", "gamma delta"] + ["delta"] * 17 + ["other"]
    index = index_of(_numbered(words))
    result = index.search("alpha beta gamma epsilon kappa delta ")
    assert (result.matched, result.indices) == (0, [0])


def test_with_only_common_words_the_abstracts_sharing_most_of_them_are_offered() -> None:
    words = ["model"] * 5 + ["model method"] * 10 + ["method"] * 5
    index = index_of(_numbered(words))
    result = index.search("zebra model method ")
    assert result.matched == 0 and sorted(result.indices) == list(range(5, 15))


def test_a_joined_pair_counts_with_every_abstract_count() -> None:
    # Twenty abstracts or more: the common-word rule reads each term's abstract count.
    texts = ["Graph pretraining at scale.", "Training data.", "Pre and post."]
    texts += [f"Other text {i}." for i in range(22)]
    result = index_of(texts).search("pre training ")
    assert result.indices[: result.matched] == [0]


def test_the_joined_word_is_near_only_where_it_stands() -> None:
    texts = [f"Graph {FILLER} pretraining.", f"Graph pretraining {FILLER}.", "Training, pre."]
    result = index_of(texts).search("graph pre training ")
    assert result.indices[: result.matched] == [1, 0] and result.scores[0] > result.scores[1]


def test_the_result_counts_its_full_matches() -> None:
    result = SearchResult([4, 2, 0, 1, 3], [0.0] * 5, 5, close=2)
    assert result.matched == 3 and not result.is_close(2) and result.is_close(3)


def test_a_common_joined_pair_is_not_required() -> None:
    texts = ["Graph pretraining at scale.", "Graph only here.", "Training data.", "Pre and post."]
    texts += [f"Pretraining of models {i}." for i in range(16)] + ["Other.", "Other two."]
    result = index_of(texts).search("graph pre training ")
    assert sorted(result.indices[: result.matched]) == [0, 1]


def test_words_written_together_are_found_only_as_spelt() -> None:
    # `autoencodre` is a typo away from `autoencoder`, but neither `auto` nor `encoder`.
    index = index_of(["An autoencodre for images.", "An auto encoder for text.", "Kernels only."])
    assert full_matches(index, "auto encoder ") == [1]
