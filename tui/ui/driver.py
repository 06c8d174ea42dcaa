"""The app's Linux driver: a lone Esc answered as promptly as any other key.

A terminal sends the Esc key as the byte ESC, the byte that also starts every escape
sequence (arrow keys, mouse reports, a bracketed paste). Textual's parser therefore
holds an ESC until the next byte comes or `ESCAPE_DELAY` passes (100 ms unless ESCDELAY
says otherwise). But Textual 8.2's input thread only looks at that deadline when its
`select` returns, and it always waits 0.1 s: a lone Esc came out 100 to 200 ms after
the key, where every other key comes out as soon as it is read.

`PromptEscapeDriver` runs the same input loop, except that while the parser holds an
incomplete escape sequence it waits only until that sequence is due, and the sequence
is due `ESCAPE_SECONDS` after its last byte (ESCDELAY, in ms, when the user set it, as
ncurses and Textual read it). A terminal writes a whole sequence at once, so its bytes
come together; a sequence split across reads (a burst longer than one read, a slow
link) still parses as one key as long as its rest comes within that time. With nothing
pending the loop waits Textual's 0.1 s, so an idle app does not spin.

The loop is a copy of `LinuxDriver.run_input_thread` with that change, and it relies on
the parser's `_timeout_time` (set while it waits for the rest of a sequence, and the
deadline `tick()` compares with). tests/ui/test_driver.py pins both: it fails when the
installed Textual's loop changes, and when its parser stops behaving as used here.
"""

from __future__ import annotations

import contextlib
import math
import os
import selectors
import time
from codecs import getincrementaldecoder
from collections.abc import Callable

from textual import constants
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.message import Message

from tui.ui.terminal import SafeLinuxDriver

#: How long the input thread waits when no escape sequence is pending (Textual's own):
#: it looks at `exit_event` that often.
IDLE_SECONDS = 0.1
#: How long after its last byte an incomplete escape sequence is given up on (a lone
#: Esc delivered). Neovim waits 50 ms (`ttimeoutlen`), tmux 10 ms (`escape-time`).
ESCAPE_SECONDS = 0.025
_READ_BYTES = 4096  # as Textual reads


def escape_delay() -> float:
    """Seconds to wait for the rest of an escape sequence: ESCDELAY when set, else ours."""
    return constants.ESCAPE_DELAY if "ESCDELAY" in os.environ else ESCAPE_SECONDS


class EscapeTimer:
    """An XTermParser, fed by the input thread, that knows when its pending Esc is due."""

    def __init__(
        self, parser: XTermParser, delay: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._parser = parser
        self._delay = delay
        self._clock = clock
        #: When the pending escape sequence is given up on; None when none is pending.
        self._due: float | None = None

    def feed(self, data: str) -> list[Message]:
        """The events `data` completes; an escape sequence it leaves open is due later."""
        events = list(self._parser.feed(data))
        # The parser sets a deadline exactly while it waits for the rest of a sequence.
        pending = self._parser._timeout_time is not None
        self._due = self._clock() + self._delay if pending else None
        return events

    def timeout(self) -> float:
        """How long the input thread may wait for more input."""
        if self._due is None:
            return IDLE_SECONDS
        return min(IDLE_SECONDS, max(0.0, self._due - self._clock()))

    def flush(self) -> list[Message]:
        """The pending sequence's events once it is due (a lone Esc), else none."""
        if self._due is None or self._clock() < self._due:
            return []
        self._due = None
        # Our deadline replaces the parser's (later) one: make it due, and tick() gives
        # up on the sequence as it would have at its own.
        self._parser._timeout_time = -math.inf
        return list(self._parser.tick())


class PromptEscapeDriver(SafeLinuxDriver):
    """`SafeLinuxDriver` whose input thread delivers a lone Esc once it is due."""

    def _clock(self) -> float:
        return time.monotonic()

    def _input_selector(self) -> selectors.BaseSelector:
        # As Textual: select(), since macOS cannot poll a terminal device.
        return selectors.SelectSelector()

    def run_input_thread(self) -> None:
        """Read the terminal and post its events until `exit_event` is set."""
        fileno = self.fileno
        selector = self._input_selector()
        selector.register(fileno, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        timer = EscapeTimer(parser, escape_delay(), self._clock)
        decode = getincrementaldecoder("utf-8")().decode

        def process(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            for _key, mask in ready:  # one file registered: at most one entry
                if mask & selectors.EVENT_READ:
                    data = decode(os.read(fileno, _READ_BYTES), final=final)
                    if not data:  # stdin piped and closed
                        break
                    for event in timer.feed(data):
                        self.process_message(event)
            for event in timer.flush():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                process(selector.select(timer.timeout()))
            selector.unregister(fileno)
            process(selector.select(IDLE_SECONDS), final=True)
        finally:
            selector.close()
            with contextlib.suppress(EOFError, ParseError):
                for _event in parser.feed(""):
                    pass
