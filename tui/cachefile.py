"""Cache files that cannot run code: NumPy `.npz` read with `allow_pickle=False`.

Both derived-data caches (the search index, the similarity model) go through
here. A file holds a header (what it was built from: its kind and format
version, the LaTeX rendering version, the corpus fingerprint and a digest of
the abstract ids in order), named arrays, and named lists of strings (stored as
one UTF-8 blob split on NUL, which no loaded text contains). Files are written
atomically into a folder kept at mode 0700 and read only from such a folder;
anything unreadable, foreign or not matching means "no cache" (build instead),
never an error. Each array is checked against its own header before it is read
(plain numbers, exactly the bytes its shape needs), and each kind's loader checks
the arrays against the corpus (shapes, types, values in range) before using them.
Only the few most recent files of each kind, at its current versions, are kept.

Large caches that are only ever read (the search index, the similarity model) are
written by `save_mapped` and used where they lie by `load_mapped`: the same format,
each array's data 64-byte aligned, and each array a read-only view of the file
mapped into memory. Loading copies nothing, and the pages belong to the page cache
(shared, dropped under memory pressure, read again when used).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import mmap
import os
import re
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tui.corpus import latex
from tui.corpus.model import Corpus, ids_digest
from tui.fileio import atomic_write
from tui.privatedir import ensure_dir
from tui.privatedir import is_private as _private

# The layout of the file itself (header, arrays, string lists); each kind also has its own version.
LAYOUT_VERSION = 1
KEEP = 3  # files kept per kind: the current corpus and the two opened before it
_HEADER = "header"
_ARRAY = "a:"
_STRINGS = "s:"
_SEPARATOR = "\0"

Array = np.ndarray[Any, Any]
# How `path_by` names a file: kind, then its format and rendering versions.
_VERSIONED = re.compile(r"[a-z]+-(?P<versions>v\d+-r\d+)-")


def render_version() -> int:
    """The rendering rules' version (tui.corpus.latex.RENDER_VERSION; 0 where it has none)."""
    return int(getattr(latex, "RENDER_VERSION", 0))


def header(kind: str, version: int, corpus: Corpus) -> dict[str, Any]:
    """What a cache of `kind` for `corpus` must have been built from to be used."""
    return header_by(kind, version, corpus.fingerprint, ids_digest(a.id for a in corpus.abstracts))


def header_by(kind: str, version: int, fingerprint: str, ids: str) -> dict[str, Any]:
    """`header` from a corpus's fingerprint and ids digest (the corpus need not be loaded)."""
    return {
        "layout": LAYOUT_VERSION,
        "kind": kind,
        "version": version,
        "render": render_version(),
        "fingerprint": fingerprint,
        "ids": ids,
    }


def path_for(cache_dir: Path, kind: str, version: int, corpus: Corpus) -> Path:
    """Where the cache of `kind` for `corpus` is (or would be)."""
    return path_by(cache_dir, kind, version, corpus.fingerprint)


def path_by(cache_dir: Path, kind: str, version: int, fingerprint: str) -> Path:
    """`path_for` from a corpus's fingerprint."""
    return cache_dir / f"{kind}-v{version}-r{render_version()}-{fingerprint}.npz"


@dataclass(frozen=True, slots=True)
class Contents:
    """What a cache file holds besides its header."""

    arrays: dict[str, np.ndarray[Any, Any]]
    strings: dict[str, list[str]]


def unusable(cache_dir: Path) -> str | None:
    """Why no cache can be kept in `cache_dir` (made a private folder if it can be), or
    None when caches can be written and read there."""
    try:
        ensure_dir(cache_dir)
    except OSError as e:
        return e.strerror or str(e)
    if not os.access(cache_dir, os.R_OK | os.W_OK | os.X_OK):
        return "permission denied"
    return None


def save(
    path: Path,
    head: dict[str, Any],
    arrays: dict[str, np.ndarray[Any, Any]],
    strings: dict[str, list[str]],
) -> None:
    """Write a cache file atomically into its (private) folder, then prune old files of its kind.

    Raises OSError when it cannot be written, ValueError for a string holding NUL.
    """
    ensure_dir(path.parent)
    entries = _entries(head, arrays, strings)
    kind = str(head["kind"])
    with atomic_write(path, binary=True, prefix=f".{kind}-", suffix=".tmp") as handle:
        np.savez(handle, **entries)  # type: ignore[arg-type]
    prune(path.parent, kind, keep=path)


