"""Fetching from the app: `f`, its progress line, Esc to cancel, and `is:new` at start."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.library.arxiv_server import FakeArxiv, papers
from tests.library.test_fetch import stored
from tests.ui.helpers import record_notifications, wait_until
from tui import locations
from tui.inbox.config import write_follow
from tui.ui.app import make_app
from tui.ui.widgets.fetch_panel import FetchPanel
from tui.ui.widgets.header import AppHeader


@pytest.fixture
def following(config_dir: Path, arxiv: FakeArxiv) -> FakeArxiv:
    path = locations.config_path(config_dir)
    write_follow(path, ["cs.LG"])
    path.write_text(path.read_text() + f'api_url = "{arxiv.url}"\n', encoding="utf-8")
    return arxiv


async def test_f_fetches_with_a_progress_line_and_says_what_came_in(
    seeds_dir: Path, data_dir: Path, following: FakeArxiv, monkeypatch: pytest.MonkeyPatch
) -> None:
    following.catalogue = papers(5, datetime.now(UTC) - timedelta(hours=1))
    following.faults = ["hold"]  # the first answer waits for the test
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        said = record_notifications(app, monkeypatch)
        await pilot.press("f")
        await wait_until(pilot, lambda: len(following.requests) == 1)
        assert app.fetching.running and len(app.query(FetchPanel)) == 1
        # The list answers keys while the request waits.
        first = app.abstract_list.current
        await pilot.press("j")
        assert app.abstract_list.current is not first
        following.release.set()
        await wait_until(pilot, lambda: not app.fetching.running, timeout=20)
        assert len(app.query(FetchPanel)) == 0
        assert any("5 new papers stored in the library" in s for s in said)
    assert len(stored(data_dir)) == 5


async def test_escape_cancels_a_fetch_and_nothing_is_stored(
    seeds_dir: Path, data_dir: Path, following: FakeArxiv, monkeypatch: pytest.MonkeyPatch
) -> None:
    following.catalogue = papers(300, datetime.now(UTC) - timedelta(hours=1))
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        said = record_notifications(app, monkeypatch)
        await pilot.press("f")
        # The first page is in; the fetch waits out arXiv's 3 s before the next.
        await wait_until(pilot, lambda: len(following.requests) == 1, timeout=10)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.fetching.running, timeout=5)
        assert any("cancelled" in s for s in said)
    assert len(following.requests) == 1
    assert stored(data_dir) == {}


async def test_the_app_counts_as_new_what_arrived_since_it_was_last_opened(
    data_dir: Path, following: FakeArxiv
) -> None:
    from tui.inbox.client import SystemClock
    from tui.inbox.library import default_paths
    from tui.inbox.run import fetch_followed

    following.catalogue = papers(40, datetime.now(UTC) - timedelta(hours=1))
    fetch_followed(data_dir, locations.config_dir(), SystemClock())
    app = make_app(default_paths(data_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.fetching.new_ids() != set())
        assert len(app.fetching.new_ids()) == 40
        assert "40 new (is:new)" in app.query_one(AppHeader).status_text.plain
        await pilot.press("slash", *"is:new -paper", "enter")
        await wait_until(pilot, lambda: len(app.abstract_list.rows) == 0)
        await pilot.press("escape", "slash", *"is:new", "enter")
        await wait_until(pilot, lambda: len(app.abstract_list.rows) == 40)
    # The app noted its opening: the next one counts from it.
    from tui.inbox.library import open_inbox, read_index

    opened = read_index(locations.library_dir(data_dir)).opened
    assert opened is not None
    later = open_inbox(data_dir, app.corpus, opened=datetime.now(UTC))
    assert later.since == opened and later.new_ids() == set()
