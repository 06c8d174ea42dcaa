"""The clock the UI's timers run on: Textual's timers in the app, a manual clock in tests.

The read dwell time, the resume save and the note editor's debounce go through a
`Clock`, so a test advances time (`ManualClock.advance`) instead of sleeping and
racing the machine's speed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from textual.message_pump import MessagePump


class TimerHandle(Protocol):
    """What a scheduled call gives back: it can be cancelled."""

    def stop(self) -> None: ...


class Clock(Protocol):
    """Schedules `callback` once, `delay` seconds from now, on behalf of `owner`
    (a timer ends with its owner: a closed screen's debounce never fires)."""

    def set_timer(
        self, owner: MessagePump, delay: float, callback: Callable[[], object]
    ) -> TimerHandle: ...


class TextualClock:
    """The real clock: Textual's own timers on the owner's message loop."""

    def set_timer(
        self, owner: MessagePump, delay: float, callback: Callable[[], object]
    ) -> TimerHandle:
        return owner.set_timer(delay, callback)


@dataclass
class ManualTimer:
    """A call scheduled on a `ManualClock`."""

    due: float
    owner: MessagePump
    callback: Callable[[], object]
    stopped: bool = False

    def stop(self) -> None:
        self.stopped = True


@dataclass
class ManualClock:
    """A clock that moves only when told: `advance(seconds)` runs every call that falls
    due, in order of due time (calls scheduled meanwhile included)."""

    now: float = 0.0
    _timers: list[ManualTimer] = field(default_factory=list)

    def set_timer(
        self, owner: MessagePump, delay: float, callback: Callable[[], object]
    ) -> ManualTimer:
        timer = ManualTimer(self.now + delay, owner, callback)
        self._timers.append(timer)
        return timer

    @property
    def pending(self) -> list[ManualTimer]:
        """Calls not yet run nor stopped, soonest first."""
        return sorted((t for t in self._timers if not t.stopped), key=lambda t: t.due)

    def advance(self, seconds: float) -> None:
        """Move time on by `seconds`, running each call that falls due at its time."""
        end = self.now + seconds
        while True:
            due = [t for t in self.pending if t.due <= end]
            if not due:
                break
            timer = due[0]
            self._timers.remove(timer)
            self.now = max(self.now, timer.due)
            # As Textual's timers: a call whose owner has closed (a dismissed screen) is dropped.
            if timer.owner.is_running:
                timer.callback()
        self.now = end
        self._timers = [t for t in self._timers if not t.stopped]


def clock_of(node: MessagePump) -> Clock:
    """The clock of the app `node` belongs to (Textual's own when the app has none)."""
    clock = getattr(node.app, "clock", None)
    return clock if isinstance(clock, (TextualClock, ManualClock)) else TextualClock()
