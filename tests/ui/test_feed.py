"""Pilot tests of `x` (not interested) and the feed view `F`."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.ui.helpers import open_feed_with_bookmarks, wait_for_userdata, wait_until
from tui.triage import feed as feed_core
from tui.ui.app import make_app
from tui.ui.controllers.feed import NO_BOOKMARKS
from tui.ui.screens.feed import FeedScreen, FeedState
from tui.ui.widgets.feed_list import FeedList


def _row_text(app, y: int) -> str:
    return app.abstract_list.render_line(y).text


async def test_x_dismisses_marks_the_row_and_detail_and_undoes(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        data = app.personal.userdata
        first = app.abstract_list.current
        assert not _row_text(app, 0).startswith("✗")
        await pilot.press("x")
        assert data.dismissed_ids() == {first.id}
        await pilot.pause()
        row = _row_text(app, 0)
        assert row.startswith("✗") and len(row) == app.abstract_list.size.width - 1
        meta = app.detail.text_of("meta").plain
        assert "✗ not interested" in meta
        await pilot.press("u")
        assert data.dismissed_ids() == set()
        assert "not interested" not in app.detail.text_of("meta").plain
        await pilot.press("ctrl+r")
        assert data.dismissed_ids() == {first.id}
        await pilot.press("x")  # x again takes it back
        assert data.dismissed_ids() == set()
        # A bookmark shows over a dismissal in the one cell they share.
        await pilot.press("x", "b")
        await pilot.pause()
        assert _row_text(app, 0).startswith("★")


async def test_is_dismissed_filters_the_list(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("j", "x", "j", "j", "x")
        dismissed = app.personal.userdata.dismissed_ids()
        await pilot.press("slash", *"is:dismissed", "enter")
        await wait_until(pilot, lambda: len(app.abstract_list.rows) == 2)
        shown = {app.corpus.abstracts[i].id for i in app.abstract_list.rows}
        assert shown == dismissed


async def test_the_feed_without_bookmarks_says_what_to_do(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("F")
        await wait_until(pilot, lambda: isinstance(app.screen, FeedScreen))
        assert app.screen.state.empty == NO_BOOKMARKS
        assert "bookmark a few" in app.screen.query_one("#feed-empty").render().plain.lower()
        await pilot.press("escape")
        assert not isinstance(app.screen, FeedScreen)


async def test_the_feed_ranks_unread_abstracts_with_why(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        data = app.personal.userdata
        data.set_read([app.corpus.abstracts[1]], True)
        data.set_dismissed(app.corpus.abstracts[2], True)
        screen = await open_feed_with_bookmarks(pilot)
        items = screen.state.items
        liked = data.bookmarked_ids()
        assert screen.state.likes == 3 and screen.state.unlikes == 1
        ids = {it.abstract.id for it in items}
        assert not ids & liked  # never a bookmark itself
        assert app.corpus.abstracts[1].id not in ids  # read
        assert app.corpus.abstracts[2].id not in ids  # dismissed
        assert all(it.because.id in liked for it in items)
        assert [it.score for it in items] == sorted((it.score for it in items), reverse=True)
        listing = screen.query_one(FeedList)
        first = listing.render_line(0).text + listing.render_line(1).text
        assert items[0].abstract.headline[:20] in first and "because ★ " in first
        assert "by score" in screen.query_one("#feed-title").render().plain
        # s: by year, newest first, said in the title.
        await pilot.press("s")
        assert "by year" in screen.query_one("#feed-title").render().plain
        years = [it.abstract.collection.year or 0 for it in screen.shown]
        assert years == sorted(years, reverse=True)
        assert app.feed.sort == "year"


async def test_space_b_and_x_in_the_feed_act_on_its_abstract_and_it_refreshes(
    seeds_dir: Path,
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        data = app.personal.userdata
        screen = await open_feed_with_bookmarks(pilot)
        main_current = app.abstract_list.current
        top = screen.highlighted
        await pilot.press("space")
        assert data.is_read(top.id) and screen.highlighted is not top
        assert not data.is_read(main_current.id) or main_current is top
        assert screen.state.items[0].abstract is top  # read stays listed, shown read
        await pilot.pause()
        assert "•" not in screen.query_one(FeedList).render_line(0).text[:8]

        target = screen.highlighted
        generation = app.feed.generation
        await pilot.press("b")
        assert data.is_bookmarked(target.id)
        await wait_until(
            pilot, lambda: app.feed.generation > generation and not screen.state.pending
        )
        assert screen.state.likes == 4
        assert target.id not in {it.abstract.id for it in screen.state.items}

        target = screen.highlighted
        await pilot.press("x")
        assert data.is_dismissed(target.id)
        await wait_until(pilot, lambda: not screen.state.pending and screen.state.unlikes == 1)
        assert target.id not in {it.abstract.id for it in screen.state.items}
        # u (the app's undo) takes the dismissal back, and the feed follows.
        await pilot.press("u")
        await wait_until(pilot, lambda: not screen.state.pending and screen.state.unlikes == 0)
        assert target.id in {it.abstract.id for it in screen.state.items}


async def test_enter_opens_the_abstract_in_the_main_view(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        screen = await open_feed_with_bookmarks(pilot)
        await pilot.press("j")
        chosen = screen.highlighted
        await pilot.press("enter")
        assert not isinstance(app.screen, FeedScreen)
        assert app.abstract_list.current is chosen


async def test_a_stale_ranking_is_never_painted(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = feed_core.rank_feed
    release = threading.Event()
    calls: list[int] = []

    def ranked(model, corpus, likes, *args, **kwargs):
        calls.append(len(likes))
        if len(calls) == 1:
            release.wait(10)  # the first ranking is slow; the user bookmarks meanwhile
        return real(model, corpus, likes, *args, **kwargs)

    monkeypatch.setattr(feed_core, "rank_feed", ranked)
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        app.triage.ensure_similarity()
        shown: list[FeedState] = []
        await pilot.press("b", "j", "j", "F")
        await wait_until(pilot, lambda: isinstance(app.screen, FeedScreen) and calls)
        screen = app.screen
        real_show = screen.show
        monkeypatch.setattr(screen, "show", lambda state: (shown.append(state), real_show(state)))
        # Another bookmark arrives while the first ranking is still running.
        app.triage.set_bookmarks([app.corpus.abstracts[5].id], True)
        await wait_until(pilot, lambda: len(calls) == 2 and not screen.state.pending)
        release.set()
        await pilot.pause(0.3)
        await app.workers.wait_for_complete()
        await pilot.pause()
        painted = [s for s in shown if s.items and not s.pending]
        assert painted and all(s.likes == 2 for s in painted)
        assert screen.state.likes == 2 and not screen.state.pending


async def test_m_leaves_out_dismissed_abstracts(seeds_dir: Path) -> None:
    from tui.ui.screens.similar import SimilarScreen

    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("b", "j", "j", "b", "M")
        await wait_until(pilot, lambda: isinstance(app.screen, SimilarScreen))
        top = app.screen.rows[0][0]
        await pilot.press("escape")
        app.personal.act("dismiss", top)
        assert app.personal.userdata.is_dismissed(top.id)
        await pilot.press("M")
        await wait_until(pilot, lambda: isinstance(app.screen, SimilarScreen))
        assert top not in [abstract for abstract, _, _ in app.screen.rows]


async def test_bookmarks_of_files_not_opened_do_not_rank_the_feed(
    seeds_dir: Path, data_dir: Path
) -> None:
    from tests.store.helpers import make_abstract
    from tui.store.userdata import UserData

    elsewhere = UserData.open(data_dir)
    elsewhere.set_bookmark(make_abstract("A paper in a file not opened now."), True)
    elsewhere.close()
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        assert len(app.personal.userdata.bookmarked_ids()) == 1
        await pilot.press("F")
        await wait_until(pilot, lambda: isinstance(app.screen, FeedScreen))
        assert app.screen.state.empty == NO_BOOKMARKS and app.screen.state.likes == 0
