"""The shutdown guard ends the process whatever hangs (issue 9, finding 2).

Each case runs in a child process whose main thread then blocks for ever in C code,
as the app's did in Textual's `Queue.put` once the terminal was gone: a Python
signal handler or an asyncio callback would never run there.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui.ui.shutdown import EXIT_SECONDS, WEDGED_SECONDS

CHILD = """
import sys, threading
from pathlib import Path
from tui.ui.shutdown import ShutdownGuard

flushed = Path(sys.argv[1])
guard = ShutdownGuard()

def emergency():
    flushed.write_text("flushed by the guard")
    return 1

guard.emergency = emergency
guard.last_words = lambda: print("last words", file=sys.stderr, flush=True)
guard.install()
if sys.argv[2] == "quit":
    guard.begin()
    flushed.write_text("flushed by the app")
    guard.flushed(0)
print("ready", flush=True)
stuck = threading.Lock()
stuck.acquire()
stuck.acquire()  # never returns
"""


def _run(tmp_path: Path, mode: str, signum: int | None) -> tuple[int, float, str, str]:
    flushed = tmp_path / "flushed"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(flushed), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    start = time.monotonic()
    if signum is not None:
        child.send_signal(signum)
    try:
        _, err = child.communicate(timeout=10)
    finally:
        child.kill()
    return child.returncode, time.monotonic() - start, flushed.read_text(), err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_to_a_stuck_process_flushes_then_exits(tmp_path: Path, signum: int) -> None:
    status, took, flushed, err = _run(tmp_path, "stuck", signum)
    assert flushed == "flushed by the guard"
    assert status == 1  # what the emergency flush reported
    assert took < WEDGED_SECONDS + EXIT_SECONDS + 0.8
    assert "last words" in err


def test_after_the_apps_flush_a_hang_cannot_keep_the_process(tmp_path: Path) -> None:
    status, took, flushed, err = _run(tmp_path, "quit", None)
    assert flushed == "flushed by the app"
    assert status == 0
    assert took < EXIT_SECONDS + 0.8
    assert "last words" in err
