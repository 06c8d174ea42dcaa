"""A worker's result that arrives once the app is closing is dropped, never painted: the
widgets it would paint may already be gone (NoMatches), or the loop may have ended."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from tests.ui.helpers import wait_for_userdata, wait_until
from tui.search.index import SearchIndex
from tui.triage import feed as feed_core
from tui.ui.app import make_app
from tui.ui.controllers import search as search_controller
from tui.ui.screens.feed import FeedScreen


class Held:
    """Holds a worker at one call until released, and keeps what its thread raised."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()
        self.errors: list[BaseException] = []

    def hold(self) -> None:
        self.reached.set()
        assert self.release.wait(10), "never released"

    def watch(self, work):
        """`work` run in the worker thread, with its exceptions kept."""

        def watched(*args, **kwargs):
            try:
                work(*args, **kwargs)
            except BaseException as error:
                self.errors.append(error)
            finally:
                self.finished.set()

        return watched

    async def let_finish(self) -> None:
        """Release the worker and wait (off the loop, which must keep running) until its
        thread has handed over its result or dropped it."""
        self.release.set()
        assert await asyncio.to_thread(self.finished.wait, 10), "the worker never finished"


async def test_a_search_result_after_quitting_began_is_dropped(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = Held()
    search = SearchIndex.search

    def slow_search(self, *args, **kwargs):
        held.hold()
        return search(self, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "search", slow_search)
    monkeypatch.setattr(search_controller, "INLINE_SEARCH_MAX", 0)  # in its worker
    app = make_app([seeds_dir])
    applied: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        await wait_until(pilot, lambda: app.search.index is not None)
        monkeypatch.setattr(app.search, "_search", held.watch(app.search._search))
        apply = app.search.apply_search
        monkeypatch.setattr(
            app.search,
            "apply_search",
            lambda text, *rest: (applied.append(text), apply(text, *rest)),
        )
        await pilot.press("slash", *"graph")
        await wait_until(pilot, held.reached.is_set)
        await pilot.press("escape", "q")  # quitting begins while the search runs
        assert app.quitting
    await held.let_finish()
    assert held.errors == [] and applied == []


async def test_a_ranking_arriving_while_the_screens_are_taken_down_is_dropped(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = Held()
    rank = feed_core.rank_feed

    def slow_rank(*args, **kwargs):
        held.hold()
        return rank(*args, **kwargs)

    monkeypatch.setattr(feed_core, "rank_feed", slow_rank)
    app = make_app([seeds_dir])

    async def unmounting(screen: FeedScreen) -> None:
        # Textual is taking the screens down (the app closed without q): the ranking lands.
        await held.let_finish()

    monkeypatch.setattr(FeedScreen, "on_unmount", unmounting, raising=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        monkeypatch.setattr(app.feed, "_ranked", held.watch(app.feed._ranked))
        await pilot.press("b", "F")
        await wait_until(pilot, held.reached.is_set)
        assert isinstance(app.screen, FeedScreen) and not app.quitting
    assert held.finished.is_set()
    assert held.errors == []


async def test_the_index_worker_never_waits_for_the_loop_while_holding_its_locks(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop may want the index lock (a search, a count); a worker that holds it and
    waits for the loop would then wait for ever. Here the redraw asked for while the
    child builds takes the lock on the loop: it must get it."""

    from tui import caches

    class InstantBuild:
        """A child build that fails at once: the index is then built in the thread."""

        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def wait_for(self, stage: str) -> bool:
            return False

        def stop(self) -> None:
            pass

        def progress_text(self) -> str:
            return ""

    monkeypatch.setattr(caches, "SUBPROCESS_THRESHOLD", 0)
    monkeypatch.setattr("tui.session.loaders.APP_INDEX_SIZE", 0)  # by the child too
    monkeypatch.setattr(caches, "CacheBuild", InstantBuild)
    app = make_app([seeds_dir])
    got_lock: list[bool] = []
    redraw = app.refresh_header

    def redraw_taking_the_lock() -> None:
        lock: threading.Lock = app.search._index_lock
        if app.search.cache_build is not None and not got_lock:
            acquired = lock.acquire(timeout=2)
            got_lock.append(acquired)
            if acquired:
                lock.release()
        redraw()

    monkeypatch.setattr(app, "refresh_header", redraw_taking_the_lock)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: app.search.index is not None, timeout=60)
        await wait_until(pilot, lambda: bool(got_lock), timeout=10)
    assert got_lock == [True]
