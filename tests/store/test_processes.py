"""Crash safety (SIGKILL at random moments) and two processes writing one store."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tui.store.db import Store

CHILD = Path(__file__).with_name("child_writer.py")
KILLS = 55


def _spawn(data: Path, prefix: str, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), str(data), prefix, str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_sigkill_never_loses_an_acknowledged_note(tmp_path: Path) -> None:
    rng = random.Random(1234)
    acknowledged: list[str] = []
    kills = 0
    for round_ in range(KILLS):
        child = _spawn(tmp_path, f"r{round_}", 0)
        assert child.stdout is not None
        lines: list[str] = []
        reader = threading.Thread(target=lambda c=child, out=lines: out.extend(c.stdout))
        reader.start()
        # Random moments: often mid-commit, sometimes before the first commit.
        time.sleep(rng.uniform(0.05, 0.35))
        child.send_signal(signal.SIGKILL)
        child.wait()
        reader.join()
        kills += child.returncode == -signal.SIGKILL
        acknowledged += [line.strip() for line in lines if line.strip()]
    assert kills >= 50
    assert len(acknowledged) > KILLS  # the children did get notes committed
    store = Store.open(tmp_path)
    assert store.integrity_check() == "ok"
    notes = store.load().notes
    missing = [i for i in acknowledged if i not in notes]
    assert missing == []
    print(f"crash test: {kills} SIGKILLs, {len(acknowledged)} acknowledged notes, 0 lost")


def test_two_processes_write_500_notes_each(tmp_path: Path) -> None:
    children = [_spawn(tmp_path, prefix, 500) for prefix in ("a", "b")]
    outputs = [child.communicate(timeout=120) for child in children]
    for child, (_, err) in zip(children, outputs, strict=True):
        assert "locked" not in err
        assert child.returncode == 0, err
    assert all(len(out.split()) == 500 for out, _ in outputs)
    store = Store.open(tmp_path)
    assert store.conn.execute("SELECT count(*) FROM notes").fetchone()[0] == 1000
    assert store.integrity_check() == "ok"
