"""SVG snapshots of what a user sees, and layout checks at the sizes that matter.

A classic 80x24 terminal (panes stacked) and a wide one (side by side), in a dark
and a light theme. Each state is taken at both sizes, with the theme alternating,
so every size shows both theme families without a snapshot for every combination.
Nothing depends on the machine's speed: the app runs on a manual clock that never
moves (no abstract becomes read by dwell time), the search and similarity
workers are waited for, toasts are cleared, and the data dir is the test's own.

Update them after an intended change with `pytest --snapshot-update`, then read them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.ui.helpers import keys_handled, steady_cursors, wait_for_userdata, wait_until
from tui.ui.app import FILTER_PLACEHOLDERS, AbstractsApp, make_app
from tui.ui.clock import ManualClock
from tui.ui.widgets.detail_text import meta_text

NARROW, WIDE = (80, 24), (120, 36)
DARK, LIGHT = "textual-dark", "solarized-light"

Pilot = Any
Steps = Callable[[Pilot], Awaitable[None]]


async def _settle(pilot: Pilot) -> None:
    await wait_for_userdata(pilot)
    await pilot.press("j", "j")
    await keys_handled(pilot)
    steady_cursors(pilot.app)
    await pilot.pause()


def test_main_screen_80x24(snap_compare, seeds_dir: Path) -> None:
    assert snap_compare(
        make_app([seeds_dir], clock=ManualClock()), terminal_size=(80, 24), run_before=_settle
    )


def test_main_screen_140x40(snap_compare, seeds_dir: Path) -> None:
    assert snap_compare(
        make_app([seeds_dir], clock=ManualClock()), terminal_size=(140, 40), run_before=_settle
    )


# -- the states, each a sequence of steps after the data has opened ---------------------


async def _start(pilot: Pilot, theme: str) -> AbstractsApp:
    app: AbstractsApp = pilot.app
    await wait_for_userdata(pilot)
    app.theme = theme
    await pilot.pause()
    return app


async def _finish(pilot: Pilot) -> None:
    await keys_handled(pilot)
    pilot.app.clear_notifications()
    steady_cursors(pilot.app)
    await pilot.pause()


async def _search(pilot: Pilot) -> None:
    """Highlights in the list and the abstract; full matches, the divider, close matches."""
    app = pilot.app
    await pilot.press("slash", *"reinforcement learning policy", "enter")
    await wait_until(pilot, lambda: app.abstract_list.divider is not None)
    # The cursor on the last full match: the divider and the close matches below it.
    await pilot.press(*"j" * (app.abstract_list.divider - 1))


async def _marks(pilot: Pilot) -> None:
    """★ ✎ and read rows, on the cursor row and off it."""
    app = pilot.app
    listing = app.abstract_list
    await pilot.press("b", "r", "j", "r", "j", "b")
    await keys_handled(pilot)  # the note goes on the row the keys left the cursor on
    app.notes.save_note(listing.current, "Compare with the second one.\nAnd a second line.")
    await pilot.press("j", "k")  # the cursor on the row with every mark


async def _query_error(pilot: Pilot) -> None:
    app = pilot.app
    await pilot.press("slash", *"graph year:")
    await wait_until(pilot, lambda: app.search.query_error is not None)


async def _help(pilot: Pilot) -> None:
    await pilot.press("question_mark")
    await pilot.pause()


async def _note_editor(pilot: Pilot) -> None:
    app = pilot.app
    app.notes.save_note(app.abstract_list.current, "A note written before.\nSecond line.")
    await pilot.press("n")
    await wait_until(pilot, lambda: len(app.screen_stack) > 1)


async def _notes_view(pilot: Pilot) -> None:
    app = pilot.app
    for text in ("First note.", "A note\nover two lines."):
        app.notes.save_note(app.abstract_list.current, text)
        await pilot.press("j")
    await pilot.press("N")
    await wait_until(pilot, lambda: len(app.screen_stack) > 1)


async def _load_report(pilot: Pilot) -> None:
    await pilot.press("L")
    await wait_until(pilot, lambda: len(pilot.app.screen_stack) > 1)


async def _overview(pilot: Pilot) -> None:
    await pilot.press("O")
    await wait_until(pilot, lambda: len(pilot.app.screen_stack) > 1, timeout=30)


async def _similar(pilot: Pilot) -> None:
    app = pilot.app
    await pilot.press("m")
    await wait_until(pilot, lambda: len(app.screen_stack) > 1, timeout=30)
    # Its list takes the focus once mounted (a callback): the picture shows its cursor.
    await wait_until(pilot, lambda: app.focused is not None and app.focused.screen is app.screen)


async def _toast_over_help(pilot: Pilot) -> None:
    """A toast shown while a modal is open stays below the modal's border."""
    await _help(pilot)
    pilot.app.notify("Saved.", title="A toast", timeout=3600)
    steady_cursors(pilot.app)
    await pilot.pause()


