"""Ranking: BM25 over every form of a word with a headline bonus, the bonus for query words
near each other, and file order among equal scores."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest

from tests.search.helpers import (
    FILLER,
    MIXED,
    hits,
    index_of,
)
from tui.corpus.tokens import tokenize
from tui.search.build import HEADLINE_BONUS, K1, B
from tui.search.index import FORM_WEIGHT, SearchIndex
from tui.search.positions import NEAR_BONUS, PROXIMITY_BONUS, WINDOW, proximity


def test_equal_scores_keep_file_order() -> None:
    # More than sixteen equal scores: an unstable sort would shuffle them.
    texts = [f"Graph methods, study number {i}." for i in range(40)]
    index = index_of(texts)
    result = index.search("graph ")
    assert result.indices == list(range(40))
    assert len(set(result.scores)) == 1


def test_query_words_near_each_other_rank_first() -> None:
    filler = " ".join(f"w{i}" for i in range(30))
    texts = [
        f"Kernels for graph data. {filler} Neural methods.",  # far apart
        f"Neural methods and graph data. {filler}",  # within a few words, reversed
        f"Graph neural methods. {filler}",  # adjacent, as typed
        f"Graph and neural methods. {filler}",  # one word apart, as typed
    ]
    index = index_of(texts)
    order = hits(index, "graph neural ")
    assert order[:2] in ([2, 3], [3, 2])
    assert order[2:] == [1, 0]
    scores = dict(zip(order, index.search("graph neural ").scores, strict=True))
    assert scores[2] > scores[1] > scores[0]
    assert scores[3] > scores[1]


def test_nearness_does_not_reach_into_the_next_abstract() -> None:
    filler = " ".join(f"w{i}" for i in range(30))
    texts = [
        f"{filler} ends with graph",  # `graph` at the very end...
        f"neural starts this one. {filler}",  # ...`neural` at the very start of the next
        f"{filler} graph {filler} neural",
        f"{filler} neural {filler} graph",
    ]
    index = index_of(texts)
    result = index.search("graph neural ")
    scores = dict(zip(result.indices, result.scores, strict=True))
    assert scores.get(0, 0.0) < scores[2] or 0 not in scores
    assert scores[2] == scores[3]


def test_file_order_is_kept_when_asked() -> None:
    index = index_of(
        [
            "Graph neural methods, a study of many other things entirely.",
            "Graph neural nets: graph neural layers and graph neural pooling.",
        ]
    )
    assert index.search("graph neural ", order="file").indices == [0, 1]
    assert index.search("graph neural ").indices == [1, 0]


def test_an_empty_query_returns_everything_in_file_order() -> None:
    index = index_of(MIXED)
    result = index.search("")
    assert result.indices == [0, 1, 2, 3] and result.scores == [0.0] * 4
    assert (result.total, result.matched, result.close) == (4, 4, 0)
    assert not result.is_close(3)
    limited = index.search("", limit=2)
    assert limited.indices == [0, 1] and limited.total == 4


def test_a_word_in_the_headline_ranks_above_the_same_word_in_the_body() -> None:
    index = index_of(
        [
            "Methods for proteins. We also study graph data here.",
            "Graph methods for proteins. We also study other data here.",
        ]
    )
    assert index.search("graph ").indices == [1, 0]


class _Near:
    """A matched term as proximity sees it: one vocabulary word, a chosen idf."""

    def __init__(self, index: SearchIndex, word: str, idf: float) -> None:
        self.idf = idf
        self._mask = np.asarray([w == word for w in index.data.vocab])

    def word_mask(self, vocab_size: int) -> npt.NDArray[np.bool_]:
        return self._mask


def _bonus(index: SearchIndex, terms: list[tuple[str, float]], docs: list[int]) -> list[float]:
    near = [_Near(index, w, idf) for w, idf in terms]
    return proximity(index.data, np.asarray(docs, dtype=np.int64), near).tolist()


def test_the_proximity_bonus_is_the_rarer_words_idf_per_pair() -> None:
    gap = " ".join(f"v{i}" for i in range(WINDOW - 1))  # WINDOW - 1 words
    texts = [
        "Graph neural nets.",  # adjacent as typed, at the very start
        "We use graph and neural ones.",  # one word apart, as typed
        "We use graph a b neural ones.",  # three apart: near, not as typed
        "We use neural graph ones.",  # adjacent, reversed: near only
        f"Graph {gap} neural",  # WINDOW apart, the second word ends the abstract
        f"Graph {gap} x neural",  # WINDOW + 1 apart: not near
        "Ends with graph",  # ...and the next abstract starts with neural:
        "neural starts here.",  # nothing reaches across abstracts
        "Only graph here.",
    ]
    index = index_of(texts)
    near, tight = NEAR_BONUS * 2.0, (NEAR_BONUS + PROXIMITY_BONUS) * 2.0
    got = _bonus(index, [("graph", 2.0), ("neural", 3.0)], list(range(len(texts))))
    assert got == [tight, tight, near, near, near, 0.0, 0.0, 0.0, 0.0]
    # The same abstracts one at a time, or in another order, get the same bonus.
    assert [_bonus(index, [("graph", 2.0), ("neural", 3.0)], [d])[0] for d in range(9)] == got
    assert _bonus(index, [("graph", 2.0), ("neural", 3.0)], [4, 0]) == [near, tight]


def test_the_proximity_bonus_adds_every_pair_of_three_words() -> None:
    index = index_of(["Graph neural networks.", "Networks of graphs."])
    terms = [("graph", 2.0), ("neural", 3.0), ("networks", 5.0)]
    # graph-neural: near and as typed (2 + 2); graph-networks: near only, as the two are
    # not neighbours in the query (2); neural-networks: near and as typed (3 + 3).
    assert _bonus(index, terms, [0]) == [12.0]
    assert _bonus(index, terms, [1, 0]) == [0.0, 12.0]


def test_two_terms_matching_one_word_stand_together_wherever_it_occurs() -> None:
    # `graph graphs`: both terms match `graph`, so every abstract with it has them near.
    index = index_of(["Graph", "Graph theory."])
    terms = [("graph", 2.0), ("graph", 3.0)]
    assert _bonus(index, terms, [0]) == [NEAR_BONUS * 2.0]
    assert _bonus(index, terms, [1, 0]) == [NEAR_BONUS * 2.0] * 2


def test_abstracts_of_equal_score_keep_file_order_among_others() -> None:
    # Two levels of score, interleaved: each level keeps file order.
    texts = [f"Graph graph {FILLER} {i}." if i % 3 else f"Graph f {FILLER} {i}." for i in range(60)]
    result = index_of(texts).search("graph ")
    twice = [i for i in range(60) if i % 3]
    assert result.indices == twice + [i for i in range(60) if not i % 3]
    assert len(set(result.scores)) == 2


def test_abstracts_of_equal_score_after_the_proximity_bonus_keep_file_order() -> None:
    # The same words in each abstract; the query's words are adjacent in some only.
    texts = [
        f"Graph neural {FILLER} {i}." if i % 3 else f"Graph {FILLER} neural {i}." for i in range(60)
    ]
    result = index_of(texts).search("graph neural ")
    near = [i for i in range(60) if i % 3]
    assert result.indices == near + [i for i in range(60) if not i % 3]
    assert len(set(result.scores)) == 2


def test_the_word_being_typed_counts_for_nearness_through_its_completions() -> None:
    texts = [f"Graph {FILLER} neural.", f"Graph neural {FILLER}."]
    index = index_of(texts)
    result = index.search("graph neu")
    assert result.indices == [1, 0] and result.scores[0] > result.scores[1]


def _bm25(texts: list[str], tf: float, doc: int, df: int, head: float) -> float:
    lengths = [len(tokenize(t)) for t in texts]
    norm = K1 * (1 - B + B * lengths[doc] / (sum(lengths) / len(lengths)))
    idf = math.log(1 + (len(texts) - df + 0.5) / (df + 0.5))
    return idf * (tf * (K1 + 1) / (tf + norm) + HEADLINE_BONUS * min(head, 1.0))


def test_a_words_score_is_bm25_with_a_headline_bonus() -> None:
    texts = [
        "Graph methods. We study graph data and more graph data.",  # 3 times, in the headline
        "Kernels for data. A graph here.",  # once, in the body only
        "Networks of proteins.",
        "Vision models.",
        "Other text entirely here.",
    ]
    result = index_of(texts).search("graph ")
    scores = dict(zip(result.indices, result.scores, strict=True))
    assert scores[0] == pytest.approx(_bm25(texts, 3, 0, df=2, head=1), rel=1e-5)
    assert scores[1] == pytest.approx(_bm25(texts, 1, 1, df=2, head=0), rel=1e-5)


def test_other_forms_of_a_word_count_a_little_less_and_the_headline_once() -> None:
    texts = [
        "Network and networks. One network here.",  # 2 + 0.9 occurrences, both in the headline
        "Networks of proteins. Other words.",  # 0.9, in the headline
        "Vision models.",
        "Other text entirely here.",
    ]
    result = index_of(texts).search("network ")
    scores = dict(zip(result.indices, result.scores, strict=True))
    assert scores[0] == pytest.approx(_bm25(texts, 2 + FORM_WEIGHT, 0, df=2, head=1), rel=1e-5)
    assert scores[1] == pytest.approx(
        _bm25(texts, FORM_WEIGHT, 1, df=2, head=FORM_WEIGHT), rel=1e-5
    )


def test_the_word_being_typed_ranks_above_its_other_forms() -> None:
    # `models` is both a completion of `model` and another form of it: it counts once.
    index = index_of(["Graph models here.", "Graph model here."])
    assert index.search("graph model").indices == [1, 0]


def test_an_abstract_without_the_words_near_each_other_keeps_its_words_scores() -> None:
    """The nearness bonus is added to the words' scores, never put in their place."""
    filler = " ".join(f"w{i}" for i in range(30))
    texts = [
        f"Kernels for graph data. {filler} Neural methods.",  # far apart: no bonus
        f"Graph neural methods. {filler}",  # adjacent
    ]
    index = index_of(texts)
    result = index.search("graph neural ")
    scores = dict(zip(result.indices, result.scores, strict=True))
    alone = [
        dict(zip(r.indices, r.scores, strict=True))[0]
        for r in map(index.search, ("graph ", "neural "))
    ]
    assert scores[0] == pytest.approx(sum(alone), rel=1e-5)


def test_full_matches_holding_a_common_word_too_come_first_without_any_nearness() -> None:
    """`graph model` where most abstracts say `model`: every abstract with `graph` is a
    full match, and those holding `model` too come first, whatever the scores, even
    when no two of the words are near each other."""
    filler = " ".join(f"w{i}" for i in range(30))
    texts = [f"A model of things {i}." for i in range(24)] + [
        "Graph graph graph.",  # 24: the rare word often, not the common one
        f"Graph things. {filler} A model.",  # 25: both, far apart
    ]
    assert hits(index_of(texts), "graph model ")[:2] == [25, 24]
