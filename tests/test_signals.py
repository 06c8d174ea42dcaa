"""The real command on a pseudo-terminal: SIGTERM, SIGHUP and SIGINT quit like `q`,
saving a note that was still waiting for its debounced save."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tui.store.userdata import UserData


def _read_until(master: int, marker: bytes, timeout: float = 30.0) -> None:
    seen = b""
    deadline = time.monotonic() + timeout
    while marker not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"never saw {marker!r}")
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            seen = seen[-200:] + os.read(master, 65536)


def _drain(master: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            os.read(master, 65536)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_quits_cleanly_and_saves_the_note(
    signum: int, seeds_dir: Path, data_dir: Path
) -> None:
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    env = dict(os.environ, ABSTRACTS_DATA_DIR=str(data_dir), TERM="xterm-256color")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui", str(seeds_dir)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    try:
        _read_until(master, b"abstracts")
        _drain(master, 1.5)  # the user's data opens after the first paint
        os.write(master, b"n")
        _read_until(master, b"Esc closes")
        os.write(master, b"signal note")
        _drain(master, 0.3)  # typed, but not yet saved by the 1 s debounce
        proc.send_signal(signum)
        deadline = time.monotonic() + 20
        while proc.poll() is None and time.monotonic() < deadline:
            # Keep reading the terminal: a full pty buffer would block the app's writes.
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    os.read(master, 65536)
                except OSError:
                    break
        assert proc.wait(timeout=5) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    stored = UserData.open(data_dir)
    try:
        assert "signal note" in {text for _, text in stored.note_items()}
    finally:
        stored.close()
