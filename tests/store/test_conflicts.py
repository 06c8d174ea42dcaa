"""Conflict copies: listed in the notes view, gone only when the user dismisses them;
re-attaching a record with an unsaved note edit reports no false conflict."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.helpers import (
    PARAGRAPHS,
    hold_writes,
    load,
    make_abstract,
    open_userdata,
    window_two_saves_unseen,
    write_file,
)
from tui.store.db import Store
from tui.store.records import (
    ConflictDetected,
    StoreEvent,
)
from tui.store.userdata import UserData

A = make_abstract(PARAGRAPHS[0])


def _open(d: Path) -> UserData:
    return UserData.open(d, retry_initial=0.02, retry_max=0.1)


def _conflict(data_dir: Path) -> tuple[UserData, UserData]:
    one, two = _open(data_dir), _open(data_dir)
    one.save_note(A, "base")
    assert one.flush() and two.refresh()
    two.save_note(A, "from window two")
    assert two.flush()
    one.save_note(A, "from window one")
    assert one.flush()
    return one, two


def test_notes_view_lists_copies_and_dismiss_removes_one(data_dir: Path) -> None:
    one, two = _conflict(data_dir)
    [record] = one.notes()
    assert record.text == "from window one"
    [copy] = record.conflicts
    assert copy.text == "from window two" and copy.abstract_id == A.id
    assert one.dismiss_conflict(copy.copy_id)
    assert one.notes()[0].conflicts == () and one.conflict_copies() == []
    assert not one.dismiss_conflict(copy.copy_id)  # already gone
    assert one.flush()
    assert Store.open(data_dir).load().conflicts == []
    assert two.refresh() and two.conflict_copies() == []
    assert not two.dismiss_conflict(copy.copy_id)
    assert two.note(A.id) == "from window one"  # dismissing a copy never touches the note
    one.close()
    two.close()


def test_copy_without_note_is_listed_until_dismissed(data_dir: Path) -> None:
    one, two = _conflict(data_dir)
    two.close()
    one.delete_note(A.id)
    assert one.flush()
    [record] = one.notes()
    assert record.id == A.id and record.text == "" and len(record.conflicts) == 1
    assert record.updated == record.conflicts[0].created and record.headline
    assert one.dismiss_conflict(record.conflicts[0].copy_id)
    assert one.notes() == []
    one.close()


def test_pending_dismissal_survives_refresh(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = _conflict(data_dir)
    two.close()
    [copy] = one.conflict_copies()
    holding = hold_writes(monkeypatch)
    assert one.dismiss_conflict(copy.copy_id)
    one.refresh()  # the database still has the copy; the queued dismissal wins
    assert one.conflict_copies() == []
    holding.clear()
    assert one.flush(timeout=5)
    one.close()
    assert Store.open(data_dir).load().conflicts == []


@pytest.mark.parametrize("refresh_first", [False, True])
def test_unsaved_edit_during_reattach_is_no_conflict(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, refresh_first: bool
) -> None:
    f = tmp_path / "a.txt"
    write_file(f, "ICLR 2023 Papers", PARAGRAPHS[:2])
    ud = _open(data_dir)
    events: list[StoreEvent] = []
    ud.listener = events.append
    old = load([f]).abstracts[0]
    ud.attach(load([f]))
    ud.save_note(old, "saved before the edit")
    assert ud.flush()

    holding = hold_writes(monkeypatch)
    ud.save_note(old, "typed while the file changed")  # not committed yet
    write_file(f, "ICLR 2023 Papers", [PARAGRAPHS[0].replace("prove", "proved"), PARAGRAPHS[1]])
    corpus = load([f])
    new = corpus.abstracts[0]
    [moved] = ud.attach(corpus).reattached
    assert (moved.old_id, moved.new_id) == (old.id, new.id)
    if refresh_first:
        ud.refresh()
    ud.save_note(new, "typed after the re-attachment")
    holding.clear()
    assert ud.flush(timeout=5)

    assert not any(isinstance(e, ConflictDetected) for e in events)
    assert ud.conflict_copies() == [] and ud.note(new.id) == "typed after the re-attachment"
    ud.close()
    data = Store.open(data_dir).load()
    assert {i: n.text for i, n in data.notes.items()} == {new.id: "typed after the re-attachment"}
    assert data.conflicts == [] and data.aliases == {old.id: new.id}


def test_reattach_onto_a_noted_abstract_saves_the_edit_as_a_copy(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "a.txt"
    write_file(f, "ICLR 2023 Papers", PARAGRAPHS[:1])
    ud = _open(data_dir)
    old = load([f]).abstracts[0]
    ud.attach(load([f]))
    ud.save_note(old, "first")
    assert ud.flush()
    edited = make_abstract(PARAGRAPHS[0].replace("prove", "proved"))
    ud.save_note(edited, "the edited abstract has its own note")
    assert ud.flush()
    holding = hold_writes(monkeypatch)
    ud.save_note(old, "unsaved edit of the old note")
    write_file(f, "ICLR 2023 Papers", [edited.text])
    ud.attach(load([f]))
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()
    data = Store.open(data_dir).load()
    assert data.notes[edited.id].text == "the edited abstract has its own note"
    assert [c.text for c in data.conflicts] == ["unsaved edit of the old note"]


def test_deleting_a_note_changed_elsewhere_keeps_the_other_text(data_dir: Path) -> None:
    one, two, events = window_two_saves_unseen(data_dir, A, "written in window two")
    one.delete_note(A.id)  # window one never saw window two's text
    assert one.flush()
    assert one.note(A.id) is None
    # The notes view says why the copy was kept: "also kept (changed elsewhere, then deleted)".
    assert [(c.text, c.origin) for c in one.conflict_copies()] == [
        ("written in window two", "changed elsewhere, then deleted")
    ]
    assert [(e.message, e.abstract_id) for e in events if isinstance(e, ConflictDetected)] == [
        (
            "This note was also changed elsewhere (another window or an import). Both texts "
            "are kept: yours is the note, the other is listed beside it.",
            A.id,
        )
    ]
    assert two.refresh() and two.note(A.id) is None
    assert [c.text for c in two.conflict_copies()] == ["written in window two"]
    one.close()
    two.close()


def test_deleting_a_note_nobody_else_changed_leaves_no_copy(data_dir: Path) -> None:
    one, two = open_userdata(data_dir), open_userdata(data_dir)
    one.save_note(A, "base")
    assert one.flush() and two.refresh()
    two.delete_note(A.id)
    assert two.flush()
    assert two.conflict_copies() == [] and two.notes() == []
    assert one.refresh() and one.note(A.id) is None and one.conflict_copies() == []
    one.close()
    two.close()


def test_every_conflict_saved_in_one_write_is_reported(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    b = make_abstract(PARAGRAPHS[1])
    one, two = open_userdata(data_dir), open_userdata(data_dir)
    events: list[StoreEvent] = []
    one.listener = events.append
    for abstract in (A, b):
        one.save_note(abstract, "base")
    assert one.flush() and two.refresh()
    for abstract in (A, b):
        two.save_note(abstract, "from window two")
    assert two.flush()
    holding = hold_writes(monkeypatch)  # both edits go in one write once it works again
    for abstract in (A, b):
        one.save_note(abstract, "from window one")
    holding.clear()
    assert one.flush(timeout=5)
    assert sorted(e.abstract_id for e in events if isinstance(e, ConflictDetected)) == sorted(
        [A.id, b.id]
    )
    one.close()
    two.close()
