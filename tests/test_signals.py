"""The real command on a pseudo-terminal: SIGTERM, SIGHUP and SIGINT quit like `q`,
saving a note that was still waiting for its debounced save, and exit with status 0."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.ptyrun import PtyApp
from tui.store.userdata import UserData


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_quits_cleanly_and_saves_the_note(
    signum: int, seeds_dir: Path, data_dir: Path
) -> None:
    app = PtyApp([str(seeds_dir)], data_dir)
    try:
        app.read_until(b"abstracts")
        app.drain(1.5)  # the user's data opens after the first paint
        app.write(b"n")
        app.read_until(b"Esc closes")
        app.write(b"signal note")
        app.drain(0.3)  # typed, but not yet saved by the 1 s debounce
        app.proc.send_signal(signum)
        sent = time.monotonic()
        # Keep reading the terminal: a full pty buffer would block the app's writes.
        while app.proc.poll() is None and time.monotonic() - sent < 5:
            app.drain(0.1)
        assert app.wait(1) == 0
        assert time.monotonic() - sent < 2.5
    finally:
        app.kill_all()
    stored = UserData.open(data_dir)
    try:
        assert "signal note" in {text for _, text in stored.note_items()}
    finally:
        stored.close()
