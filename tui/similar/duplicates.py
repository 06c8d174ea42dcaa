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

import contextlib
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz

from tui.corpus.tokens import tokenize
from tui.progress import advance
from tui.search.blocks import release_memory
from tui.search.parallel import ForkedHelper, read_into, workers_for
from tui.search.postings import run_positions
from tui.similar.terms import IntArray, OffsetArray, TermMatrix, summed_by

FloatArray = npt.NDArray[np.float32]
ScoreArray = npt.NDArray[np.float64]
# Row numbers of pairs (in 32 bits).
Rows = npt.NDArray[np.int32]

# Calibrated on the ICLR corpus (bench/similar.py --calibrate): its five
# lightly reworded pairs have cosine >= 0.92 and a character-level ratio >= 93,
# while the closest distinct papers stay at cosine <= 0.58 and ratio <= 58.
# Both thresholds sit in the middle of that gap.
DUPLICATE_COSINE = 0.8
DUPLICATE_RATIO = 70.0

# Prefixes are cut a little later than the threshold says, so a pair whose float
# cosine rounds up to the threshold is still examined.
_SLACK = 1e-3
# Pairs of prefix entries generated at once (bounds the memory of the search: some ten
# arrays of them at once, 8 bytes an item; two processes each have theirs).
_CHUNK = 1 << 17
# Rows whose prefixes are made at once (bounds the memory of their temporaries).
_PREFIX_ROWS = 2048
# Abstracts whose pairs are summed together (a block of entries small enough to search;
# the entries of their pairs' other rows are gathered at once, in each of two processes).
_ROW_BLOCK = 512
# Blocks of pairs summed between two trims of the heap.
_TRIM_BLOCKS = 8


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


def find_duplicates(
    terms: TermMatrix, weights: FloatArray, texts: Sequence[str], fork_safe: bool = False
) -> Duplicates:
    """The near-duplicates of every abstract (`weights`: the unit TF-IDF rows of `terms`;
    `texts`: what each abstract's words were counted from). `fork_safe`: see
    `close_pairs`."""
    left, right, cosine = close_pairs(terms, weights, DUPLICATE_COSINE, fork_safe)
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
    terms: TermMatrix, weights: FloatArray, threshold: float, fork_safe: bool = False
) -> tuple[Rows, Rows, ScoreArray]:
    """Every pair of abstracts (i < j) whose cosine is at least `threshold`, with it.

    Once the prefixes are paired up by term (`_Pairing`), each pair is searched for
    within the span of rows its lower row is in, independently of the others: for a
    large corpus (`tui.search.parallel.workers_for`, which `fork_safe` is passed to) a
    forked helper searches the later spans, with half of the prefix entries' pairs,
    while this process searches the earlier ones. The pairs are the same, in the same
    order, either way."""
    advance("similar.pairs", 0, 4)
    prefixes = _prefixes(terms, weights, threshold)
    release_memory()  # each step's temporaries, before the next makes its own
    made = _Pairing.make(terms, prefixes)
    # The norms left after each prefix entry are the pairing's now (by term).
    prefixes = dataclasses.replace(prefixes, beyond=np.zeros(0, dtype=np.float64))
    release_memory()
    advance("similar.pairs", 1, 4)
    spans = len(made.ends)
    half = spans
    if workers_for(terms.n_docs, fork_safe) >= 2 and spans > 1:
        # The helper's share starts where half the pairs of entries have been made.
        half = min(max(int(np.searchsorted(made.made, made.made[-1] / 2)), 1), spans - 1)
    # Held by this list only, so that each process lets go of it once its candidates
    # are made (a forked helper has a copy of this frame: a variable would keep it).
    pairing = [made]
    del made
    helper = None
    if half < spans:
        with contextlib.suppress(OSError):
            helper = ForkedHelper(
                lambda out: _send_pairs(
                    out, _close_in(terms, weights, prefixes, pairing, threshold, half, spans)
                )
            )
        if helper is None:
            half = spans  # no helper: every span searched here
    try:
        found = [_close_in(terms, weights, prefixes, pairing, threshold, 0, half)]
        if half < spans:
            assert helper is not None
            theirs = _receive_pairs(helper)
            if theirs is None:  # the helper failed: searched here
                again = [_Pairing.make(terms, _prefixes(terms, weights, threshold))]
                theirs = _close_in(terms, weights, prefixes, again, threshold, half, spans)
            found.append(theirs)
    finally:
        if helper is not None:
            helper.close()
    left, right, cosine = (np.concatenate(parts) for parts in zip(*found, strict=True))
    return left, right, cosine


