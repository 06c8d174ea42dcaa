"""Auto-read: an abstract the user moved to and kept on screen for
READ_AFTER_SECONDS is marked read; not while the filter has focus or a modal is open,
never the one shown at launch until the user moves, and not when turned off.
The app runs on a manual clock: the tests move time on instead of sleeping."""

from __future__ import annotations

from pathlib import Path

from tests.ui.helpers import wait_for_userdata
from tui.ui.app import make_app
from tui.ui.clock import ManualClock
from tui.ui.controllers.personal import AUTO_READ_KEY, READ_AFTER_SECONDS


async def _later(pilot, clock: ManualClock, seconds: float) -> None:
    await pilot.pause()
    clock.advance(seconds)
    await pilot.pause()


async def test_the_abstract_shown_at_launch_is_not_read_until_the_user_moves(
    seeds_dir: Path,
) -> None:
    clock = ManualClock()
    app = make_app([seeds_dir], clock=clock)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        first = app.abstract_list.current
        await _later(pilot, clock, 60)
        assert not app.personal.userdata.is_read(first.id)
        await pilot.press("j", "k")  # back to it: now it is the user's choice
        await _later(pilot, clock, READ_AFTER_SECONDS + 0.1)
        assert app.personal.userdata.is_read(first.id)


async def test_no_auto_read_while_the_filter_has_focus(seeds_dir: Path) -> None:
    clock = ManualClock()
    app = make_app([seeds_dir], clock=clock)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("j")
        target = app.abstract_list.current
        await pilot.press("slash")
        assert app.focused is app.filter_input
        await _later(pilot, clock, 60)
        assert not app.personal.userdata.is_read(target.id)
        await pilot.press("escape")  # back to the list: the dwell time starts again
        assert app.focused is app.abstract_list
        await _later(pilot, clock, READ_AFTER_SECONDS - 0.5)
        assert not app.personal.userdata.is_read(target.id)
        await _later(pilot, clock, 0.6)
        assert app.personal.userdata.is_read(target.id)


async def test_no_auto_read_while_a_modal_is_open(seeds_dir: Path) -> None:
    clock = ManualClock()
    app = make_app([seeds_dir], clock=clock)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("j")
        target = app.abstract_list.current
        await pilot.press("question_mark")
        assert len(app.screen_stack) == 2
        await _later(pilot, clock, 60)
        assert not app.personal.userdata.is_read(target.id)
        await pilot.press("escape")
        assert len(app.screen_stack) == 1
        await _later(pilot, clock, READ_AFTER_SECONDS + 0.1)
        assert app.personal.userdata.is_read(target.id)


async def test_auto_read_can_be_turned_off_and_stays_off(seeds_dir: Path, data_dir: Path) -> None:
    clock = ManualClock()
    app = make_app([seeds_dir], data_dir=data_dir, clock=clock)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Auto-read: on" in titles
        app.personal.toggle_auto_read()
        assert "Auto-read: off" in [c.title for c in app.get_system_commands(app.screen)]
        await pilot.press("j")
        target = app.abstract_list.current
        await _later(pilot, clock, 60)
        assert not app.personal.userdata.is_read(target.id)
        assert app.personal.userdata.get_state(AUTO_READ_KEY) == "off"
    again = make_app([seeds_dir], data_dir=data_dir, clock=clock)
    async with again.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        assert not again.personal.auto_read
        await pilot.press("j")
        await _later(pilot, clock, 60)
        assert not again.personal.userdata.is_read(again.abstract_list.current.id)


def test_the_help_says_what_marks_an_abstract_read(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    rows = [text for _, section in app.help_sections() for _, text in section]
    assert any("marked read" in text and "filter" in text for text in rows)
