"""Near-duplicates of every abstract, found once when the similarity model is built.

A near-duplicate is another abstract lightly reworded: a cosine of at least
`DUPLICATE_COSINE` between their TF-IDF vectors, confirmed by a character-level
ratio (rapidfuzz) of at least `DUPLICATE_RATIO` between their folded words.
Asking each abstract's cosine with every other one takes a pass over the
postings of all its terms; done for every abstract that is hours at 100,000, so
the pairs are found the way all-pairs similarity search does (Bayardo et al.,
"Scaling up all pairs similarity search", 2007):

Terms are put in one order, rarest first. An abstract's *prefix* is its terms in
that order up to where the weight left (the L2 norm of its remaining terms) drops
below the threshold. Two unit vectors whose prefixes share no term cannot reach
the threshold: every term they share lies past the earlier of the two prefix
ends, so their dot product is at most the norm left after it. Prefixes hold a
sixth of the terms, the rarest, so few pairs share one; only those pairs get an
exact cosine, computed as `SimilarityModel.scores` computes it (float32 products
summed in term order), so the cosines are the very numbers a scan gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz

from tui.corpus.tokens import tokenize
from tui.search.postings import run_positions
from tui.similar.terms import IntArray, OffsetArray, TermMatrix

FloatArray = npt.NDArray[np.float32]
ScoreArray = npt.NDArray[np.float64]

# Calibrated on the ICLR corpus (bench/similar.py --calibrate): its five
# lightly reworded pairs have cosine >= 0.92 and a character-level ratio >= 93,
# while the closest distinct papers stay at cosine <= 0.58 and ratio <= 58.
# Both thresholds sit in the middle of that gap.
DUPLICATE_COSINE = 0.8
DUPLICATE_RATIO = 70.0

# Prefixes are cut a little later than the threshold says, so a pair whose float
# cosine rounds up to the threshold is still examined.
_SLACK = 1e-3
# Pairs of prefix entries generated at once (bounds the memory of the search).
_CHUNK = 1 << 22
# Abstracts whose candidates are checked together (one small dense block of weights).
_ROW_BLOCK = 256


@dataclass(frozen=True, slots=True)
class Duplicates:
    """Each abstract's near-duplicates: abstract `i`'s are `rows[indptr[i]:indptr[i+1]]`
    with their cosines, best first (ties: lower index first)."""

    indptr: OffsetArray
    rows: IntArray
    cosines: ScoreArray

    def of(self, i: int) -> list[tuple[int, float]]:
        """Abstract `i`'s near-duplicates as (index, cosine), best first."""
        start, end = int(self.indptr[i]), int(self.indptr[i + 1])
        return list(
            zip(self.rows[start:end].tolist(), self.cosines[start:end].tolist(), strict=True)
        )

    def contains(self, i: int, j: int) -> bool:
        """Whether `j` is a near-duplicate of `i`."""
        start, end = int(self.indptr[i]), int(self.indptr[i + 1])
        return bool(np.any(self.rows[start:end] == j))


def comparison_key(text: str) -> str:
    """Text compared by characters: folded words, so markup and case do not count."""
    return " ".join(tokenize(text))


def is_reworded(a: str, b: str) -> bool:
    """Whether comparison keys `a` and `b` are one text lightly reworded (rapidfuzz ratio)."""
    return bool(fuzz.ratio(a, b, score_cutoff=DUPLICATE_RATIO) >= DUPLICATE_RATIO)


def find_duplicates(terms: TermMatrix, weights: FloatArray, texts: Sequence[str]) -> Duplicates:
    """The near-duplicates of every abstract (`weights`: the unit TF-IDF rows of `terms`;
    `texts`: what each abstract's words were counted from)."""
    left, right, cosine = close_pairs(terms, weights, DUPLICATE_COSINE)
    keys: dict[int, str] = {}

    def key(i: int) -> str:
        found = keys.get(i)
        if found is None:
            found = keys[i] = comparison_key(texts[i])
        return found

    confirmed = np.fromiter(
        (is_reworded(key(i), key(j)) for i, j in zip(left.tolist(), right.tolist(), strict=True)),
        dtype=np.bool_,
        count=len(left),
    )
    left, right, cosine = left[confirmed], right[confirmed], cosine[confirmed]
    # Both ways round, each abstract's best first.
    rows = np.concatenate([left, right])
    others = np.concatenate([right, left])
    cosines = np.concatenate([cosine, cosine])
    order = np.lexsort((others, -cosines, rows))
    indptr = np.zeros(terms.n_docs + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=terms.n_docs), out=indptr[1:])
    return Duplicates(indptr, others[order].astype(np.int32), cosines[order])


