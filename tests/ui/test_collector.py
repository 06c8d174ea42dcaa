"""Full garbage collections run while the app is idle, and those of the middle generation
after a frame, not during a key's answer; Python gets them back when the app ends."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.helpers import wait_for_userdata
from tui.ui.app import make_app
from tui.ui.collector import IDLE_SECONDS, MIDDLE_OVERDUE, OVERDUE, IdleCollector


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def idle() -> Iterator[tuple[IdleCollector, Clock, int]]:
    """A running collector on a clock the test moves, and Python's own threshold."""
    due = gc.get_threshold()[2]
    clock = Clock()
    collector = IdleCollector(clock)
    collector.start()
    try:
        yield collector, clock, due
    finally:
        collector.stop()


def _younger_collections(count: int) -> None:
    """As many collections of the middle generation (each counts towards a full one)."""
    for _ in range(count):
        gc.collect(1)


def test_a_full_collection_due_waits_for_the_app_to_be_idle(idle) -> None:
    collector, clock, due = idle
    gc.collect()
    _younger_collections(due)
    clock.now += IDLE_SECONDS
    assert not collector.check()  # not due yet: Python would not collect either
    _younger_collections(1)
    collector.input_seen()
    assert not collector.check()  # due, but a key was just pressed
    clock.now += IDLE_SECONDS
    assert collector.check()
    assert gc.get_count()[2] == 0
    assert not collector.check()


def test_an_overdue_full_collection_runs_through_a_burst_of_keys(idle) -> None:
    collector, _clock, due = idle
    gc.collect()
    _younger_collections(due * OVERDUE)
    collector.input_seen()
    assert not collector.check()
    assert not collector.frame_shown()
    _younger_collections(1)
    collector.input_seen()
    # Overdue: not at a tick that may fall between a key and its frame, but after the
    # frame, when no key came since.
    assert not collector.check()
    assert collector.frame_shown()
    assert collector.after_frame()
    assert gc.get_count()[2] == 0


def test_a_twice_overdue_full_collection_runs_without_a_frame(idle) -> None:
    collector, _clock, due = idle
    gc.collect()
    _younger_collections(due * OVERDUE * 2 + 1)
    collector.input_seen()
    assert collector.check()


def _young_collections(count: int) -> None:
    """As many collections of the youngest generation (each counts towards a middle one)."""
    for _ in range(count):
        gc.collect(0)


def test_a_middle_collection_due_waits_for_the_frame_after_the_input(idle) -> None:
    collector, _clock, _due = idle
    middle = collector._thresholds[1]  # type: ignore[index]
    gc.collect()
    collector.input_seen()
    assert not collector.frame_shown()  # nothing due: no call asked for
    _young_collections(middle + 1)
    collector.input_seen()
    assert not collector.check()
    assert gc.get_count()[1] == middle + 1  # due, but the key's frame is not drawn yet
    assert collector.frame_shown()  # drawn: `after_frame` is asked for, once
    assert not collector.frame_shown()
    assert collector.after_frame()
    assert gc.get_count()[1] == 0


def test_no_middle_collection_after_a_frame_when_input_came_since(idle) -> None:
    collector, _clock, _due = idle
    middle = collector._thresholds[1]  # type: ignore[index]
    gc.collect()
    _young_collections(middle + 1)
    assert collector.frame_shown()
    collector.input_seen()  # a key arrived before `after_frame`: its answer comes first
    assert not collector.after_frame()
    assert gc.get_count()[1] == middle + 1
    assert collector.frame_shown()  # asked for again after that key's frame
    assert collector.after_frame()


def test_a_middle_collection_runs_when_idle_or_overdue(idle) -> None:
    collector, clock, _due = idle
    middle = collector._thresholds[1]  # type: ignore[index]
    gc.collect()
    _young_collections(middle + 1)
    collector.input_seen()
    collector.check()
    assert gc.get_count()[1] == middle + 1
    clock.now += IDLE_SECONDS
    collector.check()
    assert gc.get_count()[1] == 0
    _young_collections(middle * MIDDLE_OVERDUE + 1)
    collector.input_seen()  # a burst of keys with no frame between them
    collector.check()
    assert gc.get_count()[1] == 0


async def test_the_app_takes_over_the_older_collections_and_gives_them_back(
    seeds_dir: Path,
) -> None:
    before = gc.get_threshold()
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        assert app.collector.running
        young, middle, full = gc.get_threshold()
        assert young == before[0] and middle > 1_000_000 and full > 1_000_000
    assert gc.get_threshold() == before