def _close_in(
    terms: TermMatrix,
    weights: FloatArray,
    prefixes: _Prefixes,
    pairing: list[_Pairing],
    threshold: float,
    first: int,
    stop: int,
) -> tuple[Rows, Rows, ScoreArray]:
    """The close pairs whose lower row is in spans `first` to `stop` (excluded) of the
    pairing in `pairing`, as `close_pairs` finds them; the pairing is let go of (taken
    out of the list) once they are made: it is 50 MB at 100,000 abstracts, and the
    bounds need as much."""
    left, right, both = _candidates(terms, weights, pairing.pop(), threshold, first, stop)
    release_memory()
    advance("similar.pairs", 2, 4)
    # Second filter: the cosine over the terms in either prefix, exactly, plus at most
    # the product of the two suffix norms for the terms in neither.
    keep = _bound(terms, weights, prefixes, left, right, both) >= threshold - _SLACK
    del both
    left, right = left[keep], right[keep]
    del keep
    release_memory()
    advance("similar.pairs", 3, 4)
    cosine = _dots(terms, weights, left, right)
    close = cosine >= threshold
    return left[close], right[close], cosine[close]


def _send_pairs(out: BinaryIO, pairs: tuple[Rows, Rows, ScoreArray]) -> None:
    """Helper side: the number of close pairs on a line, then their arrays."""
    out.write(b"%d\n" % len(pairs[0]))
    for array, dtype in zip(pairs, _PAIR_TYPES, strict=True):
        out.write(np.ascontiguousarray(array, dtype=dtype).data)


def _receive_pairs(
    helper: ForkedHelper,
) -> tuple[Rows, Rows, ScoreArray] | None:
    """The close pairs a helper found (`_send_pairs`); None when it failed."""
    assert helper.pipe is not None
    try:
        count = int(helper.pipe.readline())
        left = np.empty(count, dtype=np.int32)
        right = np.empty(count, dtype=np.int32)
        cosine = np.empty(count, dtype=np.float64)
        for array in (left, right, cosine):
            read_into(helper.pipe, array.data.cast("B"))
    except (OSError, ValueError, EOFError):
        return None
    return left, right, cosine


_PAIR_TYPES = (np.int32, np.int32, np.float64)


@dataclass(frozen=True, slots=True)
class _Prefixes:
    """Each row's prefix (see the module): CSR positions `positions[ptr[i]:ptr[i+1]]`
    (in rank order), the norm left after each of them in rank order (`beyond`, same order),
    each row's `suffix_norm`, the norm of the terms not in its prefix, and the rank of
    its prefix's last term (`end`; -1 for an empty prefix): its suffix ranks after it;
    each term's place in that order (`rank`, see `_ranks`), made once for every step;
    each entry's row * n_terms + its term's rank (`keys`: ascending, rows in order and
    each one's prefix in rank order), made once for both processes of a search in two."""

    ptr: OffsetArray
    positions: npt.NDArray[np.int32]
    beyond: ScoreArray
    suffix_norm: ScoreArray
    end: npt.NDArray[np.int64]
    rank: npt.NDArray[np.int64]
    keys: npt.NDArray[np.int64]


def _ranks(terms: TermMatrix) -> npt.NDArray[np.int64]:
    """Each term's place in the order of prefixes: rarest first, ties lower id first."""
    rank = np.empty(terms.n_terms, dtype=np.int64)
    rank[np.lexsort((np.arange(terms.n_terms), terms.document_frequency()))] = np.arange(
        terms.n_terms
    )
    return rank


