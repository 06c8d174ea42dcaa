"""What the header and the toasts say: once, never a count that is not the answer,
and a bulk step says how to take it back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.helpers import record_notifications, wait_for_userdata, wait_until
from tui.store.records import SaveFailed
from tui.ui import view
from tui.ui.app import make_app


async def test_the_saving_problem_toast_says_its_sentence_once(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    said = record_notifications(app, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_userdata(pilot)
        app.personal._on_store_event(
            SaveFailed("Saving is unavailable (disk full). Changes are kept and retried.")
        )
        toast = said[-1]
        assert toast == "Saving is unavailable (disk full). Changes are kept and retried."


async def test_the_header_never_shows_the_whole_list_as_the_matches(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.search.index is not None)
        # The index has just become ready; the query typed has no answer yet.
        app.session.filter.query_text = "graph"
        app.session.filter.match_counts = None
        status = view.header_status(app.session, doing="", progress="", new_count=0).plain
        assert "searching" in status
        assert "match" not in status and f"of {len(app.corpus)}" not in status


async def test_marking_the_list_read_says_how_many_and_how_to_undo(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    said = record_notifications(app, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("A")
        assert said[-1] == (
            f"Marked {len(app.corpus)} abstracts of the list as read. "
            "Press u to undo them all in one step."
        )
        await pilot.press("u")
        assert app.personal.userdata.read_ids() == set()
