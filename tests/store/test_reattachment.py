"""Re-attaching a record to the edited version of its abstract: bookmarks, read marks,
tags, notes, unsaved edits and conflict copies move with it, and no false conflict follows."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.helpers import (
    NEAR,
    PARAGRAPHS,
    conflict_on,
    edited_corpus,
    hold_writes,
    load,
    make_abstract,
    open_userdata,
    write_file,
)
from tui.store.attach import Reattachment
from tui.store.db import Store
from tui.store.records import (
    ConflictDetected,
    OrphanReattached,
    StoreEvent,
)

A = make_abstract(PARAGRAPHS[0])


def test_reattachment_moves_read_marks_copies_and_snapshot(tmp_path: Path, data_dir: Path) -> None:
    f, old, new = edited_corpus(tmp_path)
    other = load([f]).abstracts[1]
    conflict_on(data_dir, other, "another abstract's copy").close()
    one = conflict_on(data_dir, old, "from window two")
    events: list[StoreEvent] = []
    one.listener = events.append
    one.set_read([old], True)
    assert one.flush()
    read_at = one.read_at(old.id)
    copy = next(c for c in one.conflict_copies() if c.abstract_id == old.id)
    updated = next(r.updated for r in one.notes() if r.id == old.id)

    report = one.attach(load([f]))
    assert [(r.old_id, r.new_id) for r in report.reattached] == [(old.id, new.id)]
    assert one.is_read(new.id) and not one.is_read(old.id) and one.read_at(new.id) == read_at
    assert new.id in one.read_ids() and old.id not in one.read_ids()
    assert new.id in one.noted_ids() and old.id not in one.noted_ids()
    assert sorted((c.abstract_id, c.text) for c in one.conflict_copies()) == sorted(
        [(new.id, copy.text), (other.id, "another abstract's copy")]
    )
    assert one.aliases() == {old.id: new.id}
    snap = one.snapshot(new.id)
    assert snap is not None and snap.text == new.text
    [record] = [r for r in one.notes() if r.id != other.id]
    assert record.id == new.id and record.conflicts[0].text == "from window two"
    assert record.updated == updated  # the note moved; it was not edited
    assert one.flush()
    [moved] = [e for e in events if isinstance(e, OrphanReattached)]
    assert (moved.old_id, moved.new_id) == (old.id, new.id)
    assert old.id in moved.message and new.id in moved.message
    one.close()

    data = Store.open(data_dir).load()
    assert set(data.reads) == {new.id} and set(data.notes) == {new.id, other.id}
    assert sorted(c.abstract_id for c in data.conflicts) == sorted([new.id, other.id])
    assert data.records[new.id].text == new.text


def test_a_note_edited_after_its_reattachment_is_no_conflict(
    tmp_path: Path, data_dir: Path
) -> None:
    f, old, new = edited_corpus(tmp_path)
    ud = open_userdata(data_dir)
    events: list[StoreEvent] = []
    ud.listener = events.append
    ud.save_note(old, "first")
    assert ud.flush()
    ud.attach(load([f]))
    assert ud.flush()
    ud.save_note(new, "second, after the move")
    assert ud.flush()
    assert ud.conflict_copies() == [] and not any(isinstance(e, ConflictDetected) for e in events)
    ud.close()
    assert Store.open(data_dir).load().conflicts == []


def test_a_note_moved_twice_before_saving_then_edited_is_no_conflict(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The abstract edited twice (two re-attachments queued while saving waits), then its
    note edited: one note, no conflict copy (the edit is based on the version the
    database holds under the first id)."""
    f, old, mid = edited_corpus(tmp_path)
    ud = open_userdata(data_dir)
    ud.save_note(old, "first")
    assert ud.flush()
    holding = hold_writes(monkeypatch)
    ud.attach(load([f]))  # old -> mid
    write_file(f, "ICLR 2023 Papers", [NEAR.replace("They are", "These are"), PARAGRAPHS[1]])
    new = load([f]).abstracts[0]
    assert [(r.old_id, r.new_id) for r in ud.attach(load([f])).reattached] == [(mid.id, new.id)]
    ud.save_note(new, "second, after both moves")
    holding.clear()
    assert ud.flush(timeout=5)
    assert ud.conflict_copies() == []
    ud.close()
    data = Store.open(data_dir).load()
    assert {i: n.text for i, n in data.notes.items()} == {new.id: "second, after both moves"}
    assert data.conflicts == []


def test_reattaching_onto_the_same_note_text_keeps_no_copy(tmp_path: Path, data_dir: Path) -> None:
    f, old, new = edited_corpus(tmp_path)
    ud = open_userdata(data_dir)
    ud.save_note(old, "same words")
    ud.save_note(new, "same words")
    assert ud.flush()
    ud.attach(load([f]))
    assert ud.flush()
    assert ud.note(new.id) == "same words" and ud.conflict_copies() == []
    ud.close()
    data = Store.open(data_dir).load()
    assert {i: n.text for i, n in data.notes.items()} == {new.id: "same words"}
    assert data.conflicts == []


