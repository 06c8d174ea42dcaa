"""SVG snapshots of the main screen at the two sizes that matter: a classic
80x24 terminal (panes stacked) and a wide one (side by side).

Update them after an intended change with `pytest --snapshot-update`. The app runs
on a manual clock that never moves: no abstract becomes read by dwell time, so the
picture does not depend on the machine's speed.
"""

from __future__ import annotations

from pathlib import Path

from tests.ui.helpers import wait_for_userdata
from tui.ui.app import make_app
from tui.ui.clock import ManualClock


async def _settle(pilot) -> None:
    await wait_for_userdata(pilot)
    await pilot.press("j", "j")
    await pilot.pause()


def test_main_screen_80x24(snap_compare, seeds_dir: Path) -> None:
    assert snap_compare(
        make_app([seeds_dir], clock=ManualClock()), terminal_size=(80, 24), run_before=_settle
    )


def test_main_screen_140x40(snap_compare, seeds_dir: Path) -> None:
    assert snap_compare(
        make_app([seeds_dir], clock=ManualClock()), terminal_size=(140, 40), run_before=_settle
    )
