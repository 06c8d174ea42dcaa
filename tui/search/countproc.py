"""Counting saved searches in a child process, so the counting never holds the app's GIL.

Counted in a thread of the app, a run over 100,000 abstracts is a few hundred
milliseconds of GIL-bound work, and every turn of the event loop then waits for the
GIL (key presses were measured waiting over 100 ms). The child, `python -m
tui.search.countproc`, reads the search index from the cache file the app already
wrote, then answers one JSON line per request: the queries and whatever personal
data changed since the last request. Whatever `PersonalData` answers (every method
of the protocol, so a field added there is sent without a change here) goes over:
sets only when the app replaced them (they are copy-on-write), other answers (note
texts, tag -> ids) every time. It exits when its stdin closes: when the app ends, however it ends.
"""

from __future__ import annotations

import base64
import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any, cast

import numpy as np

from tui.search.counts import SearchCounts, count_searches
from tui.search.filters import TopicNumbers
from tui.search.personal import PersonalData


def _questions() -> list[str]:
    """The methods of `PersonalData`: what search may ask of the user's data."""
    return sorted(
        name for name, value in vars(PersonalData).items() if callable(value) and name[0] != "_"
    )


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
        self,
        queries: Sequence[str],
        personal: PersonalData | None,
        topics: TopicNumbers | None = None,
        topics_pending: bool = False,
    ) -> list[SearchCounts] | None:
        """Counts for each query (as `count_searches`), or None when the child cannot answer
        (its cache was unusable, it died): the caller counts another way."""
        with self._lock:
            request: dict[str, Any] = {
                "queries": list(queries),
                "sets": {},
                "maps": {},
                "items": {},
                "topics_pending": topics_pending,
            }
            if topics is None:
                request["topics"] = None
            elif self._sent.get("topics") is not topics:  # computed once: sent once
                request["topics"] = base64.b64encode(topics.astype("<i4").tobytes()).decode()
            answers = {}
            forgotten: list[str] = []
            if personal is None:
                # No personal data: the child forgets what it was sent (a name never sent
                # answers an empty set), as `count_searches` sees no bookmarks, notes or tags.
                forgotten = [name for name in _questions() if name in self._sent]
                request["sets"] = {name: [] for name in forgotten}
            else:
                answers = {name: getattr(personal, name)() for name in _questions()}
                for name, answer in answers.items():
                    if isinstance(answer, AbstractSet):
                        if self._sent.get(name) is not answer:
                            request["sets"][name] = list(answer)
                    elif isinstance(answer, Mapping):  # tag -> ids
                        request["maps"][name] = {k: list(v) for k, v in answer.items()}
                    else:
                        request["items"][name] = [
                            list(item) if isinstance(item, tuple | list) else item
                            for item in answer
                        ]
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
            for name in forgotten:
                del self._sent[name]
            self._sent.update(answers)
            self._sent["topics"] = topics
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
            process.wait()  # reaped: not left a zombie, and its end is seen


class _Personal:
    """The personal data the app sent, answering search's questions as the app would."""

    def __init__(self) -> None:
        self.answers: dict[str, object] = {}

    def __getattr__(self, name: str) -> Callable[[], object]:
        if name.startswith("_"):
            raise AttributeError(name)
        answer = self.answers.get(name, frozenset())
        return lambda: answer


def serve(lines: IO[bytes], out: IO[bytes]) -> int:
    """The child's loop: an init line naming the cache, then one reply per request."""
    from tui.search import cache

    init = json.loads(lines.readline() or b"null")
    if not isinstance(init, dict):
        return 1
    index = cache.load_file(Path(init["cache"]), init["header"])
    personal = _Personal()
    topics: TopicNumbers | None = None
    for line in lines:
        request = json.loads(line)
        if index is None:
            reply: dict[str, Any] = {"error": "the search index cache could not be read"}
        else:
            for name, ids in request.get("sets", {}).items():
                personal.answers[name] = frozenset(ids)
            for name, mapping in request.get("maps", {}).items():
                personal.answers[name] = {k: frozenset(v) for k, v in mapping.items()}
            for name, items in request.get("items", {}).items():
                personal.answers[name] = [
                    tuple(item) if isinstance(item, list) else item for item in items
                ]
            if "topics" in request:
                sent = request["topics"]
                topics = (
                    None if sent is None else np.frombuffer(base64.b64decode(sent), dtype="<i4")
                )
            counts = count_searches(
                index,
                request["queries"],
                cast(PersonalData, personal),
                topics=topics,
                topics_pending=bool(request.get("topics_pending")),
            )
            counts = counts or []
            reply = {"counts": [asdict(c) for c in counts]}
        out.write(json.dumps(reply).encode("utf-8") + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(serve(sys.stdin.buffer, sys.stdout.buffer))
