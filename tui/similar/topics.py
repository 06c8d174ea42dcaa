"""Topics of a corpus: spherical k-means over the similarity model's TF-IDF vectors.

The abstracts are grouped into `topic_count(n)` topics by spherical k-means
(cosine k-means: unit vectors, centroids renormalised each round) over the
sublinear TF-IDF vectors "more like this" already has (`SimilarityModel.weights`
over `TermMatrix` terms: stems and two-word phrases). The clustering is seeded
(k-means++ with a fixed seed), so the same corpus always gives the same topics;
they are numbered by size, 1 the largest. Only terms shared by at least two
abstracts take part (a term of one abstract cannot pull two together), at most
`MAX_FEATURES` of them (the most widespread); on big corpora the centroids are
fitted on a seeded sample of `FIT_SAMPLE` abstracts and every abstract then goes
to its closest centroid.

Terms in more than `COMMON_SHARE` of the abstracts ("propose", "model",
"learning") are the corpus's vocabulary, not a topic's, and do not take part
either. Each topic is labelled by `tui.similar.labels.label_groups`.

k = round(sqrt(n)) within 2..40: the square root is the classic rule of thumb
for k (76 abstracts: 9 topics; 1,600 and more: 40), and 40 is about as many
rows as a reader takes in as one map (two screens at 80x24); beyond that, topics
split into near-duplicates rather than new subjects.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.progress import advance
from tui.search.blocks import release_memory
from tui.search.postings import run_positions
from tui.similar.labels import label_groups
from tui.similar.terms import TermMatrix

FloatArray = npt.NDArray[np.float32]
LabelArray = npt.NDArray[np.int32]

# A term in more than this share of the abstracts places no abstract in a topic
# (scikit-learn's usual max_df): "propose", "model", "learning".
COMMON_SHARE = 0.5
MIN_TOPICS = 2
MAX_TOPICS = 40
SEED = 0
MAX_ROUNDS = 20
# Rounds stop once fewer than this share of the abstracts change topic.
SETTLED_SHARE = 0.002
FIT_SAMPLE = 20_000
MAX_FEATURES = 65_536
# Rows and padded entries per block of the similarity computation (bound its memory).
_BLOCK_ROWS = 512
_BLOCK_ENTRIES = 1 << 16
# Rows made into feature vectors at once (bounds the memory of their temporaries).
_VECTOR_ROWS = 8192


def topic_count(n_docs: int) -> int:
    """How many topics for `n_docs` abstracts: round(sqrt(n)) within 2..40 (never more than n)."""
    if n_docs <= 1:
        return max(n_docs, 0)
    return min(n_docs, max(MIN_TOPICS, min(MAX_TOPICS, round(math.sqrt(n_docs)))))


@dataclass(frozen=True, slots=True)
class Topics:
    """Topics of one corpus: `number[i]` is abstract i's topic (1 the largest; 0 none),
    `labels[t - 1]` the terms labelling topic t."""

    number: LabelArray
    labels: list[list[str]]

    @property
    def count(self) -> int:
        return len(self.labels)

    def sizes(self) -> list[int]:
        """How many abstracts each topic has, topic 1 first."""
        counts = np.bincount(self.number, minlength=self.count + 1)
        return [int(c) for c in counts[1:]]

    def members(self, topic: int) -> npt.NDArray[np.int64]:
        """The abstracts (corpus positions) of topic `topic`."""
        return np.flatnonzero(self.number == topic)


@dataclass(frozen=True, slots=True)
class _Vectors:
    """Unit rows over the kept features, in CSR form."""

    indptr: npt.NDArray[np.int64]
    features: npt.NDArray[np.int32]
    weights: FloatArray
    n_features: int

    @property
    def n_rows(self) -> int:
        return len(self.indptr) - 1

    def row_of(self) -> npt.NDArray[np.int64]:
        return np.repeat(np.arange(self.n_rows, dtype=np.int64), np.diff(self.indptr))

    def blocks(self) -> Iterator[_Block]:
        """The rows as padded blocks (see `_Block`), rows of similar length together,
        each made as it is asked for."""
        lengths = np.diff(self.indptr)
        order = np.argsort(lengths, kind="stable")
        for start, end in _cuts(lengths[order]):
            rows = order[start:end]
            yield _pad(self, rows, rows)


def _cuts(lengths: npt.NDArray[np.int64]) -> list[tuple[int, int]]:
    """Blocks [start, end) of rows sorted by length (`lengths`, ascending): at most
    `_BLOCK_ROWS` rows and `_BLOCK_ENTRIES` padded entries each (a block of the longest
    rows gathers rows x width x k centroid weights: 80 MB for 512 rows of 1,000 terms)."""
    cuts = []
    start, n = 0, len(lengths)
    while start < n:
        end = min(start + _BLOCK_ROWS, n)
        width = max(int(lengths[end - 1]), 1)
        if (end - start) * width > _BLOCK_ENTRIES:
            end = start + max(1, _BLOCK_ENTRIES // width)
        cuts.append((start, end))
        start = end
    return cuts


def _pad(x: _Vectors, rows: npt.NDArray[np.int64], names: npt.NDArray[np.int64]) -> _Block:
    """Rows `rows` of `x` as one padded block, each named by its entry of `names`."""
    lengths = np.diff(x.indptr)[rows]
    width = max(int(lengths.max()), 1)
    used = np.arange(width)[None, :] < lengths[:, None]
    source = (x.indptr[rows][:, None] + np.arange(width)[None, :])[used]
    features = np.full((len(rows), width), x.n_features, dtype=np.int32)
    weights = np.zeros((len(rows), width), dtype=np.float32)
    features[used] = x.features[source]
    weights[used] = x.weights[source]
    return _Block(names, features, weights)


@dataclass(frozen=True, slots=True)
class _Block:
    """Rows padded to one width: row `rows[r]` has features `features[r]` (the padding is
    feature `n_features`, a zero column) with `weights[r]`. A product with dense centroids
    is then one gather and one `einsum`, several times quicker than any per-entry sum."""

    rows: npt.NDArray[np.int64]
    features: npt.NDArray[np.int32]
    weights: FloatArray


@dataclass(frozen=True, slots=True)
class _Features:
    """The terms that are features (`feature_of[t]`: its number, or -1) and how many of
    them each row has."""

    feature_of: npt.NDArray[np.int32]
    n_features: int
    lengths: npt.NDArray[np.int64]


def _features(terms: TermMatrix) -> _Features:
    """The features: terms in 2+ abstracts, in at most `COMMON_SHARE` of them, at most
    `MAX_FEATURES` of the most widespread."""
    df = terms.document_frequency()
    keep = (df >= 2) & (df <= COMMON_SHARE * terms.n_docs)
    if int(keep.sum()) > MAX_FEATURES:
        order = np.lexsort((np.arange(len(df)), -np.where(keep, df, 0)))
        keep = np.zeros(len(df), dtype=bool)
        keep[order[:MAX_FEATURES]] = True
    feature_of = np.where(keep, np.cumsum(keep) - 1, -1).astype(np.int32)
    n = terms.n_docs
    lengths = np.zeros(n, dtype=np.int64)
    for lo in range(0, n, _VECTOR_ROWS):
        hi = min(lo + _VECTOR_ROWS, n)
        kept = keep[terms.indices[terms.indptr[lo] : terms.indptr[hi]]]
        row_of = np.repeat(np.arange(hi - lo), np.diff(terms.indptr[lo : hi + 1]))
        lengths[lo:hi] = np.bincount(row_of[kept], minlength=hi - lo)
    return _Features(feature_of, int(keep.sum()), lengths)


def _vectors(
    terms: TermMatrix, weights: FloatArray, features: _Features, rows: npt.NDArray[np.int64]
) -> _Vectors:
    """The TF-IDF rows `rows` (in that order) over the features, renormalised to unit
    length. Made for the rows asked for only: all of them at once would copy most of
    the matrix; and `_VECTOR_ROWS` of them at a time (their temporaries are ten arrays
    of their entries)."""
    if len(rows) > _VECTOR_ROWS:
        parts = [
            _vectors(terms, weights, features, rows[lo : lo + _VECTOR_ROWS])
            for lo in range(0, len(rows), _VECTOR_ROWS)
        ]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(np.concatenate([np.diff(p.indptr) for p in parts]), out=indptr[1:])
        return _Vectors(
            indptr,
            np.concatenate([p.features for p in parts]),
            np.concatenate([p.weights for p in parts]),
            features.n_features,
        )
    starts = terms.indptr[rows]
    lengths = terms.indptr[rows + 1] - starts
    at = run_positions(starts, lengths)
    feature = features.feature_of[terms.indices[at]]
    kept = feature >= 0
    at = at[kept]
    row_of = np.repeat(np.arange(len(rows)), lengths)[kept]
    values = weights[at].astype(np.float64)
    norms = np.sqrt(np.bincount(row_of, weights=values * values, minlength=len(rows)))
    norms[norms == 0] = 1.0
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_of, minlength=len(rows)), out=indptr[1:])
    unit: FloatArray = (values / norms[row_of]).astype(np.float32)
    return _Vectors(indptr, feature[kept], unit, features.n_features)


def _all_blocks(terms: TermMatrix, weights: FloatArray, features: _Features) -> Iterator[_Block]:
    """Every row as padded blocks, as `_Vectors.blocks` makes them, each block's vectors
    made as it is asked for."""
    order = np.argsort(features.lengths, kind="stable")
    for start, end in _cuts(features.lengths[order]):
        rows = order[start:end]
        yield _pad(_vectors(terms, weights, features, rows), np.arange(len(rows)), rows)


def _similarities(blocks: Iterable[_Block], n_rows: int, centroids: FloatArray) -> FloatArray:
    """Cosine of every row with every centroid (rows x k)."""
    k, n_features = centroids.shape
    columns = np.zeros((n_features + 1, k), dtype=np.float32)  # the last: padding
    columns[:n_features] = centroids.T
    out = np.zeros((n_rows, k), dtype=np.float32)
    for block in blocks:
        out[block.rows] = np.einsum(
            "rw,rwk->rk", block.weights, np.take(columns, block.features, axis=0)
        )
    return out


def _centroids(x: _Vectors, labels: LabelArray, k: int) -> FloatArray:
    """Each cluster's mean direction (unit length; zero for an empty cluster).

    Summed one cluster at a time, its rows' entries in order: each sum adds the same
    numbers in the same order as one count over every entry keyed by cluster and
    feature would, without that count's 8-byte keys and weights for every entry of
    the sample (70 MB at 100,000 abstracts). Each sum is scaled and stored in 32 bits
    as it is made: the sums in 64 bits are never all held (20 MB at 65,536 features)."""
    unit: FloatArray = np.zeros((k, x.n_features), dtype=np.float32)
    by_cluster = np.argsort(labels, kind="stable")  # each cluster's rows ascending
    bounds = np.searchsorted(labels[by_cluster], np.arange(k + 1))
    lengths = np.diff(x.indptr)
    for c in range(k):
        rows = by_cluster[bounds[c] : bounds[c + 1]]
        if len(rows):
            at = run_positions(x.indptr[rows], lengths[rows])
            row = np.bincount(x.features[at], x.weights[at], minlength=x.n_features)
            # As `np.linalg.norm(sums, axis=1)` computes it, a row at a time (no square of
            # every sum at once).
            norm = np.sqrt(np.add.reduce(row * row)) or 1.0
            unit[c] = np.divide(row, norm, out=row)
    return unit


def _dense_row(x: _Vectors, i: int) -> FloatArray:
    row = np.zeros(x.n_features, dtype=np.float32)
    lo, hi = x.indptr[i], x.indptr[i + 1]
    row[x.features[lo:hi]] = x.weights[lo:hi]
    return row


def _kmeans_plus_plus(
    x: _Vectors, blocks: list[_Block], k: int, rng: np.random.Generator
) -> FloatArray:
    """k-means++ seeding with cosine distance: each new centre drawn in proportion to
    the squared distance of a row to its closest centre so far."""
    empty = np.diff(x.indptr) == 0
    nonempty = np.flatnonzero(~empty)
    centres = [_dense_row(x, int(nonempty[rng.integers(len(nonempty))]))]
    best = _similarities(blocks, x.n_rows, centres[0][None, :])[:, 0]
    for _ in range(1, k):
        distance = np.clip(1.0 - best.astype(np.float64), 0.0, None) ** 2
        distance[empty] = 0.0
        total = distance.sum()
        if total <= 0:
            break
        pick = int(np.searchsorted(np.cumsum(distance), rng.random() * total, side="right"))
        centres.append(_dense_row(x, min(pick, x.n_rows - 1)))
        best = np.maximum(best, _similarities(blocks, x.n_rows, centres[-1][None, :])[:, 0])
    return np.stack(centres).astype(np.float32)


def _assign(similarities: FloatArray, empty: npt.NDArray[np.bool_]) -> LabelArray:
    """Each row's closest centroid; -1 for an empty row."""
    labels: LabelArray = similarities.argmax(axis=1).astype(np.int32)
    labels[empty] = -1
    return labels


