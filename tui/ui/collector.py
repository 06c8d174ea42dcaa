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
garbage never piles up through a long burst of keys.
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
#: The oldest generation's threshold while the collector runs: never reached.
_NEVER = 1 << 30


class IdleCollector:
    """Runs the full collection itself, at idle moments (see the module)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last_input = clock()
        #: Python's thresholds before `start`, given back by `stop`.
        self._thresholds: tuple[int, int, int] | None = None

    @property
    def running(self) -> bool:
        return self._thresholds is not None

    def start(self) -> None:
        """Take over the full collection from Python (until `stop`)."""
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            young, middle, _ = self._thresholds
            gc.set_threshold(young, middle, _NEVER)

    def stop(self) -> None:
        """Give the full collection back to Python (the app ends; tests run many apps)."""
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def input_seen(self) -> None:
        """A key or a click: the app is about to draw its answer."""
        self._last_input = self._clock()

    def check(self) -> bool:
        """Collect if a full collection is due and the app is idle, or if it is overdue;
        True when it collected. Called every `CHECK_SECONDS`."""
        if self._thresholds is None:
            return False
        due = self._thresholds[2]
        # The oldest generation's count: younger collections since the last full one.
        waited = gc.get_count()[2]
        idle = self._clock() - self._last_input >= IDLE_SECONDS
        if waited <= due or not (idle or waited > due * OVERDUE):
            return False
        gc.collect()
        return True
