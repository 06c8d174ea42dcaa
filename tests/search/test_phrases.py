"""Phrases: found at the edges of abstracts and of the corpus, every word in place, scored
for all their words, and falling back to their words when nothing holds them."""

from __future__ import annotations

import pytest

from tests.search.helpers import (
    MIXED,
    FakePersonal,
    full_matches,
    hits,
    index_of,
)
from tui.search import positions

EDGES = [
    "Graph neural networks learn on molecules.",  # the phrase opens the first abstract
    "We study vision models and graph kernels.",  # the first word only
    "Protein design with graph neural networks",  # the phrase closes an abstract
    "Neural graph models are not graph neural ones, and graph models differ.",
    "Molecules meet deep learning: graph neural",  # the phrase closes the last abstract
]


def test_a_phrase_is_found_at_the_start_and_end_of_any_abstract() -> None:
    index = index_of(EDGES)
    assert sorted(hits(index, '"graph neural"')) == [0, 2, 3, 4]
    assert sorted(hits(index, '"graph neural networks"')) == [0, 2]
    assert sorted(hits(index, '"neural graph"')) == [3]
    assert sorted(hits(index, '-"graph neural" graph ')) == [1]


def test_every_word_of_a_phrase_must_be_in_place() -> None:
    index = index_of(
        [
            "Graph convolution networks for molecules.",
            "Graph neural networks for molecules.",
            "Graph networks networks, a stutter.",
        ]
    )
    assert hits(index, '"graph neural networks"') == [1]


def test_a_phrase_whose_rarest_word_ends_the_corpus_is_found_or_not_without_error() -> None:
    # `zebra` is the rarest word and the last token of all: nothing may read past it.
    index = index_of(["A crossing for horses, crossing twice.", "Crossing the plains: the zebra"])
    assert full_matches(index, '"zebra crossing"') == []
    assert hits(index, '"the zebra"') == [1]


def test_every_phrase_applies_negated_or_not() -> None:
    index = index_of(MIXED)
    assert hits(index, '-"graph kernels" "for molecules"') == [0, 2]
    assert hits(index, '"for molecules" -"graph models"') == [0]
    assert full_matches(index, '"graph neural" "for proteins"') == []
    assert hits(index, '-"vision models" -"graph kernels" graph ') == [0, 2]


def test_a_phrase_ranks_the_abstract_that_repeats_it_first() -> None:
    index = index_of(
        [
            "Graph neural methods, a study of many other things entirely.",
            "Graph neural nets: graph neural layers and graph neural pooling.",
        ]
    )
    result = index.search('"graph neural"')
    assert result.indices == [1, 0]
    assert result.scores[0] > result.scores[1] > 0


def test_a_phrase_needs_its_middle_word_too() -> None:
    index = index_of(["Deep neural networks.", "Graph networks.", "Graph networks again."])
    assert full_matches(index, '"graph neural networks"') == []


def test_a_phrase_scores_all_its_words_and_only_them() -> None:
    # Equal length; the second repeats `graph`, which must count.
    index = index_of(["Graph neural kernels other other.", "Graph neural graph graph kernels."])
    assert hits(index, '"graph neural"') == [1, 0]
    # Words that only start like a phrase word, or are a typo of one, do not count.
    index = index_of(["Graph neural kernels other other.", "Graph neural graphical graps grapes."])
    result = index.search('"graph neural"')
    assert result.indices == [0, 1] and result.scores[0] == result.scores[1]


def test_a_one_word_phrase_is_that_word_exactly() -> None:
    index = index_of([*MIXED, "A protein, not proteins plural."])
    assert sorted(full_matches(index, '"proteins"')) == [1, 2, 4]
    assert full_matches(index, '"protein"') == [4]  # no other forms, no typos
    assert hits(index, '-"proteins" graph ') == [0]


def test_an_unmatched_phrase_falls_back_to_its_words_with_every_other_clause() -> None:
    texts = [
        "Graph kernels, a graph study of graph things.",
        "Graph networks.",
        "Zebra graph networks.",
    ]
    index = index_of(texts)
    a, _, c = index.data.ids
    personal = FakePersonal(bookmarked={a, c})
    result = index.search('"graph zebra" is:bookmarked', personal=personal)
    # Both words, and the bookmarks still: close matches only.
    assert (result.indices, result.total, result.matched, result.close) == ([2, 0], 2, 0, 2)
    assert len(result.scores) == 2
    assert index.search('"zebra graph networks kernels"', order="file").indices == [0, 1, 2]
    ranked = index.search('"zebra graph networks kernels"')
    assert ranked.indices != [0, 1, 2]
    limited = index.search('"graph zebra"', limit=1)
    assert (len(limited.indices), limited.total, limited.close) == (1, 3, 3)


def test_a_phrase_keeps_its_boost_beside_a_stop_word_being_typed() -> None:
    index = index_of(
        [
            "Graph neural kernels then other words here.",
            "Graph neural kernels then graph neural here.",
        ]
    )
    result = index.search('"graph neural" kernels the')
    assert result.indices == [1, 0]


def test_a_phrase_is_found_in_every_batch_of_the_abstracts_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Read two candidates at a time: the phrase at the edges of each batch still counts.
    monkeypatch.setattr(positions, "PHRASE_BATCH", 2)
    index = index_of(EDGES)
    assert sorted(hits(index, '"graph neural"')) == [0, 2, 3, 4]
    assert sorted(hits(index, '"graph neural networks"')) == [0, 2]
    assert sorted(hits(index, '"neural graph"')) == [3]
