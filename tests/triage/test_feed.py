"""The feed's core: ids to indices, what is left out, and the two orders."""

from __future__ import annotations

from tests.similar.fixtures import (
    I_GRAPH,
    I_GRAPH_NB,
    I_GRAPH_RW,
    I_LANG,
    I_VISION,
    I_VISION_NB,
    make_corpus,
)
from tui.similar.model import SimilarityModel
from tui.triage.feed import rank_feed, sort_feed

YEARS = [2023, 2024, 2022, 2023, 2024, 2022, 2023, 2024, 2022]
CORPUS = make_corpus(years=YEARS)
MODEL = SimilarityModel.build(CORPUS)
IDS = [a.id for a in CORPUS.abstracts]


def test_the_closest_to_a_like_comes_first_with_it_as_the_reason() -> None:
    items = rank_feed(MODEL, CORPUS, [IDS[I_GRAPH], "not-loaded"], k=3)
    assert items[0].abstract.index in (I_GRAPH_NB, I_GRAPH_RW)
    assert all(it.because.index == I_GRAPH for it in items)
    assert items[0].shared
    assert I_GRAPH not in {it.abstract.index for it in items}


def test_dismissed_and_skipped_abstracts_are_left_out() -> None:
    likes = [IDS[I_GRAPH], IDS[I_VISION]]
    items = rank_feed(MODEL, CORPUS, likes, [IDS[I_GRAPH_NB]], skip={IDS[I_VISION_NB]}, k=20)
    shown = {it.abstract.index for it in items}
    assert not shown & {I_GRAPH, I_VISION, I_GRAPH_NB, I_VISION_NB}
    assert shown  # the rest (a near-duplicate of a like, or one sharing nothing, may not be)


def test_a_dismissal_sinks_what_is_like_it() -> None:
    likes = [IDS[I_GRAPH_NB], IDS[I_LANG]]

    def score_of_graph(unlikes: list[str]) -> float:
        items = rank_feed(MODEL, CORPUS, likes, unlikes, k=20)
        return next(it.score for it in items if it.abstract.index == I_GRAPH)

    assert score_of_graph([IDS[I_GRAPH_RW]]) < score_of_graph([]) / 2


def test_no_like_loaded_is_an_empty_feed() -> None:
    assert rank_feed(MODEL, CORPUS, ["gone"], [IDS[0]]) == []


def test_sorted_by_year_newest_first_then_by_score() -> None:
    items = rank_feed(MODEL, CORPUS, [IDS[I_GRAPH], IDS[I_VISION]], k=20)
    by_year = sort_feed(items, "year")
    keys = [(-(it.abstract.collection.year or 0), -it.score) for it in by_year]
    assert keys == sorted(keys) and by_year[0].abstract.collection.year == 2024
    assert sort_feed(by_year, "score") == items
