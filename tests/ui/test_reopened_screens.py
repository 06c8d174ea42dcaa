"""The note editor (`n`) and the notes view (`N`) are built once the data has opened and
shown again at each key: each opening shows what a new screen would, never what the
screen showed the time before."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList, Static, TextArea

from tests.ui.helpers import (
    KEPT,
    keys_handled,
    orphan_a_note,
    steady_cursors,
    wait_for_userdata,
    wait_until,
)
from tui.ui.app import AbstractsApp, make_app
from tui.ui.controllers.notes import NotesController
from tui.ui.screens.note_editor import NoteEditorScreen
from tui.ui.screens.notes import NotesScreen

EDITOR, VIEW = "note-editor", "notes"


async def _prepared(pilot) -> AbstractsApp:
    """The app once its data has opened and both screens are built and mounted."""
    app: AbstractsApp = pilot.app
    await wait_for_userdata(pilot)

    def mounted(name: str) -> bool:
        return app.is_screen_installed(name) and app.get_screen(name).is_mounted

    await wait_until(pilot, lambda: mounted(EDITOR) and mounted(VIEW))
    return app


async def test_n_and_N_show_the_screens_built_before_them(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 40)) as pilot:
        app = await _prepared(pilot)
        editor, view = app.get_screen(EDITOR), app.get_screen(VIEW)
        for _ in range(2):
            await pilot.press("n")
            assert app.screen is editor
            await pilot.press("escape", "N")
            assert app.screen is view
            await pilot.press("escape", "j")
        assert app.screen is app.screen_stack[0]


async def test_the_editor_reopened_on_another_abstract_shows_that_abstracts_note(
    seeds_dir: Path,
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 40)) as pilot:
        app = await _prepared(pilot)
        first, third = app.corpus.abstracts[0], app.corpus.abstracts[2]
        app.notes.save_note(third, "The third one's note.")
        await pilot.press("n", *"on the first", "escape", "j", "j", "n")
        editor = app.screen
        assert isinstance(editor, NoteEditorScreen)
        assert editor.abstract is third and editor.text == "The third one's note."
        headline = editor.query_one("#editor-headline", Static).visual
        assert third.headline[:40] in str(headline)
        area = editor.query_one(TextArea)
        assert area.cursor_location == area.document.end  # where typing goes on
        await pilot.press(*" More.", "escape")
        data = app.personal.userdata
        assert data.note(first.id) == "on the first"
        assert data.note(third.id) == "The third one's note. More."


async def test_undo_in_a_reopened_editor_never_brings_back_the_other_note(
    seeds_dir: Path,
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 40)) as pilot:
        app = await _prepared(pilot)
        await pilot.press("n", *"first note", "escape", "j", "n", "ctrl+z")
        second = app.abstract_list.current
        assert isinstance(app.screen, NoteEditorScreen) and app.screen.text == ""
        await pilot.press("escape")
        assert app.personal.userdata.note(second.id) is None


async def test_a_change_reaching_the_editor_after_it_closed_is_not_saved_later(
    seeds_dir: Path,
) -> None:
    """Closing saved the note; a change still in the closed editor's queue must not save
    it again once the debounce has passed (here after `u` took the note back)."""
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 40)) as pilot:
        app = await _prepared(pilot)
        target = app.abstract_list.current
        await pilot.press("n", *"draft", "escape")
        editor = app.get_screen(EDITOR)
        area = editor.query_one(TextArea)
        area.post_message(TextArea.Changed(area))
        await pilot.pause()
        await pilot.press("u")
        assert app.personal.userdata.note(target.id) is None
        app.clock.advance(10)
        await pilot.pause()
        assert app.personal.userdata.note(target.id) is None


async def test_the_notes_view_reopened_shows_the_notes_as_they_are_now(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 40)) as pilot:
        app = await _prepared(pilot)
        await pilot.press("n", *"one", "escape", "N")
        view = app.screen
        assert isinstance(view, NotesScreen) and view.query_one("#notes-list").display
        await pilot.press("escape", "j", "n", *"two", "escape", "N")
        assert app.screen is view
        options = view.query_one(OptionList)
        assert [n.text for n in view.notes] == ["two", "one"]
        assert options.option_count == 2 and options.highlighted == 0
        assert "✎ two" in str(options.get_option_at_index(0).prompt)
        assert view.query_one("#notes-box").border_title == "Notes (2)"
        assert not view.query_one("#notes-empty").display
        await pilot.press("j", "escape", "n")  # the second row's note, emptied: deleted
        app.screen.query_one(TextArea).clear()
        await pilot.press("escape", "N")
        assert [n.text for n in view.notes] == ["one"]
        assert options.option_count == 1 and options.highlighted == 0


async def test_the_notes_view_reopened_with_no_notes_says_so(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 40)) as pilot:
        app = await _prepared(pilot)
        await pilot.press("n", *"gone soon", "escape", "N", "escape", "n")
        app.screen.query_one(TextArea).clear()
        await pilot.press("escape", "N")
        view = app.screen
        assert isinstance(view, NotesScreen)
        assert view.query_one("#notes-empty").display
        assert view.query_one(OptionList).option_count == 0
        assert view.query_one("#notes-box").border_title == "Notes (0)"


async def test_an_editor_reopened_after_an_orphans_note_shows_no_stored_copy(
    tmp_path: Path, data_dir: Path
) -> None:
    paper = tmp_path / "papers.txt"
    await orphan_a_note(paper, data_dir)
    again = make_app([paper], data_dir=data_dir)
    async with again.run_test(size=(140, 40)) as pilot:
        again = await _prepared(pilot)
        await pilot.press("N", "enter")
        await wait_until(pilot, lambda: isinstance(again.screen, NoteEditorScreen))
        editor = again.screen
        orphan = editor.query_one("#editor-orphan", Static)
        assert orphan.display and "reinforcement learning" in str(orphan.visual)
        await pilot.press("escape", "n")
        assert again.screen is editor and editor.abstract.text == KEPT
        assert not orphan.display and editor.text == ""


async def _before_editor(pilot, app: AbstractsApp) -> None:
    app.notes.save_note(app.corpus.abstracts[1], "Second.")
    await pilot.press("n")
    await wait_until(pilot, lambda: isinstance(app.screen, NoteEditorScreen))
    app.screen.query_one(TextArea).insert("\n".join(f"line {i} of a note" for i in range(60)))
    await pilot.press("escape")
    await keys_handled(pilot)


async def _before_notes_view(pilot, app: AbstractsApp) -> None:
    for row in (0, 2, 4):
        app.notes.save_note(app.corpus.abstracts[row], f"Note on row {row}.\nMore.")
    await pilot.press("N", "j", "j", "escape")
    await keys_handled(pilot)
    app.notes.save_note(app.corpus.abstracts[6], "A newer note.")


#: Each screen: what is done before it is closed and changed, and the keys then.
OPENINGS = {"editor": (_before_editor, ("j", "n")), "notes view": (_before_notes_view, ("b", "N"))}


async def _picture(
    seeds_dir: Path, data_dir: Path, prepared: bool, opening: str, size: tuple[int, int], theme: str
) -> str:
    """What the screen shows once opened again after a resize and a theme change, in an
    app that built its screens before (or not), at 100x30 until resized."""
    before, keys = OPENINGS[opening]
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        if prepared:
            await _prepared(pilot)
        else:
            await wait_for_userdata(pilot)
        await before(pilot, app)
        app.theme = theme
        await pilot.resize_terminal(*size)
        await pilot.press(*keys)
        # On a loaded machine `press` may return before the keys are handled.
        await wait_until(pilot, lambda: len(app.screen_stack) > 1)
        await keys_handled(pilot)
        app.clear_notifications()
        steady_cursors(app)
        await pilot.pause()
        return app.export_screenshot()


@pytest.mark.parametrize("opening", OPENINGS)
@pytest.mark.parametrize(
    ("size", "theme"), [((80, 24), "textual-dark"), ((120, 36), "solarized-light")]
)
async def test_a_reopened_screen_looks_as_a_new_one_does(
    seeds_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    opening: str,
    size: tuple[int, int],
    theme: str,
) -> None:
    """The same steps, with the screens built before and without, the terminal resized
    and the theme changed while the screen was closed: the same picture."""
    args = (opening, size, theme)
    reused = await _picture(seeds_dir, tmp_path / "reused", True, *args)
    monkeypatch.setattr(NotesController, "prepare", lambda self: None)
    assert await _picture(seeds_dir, tmp_path / "new", False, *args) == reused
