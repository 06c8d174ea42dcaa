"""The filter is answered again only when what changed can change its answer: the whole
index once it is ready (unless a search that waited for it has answered already), the
topics for a `topic:` filter, the inbox for `is:new` and `new:`. Each extra search is a
second repaint of the same list while the app starts."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.ui.helpers import keys_handled, wait_for_userdata, wait_until
from tui.search.index import SearchIndex
from tui.session.events import InboxOpened, IndexReady, TopicsChanged
from tui.ui.app import make_app
from tui.ui.controllers import search as search_controller


def _count_searches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The text of every query the index answers from now on, in order."""
    searched: list[str] = []
    search = SearchIndex.search

    def counted(self, parsed, *args, **kwargs):
        searched.append(parsed.text)
        return search(self, parsed, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "search", counted)
    return searched


async def _type_filter(pilot, query: str) -> None:
    """With the data open and the index ready, type `query` into the filter."""
    app = pilot.app
    await wait_for_userdata(pilot)
    await wait_until(pilot, lambda: app.search.index is not None)
    await pilot.press("slash", *query)


@pytest.mark.parametrize(
    ("query", "event", "searches_again"),
    [
        ("graph", IndexReady(), False),
        ("graph", TopicsChanged(), False),
        ("graph topic:1", TopicsChanged(), True),
        ("graph", InboxOpened(0), False),
        ("graph is:new", InboxOpened(0), True),
        ("graph -is:new", InboxOpened(0), True),
        ("graph new:2026-01-01", InboxOpened(0), True),
    ],
)
async def test_the_filter_is_searched_again_only_when_its_answer_can_change(
    seeds_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    query: str,
    event: object,
    searches_again: bool,
) -> None:
    searched = _count_searches(monkeypatch)
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        await _type_filter(pilot, query)
        await keys_handled(pilot)
        await wait_until(pilot, lambda: app.search.state.match_counts is not None)
        await pilot.pause()
        before = len(searched)
        app.session.bus.emit(event)
        await pilot.pause()
        await pilot.pause()
        assert len(searched) - before == (1 if searches_again else 0)


async def test_a_search_that_waited_for_the_index_is_not_repeated_when_it_is_ready(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index comes from a cache after the query was typed: one search answers."""
    searched = _count_searches(monkeypatch)
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        await _type_filter(pilot, "graph")
        await keys_handled(pilot)
        await wait_until(pilot, lambda: searched.count("graph") >= 1)
        await pilot.pause()
        # What the warm start's loader announces once the index (and model) are loaded.
        app.session.bus.emit(IndexReady())
        await pilot.pause()
        await pilot.pause()
        assert searched.count("graph") == 1


async def test_the_index_ready_while_its_search_is_under_way_does_not_search_again(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm start: the search typed early gets the index and is still answering when
    the loader announces it ready; that answer is the one shown, not a second search."""
    searched = _count_searches(monkeypatch)
    counted = SearchIndex.search
    reached, release = threading.Event(), threading.Event()

    def held(self, parsed, *args, **kwargs):
        if parsed.text == "graph":  # the whole query typed; the letters before run through
            reached.set()
            assert release.wait(10), "never released"
        return counted(self, parsed, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "search", held)
    monkeypatch.setattr(search_controller, "INLINE_SEARCH_MAX", 0)  # in its worker
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        await _type_filter(pilot, "graph")
        await wait_until(pilot, reached.is_set)
        app.session.bus.emit(IndexReady())
        await pilot.pause()
        release.set()
        await wait_until(pilot, lambda: app.search.state.match_counts is not None)
        await pilot.pause()
        await pilot.pause()
        assert searched.count("graph") == 1
