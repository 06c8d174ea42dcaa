"""Pilot tests of bookmarks, notes and reading state, across a restart."""

from __future__ import annotations

from pathlib import Path

from tests.ui.helpers import orphan_a_note, wait_for_userdata, wait_until
from tui.ui.app import make_app
from tui.ui.screens.note_editor import NoteEditorScreen
from tui.ui.widgets.header import AppHeader


async def test_bookmark_and_note_survive_a_restart(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("j")
        target = app.abstract_list.current
        await pilot.press("b")
        assert app.personal.userdata.is_bookmarked(target.id)
        row = "".join(s.text for s in app.abstract_list._row_segments(target, 100, False))
        assert row.startswith("★")
        await pilot.press("n")
        assert isinstance(app.screen, NoteEditorScreen)
        await pilot.press(*"read [this] later")
        await pilot.press("escape")
        assert not isinstance(app.screen, NoteEditorScreen)
        assert app.personal.userdata.note(target.id) == "read [this] later"
        assert "read [this] later" in app.detail.text_of("note").plain

    again = make_app([seeds_dir], data_dir=data_dir)
    async with again.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        assert again.personal.userdata.is_bookmarked(target.id)
        assert again.personal.userdata.note(target.id) == "read [this] later"
        row = "".join(
            s.text
            for s in again.abstract_list._row_segments(again.corpus.by_id[target.id], 100, False)
        )
        assert row.startswith("★✎")


async def test_has_note_filter(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("G")
        target = app.abstract_list.current
        await pilot.press("n", *"important", "escape")
        await pilot.press("slash", *"has:note")
        await wait_until(pilot, lambda: len(app.abstract_list.rows) == 1)
        assert app.abstract_list.current is target


async def test_r_toggles_read_and_the_header_counts_it(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        was_read = app.personal.userdata.is_read(target.id)
        await pilot.press("r")
        assert app.personal.userdata.is_read(target.id) is not was_read
        header = app.query_one(AppHeader).status_text.plain
        assert f"{len(app.personal.userdata.read_ids())} / 76 read" in header


async def test_a_note_edited_in_two_instances_keeps_both_and_d_drops_the_copy(
    seeds_dir: Path, data_dir: Path
) -> None:
    from tui.store.userdata import UserData
    from tui.ui.screens.notes import NotesScreen

    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        other = UserData.open(data_dir)  # a second instance, opened before either edit
        app.personal.userdata.save_note(target, "mine")
        app.personal.userdata.flush()
        other.save_note(target, "theirs")
        other.flush()
        other.close()
        await pilot.press("ctrl+l")  # refresh from disk
        await pilot.press("N")
        assert isinstance(app.screen, NotesScreen)
        [note] = app.screen.notes
        texts = {note.text, *(c.text for c in note.conflicts)}
        assert texts == {"mine", "theirs"}
        await pilot.press("d")  # d, not x: x means "not interested" in every list
        assert app.screen.notes[0].conflicts == ()
        await pilot.press("escape")
        assert [n.conflicts for n in app.personal.userdata.notes()] == [()]


async def test_a_corrupt_database_is_set_aside_and_the_user_told(
    seeds_dir: Path, data_dir: Path
) -> None:
    garbage = b"this is not a database" * 100
    (data_dir / "abstracts.db").write_bytes(garbage)
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        messages = " ".join(n.message for n in app._notifications)
        assert "corrupt" in messages.lower() or "damaged" in messages.lower()
        await pilot.press("b")
        assert app.personal.userdata.bookmarked_ids()
    kept = list(data_dir.glob("abstracts.db.corrupt-*"))
    assert kept and kept[0].read_bytes() == garbage


async def test_an_abstract_shown_for_a_few_seconds_becomes_read(seeds_dir: Path) -> None:
    from tui.ui.clock import ManualClock
    from tui.ui.controllers.personal import READ_AFTER_SECONDS

    clock = ManualClock()
    app = make_app([seeds_dir], clock=clock)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        first = app.abstract_list.current
        await pilot.press("j", "j")  # passing over the second does not read it
        clock.advance(READ_AFTER_SECONDS - 0.1)
        await pilot.pause()
        current = app.abstract_list.current
        assert not app.personal.userdata.is_read(current.id)
        clock.advance(0.2)
        await pilot.pause()
        assert app.personal.userdata.is_read(current.id)
        assert not app.personal.userdata.is_read(app.corpus.abstracts[1].id)
        assert not app.personal.userdata.is_read(first.id)  # shown at launch: not read
        row = "".join(s.text for s in app.abstract_list._row_segments(current, 100, False))
        assert "•" not in row[:3]  # read rows lose the unread dot


async def test_when_saving_fails_the_app_keeps_going_and_says_so(
    seeds_dir: Path, data_dir: Path, monkeypatch
) -> None:
    import sqlite3
    import threading

    from tui.store.db import Store

    failing = threading.Event()
    real_apply = Store.apply

    def apply(self, ops):
        if failing.is_set():
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return real_apply(self, ops)

    monkeypatch.setattr(Store, "apply", apply)
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        failing.set()
        target = app.abstract_list.current
        await pilot.press("b")
        await wait_until(
            pilot, lambda: "saving unavailable" in app.query_one(AppHeader).status_text.plain
        )
        assert app.personal.userdata.is_bookmarked(target.id)  # kept in memory
        assert app.personal.userdata.pending_count >= 1
        failing.clear()
        await wait_until(pilot, lambda: app.personal.userdata.pending_count == 0, timeout=20)
        await wait_until(
            pilot, lambda: "saving unavailable" not in app.query_one(AppHeader).status_text.plain
        )

    again = make_app([seeds_dir], data_dir=data_dir)
    async with again.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        assert again.personal.userdata.is_bookmarked(target.id)


async def test_a_slash_in_a_note_is_text_not_the_filter_key(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        await pilot.press("n", *"and/or", "escape")
        assert app.personal.userdata.note(target.id) == "and/or"
        await pilot.press("slash", *"a/b")
        assert app.filter_input.value == "a/b"


async def test_emptying_a_note_deletes_it(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        await pilot.press("n", "x", "escape")
        assert target.id in app.personal.userdata.noted_ids()
        await pilot.press("n", "backspace", "escape")
        assert target.id not in app.personal.userdata.noted_ids()
        assert app.personal.userdata.note(target.id) is None
        assert "✎" not in "".join(
            s.text for s in app.abstract_list._row_segments(target, 100, False)
        )


async def test_r_is_not_undone_by_the_dwell_timer(seeds_dir: Path) -> None:
    from tui.ui.clock import ManualClock

    clock = ManualClock()
    app = make_app([seeds_dir], clock=clock)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("j")
        target = app.abstract_list.current
        await pilot.press("r", "r")  # read, then unread again on purpose
        assert not app.personal.userdata.is_read(target.id)
        clock.advance(60)  # well past the dwell time that j started
        await pilot.pause()
        assert not app.personal.userdata.is_read(target.id)


async def test_an_orphaned_note_opens_with_its_stored_abstract(
    tmp_path: Path, data_dir: Path
) -> None:
    from tui.ui.screens.note_editor import NoteEditorScreen
    from tui.ui.screens.notes import NotesScreen

    paper = tmp_path / "papers.txt"
    await orphan_a_note(paper, data_dir)
    again = make_app([paper], data_dir=data_dir)
    async with again.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("N")
        assert isinstance(again.screen, NotesScreen)
        [note] = again.screen.notes
        assert note.orphaned
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(again.screen, NoteEditorScreen))
        assert "reinforcement learning" in again.screen.abstract.text
        await pilot.press(*" too", "escape")
        assert [n.text for n in again.personal.userdata.notes()] == ["keep this too"]


async def test_a_note_typed_just_before_quitting_is_saved(seeds_dir: Path, data_dir: Path) -> None:
    from tui.store.userdata import UserData

    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        await pilot.press("n", *"last words", "ctrl+q")  # well inside the save delay
    stored = UserData.open(data_dir)
    try:
        assert stored.note(target.id) == "last words"
    finally:
        stored.close()
