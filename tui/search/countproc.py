"""Counting saved searches in a child process, so the counting never holds the app's GIL.

Counted in a thread of the app, a run over 100,000 abstracts is a few hundred
milliseconds of GIL-bound work, and every turn of the event loop then waits for the
GIL (key presses were measured waiting over 100 ms). The child, `python -m
tui.search.countproc`, reads the search index from the cache file the app already
wrote, then answers one JSON line per request: the queries and whatever personal
data changed since the last request (sets are sent again only when the app replaced
them; they are copy-on-write). It exits when its stdin closes: when the app ends,
however it ends.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from tui.search.counts import SearchCounts, count_searches
from tui.search.personal import PersonalData

_SETS = ("bookmarked", "read", "noted")


class CountProcess:
    """A child counting saved searches over the index cached at `path` (header `head`)."""

    def __init__(self, path: Path, head: Mapping[str, Any]) -> None:
        self._lock = threading.Lock()
        #: The sets the child holds, by name (the objects sent: a new object means a change).
        self._sent: dict[str, object] = {}
        self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-m", "tui.search.countproc"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        if not self._send({"cache": str(path), "header": dict(head)}):
            self.close()

    @property
    def alive(self) -> bool:
        return self._process is not None

    def _send(self, message: Mapping[str, Any]) -> bool:
        process = self._process
        if process is None or process.stdin is None:
            return False
        try:
            process.stdin.write(json.dumps(message).encode("utf-8", "surrogatepass") + b"\n")
            process.stdin.flush()
        except (OSError, ValueError):
            return False
        return True

    def count(
        self, queries: Sequence[str], personal: PersonalData | None
    ) -> list[SearchCounts] | None:
        """Counts for each query (as `count_searches`), or None when the child cannot answer
        (its cache was unusable, it died): the caller counts another way."""
        with self._lock:
            request: dict[str, Any] = {"queries": list(queries)}
            if personal is not None:
                current = dict(
                    zip(
                        _SETS,
                        (personal.bookmarked_ids(), personal.read_ids(), personal.noted_ids()),
                        strict=True,
                    )
                )
                for name, ids in current.items():
                    if self._sent.get(name) is not ids:
                        request[name] = list(ids)
                request["notes"] = list(personal.note_items())
            process = self._process
            if process is None or process.stdout is None or not self._send(request):
                self.close()
                return None
            try:
                reply = json.loads(process.stdout.readline() or b"null")
            except (OSError, ValueError):
                reply = None
            if not isinstance(reply, dict) or "counts" not in reply:
                self.close()
                return None
            if personal is not None:
                self._sent.update(current)
            return [SearchCounts(**c) for c in reply["counts"]]

    def close(self) -> None:
        """End the child (it exits on end-of-file)."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError, ValueError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(2)
        except subprocess.TimeoutExpired:
            process.kill()


class _Personal:
    """The personal data the app sent, as search reads it."""

    def __init__(self) -> None:
        self.sets: dict[str, frozenset[str]] = {name: frozenset() for name in _SETS}
        self.notes: list[tuple[str, str]] = []

    def bookmarked_ids(self) -> AbstractSet[str]:
        return self.sets["bookmarked"]

    def read_ids(self) -> AbstractSet[str]:
        return self.sets["read"]

    def noted_ids(self) -> AbstractSet[str]:
        return self.sets["noted"]

    def note_items(self) -> Iterable[tuple[str, str]]:
        return self.notes


def serve(lines: IO[bytes], out: IO[bytes]) -> int:
    """The child's loop: an init line naming the cache, then one reply per request."""
    from tui.search import cache

    init = json.loads(lines.readline() or b"null")
    if not isinstance(init, dict):
        return 1
    index = cache.load_file(Path(init["cache"]), init["header"])
    personal = _Personal()
    for line in lines:
        request = json.loads(line)
        if index is None:
            reply: dict[str, Any] = {"error": "the search index cache could not be read"}
        else:
            for name in _SETS:
                if name in request:
                    personal.sets[name] = frozenset(request[name])
            personal.notes = [(str(i), str(t)) for i, t in request.get("notes", [])]
            counts = count_searches(index, request["queries"], personal) or []
            reply = {"counts": [asdict(c) for c in counts]}
        out.write(json.dumps(reply).encode("utf-8") + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(serve(sys.stdin.buffer, sys.stdout.buffer))
