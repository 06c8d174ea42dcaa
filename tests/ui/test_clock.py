"""A `Deadline` calls once, `delay` after its last restart, on one timer at a time: the
resume save and auto-read's dwell time are moved on by every cursor move without a
timer made and stopped per move."""

from __future__ import annotations

from pathlib import Path

from tests.ui.helpers import wait_for_userdata
from tui.ui.app import make_app
from tui.ui.clock import Deadline, ManualClock


class Owner:
    is_running = True


def test_a_deadline_calls_the_last_callback_delay_after_the_last_restart() -> None:
    clock, calls = ManualClock(), []
    deadline = Deadline(clock, Owner(), 2.0)  # type: ignore[arg-type]
    for step in range(5):
        deadline.restart(lambda step=step: calls.append((step, clock.now)))
        clock.advance(0.5)
    assert len(clock._timers) == 1  # one timer for five restarts
    assert deadline.pending
    clock.advance(10)
    assert calls == [(4, 4.0)]  # restarted last at 2.0
    assert not deadline.pending


def test_a_stopped_deadline_calls_nothing_and_starts_again() -> None:
    clock, calls = ManualClock(), []
    deadline = Deadline(clock, Owner(), 1.0)  # type: ignore[arg-type]
    deadline.restart(lambda: calls.append("first"))
    clock.advance(0.5)
    deadline.stop()
    assert not deadline.pending
    clock.advance(5)
    assert calls == []
    deadline.restart(lambda: calls.append("again"))
    clock.advance(0.9)
    assert calls == []
    clock.advance(0.1)
    assert calls == ["again"]


async def test_cursor_moves_make_no_timer_each(seeds_dir: Path, data_dir: Path) -> None:
    clock = ManualClock()
    app = make_app([seeds_dir], data_dir=data_dir, clock=clock)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("j")  # auto-read's dwell time and the resume save start
        await pilot.pause()
        before = len(clock._timers)
        await pilot.press(*"jjjjjkkkkk")
        await pilot.pause()
        assert len(clock._timers) == before
        clock.advance(60)
        await pilot.pause()
        # The abstract the cursor stayed on is read after its dwell time, and saved as
        # where the user was.
        current = app.abstract_list.current
        assert current is not None and app.personal.userdata.is_read(current.id)
        assert current.id in (app.personal.userdata.get_state(app.triage._resume_key) or "")
