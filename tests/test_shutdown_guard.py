"""The shutdown guard ends the process whatever hangs.

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

pytestmark = pytest.mark.slow  # real processes, signalled or killed

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


def _start(tmp_path: Path, mode: str) -> tuple[subprocess.Popen[str], Path]:
    flushed = tmp_path / f"flushed-{mode}"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(flushed), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return child, flushed


def _finish(child: subprocess.Popen[str], start: float) -> tuple[int, float, str]:
    try:
        _, err = child.communicate(timeout=10)
    finally:
        child.kill()
    return child.returncode, time.monotonic() - start, err


def test_a_signal_to_a_stuck_process_flushes_then_exits(tmp_path: Path) -> None:
    signals = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
    children = [_start(tmp_path, signal.Signals(s).name) for s in signals]  # side by side
    for child, _ in children:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
    start = time.monotonic()
    for (child, _), signum in zip(children, signals, strict=True):
        child.send_signal(signum)
    for child, flushed in children:
        status, took, err = _finish(child, start)
        assert flushed.read_text() == "flushed by the guard"
        assert status == 1  # what the emergency flush reported
        assert took < WEDGED_SECONDS + EXIT_SECONDS + 0.8
        assert "last words" in err


def test_after_the_apps_flush_a_hang_cannot_keep_the_process(tmp_path: Path) -> None:
    child, flushed = _start(tmp_path, "quit")
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    status, took, err = _finish(child, time.monotonic())
    assert flushed.read_text() == "flushed by the app"
    assert status == 0
    assert took < EXIT_SECONDS + 0.8
    assert "last words" in err