def close_pairs(
    terms: TermMatrix, weights: FloatArray, threshold: float
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], ScoreArray]:
    """Every pair of abstracts (i < j) whose cosine is at least `threshold`, with it."""
    candidates = _candidates(terms, weights, threshold)
    left, right = candidates // max(terms.n_docs, 1), candidates % max(terms.n_docs, 1)
    cosine = _cosines(terms, weights, left, right)
    close = cosine >= threshold
    return left[close], right[close], cosine[close]


def _candidates(terms: TermMatrix, weights: FloatArray, threshold: float) -> npt.NDArray[np.int64]:
    """The pairs (as i * n + j, i < j, ascending) whose prefixes share a term."""
    n, n_terms = terms.n_docs, terms.n_terms
    row_of = np.repeat(np.arange(n, dtype=np.int64), np.diff(terms.indptr))
    df = np.bincount(terms.indices, minlength=n_terms)
    rank = np.empty(n_terms, dtype=np.int64)
    rank[np.lexsort((np.arange(n_terms), df))] = np.arange(n_terms)
    # Each row's entries rarest first; what is left of its squared norm from each on.
    order = np.argsort(row_of * n_terms + rank[terms.indices])
    squares = weights[order].astype(np.float64) ** 2
    left = np.cumsum(squares[::-1])[::-1]
    ends = np.r_[left, 0.0][terms.indptr[1:]]
    left -= np.repeat(ends, np.diff(terms.indptr))
    prefix = order[left >= (threshold - _SLACK) ** 2]
    del order, squares, left
    # Prefix entries by term, rows ascending within a term: each pairs with those after it.
    entries = prefix[np.argsort(terms.indices[prefix], kind="stable")]
    owner = row_of[entries]
    del row_of, prefix
    term = terms.indices[entries]
    group_end = np.r_[np.flatnonzero(np.diff(term)) + 1, len(term)]
    after = np.repeat(group_end, np.diff(np.r_[0, group_end])) - np.arange(len(term)) - 1
    found: list[npt.NDArray[np.int64]] = []
    start = 0
    total = np.cumsum(after)
    while start < len(term):
        stop = max(
            int(np.searchsorted(total, (total[start - 1] if start else 0) + _CHUNK)), start + 1
        )
        firsts = np.arange(start, stop)
        count = after[start:stop]
        partner = run_positions(firsts + 1, count)
        codes = np.repeat(owner[firsts], count) * n + owner[partner]
        found.append(np.unique(codes))
        start = stop
    if not found:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.concatenate(found))


def _cosines(
    terms: TermMatrix,
    weights: FloatArray,
    left: npt.NDArray[np.int64],
    right: npt.NDArray[np.int64],
) -> ScoreArray:
    """The cosine of each pair (`left` ascending), summed as `SimilarityModel.scores`
    sums it: float32 products in ascending term order, added up in float64."""
    out = np.zeros(len(left), dtype=np.float64)
    column = np.full(terms.n_terms, -1, dtype=np.int64)
    bounds = np.searchsorted(left, np.arange(0, terms.n_docs + _ROW_BLOCK, _ROW_BLOCK))
    for block, (lo, hi) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)):
        if lo == hi:
            continue
        first = block * _ROW_BLOCK
        rows = np.arange(first, min(first + _ROW_BLOCK, terms.n_docs))
        start, stop = terms.indptr[rows[0]], terms.indptr[rows[-1] + 1]
        used = np.unique(terms.indices[start:stop])
        column[used] = np.arange(len(used))
        dense = np.zeros((len(rows), len(used)), dtype=np.float32)
        owner = np.repeat(rows - first, np.diff(terms.indptr[rows[0] : rows[-1] + 2]))
        dense[owner, column[terms.indices[start:stop]]] = weights[start:stop]
        others = right[lo:hi]
        starts = terms.indptr[others]
        lengths = terms.indptr[others + 1] - starts
        gather = run_positions(starts, lengths)
        pair = np.repeat(np.arange(hi - lo), lengths)
        col = column[terms.indices[gather]]
        shared = col >= 0
        products = dense[(left[lo:hi] - first)[pair[shared]], col[shared]] * weights[gather[shared]]
        out[lo:hi] = np.bincount(pair[shared], weights=products, minlength=hi - lo)
        column[used] = -1
    return out
