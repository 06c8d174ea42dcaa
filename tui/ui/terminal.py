"""Textual's Linux driver, made safe for a terminal that goes away.

Three things in Textual 8.2's `LinuxDriver` hang the process when the pty closes
(the terminal window closed, `tmux kill-session`, an SSH connection dropped):

- its output thread dies on the first failed write (EIO on a hung-up pty) and its
  queue holds 30 writes: the 31st `write` from the app blocks the main thread for
  ever (seen in `App._shutdown` -> `disable_input` -> `_disable_mouse_support`);
- the kernel sends SIGCONT with SIGHUP to the session leader, and the driver's
  SIGCONT handler starts application mode again (a second output thread, a
  second input thread) even though it was never suspended;
- a hung-up pty reads as end-of-file for ever, and the input thread spins on it.

`SafeLinuxDriver` writes through an output thread that drops output once the
terminal has failed, resumes only after its own suspend, and treats a terminal
that hangs up as SIGHUP (which the app's shutdown guard turns into a quit).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Callable
from queue import Empty, Full, Queue
from typing import IO, Any

from textual.drivers.linux_driver import LinuxDriver

# As in Textual: a bounded queue makes a slow terminal slow the app down, not grow memory.
_MAX_QUEUED_WRITES = 30
_POLL_SECONDS = 0.1
_JOIN_SECONDS = 1.0
_HANGUP_POLL_MS = 500


class SafeWriter(threading.Thread):
    """Textual's output thread, except that no `write` waits on a terminal that failed."""

    def __init__(self, file: IO[str], on_failure: Callable[[], object]) -> None:
        super().__init__(daemon=True, name="abstracts-output")
        self._queue: Queue[str | None] = Queue(_MAX_QUEUED_WRITES)
        self._file = file
        self._on_failure = on_failure
        #: Set once a write failed: the terminal is gone, output is dropped from then on.
        self.broken = threading.Event()

    def write(self, text: str) -> None:
        """Queue `text`; dropped if the terminal failed. Waits only while the thread drains."""
        self._put(text)

    def _put(self, item: str | None) -> None:
        while not self.broken.is_set() and self.is_alive():
            try:
                self._queue.put(item, timeout=_POLL_SECONDS)
                return
            except Full:
                continue

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._file.fileno()

    def flush(self) -> None:
        """A no-op: the thread flushes when its queue runs empty."""

    def run(self) -> None:
        try:
            while (text := self._queue.get()) is not None:
                self._file.write(text)
                if self._queue.empty():
                    self._file.flush()
            self._file.flush()
        except (OSError, ValueError):
            self.broken.set()
            self._on_failure()
        # Drain so that a writer blocked on a full queue wakes at once.
        with contextlib.suppress(Empty):
            while True:
                self._queue.get_nowait()

    def stop(self) -> None:
        """Stop the thread; waits a bounded time for the last output to be written."""
        self._put(None)
        self.join(_JOIN_SECONDS)


class SafeLinuxDriver(LinuxDriver):
    """`LinuxDriver` that never blocks, restarts or spins on a terminal that has closed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._writer: SafeWriter | None = None
        self._suspended = False
        self._hung_up = threading.Event()
        self._closed = threading.Event()
        self._watching = False

    # Output: everything the driver writes goes through SafeWriter.

    def start_application_mode(self) -> None:
        if self._writer is not None:  # resumed after a suspend
            self._writer.stop()
        assert self._file is not None
        self._writer = SafeWriter(self._file, self._terminal_gone)
        self._writer.start()
        super().start_application_mode()  # type: ignore[no-untyped-call]
        found = getattr(self._app, "terminal_modes_at_launch", None)
        if found is not None and self.attrs_before is not None:
            # The program turned the echo off while it started (tui.cli): leaving
            # application mode (a quit, a suspend for $EDITOR) puts back the modes it
            # found, echo on, not the ones Textual found.
            self.attrs_before = found
        if self._writer_thread is not None:
            # Textual's own output thread is started but never written to: stop it now.
            self._writer_thread.stop()
        self._watch_hangup()

    def write(self, data: str) -> None:
        if self._writer is not None:
            self._writer.write(data)

    def close(self) -> None:
        self._closed.set()
        if self._writer is not None:
            self._writer.stop()

    # Suspend and resume: only a suspend of our own is resumed.

    def _sigtstp_application(self, *args: Any) -> None:
        self._suspended = True
        super()._sigtstp_application(*args)

    def _sigcont_application(self, *args: Any) -> None:
        # A hangup also sends SIGCONT to the session leader: not a resume.
        if self._suspended and not self._hung_up.is_set():
            self._suspended = False
            super()._sigcont_application(*args)

    # Input: a terminal that hangs up is the user closing it, not a crash.

    def _run_input_thread(self) -> None:
        try:
            self.run_input_thread()
        except OSError:
            self._terminal_gone()
        except BaseException:
            import rich.traceback

            self._app.call_later(self._app.panic, rich.traceback.Traceback())

    def _watch_hangup(self) -> None:
        # poll() reports POLLHUP on a pty whose other side closed, whatever events are
        # asked for. Only on Linux: macOS cannot poll terminal devices.
        if self._watching or not sys.platform.startswith("linux") or not os.isatty(self.fileno):
            return
        self._watching = True  # once: a resume after a suspend keeps the same watcher
        thread = threading.Thread(target=self._wait_for_hangup, name="abstracts-hangup")
        thread.daemon = True
        thread.start()

    def _wait_for_hangup(self) -> None:
        poller = select.poll()
        poller.register(self.fileno, 0)
        while not self._closed.is_set():
            events = poller.poll(_HANGUP_POLL_MS)
            if any(
                mask & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, mask in events
            ):
                self._terminal_gone()
                return

    def _terminal_gone(self) -> None:
        """The terminal closed: stop reading it and quit as on SIGHUP (saving everything)."""
        if self._hung_up.is_set():
            return
        self._hung_up.set()
        # The input thread would otherwise read end-of-file in a busy loop until the end.
        self.exit_event.set()
        os.kill(os.getpid(), signal.SIGHUP)
