"""Notes of any size never block a paint or a key: the detail pane and the notes view
show a bounded preview; the editors take notes up to a limit and refuse more, saying so."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widgets import OptionList

from tests.ui.helpers import record_notifications, wait_for_userdata, wait_until
from tui.ui.app import make_app
from tui.ui.screens.note_editor import MAX_NOTE_CHARS, NoteEditorScreen
from tui.ui.screens.notes import NotesScreen
from tui.ui.widgets.detail_text import NOTE_PREVIEW_CHARS, note_preview

BIG = ("a line of a very long note\n" * (MAX_NOTE_CHARS // 20))[: MAX_NOTE_CHARS + 10]


def test_a_long_note_is_previewed_with_how_much_more_there_is() -> None:
    shown = note_preview(BIG)
    assert len(shown) < NOTE_PREVIEW_CHARS + 100
    assert shown.startswith("a line of a very long note\n")
    more = len(BIG) - len(shown.split("\n…")[0])
    assert shown.endswith(f"… {more:,} more characters (n opens the whole note)")
    assert note_preview("short") == "short"


async def test_the_detail_pane_and_notes_view_show_a_bounded_preview(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_userdata(pilot)
        data, abstract = app.personal.userdata, app.abstract_list.current
        data.save_note(abstract, BIG)
        app.session.user.changed()  # changed behind the session's back
        shown = app.detail.text_of("note").plain
        assert len(shown) < NOTE_PREVIEW_CHARS + 100
        await pilot.press("N")
        await wait_until(pilot, lambda: isinstance(app.screen, NotesScreen))
        prompt = app.screen.query_one(OptionList).get_option_at_index(0).prompt
        assert len(str(prompt)) < 1_000


async def test_a_note_over_the_limit_does_not_open_in_the_editor_and_says_why(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    said = record_notifications(app, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_userdata(pilot)
        app.personal.userdata.save_note(app.abstract_list.current, BIG)
        await pilot.press("n")
        assert not isinstance(app.screen, NoteEditorScreen)
        assert f"{len(BIG):,} characters" in said[-1] and "$EDITOR" in said[-1]


async def test_a_paste_past_the_limit_is_refused_whole_and_said(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("n", *"kept")
        editor = app.screen
        app.post_message(events.Paste(BIG))  # as the terminal delivers it
        await pilot.pause()
        assert editor.text == "kept"
        assert any("at most" in str(n.message) for n in app._notifications)
        app.post_message(events.Paste(" and pasted"))
        await pilot.pause()
        assert editor.text == "kept and pasted"