def cluster(terms: TermMatrix, weights: FloatArray, k: int, seed: int = SEED) -> LabelArray:
    """Spherical k-means: each abstract's cluster (0..k-1, unnumbered), -1 for one with no
    shared term."""
    features = _features(terms)
    n = terms.n_docs
    empty = features.lengths == 0
    if k <= 1 or int((~empty).sum()) <= k:
        labels = np.zeros(n, dtype=np.int32) if k <= 1 else np.arange(n, dtype=np.int32)
        labels[empty] = -1
        return labels
    rng = np.random.default_rng(seed)
    fit_rows = np.flatnonzero(~empty)
    if len(fit_rows) > FIT_SAMPLE:
        fit_rows = np.sort(rng.choice(fit_rows, FIT_SAMPLE, replace=False))
    fit = _vectors(terms, weights, features, fit_rows)
    blocks = list(fit.blocks())  # used every round
    centroids = _kmeans_plus_plus(fit, blocks, k, rng)
    k = len(centroids)
    fit_empty = np.zeros(fit.n_rows, dtype=bool)
    labels = _assign(_similarities(blocks, fit.n_rows, centroids), fit_empty)
    release_memory()  # the seeding's temporaries
    for done in range(MAX_ROUNDS):
        advance("topics.rounds", done, MAX_ROUNDS)
        centroids = _centroids(fit, labels, k)
        new = _assign(_similarities(blocks, fit.n_rows, centroids), fit_empty)
        moved = int((new != labels).sum())
        labels = new
        release_memory()  # each round's temporaries: the heap would keep growing with them
        if moved <= fit.n_rows * SETTLED_SHARE:
            break
    del blocks, fit
    release_memory()
    return _assign(_similarities(_all_blocks(terms, weights, features), n, centroids), empty)


