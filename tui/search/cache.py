"""The search index on disk, so a second start with the same files skips the build.

The file is a mapped `tui.cachefile` (`save_mapped`: NumPy `.npy` members in a
zip, never a pickle, each array aligned), so a load copies no array: each one is
a read-only view of the file mapped into memory, and nothing that searches writes
into them. It is named and headed
by the corpus fingerprint, the index format version and the LaTeX rendering
version (the index holds words of the rendered text, so new rendering rules
mean a new index), with a digest of the abstract ids in order, so a stale or
foreign file is never used. The conversion walks the fields of `IndexData`
(arrays as arrays, lists of strings as string lists), so a field added there
is cached without a change here. Before use, every offset table and every
number that indexes something is checked (`consistent`), the large arrays piece
by piece so the check does not keep the whole file in memory. Cache trouble of any kind (unreadable,
truncated, unwritable directory) means "build instead", never an error.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from tui import cachefile
from tui.cachefile import render_version
from tui.corpus.model import Corpus
from tui.search.blocks import release_memory
from tui.search.build import IndexData
from tui.search.index import SearchIndex

__all__ = [
    "FORMAT_VERSION",
    "cache_path",
    "load",
    "load_by",
    "load_file",
    "load_or_build",
    "locate",
    "render_version",
    "save",
]

# Bump whenever IndexData or tokenizing/rendering changes what an index holds.
FORMAT_VERSION = 4  # 3: a cachefile (.npz) instead of a pickle; 4: aligned, mapped
_KIND = "search"
#: Up to this size the abstracts' words are read through the mapping (see `load_file`).
MAPPED_TOKENS_MAX = 16 << 20
_PARTIAL_KIND = "partial-search"

Array = np.ndarray[Any, Any]
# An array piece by piece (`tui.cachefile.Mapped.chunks`, or `_whole`).
Chunks = Callable[[Array], Iterable[Array]]


def cache_path(corpus: Corpus, cache_dir: Path) -> Path:
    """Where the index of `corpus` is (or would be) cached."""
    return cachefile.path_for(cache_dir, _KIND, FORMAT_VERSION, corpus)


@functools.cache
def _list_fields() -> frozenset[str]:
    """The fields of IndexData annotated as lists (of strings); the others are arrays."""
    hints = typing.get_type_hints(IndexData)
    return frozenset(name for name, hint in hints.items() if typing.get_origin(hint) is list)


def _to_file(data: IndexData) -> tuple[dict[str, np.ndarray[Any, Any]], dict[str, list[str]]]:
    arrays: dict[str, np.ndarray[Any, Any]] = {}
    strings: dict[str, list[str]] = {}
    for field in dataclasses.fields(data):
        value = getattr(data, field.name)
        if field.name in _list_fields() and all(isinstance(v, str) for v in value):
            strings[field.name] = value
        elif isinstance(value, np.ndarray):
            arrays[field.name] = value
        else:
            raise TypeError(f"IndexData.{field.name} is neither an array nor a list of strings")
    return arrays, strings


@functools.cache
def _array_dtypes() -> dict[str, np.dtype[Any]]:
    """The dtype of each array field of IndexData, read from its annotation
    (`np.ndarray[Any, np.dtype[np.int32]]`)."""
    hints = typing.get_type_hints(IndexData)
    return {
        name: np.dtype(typing.get_args(typing.get_args(hint)[1])[0])
        for name, hint in hints.items()
        if name not in _list_fields()
    }


def _from_file(contents: cachefile.Mapped) -> IndexData | None:
    values: dict[str, Any] = {}
    for field in dataclasses.fields(IndexData):
        source: dict[str, Any] = (
            contents.strings if field.name in _list_fields() else contents.arrays
        )
        if field.name not in source:
            return None
        values[field.name] = source[field.name]
    dtypes = _array_dtypes()
    if any(values[name].dtype != dtype for name, dtype in dtypes.items()):
        return None
    data = IndexData(**values)
    return data if consistent(data, contents.chunks) else None


def _whole(array: Array) -> list[Array]:
    """An array as one piece (one held in memory: nothing to let go of)."""
    return [array]


def _offsets(ptr: Array, rows: int, total: int, chunks: Chunks) -> bool:
    """`ptr` cuts `total` items into `rows` runs: rows + 1 offsets from 0 up to `total`."""
    if ptr.shape != (rows + 1,) or int(ptr[0]) != 0 or int(ptr[-1]) != total:
        return False
    previous = 0
    for piece in chunks(ptr):
        if len(piece):
            if int(piece[0]) < previous or bool(np.any(piece[1:] < piece[:-1])):
                return False
            previous = int(piece[-1])
    return True


def _within(values: Array, stop: int, chunks: Chunks) -> bool:
    """Every value is a valid index below `stop` (1-D)."""
    if values.ndim != 1:
        return False
    return all(
        not len(piece) or (int(piece.min()) >= 0 and int(piece.max()) < stop)
        for piece in chunks(values)
    )


def consistent(data: IndexData, chunks: Chunks = _whole) -> bool:
    """True when the arrays of `data` fit together and its `ids`: every offset table
    cuts its array exactly, every number indexes what it names. A cache that parses
    but fails this would index out of bounds (a crash) or find the wrong abstracts.
    `chunks` splits an array into the pieces checked one at a time."""
    docs, words, stems = len(data.ids), len(data.vocab), len(data.stems)
    postings = len(data.post_doc)
    per_doc = (data.doc_norm, data.years, data.venue_of)
    return (
        _offsets(data.post_ptr, words, postings, chunks)
        and data.post_tf.shape == data.post_head.shape == (postings,)
        and _within(data.post_doc, docs, chunks)
        and all(a.shape == (docs,) for a in per_doc)
        and bool(np.all(np.isfinite(data.doc_norm)) and np.all(data.doc_norm > 0))
        and _offsets(data.tok_ptr, docs, len(data.tokens), chunks)
        and _within(data.tokens, words, chunks)
        and data.word_stem.shape == (words,)
        and _within(data.word_stem, stems, chunks)
        and _offsets(data.stem_ptr, stems, len(data.stem_words), chunks)
        and _within(data.stem_words, words, chunks)
        and _within(data.venue_of, len(data.venue_names), chunks)
        and data.src_doc.shape == data.src_file.shape
        and _within(data.src_doc, docs, chunks)
        and _within(data.src_file, len(data.file_names), chunks)
    )


def load(corpus: Corpus, cache_dir: Path) -> SearchIndex | None:
    """The cached index of `corpus`, or None when there is no usable one."""
    return _of(load_file(*locate(corpus, cache_dir)), corpus)


def _of(index: SearchIndex | None, corpus: Corpus) -> SearchIndex | None:
    """`index` when it indexes the abstracts of `corpus`, else None."""
    ids = [a.id for a in corpus.abstracts]
    if index is None or index.data.ids != ids:
        return None
    index.data.ids = ids  # the corpus's own strings: not a second copy of 100,000 ids
    return index


def load_by(cache_dir: Path, fingerprint: str, ids_digest: str) -> SearchIndex | None:
    """The cached index of the corpus with this fingerprint and ids digest (the corpus
    need not be loaded; the caller checks `data.ids` against its own), or None."""
    return load_file(
        cachefile.path_by(cache_dir, _KIND, FORMAT_VERSION, fingerprint),
        cachefile.header_by(_KIND, FORMAT_VERSION, fingerprint, ids_digest),
    )


def locate(corpus: Corpus, cache_dir: Path) -> tuple[Path, dict[str, Any]]:
    """The cache file of `corpus` and the header it must carry: what another process
    needs to read the same index without loading the corpus."""
    return cache_path(corpus, cache_dir), cachefile.header(_KIND, FORMAT_VERSION, corpus)


def load_file(path: Path, head: dict[str, Any]) -> SearchIndex | None:
    """The index in the cache file at `path` if its header is `head`, else None.
    Its arrays are read-only views of the file mapped into memory."""
    contents = cachefile.load_mapped(path, head)
    data = None if contents is None else _from_file(contents)
    if contents is None or data is None:
        return None
    # Proximity and phrases read a few hundred abstracts' words scattered over the
    # largest array: from the file, so its pages are not mapped into the app; a small
    # array is read through the mapping, which is quicker (ICLR: 0.5 ms a key) and maps
    # at most all of it.
    if data.tokens.nbytes <= MAPPED_TOKENS_MAX:
        return SearchIndex(data)
    return SearchIndex(data, tokens=contents.runs(data.tokens))


def save(index: SearchIndex, corpus: Corpus, cache_dir: Path) -> bool:
    """Write the index atomically (temp file + rename). False when it could not be written."""
    return _write(index, *locate(corpus, cache_dir))


def _write(index: SearchIndex, path: Path, head: dict[str, Any]) -> bool:
    try:
        arrays, strings = _to_file(index.data)
        cachefile.save_mapped(path, head, arrays, strings)
    except (OSError, ValueError, TypeError):
        return False
    return True


def save_partial(index: SearchIndex, corpus: Corpus, cache_dir: Path) -> bool:
    """Write the index of the first abstracts of a corpus being read (`corpus`: them),
    made by the cache child for the app's filter meanwhile. A kind of its own: it is
    never taken for a whole corpus's index. False when it could not be written."""
    return _write(index, *_locate_partial(corpus, cache_dir))


def load_partial(corpus: Corpus, cache_dir: Path) -> SearchIndex | None:
    """The index `save_partial` wrote for exactly these abstracts (`corpus`), or None."""
    return _of(load_file(*_locate_partial(corpus, cache_dir)), corpus)


def _locate_partial(corpus: Corpus, cache_dir: Path) -> tuple[Path, dict[str, Any]]:
    return (
        cachefile.path_for(cache_dir, _PARTIAL_KIND, FORMAT_VERSION, corpus),
        cachefile.header(_PARTIAL_KIND, FORMAT_VERSION, corpus),
    )


def load_or_build(corpus: Corpus, cache_dir: Path, fork_safe: bool = False) -> SearchIndex:
    """The index of `corpus`: from the cache when it is current, else built (and cached).
    `fork_safe`: see `tui.search.parallel.workers_for`."""
    index = load(corpus, cache_dir)
    if index is None:
        index = SearchIndex.build(corpus, fork_safe)
        save(index, corpus, cache_dir)
        release_memory()  # the build's and the save's temporaries
    return index
