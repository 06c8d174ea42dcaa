"""A `tui.cachefile` whose arrays are used where they lie: memory-mapped, not read.

`tui.cachefile.load` reads every array into memory. The similarity model is
only ever read (about 300 MB at 100,000 abstracts) and was rebuilt from its term
counts at each start, a spike on top of it. Here each array is a read-only view
of the file mapped into memory: loading copies nothing, and its pages belong to
the page cache (shared, dropped under memory pressure, read again when used).

The file is the same format (a zip of stored `.npy` members: a JSON header,
arrays, string lists), written with each array's data at a multiple of 64
bytes (zipalign's padding field), as NumPy is several times slower on unaligned
arrays; an array that is unaligned anyway (a file `cachefile.save` wrote) is
copied, never refused. What is refused, by returning None so the caller builds
instead: a file outside a private folder, a header that is not `head`, a member
compressed, not numeric, or whose bytes do not match its declared shape, and
anything unreadable. The caller still checks the values (`Mapped.chunks` lets
it read a large array piece by piece, letting go of each piece's pages).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import mmap
import struct
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tui import cachefile
from tui.fileio import atomic_write
from tui.privatedir import ensure_dir, is_private

_ALIGN = 64  # what .npy headers pad to: a member starting here has its data aligned too
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, ..., name length, extra length
_PADDING_FIELD = 0xD935  # the extra field zipalign pads with
_MAX_NPY_HEADER = 1 << 16
_CHUNK_BYTES = 1 << 24  # what `Mapped.chunks` reads before letting go of the pages
_SEPARATOR = "\0"  # between the strings of a list, as in every cache file

Array = np.ndarray[Any, Any]


@dataclass(frozen=True, slots=True)
class Mapped:
    """The contents of a mapped cache file: arrays viewing the mapping, strings read."""

    arrays: dict[str, Array]
    strings: dict[str, list[str]]
    _map: mmap.mmap
    _address: int  # where the mapping starts in memory

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


def save(
    path: Path, head: dict[str, Any], arrays: dict[str, Array], strings: dict[str, list[str]]
) -> None:
    """Write a cache file as `cachefile.save` does (atomically, into a private folder,
    pruning old files of its kind), each array's data aligned for mapping.

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
    cachefile.prune(path.parent, kind, keep=path)


def _entries(
    head: dict[str, Any], arrays: dict[str, Array], strings: dict[str, list[str]]
) -> dict[str, Array]:
    """The members of a cache file, named as `tui.cachefile` names them: the header (with
    each string list's length), each string list as one NUL-separated UTF-8 blob, the arrays."""
    entries: dict[str, Array] = {}
    counts = {}
    for name, values in strings.items():
        blob = _SEPARATOR.join(values)
        if blob.count(_SEPARATOR) != max(len(values) - 1, 0):
            raise ValueError(f"a string of {name!r} holds NUL")
        entries[f"s:{name}"] = np.frombuffer(blob.encode("utf-8", "surrogatepass"), np.uint8)
        counts[name] = len(values)
    for name, array in arrays.items():
        entries[f"a:{name}"] = np.asarray(array)
    text = json.dumps({**head, "strings": counts}, sort_keys=True)
    entries["header"] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    return entries


def _write_member(archive: zipfile.ZipFile, offset: int, name: str, array: Array) -> None:
    """One stored `.npy` member, padded so that it starts (and its data starts) aligned."""
    array = np.ascontiguousarray(array)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, np.lib.format.header_data_from_array_1_0(array))
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = header.tell() + array.nbytes
    pad = -(offset + _LOCAL_HEADER.size + len(name.encode("utf-8"))) % _ALIGN
    if 0 < pad < 4:  # a field is at least its 4-byte heading
        pad += _ALIGN
    if pad:
        info.extra = struct.pack("<HH", _PADDING_FIELD, pad - 4) + bytes(pad - 4)
    with archive.open(info, "w") as member:
        member.write(header.getvalue())
        member.write(array.reshape(-1).view(np.uint8).data)


def load(path: Path, head: dict[str, Any]) -> Mapped | None:
    """The cache file at `path` mapped, if its header is `head`; else None (never raises)."""
    if not is_private(path.parent):
        return None
    try:
        with open(path, "rb") as handle:
            mapping = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
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
    return Mapped(arrays, strings, mapping, address)


def _member(mapping: mmap.mmap, info: zipfile.ZipInfo) -> Array | None:
    """The array stored as `info`, viewing `mapping`; None unless it is a stored `.npy`
    of a plain numeric type holding exactly the bytes its shape needs."""
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
    if blob.dtype != np.uint8 or blob.ndim != 1:
        raise ValueError("not a byte blob")
    return blob.tobytes().decode("utf-8", "surrogatepass")
