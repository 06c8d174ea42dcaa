"""The driver's input loop delivers a lone Esc once its escape delay is over, not at
Textual's next 0.1 s wake-up, and still parses a sequence split across reads as one
event.

The loop runs for real on a socket standing in for the terminal (real bytes, real
`os.read`, Textual's real parser); only its `select` and its clock are scripted, so the
time a key comes out is read off a fake clock instead of measured. A socket, not a pty:
a socket has each write whole as soon as it returns, so a test says exactly what each
read holds, where a pty's line discipline passes bytes on in its own time.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import selectors
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual import events
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

from tui.ui.app import make_app
from tui.ui.driver import (
    ESCAPE_SECONDS,
    IDLE_SECONDS,
    EscapeTimer,
    PromptEscapeDriver,
    escape_delay,
)

# The source of the Textual loop that PromptEscapeDriver.run_input_thread copies (Textual
# 8.2.8). When this test fails, compare the two loops, carry Textual's change over, then
# record the new hash.
TEXTUAL_INPUT_LOOP_SHA256 = "d796af6d69db337d6fa6bd463984f7d17188d991dbb22f60efb92a8a9619507c"

# The script of a terminal: bytes arrive (at once, as the loop asks for input), a float
# is a pause of that many seconds with nothing arriving, and (seconds, bytes) is bytes
# that arrived while the loop was held up that long (a busy machine) before it asked.
Script = list[bytes | float | tuple[float, bytes]]


class ScriptedSelector(selectors.BaseSelector):
    """A selector on the real socket whose `select` plays the script on a fake clock.

    Each call sends the next chunk to the socket and reports it ready without any time
    passing; with a pause next, or nothing left to send, the time the loop asked to
    wait passes (a pause is cut short as the loop asked). Once the script is played and
    the loop asks for the idle wait, the loop is told to stop.
    """

    def __init__(self, terminal: socket.socket, script: Script, driver: RecordingDriver) -> None:
        self._real = selectors.SelectSelector()
        self._terminal = terminal
        self._script = list(script)
        self._driver = driver
        self.now = 0.0
        #: (time, timeout) of every select the loop made.
        self.waits: list[tuple[float, float]] = []

    def register(self, fileobj: object, events: int, data: object = None) -> selectors.SelectorKey:
        return self._real.register(fileobj, events, data)  # type: ignore[arg-type]

    def unregister(self, fileobj: object) -> selectors.SelectorKey:
        return self._real.unregister(fileobj)  # type: ignore[arg-type]

    def get_map(self) -> selectors._SelectorMapping:  # type: ignore[name-defined]
        return self._real.get_map()

    def close(self) -> None:
        self._real.close()

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        assert timeout is not None and timeout >= 0
        self.waits.append((self.now, timeout))
        if self._script and isinstance(self._script[0], bytes | tuple):
            chunk = self._script.pop(0)
            if isinstance(chunk, tuple):
                held_up, chunk = chunk
                self.now += held_up
            assert isinstance(chunk, bytes)
            self._terminal.sendall(chunk)
            return self._real.select(5.0)  # the bytes are there: this returns at once
        if self._script:
            pause = self._script.pop(0)
            assert isinstance(pause, float)
            if pause > timeout:
                self._script.insert(0, pause - timeout)
            self.now += min(pause, timeout)
            return []
        if timeout >= IDLE_SECONDS:
            self._driver.exit_event.set()
        self.now += timeout
        return []


class RecordingDriver(PromptEscapeDriver):
    """The driver with the scripted selector and clock; records what it would post."""

    def __init__(self, terminal: socket.socket, script: Script) -> None:
        super().__init__(_NoApp())
        self.selector = ScriptedSelector(terminal, script, self)
        #: (time, message) of everything the loop produced.
        self.posted: list[tuple[float, Message]] = []

    def _clock(self) -> float:
        return self.selector.now

    def _input_selector(self) -> selectors.BaseSelector:
        return self.selector

    def process_message(self, message: Message) -> None:
        self.posted.append((self.selector.now, message))

    def key_names(self) -> list[str]:
        return [m.key for _, m in self.posted if isinstance(m, events.Key)]


class _NoApp:
    """The loop never reaches the app: `process_message` is replaced above."""


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    """The terminal's side of a socket pair whose other side is the driver's stdin."""
    ours, theirs = socket.socketpair()
    stdin = os.fdopen(theirs.fileno(), "r", closefd=False)
    monkeypatch.setattr(sys, "__stdin__", stdin)
    monkeypatch.delenv("ESCDELAY", raising=False)
    # The driver's constructor installs suspend and resume handlers for the process.
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTSTP, signal.SIGCONT)}
    try:
        yield ours
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        stdin.close()
        theirs.close()
        ours.close()


async def run_loop(terminal: socket.socket, script: Script) -> RecordingDriver:
    """Run the driver's input loop on `terminal` through `script`, to its end."""
    driver = RecordingDriver(terminal, script)
    driver.run_input_thread()
    return driver


