"""Notes: emptying one (which deletes it) is undoable, the notes view shows the first
lines of a multi-line note, and Tab indents in the editor."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList, TextArea

from tests.ui.helpers import wait_for_userdata
from tui.ui.app import make_app
from tui.ui.screens.note_editor import NoteEditorScreen
from tui.ui.screens.notes import PREVIEW_CHARS, NotesScreen, preview_lines


async def test_u_brings_back_a_note_deleted_by_emptying_it(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        data = app.personal.userdata
        await pilot.press("n", *"first", "enter", *"second", "escape")
        assert data.note(target.id) == "first\nsecond"
        await pilot.press("n")
        app.screen.query_one(TextArea).clear()
        await pilot.press("escape")
        assert data.note(target.id) is None
        await pilot.press("u")
        assert data.note(target.id) == "first\nsecond"
        assert "✎" in "".join(s.text for s in app.abstract_list._row_segments(target, 100, False))
        await pilot.press("ctrl+r")
        assert data.note(target.id) is None
        await pilot.press("u", "u")  # before the note was written at all
        assert data.note(target.id) is None
        await pilot.press("ctrl+r")
        assert data.note(target.id) == "first\nsecond"


async def test_one_editor_session_is_one_undo_step(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        data = app.personal.userdata
        await pilot.press("n", *"draft", "escape")
        await pilot.press("n", *" two", "escape", "b")
        await pilot.press("u")  # the bookmark
        assert data.note(target.id) == "draft two"
        await pilot.press("u")
        assert data.note(target.id) == "draft"
        await pilot.press("n", "escape")  # opened and closed unchanged: not a step
        await pilot.press("u")
        assert data.note(target.id) is None


async def test_tab_indents_in_the_note_editor_and_esc_still_closes(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        await pilot.press("n", *"- item", "enter", "tab", *"sub")
        assert isinstance(app.screen, NoteEditorScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, NoteEditorScreen)
        note = app.personal.userdata.note(target.id)
        assert note is not None
        first, second = note.split("\n")
        assert first == "- item" and second.strip() == "sub" and second.startswith(" ")


def test_preview_keeps_the_first_lines_of_a_note() -> None:
    assert preview_lines("one\n\n  two\nthree\nfour") == ["one", "  two", "three …"]
    assert preview_lines("single") == ["single"]
    long = preview_lines("x" * (PREVIEW_CHARS + 5))
    assert len(long[0]) == PREVIEW_CHARS and long[0].endswith("…")
    assert preview_lines("a\x1b[31m\nb") == ["a␛[31m", "b"]


async def test_notes_view_shows_a_multi_line_note_on_several_lines(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("n", *"alpha", "enter", *"beta", "enter", *"gamma", "escape")
        await pilot.press("N")
        assert isinstance(app.screen, NotesScreen)
        prompt = app.screen.query_one(OptionList).get_option_at_index(0).prompt
        lines = str(prompt).splitlines()
        assert [line.strip() for line in lines[1:4]] == ["✎ alpha", "beta", "gamma"]
