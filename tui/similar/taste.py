"""Ranking by taste: the abstracts most like the ones the user liked and unlike the
ones dismissed, each with why ("because" the liked abstract it is closest to, and
the terms they share).

One entry point, `rank`, used by `M`, the feed view and `abstracts feed`, so the app
and the command line always agree.

How a ranking is made (bench/taste.py measures it against a linear SVM and a
TF-IDF centroid on simulated readers), over the model's unit TF-IDF vectors of
stems and two-word phrases:

1. The reader's profile is the *consensus* of the liked abstracts: each term
   weighs its mean weight over them times the share of them using it, so what the
   bookmarks have in common counts and what one of them happens to say hardly
   does (a plain centroid lets every odd bookmark pull the ranking its way).
2. Less the corpus's average abstract (Rocchio's negative feedback, with the whole
   corpus standing for "not my topic": any one topic is a small part of it), on the
   profile's own terms and never below zero, so the words every abstract uses
   ("model", "learning") weigh little.
3. Less the consensus of the dismissed abstracts (Rocchio again, with real negatives).
4. Pseudo-relevance feedback: the best abstracts of that first ranking join the
   profile at half the weight of the likes, bringing in the topic's words the
   bookmarks happened not to use.
5. Each candidate's score is its cosine with the profile (its strongest terms),
   less half of what its best cosine with any dismissed abstract has over chance
   (0.1), so a dismissed abstract's near neighbours sink however many others were
   dismissed.

Liked and dismissed abstracts, and near-duplicates of a liked one, are never
recommended. Every step is sparse NumPy over the inverted index; a ranking touches
only the abstracts sharing a term with the profile, and the cosines with likes and
dismissals are computed for the few best candidates only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.search.postings import run_positions
from tui.similar.model import DUPLICATE_COSINE, ScoreArray, SimilarityModel

# Rocchio's usual weight for negative feedback (a quarter of the positive's):
# the corpus's average abstract, then the dismissed abstracts.
BACKGROUND_WEIGHT = 0.25
UNLIKE_WEIGHT = 0.25
# Pseudo-relevance feedback, as commonly used: the 10 best abstracts of the first
# ranking, at half the weight of the likes.
FEEDBACK_DOCS = 10
FEEDBACK_WEIGHT = 0.5
# Candidates examined at first (then twice as many each time, see `_pick`).
FIRST_BATCH = 32
# How much a candidate's cosine with its closest dismissed abstract pulls it down,
# past the cosine of chance: unrelated ICLR abstracts stay below 0.1 (99 in 100
# random pairs), about where an abstract's tenth nearest neighbour lies.
NEAR_UNLIKE_WEIGHT = 0.5
NEAR_COSINE = 0.1

# Only the profile's strongest terms are looked up: past a few hundred its weight is
# spread thin over words single bookmarks use (bench/taste.py: P@20 within 0.005 of
# the full profile, and a third faster at 100,000 abstracts).
QUERY_TERMS = 400

Ids = npt.NDArray[np.int64]
# A sparse vector over the terms: distinct term ids and their weights.
Sparse = tuple[Ids, ScoreArray]


@dataclass(frozen=True, slots=True)
class Recommendation:
    """One ranked abstract: its index, its score (higher is better), the index of the
    liked abstract it is closest to, and the terms they share."""

    index: int
    score: float
    because: int
    shared: tuple[str, ...]


def rank(
    model: SimilarityModel,
    likes: Sequence[int],
    unlikes: Sequence[int] = (),
    candidates: Sequence[int] | None = None,
    k: int = 20,
) -> list[Recommendation]:
    """The `k` best `candidates` (default: every abstract) for a reader who liked
    `likes` and dismissed `unlikes`, best first. Liked and dismissed abstracts are
    never recommended; no likes, no recommendations. Deterministic: ties go to the
    lower index."""
    n = len(model)
    like_list = sorted({i for i in likes if 0 <= i < n})
    unlike_list = sorted({i for i in unlikes if 0 <= i < n} - set(like_list))
    if not like_list or k <= 0:
        return []
    allowed = np.zeros(n, dtype=bool)
    if candidates is None:
        allowed[:] = True
    else:
        picked = np.asarray(candidates, dtype=np.int64).reshape(-1)
        allowed[picked[(picked >= 0) & (picked < n)]] = True
    allowed[like_list + unlike_list] = False

    query = _profile(model, like_list)
    if unlike_list:
        query = _add(query, _unit(_consensus(model, unlike_list)), -UNLIKE_WEIGHT)
    feedback = _best(model.dot(*_strongest(query)), allowed, FEEDBACK_DOCS)
    if feedback:
        query = _add(_unit(query), _profile(model, feedback), FEEDBACK_WEIGHT)
    scores = model.dot(*_unit(_strongest(query)))
    return _pick(model, scores, allowed, like_list, unlike_list, k)


# -- sparse vectors -------------------------------------------------------------


def _stack(model: SimilarityModel, rows: Sequence[int]) -> tuple[Ids, ScoreArray, Ids]:
    """The vectors of `rows` end to end: term ids, weights, and the position in `rows`
    each entry comes from."""
    parts = [model.vector(i) for i in rows]
    terms = np.concatenate([t for t, _ in parts]).astype(np.int64)
    weights = np.concatenate([w for _, w in parts]).astype(np.float64)
    owner = np.repeat(np.arange(len(rows), dtype=np.int64), [len(t) for t, _ in parts])
    return terms, weights, owner


def _consensus(model: SimilarityModel, rows: Sequence[int]) -> Sparse:
    """Each term's mean weight over `rows` times the share of `rows` using it."""
    terms, weights, _ = _stack(model, rows)
    ids, inverse, used = np.unique(terms, return_inverse=True, return_counts=True)
    total = np.bincount(inverse.reshape(-1), weights=weights, minlength=len(ids))
    share = used / len(rows)
    return ids, total / len(rows) * share