# -- a lone Esc -----------------------------------------------------------------------


async def test_a_lone_esc_is_posted_when_its_escape_delay_is_over(terminal: socket.socket) -> None:
    driver = await run_loop(terminal, [b"\x1b"])
    [(when, key)] = driver.posted
    assert isinstance(key, events.Key) and key.key == "escape"
    # Posted at the delay, not at Textual's next 0.1 s wake-up (nor 0.1 s after that).
    assert when == pytest.approx(ESCAPE_SECONDS)
    assert ESCAPE_SECONDS < IDLE_SECONDS / 2


async def test_the_loop_waits_only_until_a_pending_escape_is_due(terminal: socket.socket) -> None:
    driver = await run_loop(terminal, [b"j", b"\x1b"])
    timeouts = [timeout for _, timeout in driver.selector.waits]
    # Read j, read Esc, wait for the rest of the sequence, then idle.
    assert timeouts[:3] == [IDLE_SECONDS, IDLE_SECONDS, pytest.approx(ESCAPE_SECONDS)]
    assert timeouts[3] == IDLE_SECONDS
    assert driver.key_names() == ["j", "escape"]


async def test_an_idle_loop_waits_the_idle_time_and_does_not_spin(terminal: socket.socket) -> None:
    driver = await run_loop(terminal, [b"k", 0.35])
    timeouts = [timeout for _, timeout in driver.selector.waits]
    assert timeouts == [IDLE_SECONDS] * len(timeouts)
    # k; four waits over the 0.35 s; the one that stops the loop; its last look after.
    assert len(timeouts) == 7
    assert driver.key_names() == ["k"]


async def test_a_sequence_whose_rest_comes_after_the_delay_gives_up_on_time(
    terminal: socket.socket,
) -> None:
    """The price of a short delay: a sequence broken by a long pause is not one key."""
    driver = await run_loop(terminal, [b"\x1b", 0.5, b"[A"])
    assert driver.key_names()[0] == "escape"
    assert driver.posted[0][0] == pytest.approx(ESCAPE_SECONDS)
    assert "up" not in driver.key_names()


# -- sequences split across reads -----------------------------------------------------


async def test_an_arrow_key_split_across_reads_is_one_key(terminal: socket.socket) -> None:
    driver = await run_loop(terminal, [b"\x1b", b"[", b"A", b"\x1b[", b"B"])
    assert driver.key_names() == ["up", "down"]


async def test_a_split_sequence_whose_rest_comes_within_the_delay_is_one_key(
    terminal: socket.socket,
) -> None:
    driver = await run_loop(terminal, [b"\x1b[1;5", ESCAPE_SECONDS * 0.8, b"C"])
    assert driver.key_names() == ["ctrl+right"]


async def test_a_sequence_whose_rest_waits_while_the_loop_is_held_up_is_one_key(
    terminal: socket.socket,
) -> None:
    """Past the delay, bytes already there are read before the sequence is given up on."""
    driver = await run_loop(terminal, [b"\x1b[", (ESCAPE_SECONDS * 4, b"A")])
    assert driver.key_names() == ["up"]


