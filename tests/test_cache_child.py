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


def test_the_child_dies_with_a_killed_app(tmp_path: Path) -> None:
    corpus = write_large_corpus(tmp_path / "corpus")
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(corpus), str(tmp_path / "cache")],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        time.sleep(0.5)  # the child is loading or building
        assert _alive(child)
        os.kill(parent.pid, signal.SIGKILL)  # no chance to stop the child
        parent.wait()
        deadline = time.monotonic() + 1.0
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _alive(child)
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)