def load(path: Path, head: dict[str, Any]) -> Contents | None:
    """The contents of the cache file at `path` if its header is `head`, else None.

    Never unpickles (allow_pickle=False) and never raises: a missing, truncated,
    foreign or tampered file, or one outside a private folder, is None.
    """
    if not _private(path.parent):
        return None
    try:
        with zipfile.ZipFile(path) as archive:
            if not all(_sound_member(archive, name) for name in archive.namelist()):
                return None
        with np.load(path, allow_pickle=False) as npz:
            if not isinstance(npz, np.lib.npyio.NpzFile):
                return None
            found = json.loads(_bytes(npz[_HEADER]).decode("utf-8"))
            counts = found.pop("strings")
            if found != head or not isinstance(counts, dict):
                return None
            arrays: dict[str, np.ndarray[Any, Any]] = {}
            strings: dict[str, list[str]] = {}
            for key in npz.files:
                if key.startswith(_ARRAY):
                    arrays[key[len(_ARRAY) :]] = npz[key]
                elif key.startswith(_STRINGS):
                    name = key[len(_STRINGS) :]
                    blob = _bytes(npz[key]).decode("utf-8", "surrogatepass")
                    values = blob.split(_SEPARATOR) if counts[name] else []
                    if len(values) != counts[name]:
                        return None
                    strings[name] = values
    except Exception:
        # Missing, truncated, garbage or crafted: all mean "build instead".
        return None
    return Contents(arrays, strings)


#: The kinds of arrays a cache holds: booleans, integers and floats (never objects).
_KINDS = frozenset("biuf")


def _sound_member(archive: zipfile.ZipFile, name: str) -> bool:
    """True when the array stored as `name` is what its own header says: stored
    uncompressed, of a plain numeric type, holding exactly the bytes its shape needs.
    Checked before it is read: NumPy allocates the declared shape first, so a header
    declaring a huge one would take the memory before the data was found missing."""
    info = archive.getinfo(name)
    if info.compress_type != zipfile.ZIP_STORED or not name.endswith(".npy"):
        return False
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(member)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(member)
        else:
            return False
        data_bytes = info.file_size - member.tell()
    return dtype.kind in _KINDS and math.prod(shape) * dtype.itemsize == data_bytes


def _bytes(array: np.ndarray[Any, Any]) -> bytes:
    if array.dtype != np.uint8 or array.ndim != 1:
        raise ValueError("not a byte blob")
    return array.tobytes()


def prune(cache_dir: Path, kind: str, keep: Path) -> None:
    """Delete all but the `KEEP` most recent caches of `kind` (`keep` among them); best effort.

    Caches of other versions of `kind` (pickled ones, or another format or rendering
    version than `keep`'s) are deleted too: they are never read.
    """
    current = _VERSIONED.match(keep.name)
    with contextlib.suppress(OSError):
        for legacy in cache_dir.glob(f"{kind}-*.pickle"):
            legacy.unlink()
        others = []
        for p in cache_dir.glob(f"{kind}-*.npz"):
            stale = _VERSIONED.match(p.name)
            if current and stale and stale["versions"] != current["versions"]:
                with contextlib.suppress(OSError):
                    p.unlink()
            elif p != keep:
                with contextlib.suppress(OSError):
                    others.append((p.stat().st_mtime, p))
        others.sort(reverse=True)
        for _, old in others[KEEP - 1 :]:
            with contextlib.suppress(OSError):
                old.unlink()


# Mapped files. Each array's data starts at a multiple of 64 bytes (zipalign's padding
# field), as NumPy is several times slower on unaligned arrays; an array unaligned anyway
# (a file `save` wrote) is copied, never refused. Refused, by returning None so the
# caller builds instead: a file outside a private folder, a header that is not `head`, a
# member compressed, not numeric, or whose bytes do not match its declared shape, and
# anything unreadable. The caller still checks the values (`Mapped.chunks` lets it read
# a large array piece by piece, letting go of each piece's pages).
_ALIGN = 64  # what .npy headers pad to: a member starting here has its data aligned too
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, ..., name length, extra length
_PADDING_FIELD = 0xD935  # the extra field zipalign pads with
_MAX_NPY_HEADER = 1 << 16
_CHUNK_BYTES = 1 << 24  # what `Mapped.chunks` reads before letting go of the pages


