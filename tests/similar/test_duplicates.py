"""Near-duplicates found once at build time are exactly those a scan of every abstract
finds, and the rankings that leave them out are unchanged."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from tests.similar.fixtures import TEXTS, make_corpus
from tui.similar import SimilarityModel
from tui.similar import duplicates as duplicates_module
from tui.similar.duplicates import (
    DUPLICATE_COSINE,
    close_pairs,
    comparison_key,
    is_reworded,
)
from tui.similar.model import CENTROID_WEIGHT, _top


def _reworded(text: str, rng: random.Random) -> str:
    """`text` lightly edited: a word dropped, one swapped, a word added."""
    words = text.split()
    del words[rng.randrange(len(words))]
    i = rng.randrange(len(words) - 1)
    words[i], words[i + 1] = words[i + 1], words[i]
    words.insert(rng.randrange(len(words)), rng.choice(["novel", "simple", "robust"]))
    return " ".join(words)


def _texts(n: int, seed: int = 3) -> list[str]:
    """Abstracts recombined from the fixture's sentences (many share a sentence or
    two), and some of them lightly reworded (near-duplicates)."""
    rng = random.Random(seed)
    sentences = [s.strip() for t in TEXTS for s in t.split(". ") if len(s) > 20]
    texts = [". ".join(rng.sample(sentences, rng.randint(2, 5))) + f". Case {k}." for k in range(n)]
    texts += [_reworded(texts[rng.randrange(n)], rng) for _ in range(n // 5)]
    return list(dict.fromkeys(texts))


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return _texts(120)


@pytest.fixture(scope="module")
def model(texts: list[str]) -> SimilarityModel:
    return SimilarityModel.from_texts(texts)


def _scanned_duplicates(
    model: SimilarityModel, texts: list[str], i: int
) -> list[tuple[int, float]]:
    """Near-duplicates the way they were found on each call: a cosine with every
    abstract, then the character ratio of those above the threshold."""
    scores = model.scores(i)
    found = [
        (int(j), float(scores[j]))
        for j in np.flatnonzero(scores >= DUPLICATE_COSINE)
        if j != i and is_reworded(comparison_key(texts[i]), comparison_key(texts[int(j)]))
    ]
    return sorted(found, key=lambda pair: (-pair[1], pair[0]))


def test_near_duplicates_are_those_a_scan_of_every_abstract_finds(
    model: SimilarityModel, texts: list[str]
) -> None:
    scanned = [_scanned_duplicates(model, texts, i) for i in range(len(texts))]
    assert sum(map(len, scanned)) >= 10  # the fixture has near-duplicates to find
    assert [model.near_duplicates(i) for i in range(len(texts))] == scanned


@pytest.mark.parametrize("threshold", [0.2, 0.4, 0.6, 0.8])
def test_close_pairs_are_every_pair_a_scan_finds_with_the_same_cosine(
    model: SimilarityModel, threshold: float
) -> None:
    scanned = {}
    for i in range(len(model)):
        scores = model.scores(i)
        for j in np.flatnonzero(scores >= threshold):
            if j > i:
                scanned[(i, int(j))] = float(scores[j])
    left, right, cosine = close_pairs(model.terms, model.weights, threshold)
    found = dict(zip(zip(left.tolist(), right.tolist(), strict=True), cosine.tolist(), strict=True))
    assert scanned  # something to find at every threshold
    assert found == scanned  # the same pairs, and bit for bit the same cosines


def test_near_duplicates_are_looked_up_not_scanned(
    model: SimilarityModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = [model.near_duplicates(i) for i in range(len(model))]

    def no_scan(*_args: object) -> None:
        raise AssertionError("scored every abstract to find near-duplicates")

    monkeypatch.setattr(SimilarityModel, "scores", no_scan)
    monkeypatch.setattr(SimilarityModel, "_scores", no_scan)
    assert [model.near_duplicates(i) for i in range(len(model))] == expected


def test_similar_ranks_as_a_scan_that_leaves_out_near_duplicates(
    model: SimilarityModel, texts: list[str]
) -> None:
    for i in range(len(model)):
        scores = model.scores(i)
        scores[i] = -1.0
        for j, _ in _scanned_duplicates(model, texts, i):
            scores[j] = -1.0
        assert model.similar(i, k=8) == _top(scores, 8)


def test_like_ranks_as_a_scan_that_checks_each_close_candidate(
    model: SimilarityModel, texts: list[str]
) -> None:
    rng = random.Random(7)
    for _ in range(20):
        seeds = sorted(rng.sample(range(len(model)), rng.randint(1, 4)))
        per_seed = np.stack([model.scores(s) for s in seeds])
        best = per_seed.max(axis=0)
        centroid = per_seed.mean(axis=0) / model._centroid_norm(seeds)
        combined = CENTROID_WEIGHT * centroid + (1.0 - CENTROID_WEIGHT) * best
        allowed = np.ones(len(model), dtype=bool)
        allowed[seeds] = False
        for j in np.flatnonzero(allowed & (best >= DUPLICATE_COSINE)):
            closest = seeds[int(per_seed[:, j].argmax())]
            if is_reworded(comparison_key(texts[closest]), comparison_key(texts[int(j)])):
                allowed[j] = False
        combined[~allowed] = -1.0
        assert model.like(seeds, None, 10) == _top(combined, 10)


def test_a_corpus_without_shared_words_has_no_near_duplicates() -> None:
    model = SimilarityModel.build(make_corpus(["Zebras gallop.", "Quantum chromodynamics."]))
    assert model.near_duplicates(0) == model.near_duplicates(1) == []


def test_pairs_found_a_few_rows_at_a_time_are_those_found_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = SimilarityModel.from_texts(_texts(80))
    expected = close_pairs(model.terms, model.weights, DUPLICATE_COSINE)
    assert len(expected[0])
    monkeypatch.setattr(duplicates_module, "_PREFIX_ROWS", 3)
    monkeypatch.setattr(duplicates_module, "_CHUNK", 5)
    found = close_pairs(model.terms, model.weights, DUPLICATE_COSINE)
    for a, b in zip(found, expected, strict=True):
        assert a.tolist() == b.tolist()


@pytest.mark.parametrize("helper_fails", [False, True])
def test_pairs_a_helper_searched_in_the_later_rows_are_those_found_in_one_process(
    monkeypatch: pytest.MonkeyPatch, helper_fails: bool
) -> None:
    model = SimilarityModel.from_texts(_texts(80))
    monkeypatch.setattr(duplicates_module, "_CHUNK", 5)  # many spans of rows to share out
    expected = close_pairs(model.terms, model.weights, DUPLICATE_COSINE)
    assert len(expected[0]) >= 4
    monkeypatch.setattr(duplicates_module, "workers_for", lambda n, fork_safe=False: 2)
    made: list[int] = []
    real_close_in = duplicates_module._close_in

    def close_in(*args: object) -> object:
        made.append(os.getpid())
        return real_close_in(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(duplicates_module, "_close_in", close_in)
    if helper_fails:

        def fail(out: object, pairs: object) -> None:
            raise RuntimeError("the helper fails")

        monkeypatch.setattr(duplicates_module, "_send_pairs", fail)
    found = close_pairs(model.terms, model.weights, DUPLICATE_COSINE, fork_safe=True)
    for a, b in zip(found, expected, strict=True):
        assert a.dtype == b.dtype
        assert a.tolist() == b.tolist()
    # The later spans' pairs were searched by the helper (here only when it failed).
    assert made == [os.getpid()] * (2 if helper_fails else 1)
    # Some of the pairs are in either share.
    pairing = duplicates_module._Pairing.make(
        model.terms, duplicates_module._prefixes(model.terms, model.weights, DUPLICATE_COSINE)
    )
    assert len(pairing.ends) > 2


@pytest.mark.parametrize("threshold", [0.3, 0.8])
def test_second_filter_is_the_cosine_over_either_prefix_plus_the_suffix_norms(
    model: SimilarityModel, threshold: float
) -> None:
    terms, weights = model.terms, model.weights
    prefixes = duplicates_module._prefixes(terms, weights, threshold)
    pairing = duplicates_module._Pairing.make(terms, prefixes)
    left, right, both = duplicates_module._candidates(terms, weights, pairing, threshold)
    assert len(left) >= 20  # pairs to bound, their prefixes ending at different ranks
    assert np.any(prefixes.end[left] < prefixes.end[right])
    assert np.any(prefixes.end[left] > prefixes.end[right])
    bound = duplicates_module._bound(terms, weights, prefixes, left, right, both)
    # Every row dense, with a mask of its prefix terms.
    dense = np.zeros((terms.n_docs, terms.n_terms))
    rows = np.repeat(np.arange(terms.n_docs), np.diff(terms.indptr))
    dense[rows, terms.indices] = weights
    in_prefix = np.zeros_like(dense, dtype=bool)
    owners = np.repeat(np.arange(terms.n_docs), np.diff(prefixes.ptr))
    in_prefix[owners, terms.indices[prefixes.positions]] = True
    suffix = np.sqrt((np.where(in_prefix, 0.0, dense) ** 2).sum(axis=1))
    products = dense[left] * dense[right]
    either = in_prefix[left] | in_prefix[right]
    expected = np.where(either, products, 0.0).sum(axis=1) + suffix[left] * suffix[right]
    np.testing.assert_allclose(bound, expected, rtol=0, atol=1e-6)  # float32 products
    assert np.all(bound >= products.sum(axis=1) - 1e-6)  # never below a pair's cosine