def test_an_unsaved_edit_follows_its_note_to_the_edited_abstract(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f, old, new = edited_corpus(tmp_path)
    ud = open_userdata(data_dir)
    ud.save_note(old, "saved")
    assert ud.flush()
    holding = hold_writes(monkeypatch)
    ud.save_note(old, "typed, not yet saved")
    ud.attach(load([f]))
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()
    data = Store.open(data_dir).load()
    assert {i: n.text for i, n in data.notes.items()} == {new.id: "typed, not yet saved"}
    assert data.records[new.id].text == new.text and data.conflicts == []


def test_a_bookmark_taken_off_after_a_reattachment_onto_it_stays_off(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bookmarked, then an orphan's bookmark moved onto it, then taken off, all while
    saving waits: it stays off after a restart. (A change that replaces a queued one is
    saved after everything queued before it, here after the move that bookmarks it.)"""
    f, old, new = edited_corpus(tmp_path)
    ud = open_userdata(data_dir)
    ud.set_bookmark(old, True)
    assert ud.flush()
    holding = hold_writes(monkeypatch)
    ud.set_bookmark(new, True)
    ud.attach(load([f]))  # moves the old abstract's bookmark onto the edited one
    ud.set_bookmark(new, False)
    assert not ud.is_bookmarked(new.id)
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()
    assert Store.open(data_dir).load().bookmarks.keys() == set()


def test_resolve_reports_the_move_and_refuses_an_unknown_abstract(
    tmp_path: Path, data_dir: Path
) -> None:
    f, old, new = edited_corpus(tmp_path)
    ud = open_userdata(data_dir)
    ud.save_note(old, "note")
    with pytest.raises(KeyError):
        ud.resolve(old.id, new.id)  # nothing attached yet: no abstract to choose
    ud.attach(load([f]))
    with pytest.raises(KeyError, match="no-such-id"):
        ud.resolve(new.id, "no-such-id")
    other = load([f]).abstracts[1]
    assert ud.resolve(new.id, other.id) == Reattachment(new.id, other.id, 0.0)
    assert ud.note(other.id) == "note"
    ud.close()


def test_a_note_deleted_before_it_was_ever_saved_leaves_saving_working(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = open_userdata(data_dir)
    holding = hold_writes(monkeypatch)
    ud.save_note(A, "typed and deleted again before any save")
    ud.delete_note(A.id)
    holding.clear()
    assert ud.flush(timeout=5)
    other = make_abstract(PARAGRAPHS[1])
    ud.save_note(other, "saved afterwards")
    assert ud.flush(timeout=5)
    ud.close()
    assert {i: n.text for i, n in Store.open(data_dir).load().notes.items()} == {
        other.id: "saved afterwards"
    }


def test_a_queued_delete_survives_a_refresh(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = open_userdata(data_dir)
    ud.save_note(A, "to be deleted")
    assert ud.flush()
    holding = hold_writes(monkeypatch)
    ud.delete_note(A.id)
    assert A.id not in ud.noted_ids() and ud.notes() == []
    ud.refresh()  # the database still has the note; the queued delete wins
    assert ud.note(A.id) is None and A.id not in ud.noted_ids()
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()
    assert Store.open(data_dir).load().notes == {}


def test_a_note_reattached_onto_another_note_is_kept_as_a_copy_and_reported(
    tmp_path: Path,
) -> None:
    """Both texts survive: the one already there stays the note, the moved one becomes a
    copy that says where it came from, and the writer is told (so the user is)."""
    from tui.store.operations import Reattach

    store = Store.open(tmp_path)
    store.save_note("old", "written on the old abstract")
    mine = store.save_note("new", "written on the new abstract")
    [result] = store.apply([Reattach("old", "new", None, 1_700_000_000.0)])
    assert result.conflict is not None
    copy = result.conflict
    assert (copy.abstract_id, copy.text, copy.origin) == (
        "new",
        "written on the old abstract",
        "re-attached from old",
    )
    assert result.version == mine.version
    data = store.load()
    assert data.notes["new"].text == "written on the new abstract" and "old" not in data.notes
    assert [(c.text, c.origin) for c in data.conflicts] == [(copy.text, copy.origin)]
    store.close()


def test_a_refresh_during_a_queued_reattachment_keeps_other_unsaved_changes(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a re-attachment waits to be saved, a note and a bookmark on another abstract
    wait too: a refresh (another window saved something) must not drop them."""
    f, old, new = edited_corpus(tmp_path)
    other = make_abstract(PARAGRAPHS[3])
    ud = open_userdata(data_dir)
    ud.save_note(old, "note")
    assert ud.flush()
    holding = hold_writes(monkeypatch)
    ud.attach(load([f]))
    ud.save_note(other, "not saved yet")
    ud.set_bookmark(other, True)
    ud.refresh()
    assert ud.note(other.id) == "not saved yet" and ud.is_bookmarked(other.id)
    assert ud.note(new.id) == "note"
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()
