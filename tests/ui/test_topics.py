"""Pilot tests of the topic view (T) and `topic:N` in the filter."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.helpers import wait_for_userdata, wait_until
from tui.session.loaders import Loaders
from tui.similar.topics import Topics
from tui.ui.app import AbstractsApp, make_app
from tui.ui.screens.topics import TopicsScreen
from tui.ui.widgets.header import AppHeader


def status(app: AbstractsApp) -> str:
    return app.query_one(AppHeader).status_text.plain


def members(topics: Topics, number: int) -> list[int]:
    return [int(i) for i in topics.members(number)]


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_t_lists_topics_and_enter_filters_to_one(
    seeds_dir: Path, size: tuple[int, int]
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=size) as pilot:
        await wait_for_userdata(pilot)
        await wait_until(pilot, lambda: app.topics.model is not None)
        topics = app.topics.model
        assert topics is not None and topics.count == 9  # round(sqrt(76))
        await pilot.press("T")
        await wait_until(pilot, lambda: isinstance(app.screen, TopicsScreen))
        screen = app.screen
        assert isinstance(screen, TopicsScreen)
        assert [row.total for row in screen.rows] == topics.sizes()
        assert all(row.label for row in screen.rows)
        await pilot.press("j", "enter")  # the second topic
        await wait_until(pilot, lambda: not isinstance(app.screen, TopicsScreen))
        assert app.filter_input.value == "topic:2 "
        await wait_until(pilot, lambda: sorted(app.abstract_list.rows) == members(topics, 2))
        assert app.focused is app.abstract_list


async def test_topic_filter_waits_for_the_topics_then_runs(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held: list[Loaders] = []
    monkeypatch.setattr(Loaders, "warm_topics", lambda self: held.append(self))
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_userdata(pilot)
        await wait_until(pilot, lambda: app.search.index is not None and bool(held))
        await pilot.press("slash")
        app.filter_input.value = "topic:1 graph"
        await wait_until(pilot, lambda: "waits for the topics" in status(app))
        assert "Computing topics" in str(app.query_error_line.render())
        assert len(app.abstract_list.rows) == 76  # never an empty list as if nothing matched
        # The topics become ready: the filter runs by itself.
        monkeypatch.undo()
        app.topics.warm()
        await wait_until(pilot, lambda: app.topics.model is not None)
        topics = app.topics.model
        assert topics is not None
        await wait_until(pilot, lambda: "waits" not in status(app))
        assert set(app.abstract_list.rows) <= set(members(topics, 1))
        assert not app.query_error_line.display


async def test_the_view_fills_in_and_follows_read_marks(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held: list[Loaders] = []
    monkeypatch.setattr(Loaders, "warm_topics", lambda self: held.append(self))
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("T")
        await wait_until(pilot, lambda: isinstance(app.screen, TopicsScreen))
        screen = app.screen
        assert isinstance(screen, TopicsScreen)
        assert screen.rows == [] and "Computing topics" in (screen.status or "")
        monkeypatch.undo()
        app.topics.warm()
        await wait_until(pilot, lambda: len(screen.rows) == 9)
        topics = app.topics.model
        assert topics is not None
        first = app.corpus.abstracts[members(topics, 1)[0]]
        assert screen.rows[0].read == 0 and screen.rows[0].bookmarked == 0
        app.triage.set_read([first.id], True)
        app.triage.set_bookmarks([first.id], True)
        await wait_until(pilot, lambda: screen.rows[0].read == 1)
        assert screen.rows[0].bookmarked == 1
        await pilot.press("escape")
        assert not isinstance(app.screen, TopicsScreen)
        assert app.filter_input.value == ""


async def test_topics_that_cannot_be_computed_are_reported(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.similar import topic_cache

    def broken(*_args: object) -> Topics:
        raise ValueError("no room")

    monkeypatch.setattr(topic_cache, "load_or_build", broken)
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        await wait_until(pilot, lambda: app.topics.failure is not None)
        await pilot.press("T")
        await wait_until(pilot, lambda: isinstance(app.screen, TopicsScreen))
        screen = app.screen
        assert isinstance(screen, TopicsScreen)
        assert "could not be computed: no room" in (screen.status or "")
        await pilot.press("escape")
        app.filter_input.value = "topic:1"
        await wait_until(pilot, lambda: len(app.abstract_list.rows) == 0)
        assert "waits" not in status(app)