def _prefixes(terms: TermMatrix, weights: FloatArray, threshold: float) -> _Prefixes:
    """The prefixes of every row, terms ranked rarest first (ties: lower id first); made
    a block of rows at a time (every row's prefix is its own)."""
    n, n_terms = terms.n_docs, terms.n_terms
    rank = _ranks(terms)
    found: list[tuple[npt.NDArray[np.int32], ScoreArray, npt.NDArray[np.int64]]] = []
    suffix = np.zeros(n, dtype=np.float64)
    prefix_end = np.full(n, -1, dtype=np.int64)
    for lo in range(0, n, _PREFIX_ROWS):
        hi = min(lo + _PREFIX_ROWS, n)
        start, end = terms.indptr[lo], terms.indptr[hi]
        lengths = np.diff(terms.indptr[lo : hi + 1])
        row_of = np.repeat(np.arange(hi - lo, dtype=np.int64), lengths)
        # Each row's entries rarest first; what is left of its squared norm from each on.
        # (The keys are distinct and already in row order: a stable sort, merging runs,
        # only orders each row's entries.)
        keys = row_of * n_terms + rank[terms.indices[start:end]]
        order = np.argsort(keys, kind="stable") + start
        del keys
        squares = weights[order].astype(np.float64) ** 2
        left = np.cumsum(squares[::-1])[::-1]
        left -= np.repeat(np.r_[left, 0.0][terms.indptr[lo + 1 : hi + 1] - start], lengths)
        in_prefix = left >= (threshold - _SLACK) ** 2
        suffix[lo:hi] = np.bincount(
            row_of[~in_prefix], weights=squares[~in_prefix], minlength=hi - lo
        )
        positions = order[in_prefix].astype(np.int32)  # CSR positions: as `_Pairing.entries`
        beyond = np.sqrt(np.maximum(left - squares, 0.0))[in_prefix]
        counts = np.bincount(row_of[in_prefix], minlength=hi - lo)
        # A prefix is a leading run of its row's entries, rarest first: its last is the latest.
        last = np.cumsum(counts) - 1
        has = counts > 0
        prefix_end[lo:hi][has] = rank[terms.indices[positions[last[has]]]]
        found.append((positions, beyond, counts))
    ptr = np.zeros(n + 1, dtype=np.int64)
    if found:
        np.cumsum(np.concatenate([c for _, _, c in found]), out=ptr[1:])
    positions = np.concatenate([p for p, _, _ in found]) if found else np.zeros(0, np.int32)
    beyond = np.concatenate([b for _, b, _ in found]) if found else np.zeros(0, np.float64)
    keys = rank[terms.indices[positions]]
    keys += np.repeat(np.arange(n, dtype=np.int64) * n_terms, np.diff(ptr))
    return _Prefixes(ptr, positions, beyond, np.sqrt(suffix), prefix_end, rank, keys)


@dataclass(frozen=True, slots=True)
class _Pairing:
    """The prefix entries by term, rows ascending within a term: each pairs with those of
    its term after it, so a pair's every shared prefix term is met with its lower row
    first. In 32 bits where they fit (entries, rows, counts): each array is one item per
    prefix entry, a few million at 100,000 abstracts.

    `entries`: the entries' CSR positions; `beyond` and `owner`: each one's norm left
    and row; `after`: how many entries of its term come after it. `pairing`: the entries
    that pair with a later one, by owner, cut into spans of rows of about `_CHUNK` pairs
    of entries each (a pair is in its lower row's): span k is `pairing[ends[k - 1] :
    ends[k]]` (from 0 for the first), `made[k]` the pairs of entries of spans 0 to k."""

    entries: npt.NDArray[np.int32]
    beyond: ScoreArray
    owner: npt.NDArray[np.int32]
    after: npt.NDArray[np.int32]
    pairing: npt.NDArray[np.int32]
    ends: npt.NDArray[np.int64]
    made: npt.NDArray[np.int64]

    @classmethod
    def make(cls, terms: TermMatrix, prefixes: _Prefixes) -> _Pairing:
        """The pairing of the prefixes of the rows of `terms`."""
        n = terms.n_docs
        by_term = np.argsort(terms.indices[prefixes.positions], kind="stable")
        entries = prefixes.positions[by_term]
        beyond = prefixes.beyond[by_term]
        owner = np.repeat(np.arange(n, dtype=np.int32), np.diff(prefixes.ptr))[by_term]
        del by_term
        term = terms.indices[entries]
        none = np.zeros(0, dtype=np.int64)
        if not len(term):
            return cls(entries, beyond, owner, term, term, none, none)
        group_end = np.r_[np.flatnonzero(np.diff(term)) + 1, len(term)]
        # In 32 bits throughout (in 64, three temporaries the size of every prefix entry).
        after = np.repeat((group_end - 1).astype(np.int32), np.diff(np.r_[0, group_end]))
        after -= np.arange(len(term), dtype=np.int32)
        del term, group_end
        # Rows cut into spans of about `_CHUNK` pairs of entries; a pair is in its lower row's.
        per_row = np.cumsum(summed_by(owner, n, after))
        cuts = np.unique(np.searchsorted(per_row, np.arange(_CHUNK, per_row[-1] + _CHUNK, _CHUNK)))
        # The entries that pair with a later one, by owner: each span of rows is a slice.
        pairing = np.flatnonzero(after > 0).astype(np.int32)
        pairing = pairing[np.argsort(owner[pairing], kind="stable")]
        ends = np.searchsorted(owner[pairing], [*(cuts + 1).tolist(), n])
        made = per_row[np.minimum([*cuts.tolist(), n - 1], n - 1)]
        return cls(entries, beyond, owner, after, pairing, ends, made)


