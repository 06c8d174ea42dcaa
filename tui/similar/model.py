"""TF-IDF vectors and cosine similarity: "more like this", "more like my bookmarks", duplicates.

Each abstract is a sparse vector of sublinear TF-IDF weights over its content
tokens (see `tui.similar.terms`), L2-normalised, so a dot product is a cosine.
Vectors are stored twice with plain NumPy arrays: by row (CSR, to read one
abstract's vector) and by term (CSC, an inverted index). Scoring one query
against the whole corpus gathers the postings of the query's terms and sums
them with `np.bincount`, which touches only abstracts sharing a term with it;
no SciPy needed. Near-duplicates are found once, when the model is built
(`tui.similar.duplicates`), and looked up after that. The model is only arrays
(and the terms as shown), so a cached one is used straight from its file
(`tui.similar.cache`, memory-mapped).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from tui.corpus.model import Abstract, Corpus, texts_held
from tui.progress import advance
from tui.search.parallel import workers_for
from tui.search.postings import run_positions
from tui.similar.duplicates import (
    DUPLICATE_COSINE,
    DUPLICATE_RATIO,
    Duplicates,
    FloatArray,
    ScoreArray,
    find_duplicates,
)
from tui.similar.terms import (
    IntArray,
    OffsetArray,
    TermMatrix,
    count_terms,
    pick_terms,
    summed_by,
)

__all__ = ["DUPLICATE_COSINE", "DUPLICATE_RATIO", "Postings", "ScoreArray", "SimilarityModel"]

# "More like my bookmarks" blends the centroid of the bookmarks (what they have
# in common) with the best single match (so one odd bookmark still counts).
CENTROID_WEIGHT = 0.5


@dataclass(frozen=True, slots=True)
class Postings:
    """The weights again, grouped by term.

    The rows containing term `t` are `rows[indptr[t]:indptr[t+1]]` (ascending).
    """

    indptr: OffsetArray
    rows: IntArray
    weights: FloatArray


# The share of the texts a forked helper tokenizes while this process counts the others
# (`SimilarityTexts.in_two`): tokenizing (and reading) is about 70% of counting a text, so
# the helper is done with 55% of them about when this process has counted the rest (100,000
# abstracts: 7.6 s to count and weigh, 5.8 s with a helper).
HELPED_SHARE = 0.55
# Rows weighed at once, and postings made at once (bound the memory of a build's temporaries).
_ROWS = 8192
_POSTINGS = 1 << 20


def _tfidf(terms: TermMatrix) -> FloatArray:
    """Sublinear TF times smoothed IDF, each row scaled to unit length (a block of rows
    at a time: each row's weights are summed in the same order either way)."""
    n = terms.n_docs
    df = terms.document_frequency()
    idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
    unit: FloatArray = np.empty(len(terms.indices), dtype=np.float32)
    for lo in range(0, n, _ROWS):
        hi = min(lo + _ROWS, n)
        start, end = terms.indptr[lo], terms.indptr[hi]
        counts = terms.counts[start:end].astype(np.float64)
        weights = (1.0 + np.log(counts)) * idf[terms.indices[start:end]]
        row_of = np.repeat(np.arange(hi - lo), np.diff(terms.indptr[lo : hi + 1]))
        norms = np.sqrt(np.bincount(row_of, weights=weights * weights, minlength=hi - lo))
        norms[norms == 0] = 1.0
        unit[start:end] = weights / norms[row_of]
    return unit


class SimilarityTexts(Sequence[str]):
    """What similarity compares of each abstract (`Abstract.similarity_text`), read when
    asked for: a corpus whose texts are stored elsewhere is not made to hold them all."""

    def __init__(self, abstracts: Sequence[Abstract]) -> None:
        self._abstracts = abstracts

    def __len__(self) -> int:
        return len(self._abstracts)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...
    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        if isinstance(i, slice):
            return [a.similarity_text for a in self._abstracts[i]]
        return self._abstracts[i].similarity_text

    def blocks(self, size: int = 1024, *, start: int = 0, stop: int | None = None) -> Iterator[str]:
        """Every text in order (from `start`, before `stop`), each block's read at once
        (see `texts_held`)."""
        end = len(self._abstracts) if stop is None else stop
        for lo in range(start, end, size):
            advance("similar.count", lo - start, end - start)
            block = self._abstracts[lo : min(lo + size, end)]
            with texts_held(block):
                texts = [a.similarity_text for a in block]
            yield from texts

    def in_two(
        self, fork_safe: bool = False
    ) -> tuple[Iterator[str], Callable[[], Iterator[str]] | None]:
        """Every text in order as `weigh` takes them: the first to count in this process,
        and the rest for a forked helper to tokenize meanwhile (`count_terms`) when two
        processes are worth it (`tui.search.parallel.workers_for`, which `fork_safe` is
        passed to); else every text in this process."""
        n = len(self)
        if workers_for(n, fork_safe) < 2:
            return self.blocks(), None
        cut = n - int(n * HELPED_SHARE)
        return self.blocks(stop=cut), lambda: self.blocks(start=cut)


def weigh(
    texts: Iterable[str], helped: Callable[[], Iterable[str]] | None = None
) -> tuple[TermMatrix, FloatArray]:
    """The terms of `texts` (then of `helped()`, tokenized by a forked helper: see
    `count_terms`) and their unit TF-IDF weights (entry for entry): all a model needs
    but its inverted index and near-duplicates, and all the topics need."""
    terms = count_terms(texts, helped)
    return terms, _tfidf(terms)


def posting_offsets(terms: TermMatrix) -> OffsetArray:
    """Where each term's postings start in the inverted index (`Postings.indptr`)."""
    indptr = np.zeros(terms.n_terms + 1, dtype=np.int64)
    np.cumsum(terms.document_frequency(), out=indptr[1:])
    return indptr


def posting_pieces(
    terms: TermMatrix, weights: FloatArray, indptr: OffsetArray
) -> Iterator[tuple[IntArray, FloatArray]]:
    """The inverted index's rows and weights (`Postings.rows`, `.weights`) in consecutive
    pieces of a few terms' postings each, so that it can be written out without ever
    being whole in memory. Each piece's entries are found in row order and sorted by
    term with a stable sort (a radix sort: a piece spans fewer than 65,536 terms), so
    rows stay ascending within a term."""
    cuts = np.searchsorted(indptr, np.arange(0, int(indptr[-1]), _POSTINGS), side="right") - 1
    cuts = np.union1d(np.r_[cuts, terms.n_terms], np.arange(0, terms.n_terms, 1 << 16))
    # Each entry's piece, found once (a byte or two an entry): then each piece's entries
    # are one comparison of small numbers away, not two of every term number.
    piece = np.empty(len(terms.indices), dtype=np.min_scalar_type(len(cuts)))
    for lo in range(0, len(piece), _POSTINGS):
        found = np.searchsorted(cuts, terms.indices[lo : lo + _POSTINGS], side="right")
        piece[lo : lo + _POSTINGS] = found - 1
    for number, low in enumerate(cuts[:-1].tolist()):
        at = np.flatnonzero(piece == number)
        rows = (np.searchsorted(terms.indptr, at, side="right") - 1).astype(np.int32)
        order = np.argsort((terms.indices[at] - low).astype(np.uint16), kind="stable")
        yield rows[order], weights[at[order]]


def _invert(terms: TermMatrix, weights: FloatArray) -> Postings:
    """Regroup the CSR weights by term (rows ascending within a term)."""
    indptr = posting_offsets(terms)
    pieces = list(posting_pieces(terms, weights, indptr))
    rows = np.concatenate([r for r, _ in pieces]) if pieces else np.zeros(0, np.int32)
    values = np.concatenate([w for _, w in pieces]) if pieces else np.zeros(0, np.float32)
    return Postings(indptr, rows, values)


@dataclass(slots=True)
class SimilarityModel:
    """Similarity between the abstracts of one corpus.

    Every index is a position in `corpus.abstracts`. `weights` are the unit TF-IDF
    rows of `terms` (entry for entry), `postings` the same by term.
    """

    terms: TermMatrix
    weights: FloatArray
    postings: Postings
    duplicates: Duplicates
    _document_frequency: IntArray = field(init=False)
    _mean: ScoreArray | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        n = self.terms.n_docs
        if not (
            len(self.weights) == len(self.terms.indices) == len(self.postings.rows)
            and len(self.postings.indptr) == self.terms.n_terms + 1
            and len(self.duplicates.indptr) == n + 1
        ):
            raise ValueError("the model's arrays disagree on their sizes")
        self._document_frequency = np.diff(self.postings.indptr).astype(np.int32)

    @classmethod
    def build(cls, corpus: Corpus) -> SimilarityModel:
        """Tokenize every abstract of `corpus`, weight the vectors, find the near-duplicates."""
        texts = SimilarityTexts(corpus.abstracts)
        terms, weights = weigh(*texts.in_two())
        return cls.assemble(terms, weights, find_duplicates(terms, weights, texts))

    @classmethod
    def from_texts(cls, texts: Sequence[str]) -> SimilarityModel:
        """The model of abstracts whose texts are `texts`, in order."""
        terms, weights = weigh(texts)
        return cls.assemble(terms, weights, find_duplicates(terms, weights, texts))

    @classmethod
    def assemble(
        cls, terms: TermMatrix, weights: FloatArray, duplicates: Duplicates
    ) -> SimilarityModel:
        """The model of `weigh`'s terms and weights and their near-duplicates
        (`tui.similar.duplicates.find_duplicates`): the inverted index is made here."""
        return cls(terms, weights, _invert(terms, weights), duplicates)

    def __len__(self) -> int:
        return self.terms.n_docs

    # -- scoring -------------------------------------------------------------

    def _row(self, i: int) -> tuple[IntArray, FloatArray]:
        start, end = self.terms.indptr[i], self.terms.indptr[i + 1]
        return self.terms.indices[start:end], self.weights[start:end]

    def _scores(
        self, terms: npt.NDArray[np.integer[Any]], weights: npt.NDArray[np.floating[Any]]
    ) -> ScoreArray:
        """Dot product of a sparse query vector with every abstract."""
        p = self.postings
        starts = p.indptr[terms]
        lengths = p.indptr[terms + 1] - starts
        total = int(lengths.sum())
        if total == 0:
            return np.zeros(len(self), dtype=np.float64)
        gather = run_positions(starts, lengths)  # all the query terms' postings
        values = p.weights[gather] * np.repeat(weights, lengths)
        summed = np.bincount(p.rows[gather], weights=values, minlength=len(self))
        return np.asarray(summed, dtype=np.float64)

    def vector(self, i: int) -> tuple[IntArray, FloatArray]:
        """Abstract `i`'s unit vector: its term ids (ascending) and their weights."""
        return self._row(i)

    def dot(
        self, terms: npt.NDArray[np.integer[Any]], weights: npt.NDArray[np.floating[Any]]
    ) -> ScoreArray:
        """Dot product of a sparse vector (distinct term ids and their weights) with every
        abstract; only the abstracts sharing a term with it are touched."""
        return self._scores(terms, weights)

    def mean_direction(self) -> ScoreArray:
        """The mean of all the abstracts' vectors scaled to unit length, dense over the
        terms (computed once): which way the average abstract of this corpus points."""
        if self._mean is None:
            total = summed_by(self.terms.indices, self.terms.n_terms, self.weights)
            mean = np.asarray(total, dtype=np.float64)
            norm = float(np.sqrt(np.sum(mean * mean)))
            self._mean = mean / norm if norm > 0 else mean
        return self._mean

    def scores(self, i: int) -> ScoreArray:
        """Cosine similarity of abstract `i` with every abstract (itself included, about 1.0)."""
        terms, weights = self._row(i)
        return self._scores(terms, weights)

    # -- near-duplicates -------------------------------------------------------

    def is_near_duplicate(self, i: int, j: int, cosine: float | None = None) -> bool:
        """Whether `j` is `i` lightly reworded (a high cosine, confirmed by rapidfuzz when
        the model was built); a known `cosine` below the threshold answers at once."""
        if i == j or (cosine is not None and cosine < DUPLICATE_COSINE):
            return False
        return self.duplicates.contains(i, j)

    def near_duplicates(self, i: int) -> list[tuple[int, float]]:
        """Other abstracts that are `i` lightly reworded, as (index, cosine), best first
        (found when the model was built: a look-up)."""
        return self.duplicates.of(i)

    # -- rankings --------------------------------------------------------------

    def similar(
        self, i: int, k: int = 10, *, include_duplicates: bool = False
    ) -> list[tuple[int, float]]:
        """The `k` abstracts most similar to `i`, as (index, cosine), best first.

        `i` itself never appears; its near-duplicates are left out too (they are
        reported by `near_duplicates`) unless `include_duplicates`. Only
        abstracts sharing at least one content word (cosine > 0) are returned.
        """
        scores = self.scores(i)
        scores[i] = -1.0
        if not include_duplicates:
            start, end = self.duplicates.indptr[i], self.duplicates.indptr[i + 1]
            scores[self.duplicates.rows[start:end]] = -1.0
        return _top(scores, k)

    def like(
        self, seeds: Sequence[int], candidates: Sequence[int] | None = None, k: int = 10
    ) -> list[tuple[int, float]]:
        """Rank `candidates` (default: every abstract) by similarity to the `seeds`, best first.

        The score is an even blend of the cosine with the seeds' centroid and
        the best cosine with any one seed. Seeds themselves and near-duplicates
        of a seed are never recommended. Returns (index, score) pairs.
        """
        seed_list = sorted({s for s in seeds if 0 <= s < len(self)})
        if not seed_list or k <= 0:
            return []
        per_seed = np.empty((len(seed_list), len(self)), dtype=np.float64)
        for row, s in enumerate(seed_list):
            per_seed[row] = self.scores(s)
        best = per_seed.max(axis=0)
        centroid = per_seed.mean(axis=0) / self._centroid_norm(seed_list)
        combined = CENTROID_WEIGHT * centroid + (1.0 - CENTROID_WEIGHT) * best

        allowed = np.zeros(len(self), dtype=bool)
        if candidates is None:
            allowed[:] = True
        else:
            picked = np.asarray([c for c in candidates if 0 <= c < len(self)], dtype=np.int64)
            allowed[picked] = True
        allowed[seed_list] = False
        for j in np.flatnonzero(allowed & (best >= DUPLICATE_COSINE)):
            closest = seed_list[int(per_seed[:, j].argmax())]
            if self.is_near_duplicate(closest, int(j), float(best[j])):
                allowed[j] = False
        combined[~allowed] = -1.0
        return _top(combined, k)

    def _centroid_norm(self, seeds: Sequence[int]) -> float:
        """Length of the mean of the seed vectors (below 1 when the seeds point different ways)."""
        dense = np.zeros(self.terms.n_terms, dtype=np.float64)
        for s in seeds:
            terms, weights = self._row(s)
            dense[terms] += weights
        norm = float(np.linalg.norm(dense)) / len(seeds)
        return norm if norm > 0 else 1.0

    def shared_terms(self, i: int, j: int, top: int = 5) -> list[str]:
        """The terms contributing most to the similarity of `i` and `j` (to explain a match),
        one per meaning (see `tui.similar.terms.pick_terms`)."""
        ti, wi = self._row(i)
        tj, wj = self._row(j)
        common, at_i, at_j = np.intersect1d(ti, tj, assume_unique=True, return_indices=True)
        contribution = wi[at_i] * wj[at_j]
        order = np.argsort(-contribution, kind="stable")
        ranked = (int(common[o]) for o in order)
        return pick_terms(self.terms, ranked, top, self._document_frequency)


def _top(scores: ScoreArray, k: int) -> list[tuple[int, float]]:
    """The `k` best positive scores as (index, score), best first, ties by index."""
    if k <= 0:
        return []
    positive = np.flatnonzero(scores > 1e-9)
    if len(positive) > k:
        part = np.argpartition(-scores[positive], k - 1)[:k]
        positive = positive[part]
    ranked = sorted(positive.tolist(), key=lambda j: (-scores[j], j))
    return [(j, float(scores[j])) for j in ranked]