class _Descriptor:
    """An open file descriptor, closed when nothing uses it any more."""

    __slots__ = ("fd",)

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __del__(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


# Runs of items closer than this are read in one `pread` (with what lies between).
_RUN_GAP_BYTES = 1 << 15


class Runs:
    """Runs of a mapped 1-D array's items read from the file with `pread`, not through
    the mapping. A page cache may hold a file in large folios, and touching one item of
    a mapping then maps the whole folio into the process (hundreds of kilobytes): a few
    hundred scattered reads would hold most of a large file. Read this way, only the
    items asked for are copied, and no page is mapped."""

    __slots__ = ("_array", "_file", "_offset")

    def __init__(self, file: _Descriptor, offset: int, array: Array) -> None:
        self._file = file
        self._offset = offset
        self._array = array  # the mapped view: what is read when the file cannot be

    def take(self, starts: Array, lengths: Array) -> Array:
        """The items `starts[k] .. starts[k] + lengths[k] - 1` of every run `k`, in order,
        concatenated (as `array[run_positions(starts, lengths)]`). Raises IndexError for
        a run outside the array."""
        starts = np.asarray(starts, dtype=np.int64)
        lengths = np.asarray(lengths, dtype=np.int64)
        keep = lengths > 0
        if not keep.any():
            return np.empty(0, dtype=self._array.dtype)
        first, ends, lengths = starts[keep], starts[keep] + lengths[keep], lengths[keep]
        if int(first.min()) < 0 or int(ends.max()) > self._array.size:
            raise IndexError("a run outside the array")
        try:
            buffer, at = self._read(first, ends)
        except OSError:
            buffer, at = self._array, first
        # Each run's items, from where its run lies in what was read.
        positions = np.repeat(at - (np.cumsum(lengths) - lengths), lengths)
        positions += np.arange(positions.size, dtype=np.int64)
        result: Array = buffer[positions]
        return result

    def _read(self, first: Array, ends: Array) -> tuple[Array, Array]:
        """The runs `first` to `ends` read from the file (sorted, those less than a gap
        apart read together), and where each run starts in what was read."""
        order = np.argsort(first, kind="stable")
        lo, hi = first[order], np.maximum.accumulate(ends[order])
        dtype = self._array.dtype
        gap = max(_RUN_GAP_BYTES // dtype.itemsize, 1)
        new_span = np.concatenate([[True], lo[1:] > hi[:-1] + gap])
        span_lo = lo[new_span]
        span_hi = np.append(hi[np.flatnonzero(new_span)[1:] - 1], hi[-1])
        sizes = span_hi - span_lo
        buffer = np.empty(int(sizes.sum()), dtype=dtype)
        into = np.concatenate([[0], np.cumsum(sizes)])
        itemsize = dtype.itemsize
        for k, (start, size) in enumerate(zip(span_lo.tolist(), sizes.tolist(), strict=True)):
            got = os.pread(self._file.fd, size * itemsize, self._offset + start * itemsize)
            if len(got) != size * itemsize:
                raise OSError("the cache file is shorter than its arrays")
            buffer[into[k] : into[k] + size] = np.frombuffer(got, dtype=dtype)
        span = np.searchsorted(span_lo, first, side="right") - 1
        return buffer, into[span] + first - span_lo[span]


@dataclass(frozen=True, slots=True)
class Mapped:
    """The contents of a mapped cache file: arrays viewing the mapping, strings read."""

    arrays: dict[str, Array]
    strings: dict[str, list[str]]
    _map: mmap.mmap
    _address: int  # where the mapping starts in memory
    _file: _Descriptor | None = None  # the file mapped, to read runs of items from

    def runs(self, array: Array) -> Runs | None:
        """Runs of `array` (one of `arrays`, 1-D, viewing the mapping) to read from the
        file rather than the mapping; None when it is a copy or the file is not open."""
        start = array.__array_interface__["data"][0] - self._address
        if self._file is None or array.ndim != 1 or not 0 <= start <= len(self._map):
            return None
        if start + array.nbytes > len(self._map) or not array.flags.c_contiguous:
            return None
        return Runs(self._file, start, array)

    def chunks(self, array: Array) -> Iterator[Array]:
        """`array` (one of `arrays`, 1-D) piece by piece; once a piece has been used its
        pages leave this process's memory (they stay in the page cache), so checking a
        large array does not hold all of it at once."""
        step = max(_CHUNK_BYTES // max(array.itemsize, 1), 1)
        for start in range(0, len(array), step):
            piece = array[start : start + step]
            yield piece
            self._release(piece)

    def _release(self, piece: Array) -> None:
        if not hasattr(mmap, "MADV_DONTNEED") or piece.base is None or not piece.nbytes:
            return
        start = piece.__array_interface__["data"][0] - self._address
        if not 0 <= start < len(self._map):
            return  # a copy (an unaligned array), not a view of the mapping
        first = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE  # whole pages of the piece only
        end = min(start + piece.nbytes, len(self._map)) // mmap.PAGESIZE * mmap.PAGESIZE
        if end > first:
            with contextlib.suppress(OSError, ValueError):
                self._map.madvise(mmap.MADV_DONTNEED, first, end - first)


@dataclass(frozen=True, slots=True)
class Streamed:
    """A 1-D array written to a mapped file piece by piece, never whole in memory:
    `pieces()` yields its consecutive parts, `length` items of `dtype` in all."""

    dtype: np.dtype[Any]
    length: int
    pieces: Callable[[], Iterator[Array]]


@dataclass(frozen=True, slots=True)
class Deferred:
    """An array made (`make()`) only when the members before it have been written: work
    that ends meanwhile (the near-duplicates found by a helper) need not be waited for
    before the file is begun."""

    make: Callable[[], Array]


def save_mapped(
    path: Path,
    head: dict[str, Any],
    arrays: Mapping[str, Array | Streamed | Deferred],
    strings: dict[str, list[str]],
) -> None:
    """Write a cache file as `save` does (atomically, into a private folder,
    pruning old files of its kind), each array's data aligned for mapping; a
    `Streamed` array is written as its pieces come, a `Deferred` one made when its
    turn comes (in the order of `arrays`).

    Raises OSError when it cannot be written, ValueError for a string holding NUL.
    """
    ensure_dir(path.parent)
    kind = str(head["kind"])
    entries = _entries(head, arrays, strings)
    with (
        atomic_write(path, binary=True, prefix=f".{kind}-", suffix=".tmp") as handle,
        zipfile.ZipFile(handle, "w", zipfile.ZIP_STORED) as archive,
    ):
        for name, array in entries.items():
            _write_member(archive, handle.tell(), f"{name}.npy", array)
    prune(path.parent, kind, keep=path)


def _entries(
    head: dict[str, Any],
    arrays: Mapping[str, Array | Streamed | Deferred],
    strings: dict[str, list[str]],
) -> dict[str, Array | Streamed | Deferred]:
    """The members of a cache file, named as `tui.cachefile` names them: the header (with
    each string list's length), each string list as one NUL-separated UTF-8 blob, the arrays."""
    entries: dict[str, Array | Streamed | Deferred] = {}
    counts = {}
    for name, values in strings.items():
        blob = _SEPARATOR.join(values)
        if blob.count(_SEPARATOR) != max(len(values) - 1, 0):
            raise ValueError(f"a string of {name!r} holds NUL")
        entries[_STRINGS + name] = np.frombuffer(blob.encode("utf-8", "surrogatepass"), np.uint8)
        counts[name] = len(values)
    for name, array in arrays.items():
        entries[_ARRAY + name] = array
    text = json.dumps({**head, "strings": counts}, sort_keys=True)
    entries[_HEADER] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    return entries


def _write_member(
    archive: zipfile.ZipFile, offset: int, name: str, array: Array | Streamed | Deferred
) -> None:
    """One stored `.npy` member, padded so that it starts (and its data starts) aligned."""
    if isinstance(array, Deferred):
        array = array.make()
    if isinstance(array, Streamed):
        shape, dtype = (array.length,), np.dtype(array.dtype)
        pieces: Iterator[Array] = (np.ascontiguousarray(p, dtype=dtype) for p in array.pieces())
    else:
        array = np.ascontiguousarray(array)
        shape, dtype, pieces = array.shape, array.dtype, iter([array])
    header = io.BytesIO()
    described = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False}
    np.lib.format.write_array_header_1_0(header, {**described, "shape": shape})
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = header.tell() + math.prod(shape) * dtype.itemsize
    pad = -(offset + _LOCAL_HEADER.size + len(name.encode("utf-8"))) % _ALIGN
    if 0 < pad < 4:  # a field is at least its 4-byte heading
        pad += _ALIGN
    if pad:
        info.extra = struct.pack("<HH", _PADDING_FIELD, pad - 4) + bytes(pad - 4)
    expected = math.prod(shape) * dtype.itemsize
    written = 0
    with archive.open(info, "w") as member:
        member.write(header.getvalue())
        for piece in pieces:
            member.write(piece.reshape(-1).view(np.uint8).data)
            written += piece.nbytes
    if written != expected:  # zipfile would record what was written: a wrong shape
        raise ValueError(f"{name}: the pieces written do not add up to its shape")


def load_mapped(path: Path, head: dict[str, Any]) -> Mapped | None:
    """The cache file at `path` mapped, if its header is `head`; else None (never raises)."""
    if not _private(path.parent):
        return None
    try:
        with open(path, "rb") as handle:
            mapping = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            file = _Descriptor(os.dup(handle.fileno()))
            with zipfile.ZipFile(handle) as archive:
                members = archive.infolist()
        base = np.frombuffer(mapping, dtype=np.uint8)
        address = int(base.__array_interface__["data"][0])
        del base
        found: dict[str, Array] = {}
        for info in members:
            array = _member(mapping, info)
            if array is None:
                return None
            found[info.filename] = array
        strings, header = _header(found, head)
        if header is None:
            return None
        arrays = {name[2:-4]: a for name, a in found.items() if name.startswith("a:")}
    except Exception:
        # Missing, truncated, garbage or crafted: all mean "build instead".
        return None
    return Mapped(arrays, strings, mapping, address, file)


def _member(mapping: mmap.mmap, info: zipfile.ZipInfo) -> Array | None:
    """The array stored as `info`, viewing `mapping`; None unless it is a stored `.npy`
    of a plain numeric type holding exactly the bytes its shape needs, and (for the
    header and string lists, which are copied anyway) matching its checksum. The arrays
    are not checksummed: that would read all of them at each load."""
    if info.compress_type != zipfile.ZIP_STORED or not info.filename.endswith(".npy"):
        return None
    offset = info.header_offset
    signature, name_length, extra_length = _LOCAL_HEADER.unpack_from(mapping, offset)
    if signature != b"PK\x03\x04":
        return None
    start = offset + _LOCAL_HEADER.size + name_length + extra_length
    end = start + info.file_size
    if end > len(mapping):
        return None
    if not info.filename.startswith(_ARRAY) and zlib.crc32(mapping[start:end]) != info.CRC:
        return None  # the header and strings are read anyway: their checksum costs little
    stream = io.BytesIO(mapping[start : min(end, start + _MAX_NPY_HEADER)])
    if np.lib.format.read_magic(stream) != (1, 0):
        return None
    shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
    count = math.prod(shape)
    data = start + stream.tell()
    if dtype.kind not in "biuf" or count * dtype.itemsize != end - data:
        return None
    array = np.frombuffer(mapping, dtype=dtype, count=count, offset=data)
    array = array.reshape(shape[::-1]).T if fortran else array.reshape(shape)
    if not array.flags.aligned or not dtype.isnative:
        array = np.array(array, dtype=dtype.newbyteorder("="))  # usable, if not mapped
    return array


def _header(
    found: dict[str, Array], head: dict[str, Any]
) -> tuple[dict[str, list[str]], dict[str, Any] | None]:
    """The string lists of a file, and its header if it is `head` (else None)."""
    header = json.loads(_text(found["header.npy"]))
    counts = header.pop("strings")
    if header != head or not isinstance(counts, dict):
        return {}, None
    strings: dict[str, list[str]] = {}
    for name, blob in found.items():
        if name.startswith("s:"):
            key = name[2:-4]
            values = _text(blob).split(_SEPARATOR) if counts[key] else []
            if len(values) != counts[key]:
                return {}, None
            strings[key] = values
    return strings, header


def _text(blob: Array) -> str:
    return _bytes(blob).decode("utf-8", "surrogatepass")