def _numbered(labels: LabelArray) -> LabelArray:
    """Clusters renumbered by size, 1 the largest (ties: the one whose first abstract
    comes first); 0 for none."""
    assigned = labels >= 0
    sizes = np.bincount(labels[assigned], minlength=int(labels.max(initial=-1)) + 1)
    first = np.full(len(sizes), len(labels), dtype=np.int64)
    np.minimum.at(first, labels[assigned], np.flatnonzero(assigned))
    present = np.flatnonzero(sizes > 0)
    order = present[np.lexsort((first[present], -sizes[present]))]
    renumber = np.zeros(len(sizes), dtype=np.int32)
    renumber[order] = np.arange(1, len(order) + 1, dtype=np.int32)
    number = np.zeros(len(labels), dtype=np.int32)
    number[assigned] = renumber[labels[assigned]]
    return number


def compute_topics(
    terms: TermMatrix, weights: FloatArray, k: int | None = None, seed: int = SEED
) -> Topics:
    """The topics of the abstracts whose terms and TF-IDF weights are given (the
    similarity model's `terms` and `weights`), numbered by size."""
    if k is None:
        k = topic_count(terms.n_docs)
    number = _numbered(cluster(terms, weights, k, seed))
    release_memory()  # the clustering's temporaries, before the labels make theirs
    count = int(number.max(initial=0))
    return Topics(number, label_groups(terms, number - 1, count))
