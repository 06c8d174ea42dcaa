"""Full garbage collections while the app is idle, not in the middle of a key's answer.

Drawing leaves cyclic garbage (Textual's strips keep caches that refer back to them), and
Python frees it in a full collection (the oldest generation), started after a set number
of younger ones wherever that falls. Freeing it takes 30 to 80 ms on a busy 2-core
machine, and bench/notes.py's keys, always in the same order, met one in the note
editor's first frame at every run: `n` answered in 150 ms instead of 50.

`IdleCollector` leaves Python's collections of the young generations as they are (a
millisecond or two each) and takes over the full one: it runs once Python would have
started one and no input has come for `IDLE_SECONDS` (the answer to the last key is
drawn by then), or at the latest once it is `OVERDUE` times later than Python's, so that
garbage never piles up through a long burst of keys: then `AFTER_FRAME_SECONDS` after a
frame (see below), not at a tick of `check` that may fall between a key and its answer.

It takes over the middle generation's collections too, for the same reason: at every
third or fourth key in the filter one of them ran before the key's frame (1.5 to 3 ms,
up to 12). Once Python would have run it, it runs `AFTER_FRAME_SECONDS` after the next
frame (`frame_shown`, then `after_frame`: the frame is written out by then, and the
next key is still to come), or at a `check` while the app is idle, or when it has waited
`MIDDLE_OVERDUE` times as long as Python would. The youngest generation's are left to
Python (0.15 ms each: made as often, they would be as large).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

#: No input for this long: the app is idle (its answer to the last key drawn).
IDLE_SECONDS = 0.25
#: How often the collector looks (seconds).
CHECK_SECONDS = 0.1
#: A full collection is forced once this many times as many younger ones as Python waits.
OVERDUE = 10
#: How long after a frame the middle generation is collected (the frame written out).
AFTER_FRAME_SECONDS = 0.005
#: The middle generation is collected during a burst of input once it has waited this
#: many times as long as Python would.
MIDDLE_OVERDUE = 3
#: The older generations' threshold while the collector runs: never reached.
_NEVER = 1 << 30


class IdleCollector:
    """Runs the full collection itself, at idle moments (see the module)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last_input = clock()
        #: Whether a frame has been shown since the last input (its answer is drawn).
        self._framed = True
        #: Whether `after_frame` is due to run.
        self._after_frame_pending = False
        #: Python's thresholds before `start`, given back by `stop`.
        self._thresholds: tuple[int, int, int] | None = None

    @property
    def running(self) -> bool:
        return self._thresholds is not None

    def start(self) -> None:
        """Take over the collections from Python (until `stop`)."""
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            young, _middle, _ = self._thresholds
            gc.set_threshold(young, _NEVER, _NEVER)

    def stop(self) -> None:
        """Give the collections back to Python (the app ends; tests run many apps)."""
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def input_seen(self) -> None:
        """A key or a click: the app is about to draw its answer."""
        self._last_input = self._clock()
        self._framed = False

    def frame_shown(self) -> bool:
        """A frame is on the screen: the answer to the input before it is drawn. True
        when `after_frame` is to be called `AFTER_FRAME_SECONDS` later (once until it
        runs)."""
        self._framed = True
        if self._thresholds is None or self._after_frame_pending:
            return False
        _young, middle, due = self._thresholds
        count = gc.get_count()
        self._after_frame_pending = count[1] > middle or count[2] > due * OVERDUE
        return self._after_frame_pending

    def after_frame(self) -> bool:
        """If no input came since the frame: the full collection if it is overdue, else
        the middle generation's if it is due. True when it collected."""
        self._after_frame_pending = False
        if self._thresholds is None or not self._framed:
            return False
        _young, middle, due = self._thresholds
        count = gc.get_count()
        if count[2] > due * OVERDUE:
            gc.collect()
        elif count[1] > middle:
            gc.collect(1)
        else:
            return False
        return True

    def check(self) -> bool:
        """Collect if a full collection is due and the app is idle, or if it is twice
        overdue (no frame has come to collect it after); True when it collected. Called
        every `CHECK_SECONDS`. The middle generation too when it is due and the app is
        idle, or when it is overdue (see the module)."""
        if self._thresholds is None:
            return False
        _young, middle, due = self._thresholds
        idle = self._clock() - self._last_input >= IDLE_SECONDS
        # The middle generation's count: collections of the youngest since its last one.
        waited_middle = gc.get_count()[1]
        if waited_middle > middle and (idle or waited_middle > middle * MIDDLE_OVERDUE):
            gc.collect(1)
        # The oldest generation's count: younger collections since the last full one.
        waited = gc.get_count()[2]
        if waited <= due or not (idle or waited > due * OVERDUE * 2):
            return False
        gc.collect()
        return True