def _candidates(
    terms: TermMatrix,
    weights: FloatArray,
    pairing: _Pairing,
    threshold: float,
    first: int = 0,
    stop: int | None = None,
) -> tuple[Rows, Rows, ScoreArray]:
    """The pairs (i < j, ascending) whose prefixes share a term and whose cosine the
    shared prefix terms do not rule out, with the part of it those terms give: of the
    spans `first` to `stop` (default: to the last) of `pairing`.

    Every other term a pair shares comes after the last of those in both, so the rest
    of its cosine is at most the product of the norms each has left after it.
    """
    n = terms.n_docs
    entries, beyond, owner, after = pairing.entries, pairing.beyond, pairing.owner, pairing.after
    found: list[npt.NDArray[np.int64]] = []
    parts: list[ScoreArray] = []
    ends = pairing.ends[first:stop].tolist()
    low = int(pairing.ends[first - 1]) if first > 0 else 0
    for high in ends:
        firsts = pairing.pairing[low:high]
        low = high
        count = after[firsts]
        partner = run_positions(firsts + 1, count)
        firsts = np.repeat(firsts, count)
        codes = owner[firsts].astype(np.int64) * n + owner[partner]
        if not len(codes):
            continue
        # The pairs come by lower row (`pairing` is by owner): a stable sort (runs merged)
        # only has each row's partners to order, twice as quick as sorting from scratch.
        sort = np.argsort(codes, kind="stable")
        codes = codes[sort]
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
        shared = weights[entries[firsts]].astype(np.float64) * weights[entries[partner]]
        both = np.add.reduceat(shared[sort], starts)
        rest = np.minimum.reduceat((beyond[firsts] * beyond[partner])[sort], starts)
        keep = both + rest >= threshold - _SLACK
        found.append(codes[starts[keep]])
        parts.append(both[keep])
    empty = np.zeros(0, dtype=np.int32)
    if not found:
        return empty, empty, np.zeros(0, dtype=np.float64)
    pairs = np.concatenate(found)
    del found
    # Rows in 32 bits, as the pairing's owners: the bounds' arrays are of every candidate.
    left = (pairs // n).astype(np.int32)
    np.remainder(pairs, n, out=pairs)
    return left, pairs.astype(np.int32), np.concatenate(parts)


def _bound(
    terms: TermMatrix,
    weights: FloatArray,
    prefixes: _Prefixes,
    left: Rows,
    right: Rows,
    both: ScoreArray,
) -> ScoreArray:
    """For each candidate pair (`both`: the part of its cosine its shared prefix terms
    give), its cosine over the terms in either prefix plus the product of the two suffix
    norms: at least its cosine.

    Of the two prefixes, call `cut` the one that ends later in rank order: the other
    row's prefix terms all rank no later, so they are in `cut`'s prefix or not in its
    row, and `both` has their part. What is left is the part of `cut`'s prefix terms
    that rank after the other's prefix, in the other's suffix: a dot product over that
    tail of `cut`'s prefix (a quarter of its terms at 100,000 abstracts).

    The bound is made in place of `both` (no more arrays held at once than the cosines
    of the candidates need later).
    """
    later = prefixes.end[right] >= prefixes.end[left]
    full = np.where(later, left, right)
    by_full = np.argsort(full, kind="stable")
    full = full[by_full]
    cut = np.where(later, right, left)[by_full]
    del later
    begin = _tail_starts(terms, prefixes, cut, full)
    tail = _dots(terms, weights, full, cut, (begin, prefixes.ptr, prefixes.positions))
    del full, cut, begin
    both[by_full] += tail
    del by_full, tail
    both += prefixes.suffix_norm[left] * prefixes.suffix_norm[right]
    return both


def _tail_starts(
    terms: TermMatrix,
    prefixes: _Prefixes,
    rows: Rows,
    others: Rows,
) -> npt.NDArray[np.int64]:
    """For each of `rows`, where in `prefixes.positions` its prefix's terms that rank after
    the end of the prefix of `others` (one a row) begin: each prefix is in rank order."""
    keys = prefixes.keys
    starts = np.empty(len(rows), dtype=np.int64)
    # A chunk at a time, each looked up in ascending order (a search then starts near the
    # last: twice as quick).
    for lo in range(0, len(rows), _CHUNK):
        hi = min(lo + _CHUNK, len(rows))
        wanted = rows[lo:hi].astype(np.int64) * terms.n_terms + prefixes.end[others[lo:hi]]
        order = np.argsort(wanted)
        starts[lo + order] = np.searchsorted(keys, wanted[order], side="right")
    return starts


def _dots(
    terms: TermMatrix,
    weights: FloatArray,
    left: Rows,
    right: Rows,
    tails: tuple[npt.NDArray[np.int64], OffsetArray, npt.NDArray[np.int32]] | None = None,
) -> ScoreArray:
    """For each pair (`left` ascending), the dot product of the two rows over all the right
    row's terms, summed as `SimilarityModel.scores` sums a cosine: float32 products in
    ascending term order, added up in float64 (so a cosine is the very number a scan
    gives); with `tails` (begin, ptr, positions), over only the right row's entries at
    `positions[begin[k]:ptr[right[k] + 1]]` for pair k."""
    out = np.zeros(len(left), dtype=np.float64)
    n_terms = max(terms.n_terms, 1)
    bounds = np.searchsorted(left, np.arange(0, terms.n_docs + _ROW_BLOCK, _ROW_BLOCK))
    for block, (lo, hi) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)):
        if lo == hi:
            continue
        # The block's entries keyed row * n_terms + term: ascending, as the CSR holds them.
        first = block * _ROW_BLOCK
        stop = min(first + _ROW_BLOCK, terms.n_docs)
        start, end = terms.indptr[first], terms.indptr[stop]
        rows = np.repeat(np.arange(first, stop), np.diff(terms.indptr[first : stop + 1]))
        keys = rows * n_terms + terms.indices[start:end]
        gather: npt.NDArray[np.integer]
        if tails is None:
            begin = terms.indptr[right[lo:hi]]
            lengths = terms.indptr[right[lo:hi] + 1] - begin
            gather = run_positions(begin, lengths)
        else:
            begin = tails[0][lo:hi]
            lengths = tails[1][right[lo:hi] + 1] - begin
            gather = tails[2][run_positions(begin, lengths)]
        pair = np.repeat(np.arange(hi - lo), lengths)
        wanted = np.repeat(left[lo:hi].astype(np.int64), lengths) * n_terms
        wanted += terms.indices[gather]
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        shared = keys[at] == wanted
        products = weights[start + at[shared]] * weights[gather[shared]]
        out[lo:hi] = np.bincount(pair[shared], weights=products, minlength=hi - lo)
        if block % _TRIM_BLOCKS == _TRIM_BLOCKS - 1:
            # A heap that keeps every block's temporaries grows by 100 MB at 100,000
            # abstracts; trimming after each block costs a second of page faults.
            release_memory()
    return out
