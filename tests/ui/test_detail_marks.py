"""A mark on the abstract the detail pane shows (`b`, `x`, `r`, a tag, a note) redraws
its meta lines and note box alone, from the user's data as it now is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.helpers import wait_for_userdata
from tui.ui import view
from tui.ui.app import make_app


async def test_b_on_the_abstract_shown_builds_no_whole_detail_view(
    seeds_dir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.pause(0.1)
        built: list[object] = []
        detail_view = view.detail_view
        monkeypatch.setattr(
            view, "detail_view", lambda *a, **k: built.append(a) or detail_view(*a, **k)
        )
        await pilot.press("b")
        await pilot.pause(0.1)
        assert app.detail.view is not None and app.detail.view.bookmarked
        assert built == []


async def test_a_note_taken_away_leaves_the_detail_pane(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        shown = app.abstract_list.current
        assert shown is not None
        userdata = app.personal.userdata
        assert userdata is not None
        userdata.save_note(shown, "kept for the reading group")
        app.session.user.changed([shown.id])
        await pilot.pause(0.1)
        assert app.detail.view is not None
        assert app.detail.view.note == "kept for the reading group"
        userdata.delete_note(shown.id)
        app.session.user.changed([shown.id])
        await pilot.pause(0.1)
        assert app.detail.view.note is None
        assert not app.detail.view.bookmarked
