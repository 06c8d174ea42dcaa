"""The similarity model's on-disk cache, keyed by the corpus fingerprint.

The whole model is stored: term counts, TF-IDF weights, the inverted index and
the near-duplicates, so a start does no work but checking them. The file is a
`tui.cachefile` (a zip of `.npy` members read with pickle refused, written
atomically into a private folder) laid out for memory-mapping
(`tui.similar.mapfile`): a loaded model's arrays are views of the file, not
copies, so loading costs no memory spike and the pages can be dropped and read
again by the system. Every array is checked against the corpus and its
neighbours before it is used (types, sizes, offsets, every number in range);
anything unreadable, foreign or not matching is ignored and rebuilt.
"""

from __future__ import annotations

import contextlib
import functools
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from tui import cachefile
from tui.corpus.model import Corpus
from tui.progress import advance
from tui.similar import mapfile
from tui.similar.duplicates import Duplicates, FloatArray
from tui.similar.model import Postings, SimilarityModel, posting_offsets, posting_pieces
from tui.similar.terms import IntArray, TermMatrix

# Bump when the tokenization, stopwords or file layout change.
CACHE_VERSION = 5  # 3: stems and pairs; 4: et al. stop words; 5: the whole model, mapped
_KIND = "similar"

Array = np.ndarray[Any, Any]

# Each stored array and its type.
_DTYPES = {
    "indptr": np.int64,
    "indices": np.int32,
    "counts": np.int32,
    "parts": np.int32,
    "weights": np.float32,
    "post_indptr": np.int64,
    "post_rows": np.int32,
    "post_weights": np.float32,
    "dup_indptr": np.int64,
    "dup_rows": np.int32,
    "dup_cosines": np.float64,
}


def cache_path(corpus: Corpus, cache_dir: Path) -> Path:
    """Where the model of `corpus` is cached inside `cache_dir`."""
    return cachefile.path_for(cache_dir, _KIND, CACHE_VERSION, corpus)


def save(model: SimilarityModel, corpus: Corpus, cache_dir: Path) -> Path:
    """Write the model for `corpus` atomically; returns the cache file.

    Raises OSError when it cannot be written.
    """
    postings = model.postings
    inverted: dict[str, Array | cachefile.Streamed] = {
        "post_indptr": postings.indptr,
        "post_rows": postings.rows,
        "post_weights": postings.weights,
    }
    return _save(model.terms, model.weights, inverted, lambda: model.duplicates, corpus, cache_dir)


def save_built(
    terms: TermMatrix,
    weights: FloatArray,
    duplicates: Callable[[], Duplicates],
    corpus: Corpus,
    cache_dir: Path,
    counts: list[IntArray] | None = None,
) -> Path:
    """Write the model of `weigh`'s `terms` and `weights` and their near-duplicates for
    `corpus`, as `save` writes a model, making its inverted index piece by piece as it
    is written (the file is what `save` would write; the index is never whole in
    memory). `duplicates()` is called once the rest of the file is written, so a
    helper finding them has that long to finish. Raises OSError when it cannot be
    written.

    `counts`: the term counts, handed over in a list of one (`terms.counts` is not
    used), which is emptied as they are written: a caller holding them nowhere else
    lets go of them before the inverted index and the near-duplicates are made (52 MB
    at 100,000 abstracts); `saved_counts` maps them back from the file."""
    indptr = posting_offsets(terms)

    entries = len(terms.indices)

    spool = _Spool(cache_dir)

    def rows() -> Iterator[Array]:
        # The index is made once, as its rows are written (the first half of the step);
        # its weights wait in the spool for their turn.
        done = 0
        for piece_rows, piece_weights in posting_pieces(terms, weights, indptr):
            advance("similar.write", done, 2 * entries)
            done += len(piece_rows)
            spool.put(piece_weights)
            yield piece_rows

    def weights_() -> Iterator[Array]:
        kept = spool.taken(entries)
        if kept is not None:
            for done, piece in kept:
                advance("similar.write", entries + done, 2 * entries)
                yield piece
            return
        done = entries  # the spool failed: the index made again for its weights
        for _, piece_weights in posting_pieces(terms, weights, indptr):
            advance("similar.write", done, 2 * entries)
            done += len(piece_weights)
            yield piece_weights

    inverted: dict[str, Array | cachefile.Streamed] = {
        "post_indptr": indptr,
        "post_rows": cachefile.Streamed(np.dtype(np.int32), entries, rows),
        "post_weights": cachefile.Streamed(np.dtype(np.float32), entries, weights_),
    }
    held: Array | cachefile.Streamed = terms.counts
    if counts is not None:
        held = cachefile.Streamed(np.dtype(np.int32), entries, functools.partial(_handed, counts))
    return _save(terms, weights, inverted, duplicates, corpus, cache_dir, held)