def _profile(model: SimilarityModel, rows: Sequence[int]) -> Sparse:
    """The consensus of `rows` less the corpus's average abstract (on the consensus's
    terms, never below zero), unit length."""
    ids, weights = _unit(_consensus(model, rows))
    weights = np.maximum(weights - BACKGROUND_WEIGHT * model.mean_direction()[ids], 0.0)
    keep = weights > 0
    return _unit((ids[keep], weights[keep]))


def _strongest(vector: Sparse) -> Sparse:
    """The `QUERY_TERMS` terms of `vector` with the largest weights (by size; ties to
    the lower term id)."""
    ids, weights = vector
    if len(ids) <= QUERY_TERMS:
        return vector
    keep = np.sort(np.lexsort((ids, -np.abs(weights)))[:QUERY_TERMS])
    return ids[keep], weights[keep]


def _unit(vector: Sparse) -> Sparse:
    ids, weights = vector
    norm = float(np.linalg.norm(weights))
    return (ids, weights / norm) if norm > 0 else vector


def _add(a: Sparse, b: Sparse, scale: float) -> Sparse:
    """a + scale * b."""
    ids, inverse = np.unique(np.concatenate([a[0], b[0]]), return_inverse=True)
    summed = np.bincount(
        inverse.reshape(-1), weights=np.concatenate([a[1], scale * b[1]]), minlength=len(ids)
    )
    return ids, np.asarray(summed, dtype=np.float64)


def _dots(model: SimilarityModel, rows: Sequence[int], others: Sequence[int]) -> ScoreArray:
    """Cosines of each of `rows` (one per line) with each of `others` (one per column):
    every entry of `rows` is joined to the entries of `others` with the same term."""
    out = np.zeros(len(rows) * len(others), dtype=np.float64)
    if len(rows) and len(others):
        terms, weights, owner = _stack(model, rows)
        other_terms, other_weights, other_owner = _stack(model, others)
        by_term = np.argsort(other_terms, kind="stable")
        sorted_terms = other_terms[by_term]
        first = np.searchsorted(sorted_terms, terms, side="left")
        count = np.searchsorted(sorted_terms, terms, side="right") - first
        match = by_term[run_positions(first, count)]
        entry = np.repeat(np.arange(len(terms)), count)
        cell = owner[entry] * len(others) + other_owner[match]
        values = weights[entry] * other_weights[match]
        out = np.bincount(cell, weights=values, minlength=len(out)).astype(np.float64)
    return out.reshape(len(rows), len(others))


# -- choosing --------------------------------------------------------------------


def _ordered(scores: ScoreArray, allowed: npt.NDArray[np.bool_]) -> Ids:
    """The allowed abstracts with a positive score, best first, ties by index."""
    found = np.flatnonzero(allowed & (scores > 1e-9))
    ordered: Ids = found[np.lexsort((found, -scores[found]))]
    return ordered


def _best(scores: ScoreArray, allowed: npt.NDArray[np.bool_], k: int) -> list[int]:
    """The `k` best allowed abstracts with a positive score."""
    found = np.flatnonzero(allowed & (scores > 1e-9))
    if len(found) > k:
        found = found[np.argpartition(-scores[found], k - 1)[:k]]
    return sorted(found.tolist(), key=lambda j: (-scores[j], j))


def _pick(
    model: SimilarityModel,
    scores: ScoreArray,
    allowed: npt.NDArray[np.bool_],
    likes: list[int],
    unlikes: list[int],
    k: int,
) -> list[Recommendation]:
    """The `k` best candidates once near-duplicates of a like are left out and the
    neighbours of dismissed abstracts pulled down, each with the like it is closest to.

    Both only ever lower a candidate, so candidates are examined best first, in
    growing batches, until `k` of them beat everything not yet examined.
    """
    order = _ordered(scores, allowed)
    kept: list[tuple[float, int, int]] = []  # (score, index, closest like)
    start, size = 0, max(k, FIRST_BATCH)
    while start < len(order):
        batch = order[start : start + size].tolist()
        start, size = start + size, size * 2
        near = _dots(model, batch, likes)
        closest = near.argmax(axis=1)
        penalty = np.zeros(len(batch))
        if unlikes:
            penalty = np.maximum(_dots(model, batch, unlikes).max(axis=1) - NEAR_COSINE, 0.0)
        for line, j in enumerate(batch):
            like = likes[int(closest[line])]
            cosine = float(near[line, closest[line]])
            if cosine >= DUPLICATE_COSINE and model.is_near_duplicate(like, j, cosine):
                continue
            kept.append((float(scores[j]) - NEAR_UNLIKE_WEIGHT * float(penalty[line]), j, like))
        kept.sort(key=lambda item: (-item[0], item[1]))
        del kept[k:]
        if len(kept) == k and start < len(order) and kept[-1][0] > scores[order[start]]:
            break
    return [
        Recommendation(j, score, like, tuple(model.shared_terms(like, j)))
        for score, j, like in kept
    ]
