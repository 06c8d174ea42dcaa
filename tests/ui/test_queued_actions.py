"""Keys pressed before the user's data has opened are applied when it opens: in order,
on the abstract they were pressed on, undoable, never refused.

The data is held closed by replacing the controller's `open` until the test opens it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from tests.ui.helpers import record_notifications, wait_for_userdata, wait_until
from tui.store.userdata import UserData
from tui.ui.app import AbstractsApp, make_app
from tui.ui.controllers.personal import PersonalController
from tui.ui.screens.note_editor import NoteEditorScreen
from tui.ui.screens.notes import NotesScreen

T = TypeVar("T")


def held_closed(app: AbstractsApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Keep the user's data from opening; return the list of notifications shown."""
    app.personal.open = lambda: None  # type: ignore[method-assign]
    return record_notifications(app, monkeypatch)


async def open_now(pilot) -> None:
    PersonalController.open(pilot.app.personal)
    await wait_for_userdata(pilot)


async def test_keys_pressed_while_opening_are_applied_in_order_and_undoable(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    said = held_closed(app, monkeypatch)
    async with app.run_test(size=(140, 40)) as pilot:
        first = app.abstract_list.current
        await pilot.press("b", "j")
        second = app.abstract_list.current
        await pilot.press("r", "b", "b", "j", "r")  # b twice on the second: no bookmark
        third = app.abstract_list.current
        assert app.personal.userdata is None
        await open_now(pilot)
        data = app.personal.userdata
        assert data.bookmarked_ids() == {first.id}
        assert data.read_ids() == {second.id, third.id}
        assert not any("try again" in s for s in said)
        assert any("applied when it opens" in s for s in said)
        # Each key is its own undo step, undone last first.
        await pilot.press("u")
        assert data.read_ids() == {second.id}
        await pilot.press("u", "u")  # the two b on the second
        assert data.bookmarked_ids() == {first.id}
        await pilot.press("u", "u")
        assert data.read_ids() == set() and data.bookmarked_ids() == set()


async def test_mark_list_read_while_opening_marks_the_list_shown(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    held_closed(app, monkeypatch)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("A")
        await open_now(pilot)
        assert len(app.personal.userdata.read_ids()) == len(app.corpus)
        await pilot.press("u")
        assert app.personal.userdata.read_ids() == set()


async def test_notes_view_asked_for_while_opening_opens_when_the_data_does(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    held_closed(app, monkeypatch)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("N")
        assert not isinstance(app.screen, NotesScreen)
        await open_now(pilot)
        assert isinstance(app.screen, NotesScreen)


async def test_a_note_typed_while_opening_goes_below_the_note_already_saved(
    seeds_dir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        await pilot.press("n", *"saved before", "escape")

    again = make_app([seeds_dir], data_dir=data_dir)
    held_closed(again, monkeypatch)
    async with again.run_test(size=(140, 40)) as pilot:
        # The editor opens at once, so the keys typed next are the note, not commands.
        await pilot.press("n")
        assert isinstance(again.screen, NoteEditorScreen)
        await pilot.press(*"and now")
        again.clock.advance(1.2)  # past the debounce: nothing is lost while the data opens
        await pilot.pause()
        await open_now(pilot)
        assert again.screen.text == "saved before\nand now"
        await pilot.press("escape")
        data = again.personal.userdata
        assert data.note(target.id) == "saved before\nand now"
        await pilot.press("u")  # the whole session is one step
        assert data.note(target.id) == "saved before"


async def test_a_note_closed_before_the_data_opens_is_saved_when_it_does(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    held_closed(app, monkeypatch)
    async with app.run_test(size=(140, 40)) as pilot:
        target = app.abstract_list.current
        await pilot.press("n", *"quick", "escape", "j", "b")
        await open_now(pilot)
        data = app.personal.userdata
        assert data.note(target.id) == "quick"
        assert data.bookmarked_ids() == {app.abstract_list.current.id}
        await pilot.press("u", "u")
        assert data.note(target.id) is None and not data.bookmarked_ids()


async def early_note_then_quit(
    seeds_dir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, *, store_gone: bool
) -> tuple[AbstractsApp, str]:
    """Type a note before the data opens and quit before it does (with the store unable
    to open at quit when `store_gone`); returns the app and the abstract's id."""
    from tui.store.userdata import UserData

    app = make_app([seeds_dir], data_dir=data_dir)
    held_closed(app, monkeypatch)
    async with app.run_test(size=(140, 40)) as pilot:
        target = app.abstract_list.current
        await pilot.press("n", *"typed at once")
        if store_gone:

            def cannot_open(_path: Path) -> UserData:
                raise OSError("the data dir is gone")

            monkeypatch.setattr(UserData, "open", staticmethod(cannot_open))
        await pilot.press("escape", "q")
    monkeypatch.undo()
    return app, target.id


def stored(data_dir: Path, read: Callable[[UserData], T]) -> T:
    """What `read` finds in the data saved in `data_dir` (opened and closed for it)."""
    data = UserData.open(data_dir)
    try:
        return read(data)
    finally:
        data.close()


def stored_note(data_dir: Path, abstract_id: str) -> str | None:
    return stored(data_dir, lambda data: data.note(abstract_id))


async def test_a_note_typed_before_the_data_opened_is_saved_by_an_early_quit(
    seeds_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir = tmp_path / "data"
    app, target = await early_note_then_quit(seeds_dir, data_dir, monkeypatch, store_gone=False)
    assert app.return_value == 0
    assert app.personal.rescue_path is None
    assert stored_note(data_dir, target) == "typed at once"


async def test_a_note_typed_before_the_data_opened_survives_an_early_quit_that_cannot_open_it(
    seeds_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from tui.commands.export import main_import

    data_dir = tmp_path / "data"
    app, target = await early_note_then_quit(seeds_dir, data_dir, monkeypatch, store_gone=True)
    assert app.return_value == 1  # the exit status: something could only go to a rescue file
    rescue = app.personal.rescue_path
    assert rescue is not None and rescue.exists()
    doc = json.loads(rescue.read_text(encoding="utf-8"))
    assert [(n["id"], n["text"]) for n in doc["notes"]] == [(target, "typed at once")]
    # And `abstracts import` brings it back.
    assert main_import([str(rescue), "--data-dir", str(data_dir)]) == 0
    assert stored_note(data_dir, target) == "typed at once"


async def test_keys_pressed_before_the_data_opened_are_saved_by_an_early_quit(
    seeds_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir = tmp_path / "data"
    app = make_app([seeds_dir], data_dir=data_dir)
    held_closed(app, monkeypatch)
    async with app.run_test(size=(140, 40)) as pilot:
        first = app.abstract_list.current
        await pilot.press("b", "j")
        second = app.abstract_list.current
        await pilot.press("x", "j", "r")
        third = app.abstract_list.current
        assert app.personal.userdata is None
        await pilot.press("q")
    assert app.return_value == 0
    assert stored(data_dir, lambda data: data.bookmarked_ids()) == {first.id}
    assert stored(data_dir, lambda data: data.is_dismissed(second.id))
    assert stored(data_dir, lambda data: data.read_ids()) == {third.id}


async def test_an_early_quit_remembers_the_filter_typed_before_the_data_opened(
    seeds_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    data_dir = tmp_path / "data"
    app = make_app([seeds_dir], data_dir=data_dir)
    held_closed(app, monkeypatch)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash", *"graph")
        await pilot.press("enter", "q")
    assert app.return_value == 0
    state = stored(data_dir, lambda data: data.get_state(f"resume:{app.corpus.fingerprint}"))
    assert state is not None and json.loads(state)["filter"] == "graph"


async def test_a_filter_on_bookmarks_typed_before_the_data_opened_answers_again_when_it_does(
    seeds_dir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`is:bookmarked` answered before the data opened found no bookmarks: it is searched
    again once the data is open, and finds them."""
    from tui.corpus.load import load_corpus

    corpus = load_corpus([seeds_dir])
    data = UserData.open(data_dir)
    data.set_bookmark(corpus.abstracts[2], True)
    data.close()
    app = make_app([seeds_dir])
    held_closed(app, monkeypatch)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash", *"is:bookmarked")
        await wait_until(pilot, lambda: app.search.match_counts is not None, timeout=20)
        assert app.search.match_counts[0] == 0  # no data yet: no bookmarks
        await open_now(pilot)
        await wait_until(pilot, lambda: app.search.match_counts[0] == 1, timeout=5)
        assert [app.corpus.abstracts[i].id for i in app.abstract_list.rows] == [
            corpus.abstracts[2].id
        ]


def test_the_fields_that_read_the_users_data_are_known_without_the_parser() -> None:
    from tui.search.query import _FIELDS
    from tui.ui.controllers.search import PERSONAL_FIELDS, may_read_personal

    assert set(PERSONAL_FIELDS) == {name for name, spec in _FIELDS.items() if spec.personal}
    for text in ("is:read", "graph -tag:x", "(has:note)", "IS:bookmarked", 'note:"a b"'):
        assert may_read_personal(text), text
    for text in ("graph neural", "this:that", "year:2023", "thesis"):
        assert not may_read_personal(text), text
