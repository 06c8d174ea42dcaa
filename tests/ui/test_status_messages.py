"""What the header and the toasts say: once, never a count that is not the answer,
and a bulk step says how to take it back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.helpers import record_notifications, wait_for_userdata, wait_until
from tests.ui.test_startup import child_held
from tui.store.records import SaveFailed
from tui.ui import view
from tui.ui.app import make_app
from tui.ui.widgets.header import AppHeader


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


def test_the_short_form_of_the_work_under_way_keeps_its_figures() -> None:
    from tui.caches import STAGES

    assert view.short_doing(dict(STAGES)["index"] + " 41%…") == "index 41%…"
    assert view.short_doing("indexing: files 40 / 369…") == "files 40 / 369…"
    assert view.short_doing("reading files 8 / 100…") == "files 8 / 100…"
    assert view.short_doing("similarity 7%…") == "similarity 7%…"


async def test_a_narrow_header_says_the_work_under_way_in_fewer_words(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 80 columns the whole status (a partial answer, then the child's work) is cut
    before the work is named: the short form says it, and the app's name stays."""
    child_done = child_held(monkeypatch)
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        header = app.query_one(AppHeader)
        await pilot.press("slash", *"learning")
        await wait_until(pilot, lambda: "(30 searched)" in header.status_text.plain, timeout=30)
        assert "building the search index…" in header.status_text.plain  # the whole
        drawn = header.render_line(0).text
        assert "(30 searched) · index…" in drawn
        assert drawn.startswith(" abstracts")
        child_done.set()
        await wait_until(pilot, lambda: "searched" not in header.status_text.plain, timeout=30)
    async with make_app([seeds_dir]).run_test(size=(200, 24)) as pilot:
        await pilot.press("slash", *"learning")
        header = pilot.app.query_one(AppHeader)
        await wait_until(pilot, lambda: "match" in header.status_text.plain, timeout=30)
        # Wide enough for the whole: drawn as it is.
        assert header.status_text.plain in header.render_line(0).text
