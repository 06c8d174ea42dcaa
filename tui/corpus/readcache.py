"""The parsed-files cache: what each file's reader made of it, keyed by the file's stat.

Starting the app or a command on files that have not changed since the last time
need not read, decode and parse them again: for each file this keeps its size,
modification time (ns), inode and device, its digest, and its `ReadResult` (the
texts, the papers as JSON, the warnings), in one JSON file per set of arguments in
the data dir's cache folder. A file whose stat differs is read again. JSON, not
pickle: reading a cache can never run code; it is read only from a private folder
(see `tui.privatedir`), and anything unreadable or of another version is ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tui.corpus.model import Collection
from tui.corpus.paper import Paper
from tui.corpus.readers import ReadResult

VERSION = 1
_KEEP = 3  # cache files kept: the argument sets opened most recently
_PREFIX = "read-"


def _stat_key(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev]


def _result_json(result: ReadResult) -> dict[str, Any]:
    c = result.collection
    return {
        "format": result.format,
        "collection": [c.label, c.venue, c.year],
        "texts": result.texts,
        "papers": None
        if result.papers is None
        else [None if p is None else p.to_json() for p in result.papers],
        "warnings": result.warnings,
        "error": result.error,
    }


def _result_from(data: dict[str, Any]) -> ReadResult:
    label, venue, year = data["collection"]
    papers = data["papers"]
    return ReadResult(
        data["format"],
        Collection(label, venue, year),
        data["texts"],
        None if papers is None else [None if p is None else Paper.from_json(p) for p in papers],
        data["warnings"],
        data["error"],
    )


class Cached:
    """One file's cached read: its digest, its reader's result, its decoding problems and,
    for conference text, each paragraph's id (hashing them again is a third of a load)."""

    __slots__ = ("digest", "ids", "problems", "result")

    def __init__(
        self,
        digest: str,
        result: ReadResult,
        problems: list[tuple[str, bool]],
        ids: list[str] | None = None,
    ) -> None:
        self.digest = digest
        self.result = result
        self.problems = problems
        self.ids = ids


class ReadCache:
    """The parsed files of one set of load arguments: look up by stat, store, save."""

    def __init__(self, path: Path, entries: dict[str, Any]) -> None:
        self.path = path
        self._old = entries
        self._new: dict[str, Any] = {}
        self._changed = False

    @classmethod
    def open(cls, cache_dir: Path, args: Sequence[str | os.PathLike[str]]) -> ReadCache:
        """The cache for `args` in `cache_dir` (empty when there is none or it is unusable)."""
        key = "\0".join(os.path.abspath(os.fspath(a)) for a in args)
        name = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
        path = cache_dir / f"{_PREFIX}v{VERSION}-{name}.json"
        entries: dict[str, Any] = {}
        from tui.privatedir import is_private

        if is_private(cache_dir):
            with contextlib.suppress(OSError, ValueError):
                data = json.loads(path.read_bytes())
                if isinstance(data, dict) and data.get("version") == VERSION:
                    files = data.get("files")
                    if isinstance(files, dict):
                        entries = files
        return cls(path, entries)

    def lookup(self, path: Path, st: os.stat_result) -> Cached | None:
        """The cached read of `path` if its stat is unchanged, else None."""
        name = os.fspath(path)
        entry = self._old.get(name)
        if not isinstance(entry, dict) or entry.get("stat") != _stat_key(st):
            if entry is not None:
                self._changed = True
            return None
        try:
            ids = entry.get("ids")
            cached = Cached(
                entry["digest"],
                _result_from(entry["result"]),
                [(str(m), bool(f)) for m, f in entry["problems"]],
                ids
                if isinstance(ids, list) and len(ids) == len(entry["result"]["texts"])
                else None,
            )
        except (KeyError, TypeError, ValueError):
            self._changed = True
            return None
        self._new[name] = entry
        return cached

    def store(
        self,
        path: Path,
        st: os.stat_result,
        digest: str,
        result: ReadResult,
        problems: list[tuple[str, bool]],
        ids: list[str] | None = None,
    ) -> None:
        """Remember what `path` (with stat `st`, before it was read) gave."""
        self._new[os.fspath(path)] = {
            "stat": _stat_key(st),
            "digest": digest,
            "result": _result_json(result),
            "problems": [list(p) for p in problems],
            "ids": ids,
        }
        self._changed = True

    def save(self) -> None:
        """Write the cache when something changed; never raises (a cache is optional)."""
        if not self._changed and len(self._new) == len(self._old):
            return
        from tui.fileio import atomic_write
        from tui.privatedir import ensure_dir

        try:
            ensure_dir(self.path.parent)
            # dumps, not dump: dump encodes in Python, piece by piece; dumps in C, at
            # once. ASCII escapes: C's ASCII path is about twice as fast again (the cache
            # of a big library is megabytes, written before the first paint).
            text = json.dumps({"version": VERSION, "files": self._new})
            with atomic_write(self.path, prefix=f".{_PREFIX}", suffix=".tmp") as handle:
                handle.write(text)
        except (OSError, ValueError):
            return
        _prune(self.path)


def _prune(keep: Path) -> None:
    """Only the `_KEEP` most recently written parsed-files caches stay."""
    with contextlib.suppress(OSError):
        found = []
        for entry in os.scandir(keep.parent):
            if entry.name.startswith(_PREFIX) and entry.name.endswith(".json"):
                found.append((entry.stat().st_mtime_ns, entry.path))
        found.sort(reverse=True)
        for _, old in found[_KEEP:]:
            if old != os.fspath(keep):
                with contextlib.suppress(OSError):
                    os.unlink(old)
