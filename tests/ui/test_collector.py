"""Full garbage collections run while the app is idle, not during a key's answer, and
Python gets them back when the app ends."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.helpers import wait_for_userdata
from tui.ui.app import make_app
from tui.ui.collector import IDLE_SECONDS, OVERDUE, IdleCollector


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
    _younger_collections(1)
    assert collector.check()


async def test_the_app_takes_over_full_collections_and_gives_them_back(seeds_dir: Path) -> None:
    before = gc.get_threshold()
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        assert app.collector.running
        assert gc.get_threshold()[:2] == before[:2] and gc.get_threshold()[2] > 1_000_000
    assert gc.get_threshold() == before
