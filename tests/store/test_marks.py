"""Bookmarks, read marks and UI state: on and off, kept through a refresh, and nothing
queued for a change that changes nothing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.store.helpers import PARAGRAPHS, hold_writes, make_abstract, open_userdata
from tui.store.db import Store
from tui.store.export import merge

A = make_abstract(PARAGRAPHS[0])


def test_bookmark_and_read_marks_turn_on_and_off(data_dir: Path) -> None:
    ud = open_userdata(data_dir)
    before = time.time()
    ud.set_bookmark(A, True)
    ud.set_read([A], True)
    snap = ud.snapshot(A.id)
    assert snap is not None and snap.text == A.text
    read_at = ud.read_at(A.id)
    assert read_at is not None and before <= read_at <= time.time()
    ud.set_read([A], True)  # marking again keeps when it was first read
    assert ud.read_at(A.id) == read_at
    assert ud.flush()
    ud.set_bookmark(A, False)
    ud.set_read([A], False)
    assert not ud.is_bookmarked(A.id) and A.id not in ud.bookmarked_ids()
    assert not ud.is_read(A.id) and ud.read_at(A.id) is None
    assert ud.flush()
    ud.close()
    data = Store.open(data_dir).load()
    assert data.bookmarks == {} and data.reads == {} and data.records[A.id].text == A.text


def test_queued_marks_and_state_survive_a_refresh(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = open_userdata(data_dir)
    holding = hold_writes(monkeypatch)
    ud.set_bookmark(A, True)
    ud.set_read([A], True)
    ud.set_state("resume", "row 3")
    ud.refresh()  # the database has none of them yet
    assert ud.is_bookmarked(A.id) and ud.is_read(A.id) and ud.get_state("resume") == "row 3"
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()
    data = Store.open(data_dir).load()
    assert set(data.bookmarks) == {A.id} and set(data.reads) == {A.id}
    assert data.state == {"resume": "row 3"}


def test_a_note_saved_again_after_its_deletion_is_no_conflict(data_dir: Path) -> None:
    ud = open_userdata(data_dir)
    ud.save_note(A, "first")
    assert ud.flush()
    ud.delete_note(A.id)
    assert ud.flush()
    ud.save_note(A, "second")
    assert ud.flush()
    assert ud.conflict_copies() == [] and ud.note(A.id) == "second"
    ud.close()


def test_a_note_without_a_snapshot_is_listed_without_a_headline(
    tmp_path: Path, data_dir: Path
) -> None:
    store = Store.open(data_dir)
    merge(store, {"notes": [{"id": "imported-id", "text": "a note from elsewhere"}]}, "import")
    store.close()
    ud = open_userdata(data_dir)
    [record] = ud.notes()
    assert (record.id, record.text, record.headline) == ("imported-id", "a note from elsewhere", "")
    ud.close()


def test_marking_unread_what_is_not_read_changes_nothing(data_dir: Path) -> None:
    """ "Mark unread" on a list where only some rows are read (undo of `A`, or `r` on a row
    read meanwhile elsewhere) unmarks those and leaves the rest alone."""
    b = make_abstract(PARAGRAPHS[1])
    ud = open_userdata(data_dir)
    ud.set_read([A], True)
    ud.set_read([A, b], False)
    assert not ud.is_read(A.id) and not ud.is_read(b.id)
    assert ud.flush()
    assert ud.read_ids() == set()
    ud.close()


def test_the_same_state_or_note_text_set_again_queues_nothing(data_dir: Path) -> None:
    ud = open_userdata(data_dir)
    ud.set_state("resume", "row 1")
    ud.save_note(A, "a note")
    assert ud.flush()
    ud.set_state("resume", "row 1")
    assert ud.pending_count == 0
    ud.save_note(A, "a note")  # the editor closed without a change
    assert ud.pending_count == 0
    ud.close()
