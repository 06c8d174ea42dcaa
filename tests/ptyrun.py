"""Running the real `abstracts` command on a pseudo-terminal, for black-box tests."""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Sequence
from pathlib import Path

# Run in the child (a new session): make the pty the controlling terminal, so closing
# it sends SIGHUP (and SIGCONT) as closing a terminal window does, then become the app.
# A script rather than preexec_fn, which is unsafe when the test runs threads.
TAKE_TERMINAL = (
    "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


class PtyApp:
    """`python -m tui ARGS` on a fresh pty; `master` is the terminal's side."""

    def __init__(
        self, args: Sequence[str], data_dir: Path, *, controlling: bool = True, size=(30, 120)
    ) -> None:
        self.data_dir = data_dir
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[0], size[1], 0, 0))
        env = dict(os.environ, ABSTRACTS_DATA_DIR=str(data_dir), TERM="xterm-256color")
        command = ["-m", "tui", "--data-dir", str(data_dir), *args]
        if controlling:
            command = ["-c", TAKE_TERMINAL, *command]
        self.proc = subprocess.Popen(
            [sys.executable, *command],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = b""
        self.closed_at: float | None = None

    def read_until(self, marker: bytes, timeout: float = 30.0) -> None:
        """Read the terminal until `marker` has been drawn."""
        if not self.drain(timeout, marker):
            raise AssertionError(f"never saw {marker!r}; last drawn: {self.seen[-300:]!r}")

    def drain(self, seconds: float, marker: bytes | None = None) -> bool:
        """Read what the app draws for `seconds` (keeping the tail), or until `marker`."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:
                    return False
                self.seen = self.seen[-4000:] + data
                if marker is not None and marker in self.seen:
                    return True
        return False

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def close_terminal(self) -> None:
        """Close the terminal's side, as closing the window does."""
        os.close(self.master)
        self.closed_at = time.monotonic()

    def wait(self, timeout: float) -> int | None:
        """The exit status, or None if the process is still alive after `timeout`."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def leftovers(self) -> list[int]:
        """Every process still running whose command line names this app's data directory
        (the app itself, the cache-building child)."""
        marker = str(self.data_dir).encode()
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes()
                state = (entry / "stat").read_text().split(")")[-1].split()[0]
            except OSError:
                continue
            if marker in cmdline and state != "Z":
                found.append(int(entry.name))
        return found

    def kill_all(self) -> None:
        """Clean-up after a failure: no process of this app outlives its test."""
        for pid in self.leftovers():
            with contextlib.suppress(OSError):
                os.kill(pid, 9)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.closed_at is None:
            os.close(self.master)
