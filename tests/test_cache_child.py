"""The child process that builds the caches ends with the app, however the app ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_pty_close import write_large_corpus

pytestmark = pytest.mark.slow  # real processes, signalled or killed

PARENT = """
import sys, time
from pathlib import Path
from tui.caches import CacheBuild
from tui.corpus.load import load_corpus

build = CacheBuild(load_corpus([Path(sys.argv[1])]), Path(sys.argv[2]))
print(build._process.pid, flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _dies_with_its_killed_parent(argv: list[str], settle: float) -> None:
    """Run `argv` (a process that prints the id of a process it started, then waits),
    SIGKILL it `settle` seconds later and check that the process it started ends too."""
    parent = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    started = int(parent.stdout.readline())
    try:
        time.sleep(settle)  # the started process is at work
        assert _alive(started)
        os.kill(parent.pid, signal.SIGKILL)  # no chance to stop what it started
        parent.wait()
        # Seconds, not at once: a loaded machine may be slow to run the process's end.
        deadline = time.monotonic() + 5.0
        while _alive(started) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _alive(started)
    finally:
        if _alive(started):
            os.kill(started, signal.SIGKILL)


def test_the_child_dies_with_a_killed_app(tmp_path: Path) -> None:
    corpus = write_large_corpus(tmp_path / "corpus")
    # The child is loading or building when the app is killed.
    _dies_with_its_killed_parent(
        [sys.executable, "-c", PARENT, str(corpus), str(tmp_path / "cache")], 0.5
    )


HELPER_PARENT = """
import sys, time
from tui.search.parallel import ForkedHelper

helper = ForkedHelper(lambda out: time.sleep(60))
print(helper.pid, flush=True)
time.sleep(60)
"""


def test_a_forked_helper_dies_with_a_killed_parent() -> None:
    # The cache child is killed while its helper (the index's second half) works.
    _dies_with_its_killed_parent([sys.executable, "-c", HELPER_PARENT], 0.2)


def test_the_child_ends_with_status_0_and_says_nothing_after_its_work(
    seeds_dir: Path, tmp_path: Path
) -> None:
    """The app keeps the child's stdin open, so a thread of the child is still reading it
    when the work is done: an interpreter shutdown then aborted the child (SIGABRT,
    "could not acquire lock for <stdin>"), a crash report after every build."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tui.caches", str(tmp_path / "cache")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    files = "\0".join(str(p) for p in sorted(seeds_dir.iterdir())).encode()
    child.stdin.write(b"%d\n" % len(files) + files)
    child.stdin.flush()  # and kept open, as the app keeps it
    try:
        reports = child.stdout.read().split()
        assert child.wait(timeout=60) == 0
        assert child.stderr.read() == b""
        assert reports[-3:] == [b"index", b"similar", b"topics"]
    finally:
        child.kill()
        child.stdin.close()
        child.wait()
