"""The clock the UI's timers run on: Textual's timers in the app, a manual clock in tests.

The read dwell time, the resume save and the note editor's debounce go through a
`Clock`, so a test advances time (`ManualClock.advance`) instead of sleeping and
racing the machine's speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from textual.message_pump import MessagePump


class TimerHandle(Protocol):
    """What a scheduled call gives back: it can be cancelled."""

    def stop(self) -> None: ...


class Clock(Protocol):
    """Schedules `callback` once, `delay` seconds from now, on behalf of `owner`
    (a timer ends with its owner: a closed screen's debounce never fires); `now` is
    its time in seconds."""

    @property
    def now(self) -> float: ...

    def set_timer(
        self, owner: MessagePump, delay: float, callback: Callable[[], object]
    ) -> TimerHandle: ...


class TextualClock:
    """The real clock: Textual's own timers on the owner's message loop."""

    @property
    def now(self) -> float:
        return time.monotonic()

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


class Deadline:
    """A call `delay` seconds after the latest `restart`, on one timer at a time (a
    debounce: the resume save after the cursor last moved, auto-read's dwell time).

    A key that restarts it moves its deadline on: no timer is made and stopped per key
    (a Textual timer is an asyncio task, made and cancelled at every cursor move and
    every key in the filter). The timer that falls due before the deadline waits out
    the rest on a new one.
    """

    #: A timer this close to the deadline (seconds) counts as on time.
    SLACK = 0.001

    def __init__(self, clock: Clock, owner: MessagePump, delay: float) -> None:
        self._clock = clock
        self._owner = owner
        self._delay = delay
        self._due: float | None = None
        self._callback: Callable[[], object] | None = None
        self._timer: TimerHandle | None = None

    @property
    def pending(self) -> bool:
        """Whether a call is due (restarted and not stopped or run since)."""
        return self._callback is not None

    def restart(self, callback: Callable[[], object]) -> None:
        """Call `callback`, not any given before, `delay` seconds from now."""
        self._due = self._clock.now + self._delay
        self._callback = callback
        if self._timer is None:
            self._timer = self._clock.set_timer(self._owner, self._delay, self._fire)

    def stop(self) -> None:
        """No call (a timer under way runs out doing nothing)."""
        self._due = self._callback = None

    def _fire(self) -> None:
        self._timer = None
        due, callback = self._due, self._callback
        if due is None or callback is None:
            return
        rest = due - self._clock.now
        if rest > self.SLACK:
            self._timer = self._clock.set_timer(self._owner, rest, self._fire)
            return
        self._due = self._callback = None
        callback()


def clock_of(node: MessagePump) -> Clock:
    """The clock of the app `node` belongs to (Textual's own when the app has none)."""
    clock = getattr(node.app, "clock", None)
    return clock if isinstance(clock, (TextualClock, ManualClock)) else TextualClock()
