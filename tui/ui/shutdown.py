"""A bounded, always-terminating quit: save everything, then the process ends.

Whatever the moment of SIGTERM, SIGHUP (the terminal closed), SIGINT or `q`, the
user's data is flushed and the process exits within a bound, even if something
in the interpreter hangs afterwards (an output thread waiting on a dead terminal,
a worker thread the interpreter would wait for at exit).

Signals reach a guard thread through `signal.set_wakeup_fd`: the C-level handler
writes the signal number to a pipe, so a signal is seen even when the main thread
is blocked in C code and could never run a Python-level handler or an asyncio
callback. The guard thread asks the app to quit (`request_quit`), then:

- if the app does not start finishing within `WEDGED_SECONDS`, its loop is stuck:
  the guard flushes the store itself (`emergency`, which writes a rescue file for
  whatever cannot be committed);
- once the store is flushed, the interpreter has `EXIT_SECONDS` to end on its own;
  after that the guard says the last words (where a rescue file is), restores the
  terminal modes and ends the process with `os._exit` and the status already known.

No Textual here: the app wires its callbacks in.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
#: How long the app's loop has to start finishing after a signal before it counts as stuck.
WEDGED_SECONDS = 0.5
#: The longest a flush may take (the store's own close gives up after about 6 s and
#: writes a rescue file).
FLUSH_SECONDS = 10.0
#: After the flush, how long the interpreter has to end on its own.
EXIT_SECONDS = 1.2
#: Bound on the last words and the terminal restore before the forced exit.
_LAST_WORDS_SECONDS = 0.4

EXIT_OK = 0
#: Some changes could not be committed: they went to a rescue file (or were printed).
EXIT_UNSAVED = 1


def _run_bounded(function: Callable[[], object], seconds: float) -> None:
    """Run `function` in a daemon thread and wait at most `seconds` for it."""
    thread = threading.Thread(target=function, name="abstracts-shutdown-step", daemon=True)
    thread.start()
    thread.join(seconds)


class ShutdownGuard:
    """Turns signals into a quit and bounds how long quitting may take.

    `install` (main thread) takes over SIGTERM, SIGHUP and SIGINT; without it the
    guard only records the status (the pilot tests run the app this way).
    """

    def __init__(
        self,
        *,
        exit_function: Callable[[int], object] = os._exit,
        wedged_seconds: float = WEDGED_SECONDS,
        flush_seconds: float = FLUSH_SECONDS,
        exit_seconds: float = EXIT_SECONDS,
    ) -> None:
        self._exit_function = exit_function
        self._wedged_seconds = wedged_seconds
        self._flush_seconds = flush_seconds
        self._exit_seconds = exit_seconds
        #: Called from the guard thread when a signal asks to quit; set by the app.
        self.request_quit: Callable[[], object] | None = None
        #: Flushes the store from the guard thread when the app is stuck; returns the status.
        self.emergency: Callable[[], int] | None = None
        #: What to tell the user before the process ends (printed once).
        self.last_words: Callable[[], None] | None = None
        #: The exit status, once the flush has decided it.
        self.status = EXIT_OK
        #: The signals received, in order.
        self.signals: list[int] = []
        self._installed = False
        self._triggered = threading.Event()
        self._finishing = threading.Event()
        self._flushed = threading.Event()
        self._words_lock = threading.Lock()
        self._words_said = False
        self._pipe: tuple[int, int] | None = None
        self._terminal_modes: list[Any] | None = None

    @property
    def installed(self) -> bool:
        return self._installed

    @property
    def hung_up(self) -> bool:
        """Whether the terminal closed (SIGHUP): nothing can be written to it any more."""
        return signal.SIGHUP in self.signals

    def install(self, terminal_modes: list[Any] | None = None) -> None:
        """Take over the quit signals and start the guard thread (main thread only).
        `terminal_modes`: the terminal's modes as the program found them (before it
        turned the echo off while starting), put back if the guard ends the process."""
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        self._pipe = (read_end, write_end)
        self._terminal_modes = terminal_modes
        with contextlib.suppress(OSError, ImportError):
            import termios

            if terminal_modes is None and os.isatty(sys.stdin.fileno()):
                self._terminal_modes = termios.tcgetattr(sys.stdin.fileno())
        for signum in SIGNALS:
            # A Python handler is needed for the wakeup fd to be written; it does nothing.
            signal.signal(signum, _ignore)
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
        self._installed = True
        threading.Thread(target=self._guard, name="abstracts-shutdown", daemon=True).start()

    # Called by the app (main thread)

    def begin(self) -> None:
        """The app starts finishing (saving): from now on the process ends within a bound."""
        self._finishing.set()
        self._trigger()

    def flushed(self, status: int) -> None:
        """Everything is saved (or rescued); `status` is what the process exits with."""
        self.status = status
        self._finishing.set()
        self._flushed.set()
        self._trigger()

    def say_last_words(self) -> None:
        """Print the last words once, whoever gets here first (the app or the guard)."""
        with self._words_lock:
            if self._words_said:
                return
            self._words_said = True
        if self.last_words is not None:
            with contextlib.suppress(Exception):
                self.last_words()

    # The guard thread

    def _trigger(self) -> None:
        self._triggered.set()
        if self._pipe is not None:
            with contextlib.suppress(OSError):
                os.write(self._pipe[1], b"\0")

    def _guard(self) -> None:
        assert self._pipe is not None
        read_end = self._pipe[0]
        while not self._wait_for_trigger(read_end):
            pass
        if not self._finishing.wait(self._wedged_seconds) or not self._flushed.wait(
            self._flush_seconds
        ):
            self._flush_here()
        time.sleep(self._exit_seconds)  # the interpreter ends on its own, normally
        _run_bounded(self._final_words, _LAST_WORDS_SECONDS)
        self._exit_function(self.status)

    def _wait_for_trigger(self, read_end: int) -> bool:
        """Block until a quit signal or `begin`; True when quitting has started."""
        select.select([read_end], [], [])
        data = os.read(read_end, 64)
        quit_signals = [s for s in data if s in SIGNALS]
        self.signals += quit_signals
        if quit_signals and self.request_quit is not None:
            with contextlib.suppress(Exception):
                self.request_quit()
        return bool(quit_signals) or self._triggered.is_set()

    def _flush_here(self) -> None:
        """The app is stuck (or was never there): flush the store from this thread."""
        emergency = self.emergency
        if emergency is None:
            return
        result: list[int] = []
        _run_bounded(lambda: result.append(emergency()), self._flush_seconds)
        if result:
            self.status = result[0]
        self._flushed.set()

    def _final_words(self) -> None:
        if not self.hung_up:
            self._restore_terminal()
        self.say_last_words()

    def _restore_terminal(self) -> None:
        """Leave the terminal usable: modes as found, main screen, cursor shown."""
        with contextlib.suppress(Exception):
            import termios

            if self._terminal_modes is not None:
                termios.tcsetattr(sys.stdin.fileno(), termios.TCSANOW, self._terminal_modes)
            os.write(sys.stderr.fileno(), b"\x1b[<u\x1b[?1049l\x1b[?25h\x1b[?1004l")

    def pending_request(self) -> bool:
        """Whether a quit signal came before the app could be asked (during start)."""
        return bool(self.signals)


def _ignore(signum: int, frame: object) -> None:
    """The Python side of a guarded signal: the wakeup fd does the work."""