class _Spool:
    """The inverted index's weights, kept in an unnamed temporary file beside the cache
    while its rows are written, so `save_built` makes the index once rather than once
    per member, and still never holds it whole (its weights are 4 bytes an entry: 52 MB
    at 100,000 abstracts). When the file cannot be made or written, `taken` says so
    (None) and the weights are made again."""

    _READ = 1 << 22  # weights read back at a time

    def __init__(self, directory: Path) -> None:
        self._file: BinaryIO | None = None
        with contextlib.suppress(OSError):
            self._file = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115 (closed in taken)
        self._length = 0

    def put(self, piece: FloatArray) -> None:
        if self._file is None:
            return
        try:
            self._file.write(np.ascontiguousarray(piece, dtype=np.float32).data)
            self._length += len(piece)
        except OSError:
            self._drop()

    def taken(self, entries: int) -> Iterator[tuple[int, FloatArray]] | None:
        """The weights put, in pieces (each with the count before it), if they are
        `entries` in all; the file is closed once they are read (or now, if not)."""
        if self._file is None or self._length != entries:
            self._drop()
            return None
        return self._read(self._file, entries)

    def _read(self, file: BinaryIO, entries: int) -> Iterator[tuple[int, FloatArray]]:
        try:
            file.seek(0)
            for done in range(0, entries, self._READ):
                count = min(self._READ, entries - done)
                data = file.read(4 * count)
                if len(data) != 4 * count:
                    raise OSError("the spooled weights were cut short")
                yield done, np.frombuffer(data, dtype=np.float32)
        finally:
            self._drop()

    def _drop(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None


def _handed(held: list[IntArray]) -> Iterator[IntArray]:
    """The one array of `held`, taken out of it (`save_built`'s `counts`)."""
    yield held.pop()


def saved_counts(corpus: Corpus, cache_dir: Path, entries: int) -> IntArray | None:
    """The term counts of the cached model of `corpus`, mapped from its file (pages
    read as they are used), if they are `entries` valid counts; else None."""
    mapped = mapfile.load(
        cache_path(corpus, cache_dir), cachefile.header(_KIND, CACHE_VERSION, corpus)
    )
    if mapped is None:
        return None
    counts = mapped.arrays.get("counts")
    if (
        counts is None
        or counts.dtype != _DTYPES["counts"]
        or counts.shape != (entries,)
        or not _within(counts, 1, None, mapped.chunks)
    ):
        return None
    return counts


def _save(
    terms: TermMatrix,
    weights: FloatArray,
    inverted: dict[str, Array | cachefile.Streamed],
    duplicates: Callable[[], Duplicates],
    corpus: Corpus,
    cache_dir: Path,
    counts: Array | cachefile.Streamed | None = None,
) -> Path:
    target = cache_path(corpus, cache_dir)
    dups = functools.cache(duplicates)
    arrays: dict[str, Array | cachefile.Streamed | cachefile.Deferred] = {
        "indptr": terms.indptr,
        "indices": terms.indices,
        "counts": terms.counts if counts is None else counts,
        "parts": terms.parts,
        "weights": weights,
        **inverted,
        # Last: asked for once the rest is written.
        "dup_indptr": cachefile.Deferred(lambda: _typed(dups().indptr, "dup_indptr")),
        "dup_rows": cachefile.Deferred(lambda: _typed(dups().rows, "dup_rows")),
        "dup_cosines": cachefile.Deferred(lambda: _typed(dups().cosines, "dup_cosines")),
    }
    typed = {
        name: a if isinstance(a, cachefile.Streamed | cachefile.Deferred) else _typed(a, name)
        for name, a in arrays.items()
    }
    try:
        mapfile.save(
            target, cachefile.header(_KIND, CACHE_VERSION, corpus), typed, {"vocab": terms.vocab}
        )
    except ValueError as err:  # a word holding NUL: not cacheable
        raise OSError(str(err)) from err
    return target


def load(corpus: Corpus, cache_dir: Path) -> SimilarityModel | None:
    """The cached model of `corpus` (its arrays mapped from the file), or None when there
    is none or it is unusable."""
    mapped = mapfile.load(
        cache_path(corpus, cache_dir), cachefile.header(_KIND, CACHE_VERSION, corpus)
    )
    if mapped is None:
        return None
    a = mapped.arrays
    vocab = mapped.strings.get("vocab")
    if (
        vocab is None
        or set(a) != set(_DTYPES)
        or any(a[name].dtype != dtype for name, dtype in _DTYPES.items())
        or not _consistent(a, len(corpus), len(vocab), mapped.chunks)
    ):
        return None
    try:
        return SimilarityModel(
            TermMatrix(vocab, a["indptr"], a["indices"], a["counts"], a["parts"]),
            a["weights"],
            Postings(a["post_indptr"], a["post_rows"], a["post_weights"]),
            Duplicates(a["dup_indptr"], a["dup_rows"], a["dup_cosines"]),
        )
    except ValueError:
        return None


Chunks = Callable[[Array], Any]


def _typed(array: Array, name: str) -> Array:
    return np.asarray(array, dtype=_DTYPES[name])


def _consistent(a: dict[str, Array], n_docs: int, n_terms: int, chunks: Chunks) -> bool:
    """Guard against a cache that parses but would index out of bounds: every offset
    table cuts its array exactly, every number indexes what it names, weights are
    finite. Large arrays are read piece by piece (`chunks`), so checking them does not
    hold them all in memory at once."""
    entries = len(a["indices"])
    parts = a["parts"]
    return (
        _offsets(a["indptr"], n_docs, entries)
        and _offsets(a["post_indptr"], n_terms, entries)
        and _offsets(a["dup_indptr"], n_docs, len(a["dup_rows"]))
        and all(a[name].shape == (entries,) for name in ("counts", "weights", "post_rows"))
        and a["post_weights"].shape == (entries,)
        and a["dup_cosines"].shape == a["dup_rows"].shape
        and parts.shape == (n_terms, 2)
        and _within(a["indices"], 0, n_terms, chunks)
        and _within(a["counts"], 1, None, chunks)
        and _within(a["post_rows"], 0, n_docs, chunks)
        and _within(a["dup_rows"], 0, n_docs, chunks)
        and _within(parts[:, 0], 0, n_terms, _whole)
        and _within(parts[:, 1], -1, n_terms, _whole)
        and _unit(a["weights"], chunks)
        and _unit(a["post_weights"], chunks)
        and _unit(a["dup_cosines"], chunks)
    )


def _whole(array: Array) -> list[Array]:
    """An array as one piece (for the small ones: nothing to let go of)."""
    return [array]


def _offsets(ptr: Array, rows: int, total: int) -> bool:
    """`ptr` cuts `total` items into `rows` runs: rows + 1 offsets from 0 up to `total`."""
    return (
        ptr.shape == (rows + 1,)
        and int(ptr[0]) == 0
        and int(ptr[-1]) == total
        and bool(np.all(ptr[1:] >= ptr[:-1]))
    )


def _within(values: Array, low: int, stop: int | None, chunks: Chunks) -> bool:
    """Every value is at least `low` and below `stop` (None: no upper bound)."""
    for piece in chunks(values):
        if len(piece) and (
            int(piece.min()) < low or (stop is not None and int(piece.max()) >= stop)
        ):
            return False
    return True


def _unit(values: Array, chunks: Chunks) -> bool:
    """Every value is a finite number in 0..1 (cosines and unit-vector weights)."""
    for piece in chunks(values):
        if len(piece) and not (
            bool(np.isfinite(piece).all())
            and float(piece.min()) >= 0.0
            and float(piece.max()) <= 1.0 + 1e-5
        ):
            return False
    return True


def load_or_build(corpus: Corpus, cache_dir: Path) -> SimilarityModel:
    """The model of `corpus` from the cache when valid, else built and cached.

    A cache that cannot be written (read-only disk) is not an error: the
    freshly built model is returned anyway.
    """
    model = load(corpus, cache_dir)
    if model is not None:
        return model
    model = SimilarityModel.build(corpus)
    with contextlib.suppress(OSError):
        save(model, corpus, cache_dir)
    return model
