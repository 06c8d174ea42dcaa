"""How far a long build has gone, for whoever watches it.

The cache child (`tui.caches`) watches its builds and reports each step to the app,
which shows it in the header (`building the search index 40%…`). A build calls
`advance(stage, done, total)` as it goes, which costs nothing while nobody watches.
Only the process that installed the watcher reports: a build's forked helper (see
`tui.search.parallel`) inherits the watcher but says nothing, so its lines never
mix with the watcher's.
"""

from __future__ import annotations

import os
from collections.abc import Callable

_watcher: Callable[[str, int, int], object] | None = None
_watching_pid = 0


def watch(report: Callable[[str, int, int], object] | None) -> None:
    """Have `report(stage, done, total)` called at each step in this process (None: stop)."""
    global _watcher, _watching_pid
    _watcher, _watching_pid = report, os.getpid()


def advance(stage: str, done: int, total: int) -> None:
    """`done` of `total` steps of `stage` are done (for this process's watcher, if any)."""
    if _watcher is not None and _watching_pid == os.getpid():
        _watcher(stage, done, total)
