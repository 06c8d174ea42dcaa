"""Crash safety (SIGKILL at random moments) and two processes writing one store, both
through the app's own path: `UserData` and its writer thread (see child_writer.py)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tui.store.userdata import UserData

CHILD = Path(__file__).with_name("child_writer.py")
REPO = Path(__file__).resolve().parents[2]
# Random moments on every run (the seed is printed, ABSTRACTS_CRASH_SEED repeats it):
# 16 kills a run, two children at a time, keep the test to a few seconds.
KILLS = 16


def _spawn(data: Path, prefix: str, count: int, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), str(data), prefix, str(count), str(seed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )


class _Lines:
    """The child's complete output lines, read as they come (a killed child may leave a
    half-written last line: it does not count)."""

    def __init__(self, child: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self.acknowledged = threading.Event()
        assert child.stdout is not None
        self._thread = threading.Thread(target=self._read, args=(child.stdout,))
        self._thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            if line.endswith("\n"):
                self.lines.append(line)
                if line.startswith("A "):
                    self.acknowledged.set()

    def join(self) -> None:
        self._thread.join()


def _killed_round(data: Path, prefix: str, seed: int, delay: float) -> tuple[int, list[str]]:
    """A child writing until SIGKILL, `delay` seconds after its first acknowledgement."""
    child = _spawn(data, prefix, 0, seed)
    lines = _Lines(child)
    try:
        # Only after the first commit: a kill before it tests nothing.
        assert lines.acknowledged.wait(30), "the child never committed"
        time.sleep(delay)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        lines.join()
    return child.returncode, lines.lines


@pytest.mark.slow  # real child processes killed at random moments
def test_sigkill_never_loses_an_acknowledged_note(tmp_path: Path) -> None:
    seed = int(os.environ.get("ABSTRACTS_CRASH_SEED") or random.randrange(1 << 30))
    print(f"crash test: seed {seed} (ABSTRACTS_CRASH_SEED={seed} repeats it)")
    rng = random.Random(seed)
    plan = [(f"r{n}", rng.randrange(1 << 30), rng.uniform(0.0, 0.25)) for n in range(KILLS)]
    # Two children at a time (each on its own ids): half the time, and the kills land
    # while another process is writing the same database too.
    with ThreadPoolExecutor(max_workers=2) as pool:
        rounds = list(pool.map(lambda r: _killed_round(tmp_path, *r), plan))
    # For each id: the newest acknowledged text, then every text sent after it.
    allowed: dict[str, tuple[bytes, set[bytes]]] = {}
    kills = acknowledged = 0
    for returncode, lines in rounds:
        kills += returncode == -signal.SIGKILL
        sent: dict[str, set[bytes]] = {}
        for line in lines:
            kind, abstract_id, hex_text = line.split()
            text = bytes.fromhex(hex_text)
            if kind == "S":
                sent.setdefault(abstract_id, set()).add(text)
            else:
                acknowledged += 1
                sent[abstract_id] = set()  # filled by the texts sent after this one
                allowed[abstract_id] = (text, sent[abstract_id])
    assert kills == KILLS
    assert acknowledged > KILLS  # the children did get notes committed
    stored = UserData.open(tmp_path)
    try:
        assert stored.notices == []
        notes = {i: t.encode() for i, t in stored.note_items()}
    finally:
        stored.close()
    lost = [
        abstract_id
        for abstract_id, (acked, later) in allowed.items()
        if notes.get(abstract_id) not in {acked, *later}
    ]
    assert lost == []
    print(
        f"crash test: {kills} SIGKILLs, {acknowledged} acknowledged notes "
        f"({len(allowed)} distinct), {len(lost)} lost"
    )


@pytest.mark.slow
def test_two_processes_save_500_notes_each(tmp_path: Path) -> None:
    children = [_spawn(tmp_path, prefix, 500, n) for n, prefix in enumerate(("a", "b"))]
    outputs = [child.communicate(timeout=120) for child in children]
    for child, (_, err) in zip(children, outputs, strict=True):
        assert "locked" not in err
        assert child.returncode == 0, err
    expected: dict[str, bytes] = {}
    for out, _ in outputs:
        for line in out.splitlines():
            kind, abstract_id, hex_text = line.split()
            if kind == "A":
                expected[abstract_id] = bytes.fromhex(hex_text)
    stored = UserData.open(tmp_path)
    try:
        notes = {i: t.encode() for i, t in stored.note_items()}
    finally:
        stored.close()
    assert notes == expected
    assert len(notes) > 600


def test_a_process_that_never_closes_its_data_still_exits(tmp_path: Path) -> None:
    """The writer thread never keeps a finished (or crashed) program from exiting."""
    code = (
        "import sys; from pathlib import Path; from tui.store.userdata import UserData; "
        "UserData.open(Path(sys.argv[1])); print('opened')"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "data")],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == "opened\n"
