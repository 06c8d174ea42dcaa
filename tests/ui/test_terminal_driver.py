"""The driver's output thread never makes the app wait on a terminal that failed
(Textual's blocked the main thread for ever after 30 queued writes)."""

from __future__ import annotations

import errno
import io
import time

from tui.ui.terminal import SafeWriter


class _ClosedTerminal(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(errno.EIO, "Input/output error")


def test_writes_to_a_closed_terminal_are_dropped_not_waited_for() -> None:
    failures: list[int] = []
    writer = SafeWriter(_ClosedTerminal(), lambda: failures.append(1))
    writer.start()
    start = time.monotonic()
    for _ in range(500):  # far more than the queue holds
        writer.write("\x1b[?1000l")
    writer.stop()
    assert time.monotonic() - start < 2.0
    assert writer.broken.is_set() and failures == [1]  # reported once: the app quits


def test_a_working_terminal_gets_everything_in_order() -> None:
    out = io.StringIO()
    writer = SafeWriter(out, lambda: None)
    writer.start()
    for n in range(100):
        writer.write(f"{n},")
    writer.stop()
    assert out.getvalue() == "".join(f"{n}," for n in range(100))
    assert not writer.broken.is_set()