STATES: dict[str, Steps] = {
    "search": _search,
    "marks": _marks,
    "query_error": _query_error,
    "help": _help,
    "note_editor": _note_editor,
    "notes_view": _notes_view,
    "load_report": _load_report,
    "overview": _overview,
    "similar": _similar,
}

# Each state at both sizes; the theme alternates between states so that each size
# is seen in both theme families.
MATRIX = [
    pytest.param(
        state, size, theme, id=f"{state}-{size[0]}x{size[1]}-{'dark' if theme == DARK else 'light'}"
    )
    for n, state in enumerate(STATES)
    for size, theme in (
        ((NARROW, DARK), (WIDE, LIGHT)) if n % 2 == 0 else ((NARROW, LIGHT), (WIDE, DARK))
    )
]


@pytest.fixture
def seeds(seeds_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The seeds as a relative path: the load report shows paths as given, and the
    picture must not depend on where the repository is checked out."""
    monkeypatch.chdir(seeds_dir.parent)
    return Path(seeds_dir.name)


@pytest.mark.parametrize(("state", "size", "theme"), MATRIX)
def test_state(snap_compare, seeds: Path, state: str, size: tuple[int, int], theme: str) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _start(pilot, theme)
        await STATES[state](pilot)
        await _finish(pilot)

    assert snap_compare(
        make_app([seeds], clock=ManualClock()), terminal_size=size, run_before=run_before
    )


def test_toast_over_modal_80x24(snap_compare, seeds_dir: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _start(pilot, DARK)
        await _toast_over_help(pilot)

    assert snap_compare(
        make_app([seeds_dir], clock=ManualClock()), terminal_size=NARROW, run_before=run_before
    )


# -- layout: what must fit at each size (pilot checks, independent of the pictures) -----


@pytest.mark.parametrize("size", [NARROW, (100, 30), WIDE, (140, 40)])
async def test_detail_header_lines_never_wrap(seeds_dir: Path, size: tuple[int, int]) -> None:
    app = make_app([seeds_dir], clock=ManualClock())
    async with app.run_test(size=size) as pilot:
        await wait_for_userdata(pilot)
        for _ in range(5):
            view = app.detail.view
            assert view is not None
            lines = meta_text(view).plain.split("\n")
            pane = app.detail
            top = int(pane.scroll_y)
            shown = [pane.render_line(y - top).text.strip() for y in range(len(lines) + 3)]
            first = next(y for y, line in enumerate(shown) if line.startswith(lines[0][:12]))
            # Each fact on its line (cut with an ellipsis when too long), then the rule.
            for k, line in enumerate(lines):
                assert line.startswith(shown[first + k].rstrip("…")), f"wrapped at {size}"
            assert set(shown[first + len(lines)]) == {"─"}, f"the meta block wrapped at {size}"
            await pilot.press("j")


@pytest.mark.parametrize("size", [NARROW, (100, 30), (110, 30), WIDE, (140, 40)])
async def test_filter_placeholder_is_never_cut(seeds_dir: Path, size: tuple[int, int]) -> None:
    app = make_app([seeds_dir], clock=ManualClock())
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.pause()
        box = app.filter_input
        assert len(box.placeholder) < box.content_region.width
        if size[0] >= 120:
            assert box.placeholder != FILTER_PLACEHOLDERS[-1]  # room for the real hint


@pytest.mark.parametrize("size", [NARROW, WIDE])
@pytest.mark.parametrize("key", ["question_mark", "L", "N"])
async def test_toasts_stay_off_modal_borders(
    seeds_dir: Path, size: tuple[int, int], key: str
) -> None:
    from textual.widgets._toast import Toast

    app = make_app([seeds_dir], clock=ManualClock())
    async with app.run_test(size=size, notifications=True) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press(key)
        await wait_until(pilot, lambda: len(app.screen_stack) > 1)
        app.notify("A message of one line.", title="Title", timeout=3600)
        await pilot.pause()
        await pilot.pause()
        box = next(w for w in app.screen.query("*") if (w.id or "").endswith("-box"))
        await wait_until(pilot, lambda: bool(app.screen.query(Toast)))
        toast = app.screen.query_one(Toast)
        assert not toast.region.overlaps(box.region), (toast.region, box.region)
