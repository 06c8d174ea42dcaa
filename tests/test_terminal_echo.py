"""Keys typed while the app starts are not echoed onto the shell's screen.

Until the app takes the terminal (raw mode, the alternate screen), the terminal echoes
what is typed; those characters stayed on the shell's screen after the app quit. The
command turns the echo off as soon as it starts, and every way out of the screen puts
back the modes it found.
"""

from __future__ import annotations

import os
import select
import sys
import termios
import time
from pathlib import Path

from tests.ptyrun import PtyApp
from tui.cli import quiet_terminal, restore_terminal


def _echoes(fd: int) -> bool:
    return bool(termios.tcgetattr(fd)[3] & termios.ECHO)


def test_quiet_terminal_turns_the_echo_off_and_restore_puts_the_modes_back() -> None:
    master, slave = os.openpty()
    try:
        with os.fdopen(os.dup(slave), "r") as stream:
            before = termios.tcgetattr(slave)
            assert _echoes(slave)
            modes = quiet_terminal(stream)
            assert modes == before
            assert not _echoes(slave)
            restore_terminal(stream, modes)
            assert termios.tcgetattr(slave) == before
    finally:
        os.close(master)
        os.close(slave)


def test_quiet_terminal_leaves_what_is_not_a_terminal_alone(tmp_path: Path) -> None:
    with open(tmp_path / "f", "w+") as stream:
        assert quiet_terminal(stream) is None
        restore_terminal(stream, None)  # nothing to do, nothing raised


def test_keys_typed_before_the_first_frame_are_not_echoed_and_the_modes_come_back(
    tmp_path: Path, seeds_dir: Path
) -> None:
    app = PtyApp([str(seeds_dir)], tmp_path / "data")
    try:
        launch_modes = termios.tcgetattr(app.master)
        deadline = time.monotonic() + 30
        # The echo goes off before the app draws anything (it starts as the command does).
        while _echoes(app.master):
            assert time.monotonic() < deadline, "the echo never went off"
            ready, _, _ = select.select([app.master], [], [], 0.002)
            assert not ready, (
                f"the terminal echoed until the app drew: {os.read(app.master, 200)!r}"
            )
        app.write(b"jj")
        app.read_until(b"abstracts")
        assert b"jj" not in app.seen.split(b"\x1b[?1049h")[0]
        app.write(b"q")
        assert app.wait(30) == 0
        assert termios.tcgetattr(app.master) == launch_modes  # echo on again for the shell
    finally:
        app.kill_all()


if sys.platform != "linux":  # pragma: no cover - the pty tests run where CI runs
    del test_keys_typed_before_the_first_frame_are_not_echoed_and_the_modes_come_back