async def test_a_mouse_report_split_across_reads_is_one_click(terminal: socket.socket) -> None:
    driver = await run_loop(terminal, [b"\x1b[<0;10", b";5M", b"\x1b[<0;10;5", b"m"])
    posted = [m for _, m in driver.posted]
    assert [type(m) for m in posted] == [events.MouseDown, events.MouseUp]
    down = posted[0]
    assert isinstance(down, events.MouseDown) and (down.x, down.y) == (9, 4)


async def test_a_bracketed_paste_split_across_reads_is_one_paste(terminal: socket.socket) -> None:
    script: Script = [b"\x1b[20", b"0~a pasted ", b"line\x1b", b"[201", b"~", b"j"]
    driver = await run_loop(terminal, script)
    posted = [m for _, m in driver.posted]
    assert len(posted) == 2
    assert isinstance(posted[0], events.Paste) and posted[0].text == "a pasted line"
    assert isinstance(posted[1], events.Key) and posted[1].key == "j"


async def test_a_sequence_cut_at_the_end_of_a_full_read_is_one_key(terminal: socket.socket) -> None:
    """A burst longer than one read (4096 bytes) leaves the sequence's rest for the next."""
    driver = await run_loop(terminal, [b"x" * 4095 + b"\x1b[", b"D"])
    assert driver.key_names() == ["x"] * 4095 + ["left"]


# -- the timer on its own ---------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_timer_gives_a_lone_esc_only_once_it_is_due() -> None:
    clock = FakeClock()
    timer = EscapeTimer(XTermParser(), 0.03, clock)
    assert timer.timeout() == IDLE_SECONDS
    assert timer.feed("\x1b") == []
    assert timer.timeout() == pytest.approx(0.03)
    clock.now += 0.02
    assert timer.timeout() == pytest.approx(0.01)
    assert timer.flush() == []
    clock.now += 0.01
    assert timer.timeout() == 0.0
    [key] = timer.flush()
    assert isinstance(key, events.Key) and key.key == "escape"
    assert timer.timeout() == IDLE_SECONDS
    assert timer.flush() == []


def test_escdelay_when_set_replaces_the_short_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    from textual import constants

    monkeypatch.delenv("ESCDELAY", raising=False)
    assert escape_delay() == ESCAPE_SECONDS
    monkeypatch.setenv("ESCDELAY", "300")
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 0.3)  # as Textual reads it at import
    assert escape_delay() == 0.3


# -- what the driver relies on in the installed Textual ----------------------------------


def test_textuals_input_loop_is_the_one_the_driver_copies() -> None:
    source = inspect.getsource(LinuxDriver.run_input_thread)
    assert hashlib.sha256(source.encode()).hexdigest() == TEXTUAL_INPUT_LOOP_SHA256, (
        "Textual's LinuxDriver.run_input_thread changed: carry the change over to "
        "tui/ui/driver.py's PromptEscapeDriver.run_input_thread, then update the hash"
    )


def test_the_parser_has_a_deadline_exactly_while_a_sequence_is_incomplete() -> None:
    parser = XTermParser()
    assert parser._timeout_time is None
    list(parser.feed("\x1b[1;"))
    assert parser._timeout_time is not None
    assert list(parser.feed("5C")) and parser._timeout_time is None
    list(parser.feed("\x1b"))
    parser._timeout_time = float("-inf")  # due: tick() gives the sequence up
    [key] = list(parser.tick())
    assert isinstance(key, events.Key) and key.key == "escape"
    assert parser._timeout_time is None


# -- wiring -----------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="Windows keeps Textual's driver")
def test_the_app_runs_on_the_prompt_escape_driver(
    data_dir: Path, seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual import constants

    monkeypatch.setattr(constants, "DRIVER", None)  # no TEXTUAL_DRIVER override
    app = make_app([seeds_dir], data_dir=data_dir)
    assert app.driver_class is PromptEscapeDriver
