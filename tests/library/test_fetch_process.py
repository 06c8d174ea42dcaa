"""A real `abstracts fetch` killed with SIGKILL half way, then run again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.library.arxiv_server import FakeArxiv, papers
from tests.library.test_fetch import stored
from tui import locations
from tui.inbox.config import write_follow
from tui.inbox.library import state_dir


def fetch_process(data_dir: Path, config_dir: Path, url: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tui", "fetch", "--api-url", url, "--quiet"],
        cwd=REPO,
        env={
            **os.environ,
            "ABSTRACTS_DATA_DIR": str(data_dir),
            "ABSTRACTS_CONFIG_DIR": str(config_dir),
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def pages_saved(data_dir: Path) -> int:
    path = state_dir(locations.library_dir(data_dir)) / "fetch" / "cs.LG" / "state.json"
    try:
        return int(json.loads(path.read_text())["pages"])
    except (OSError, ValueError, KeyError):
        return 0


@pytest.mark.slow  # real processes and arXiv's real 3 s between requests
def test_a_fetch_killed_with_sigkill_and_run_again_stores_every_paper_exactly_once(
    data_dir: Path, config_dir: Path, arxiv: FakeArxiv
) -> None:
    write_follow(locations.config_path(config_dir), ["cs.LG"])
    arxiv.catalogue = papers(300, datetime.now(UTC) - timedelta(hours=1))
    process = fetch_process(data_dir, config_dir, arxiv.url)
    deadline = time.monotonic() + 30
    while pages_saved(data_dir) < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    assert pages_saved(data_dir) in (1, 2)
    asked = len(arxiv.requests)
    assert stored(data_dir) == {}

    again = fetch_process(data_dir, config_dir, arxiv.url)
    _out, err = again.communicate(timeout=60)
    assert again.returncode == 0, err.decode()
    counts = stored(data_dir)
    assert len(counts) == 300 and set(counts.values()) == {1}
    assert arxiv.requests[asked]["start"] != "0"  # resumed, not started over
