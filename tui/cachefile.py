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
the arrays against the corpus (shapes, types, values in range) before using them. Only the few most recent files of each kind are kept.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import zipfile
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
    entries: dict[str, np.ndarray[Any, Any]] = {}
    counts = {}
    for name, values in strings.items():
        blob = _SEPARATOR.join(values)
        if blob.count(_SEPARATOR) != max(len(values) - 1, 0):
            raise ValueError(f"a string of {name!r} holds NUL")
        entries[_STRINGS + name] = np.frombuffer(
            blob.encode("utf-8", "surrogatepass"), dtype=np.uint8
        )
        counts[name] = len(values)
    for name, array in arrays.items():
        entries[_ARRAY + name] = np.asarray(array)
    text = json.dumps({**head, "strings": counts}, sort_keys=True)
    entries[_HEADER] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
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

    Pickled caches of older versions are deleted too: they are never read.
    """
    with contextlib.suppress(OSError):
        for legacy in cache_dir.glob(f"{kind}-*.pickle"):
            legacy.unlink()
        others = []
        for p in cache_dir.glob(f"{kind}-*.npz"):
            if p != keep:
                with contextlib.suppress(OSError):
                    others.append((p.stat().st_mtime, p))
        others.sort(reverse=True)
        for _, old in others[KEEP - 1 :]:
            with contextlib.suppress(OSError):
                old.unlink()
