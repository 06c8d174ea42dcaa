"""What the frame that answers a key holds: the list's rows first, then (in the next
frame) the detail pane and the header's counts that follow from them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.ui.helpers import wait_for_userdata, wait_until
from tui.ui.app import AbstractsApp, make_app
from tui.ui.widgets.header import AppHeader


def record_frames(app: AbstractsApp, shown: Any) -> list[Any]:
    """What `shown()` returns at each frame the app paints from now on."""
    frames: list[Any] = []
    display = app._display

    def recorded(screen: Any, update: Any) -> None:
        display(screen, update)
        frames.append(shown())

    app._display = recorded  # type: ignore[method-assign]
    return frames


async def test_a_filter_key_paints_the_rows_first_and_the_detail_pane_and_counts_next(
    seeds_dir: Path,
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: app.search.index is not None)
        await pilot.press("slash", *"contrastiv")
        await wait_until(pilot, lambda: app.detail.view is not None and app.detail.view.spans)
        await pilot.pause(0.1)
        header = app.query_one(AppHeader)
        frames = record_frames(
            app,
            lambda: (
                app.abstract_list.highlight_spans,
                app.detail.view.spans if app.detail.view else None,
                header.status_text.plain,
            ),
        )
        before = header.status_text.plain
        await pilot.press("e")
        await wait_until(pilot, lambda: app.detail.view.spans is app.abstract_list.highlight_spans)
        await pilot.pause(0.1)
        answered = app.abstract_list.highlight_spans
        first = next(i for i, (listed, _, _) in enumerate(frames) if listed is answered)
        # The frame with the new rows still shows the detail pane and counts as they were...
        assert frames[first][1] is not answered
        assert frames[first][2] == before
        # ...and a later frame shows them for the new answer.
        assert any(detail is answered for _, detail, _ in frames[first + 1 :])
        assert frames[-1][2] == header.status_text.plain != before


async def test_b_paints_its_row_first_and_the_detail_panes_meta_line_next(
    seeds_dir: Path, data_dir: Path
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("j")
        await pilot.pause(0.1)
        target = app.abstract_list.current
        frames = record_frames(
            app,
            lambda: (
                target.id in app.abstract_list.marks.bookmarked,
                app.detail.view.bookmarked if app.detail.view else None,
                app.abstract_list._drawn_marks.get(app.abstract_list.cursor),
            ),
        )
        await pilot.press("b")
        await wait_until(pilot, lambda: app.detail.view.bookmarked)
        await pilot.pause(0.1)
        assert app.personal.userdata.is_bookmarked(target.id)
        first = frames[0]
        assert first[0]  # the row's mark was drawn in the first frame after the key
        assert first[2] is not None and first[2][0] == "★"
        assert first[1] is False  # the detail pane followed
        assert frames[-1][1] is True


async def test_the_detail_pane_and_counts_follow_at_once_when_the_main_screen_is_covered(
    seeds_dir: Path, data_dir: Path
) -> None:
    # No frame draws the main list under another screen: nothing waits for one.
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        await pilot.press("question_mark")
        await pilot.pause(0.1)
        assert app.screen is not app.abstract_list.screen
        app.personal.act("bookmark", target)
        assert app.detail.view.bookmarked
        assert app.query_one(AppHeader).status_text.plain.endswith("1 ★")


async def test_the_counts_follow_a_filter_key_where_the_list_has_no_room_to_draw(
    seeds_dir: Path,
) -> None:
    # A terminal too short for any row: no frame draws the list, and nothing waits for one.
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 2)) as pilot:
        await wait_until(pilot, lambda: app.search.index is not None)
        await pilot.press("slash", *"contrastive")
        await wait_until(pilot, lambda: app.search.state.match_counts is not None)
        await pilot.pause(0.1)
        assert " matches · " in app.query_one(AppHeader).status_text.plain


async def test_the_detail_pane_and_counts_follow_a_key_whose_rows_frame_never_comes(
    seeds_dir: Path,
) -> None:
    # The list asked to tell when it has drawn the new rows, and never does (a resize hid
    # it, say): the pane and the header still follow, a moment later.
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: app.search.index is not None)
        app.abstract_list.call_after_draw = lambda callback: None  # type: ignore[method-assign]
        await pilot.press("slash", *"contrastive")
        await wait_until(pilot, lambda: app.search.state.match_counts is not None)
        await pilot.pause(0.5)
        assert " matches · " in app.query_one(AppHeader).status_text.plain
        assert app.detail.view is not None
        assert app.detail.view.spans is app.abstract_list.highlight_spans
