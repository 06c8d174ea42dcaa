"""Keys in the views that list abstracts (similar `m` and `M`, notes `N`, the feed `F`):
`b`, `x` and `r` act on the view's highlighted abstract, never on the main list's, and
its row shows the new marks; keys about the main screen do nothing over the feed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from textual.widgets import OptionList

from tests.ui.helpers import (
    open_feed_with_bookmarks,
    record_notifications,
    wait_for_userdata,
    wait_until,
)
from tui.ui.app import AbstractsApp, make_app
from tui.ui.screens.feed import FeedScreen
from tui.ui.screens.note_editor import NoteEditorScreen
from tui.ui.screens.notes import NotesScreen
from tui.ui.screens.similar import SimilarScreen
from tui.ui.widgets.feed_list import FeedList

if TYPE_CHECKING:
    from tui.corpus.model import Abstract
    from tui.ui.screens.abstracts_view import AbstractsView


def _highlighted(screen: AbstractsView) -> Abstract:
    """The abstract under the view's cursor, read from the view's list."""
    if isinstance(screen, FeedScreen):
        return screen.query_one(FeedList).current
    options = screen.query_one(OptionList)
    return screen.app.corpus.by_id[options.get_option_at_index(options.highlighted).id]


def _row(screen: AbstractsView) -> str:
    """The highlighted row as drawn (its first line)."""
    if isinstance(screen, FeedScreen):
        listing = screen.query_one(FeedList)
        return listing.render_line(listing.cursor * 2 - int(listing.scroll_y)).text
    options = screen.query_one(OptionList)
    prompt = options.get_option_at_index(options.highlighted).prompt
    return str(prompt).splitlines()[0]


async def _check_b_x_r(pilot, screen: AbstractsView) -> None:
    """b, x and r on the view's highlighted abstract: marked, its row repainted, and the
    main list's highlighted abstract left alone."""
    app: AbstractsApp = pilot.app
    data = app.personal.userdata
    main = app.abstract_list.current
    target = _highlighted(screen)
    assert target is not main
    before = (data.is_bookmarked(main.id), data.is_dismissed(main.id), data.is_read(main.id))
    row = _row(screen)

    await pilot.press("b")
    assert data.is_bookmarked(target.id)
    assert "★" not in row and "•" in row and "★" in _row(screen)
    await pilot.press("b", "x")  # the bookmark taken back, then dismissed
    assert not data.is_bookmarked(target.id) and data.is_dismissed(target.id)
    assert "✗" in _row(screen)
    await pilot.press("r")
    assert data.is_read(target.id)
    assert "•" not in _row(screen)
    await pilot.press("r")
    assert not data.is_read(target.id)
    assert "•" in _row(screen)
    assert app.screen is screen
    assert (
        data.is_bookmarked(main.id),
        data.is_dismissed(main.id),
        data.is_read(main.id),
    ) == before


@pytest.mark.parametrize("key", ["m", "M"])
async def test_b_x_r_in_the_similar_views_act_on_their_abstract(seeds_dir: Path, key: str) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        if key == "M":
            await pilot.press("b", "j", "j", "b", "j")  # M ranks by the bookmarks
        await pilot.press(key)
        await wait_until(pilot, lambda: isinstance(app.screen, SimilarScreen))
        await pilot.press("j")
        await _check_b_x_r(pilot, app.screen)
        assert "r read/unread" in str(app.screen.query_one(".view-keys").render())


async def test_b_x_r_in_the_notes_view_act_on_the_note_s_abstract(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        for row in (3, 6):
            app.notes.save_note(app.corpus.abstracts[row], f"A note on row {row}.")
        await pilot.press("N")
        await wait_until(pilot, lambda: isinstance(app.screen, NotesScreen))
        await pilot.press("j")
        await _check_b_x_r(pilot, app.screen)
        assert "x not interested" in str(app.screen.query_one(".view-keys").render())


async def test_r_in_the_feed_acts_on_its_abstract(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        screen = await open_feed_with_bookmarks(pilot)
        data, main = app.personal.userdata, app.abstract_list.current
        await pilot.press("j")
        target = _highlighted(screen)
        await pilot.press("r")
        assert data.is_read(target.id) and not data.is_read(main.id)
        await pilot.pause()
        assert "•" not in _row(screen)[:8]
        assert "r read/unread" in screen.query_one("#feed-keys").render().plain


async def test_keys_about_the_main_screen_do_nothing_over_the_feed(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        screen = await open_feed_with_bookmarks(pilot)
        said = record_notifications(app, monkeypatch)
        data = app.personal.userdata
        read, order, raw = data.read_ids(), app.search.order, app.raw
        await pilot.press("n", "e", "A", "o", "v", "m", "M", "t", "N", "O", "T")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is screen
        assert not any(isinstance(s, NoteEditorScreen) for s in app.screen_stack)
        assert data.read_ids() == read and app.search.order == order and app.raw == raw
        assert said == []
        # Over the feed the app's own keys that are not about the main screen still work.
        await pilot.press("b", "u")
        assert said and said[-1].startswith("Undid")


async def _run_from_palette(pilot, title: str) -> None:
    """Open the command palette, type the command's title, and run it with Enter."""
    from textual.command import CommandList, CommandPalette

    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*title)
    options = app.screen.query_one(CommandList)
    await wait_until(pilot, lambda: options.option_count > 0)
    first = str(options.get_option_at_index(0).prompt).lower()
    assert first.startswith(title), first
    if options.highlighted is None:
        await pilot.press("down")
    await pilot.press("enter")
    await wait_until(pilot, lambda: not isinstance(app.screen, CommandPalette))


async def test_the_palette_over_the_feed_marks_the_feed_s_abstract(seeds_dir: Path) -> None:
    """Ctrl+P over the feed: Toggle bookmark, Not interested and Toggle read act on the
    abstract highlighted in the feed, as b, x and r do there, never on the main list's."""
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        screen = await open_feed_with_bookmarks(pilot)
        data, main = app.personal.userdata, app.abstract_list.current
        main_marks = (
            data.is_bookmarked(main.id),
            data.is_dismissed(main.id),
            data.is_read(main.id),
        )
        await pilot.press("j")
        target = _highlighted(screen)
        assert target is not main and not data.is_read(target.id)
        await _run_from_palette(pilot, "toggle read")
        assert app.screen is screen and data.is_read(target.id)
        await _run_from_palette(pilot, "not interested")
        assert data.is_dismissed(target.id)
        assert (
            data.is_bookmarked(main.id),
            data.is_dismissed(main.id),
            data.is_read(main.id),
        ) == main_marks


async def test_the_palette_over_a_view_offers_only_what_acts_there(seeds_dir: Path) -> None:
    """Over the tags view the palette has no command about the main list's abstract;
    over a view of abstracts it has the view's marks; on the main screen, all of them."""
    from tui.ui.screens.tags import TagsScreen

    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        main_titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Toggle bookmark", "Edit note", "Filter", "Mark list read"} <= main_titles
        await pilot.press("#")
        await wait_until(pilot, lambda: isinstance(app.screen, TagsScreen))
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert "Help" in titles and "Quit" in titles
        assert not titles & {"Toggle bookmark", "Edit note", "Filter", "Mark list read", "Tag"}
        await pilot.press("escape")
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, SimilarScreen))
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Toggle bookmark", "Not interested", "Toggle read", "Undo"} <= titles
        assert not titles & {"Edit note", "Filter", "Mark list read", "Tag"}
