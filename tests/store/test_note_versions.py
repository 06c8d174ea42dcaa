"""Note versions: two windows typing the same text stay in step, and a clock that stands
still or a note deleted and written again never lets a text be overwritten unseen."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.helpers import PARAGRAPHS, make_abstract, open_userdata, window_two_saves_unseen
from tui.store.db import Store
from tui.store.records import (
    ConflictDetected,
)
from tui.store.userdata import UserData

A = make_abstract(PARAGRAPHS[0])


def test_two_windows_typing_the_same_text_keep_no_copy_and_stay_in_step(data_dir: Path) -> None:
    """Window one saves the very text window two saved meanwhile: nothing to keep beside
    it, and window one now knows the note's version, so its next edit is no conflict."""
    one, two, events = window_two_saves_unseen(data_dir, A, "the same words")
    one.save_note(A, "the same words")  # window one never saw window two's save
    assert one.flush()
    assert one.conflict_copies() == []
    one.save_note(A, "window one goes on")
    assert one.flush()
    assert one.conflict_copies() == [] and one.note(A.id) == "window one goes on"
    assert not any(isinstance(e, ConflictDetected) for e in events)
    one.close()
    two.close()


def _stand_the_clock_still(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every note version the store makes reads the same clock value."""
    from tui.store import db

    monkeypatch.setattr(db.time, "time_ns", lambda: 1_000_000_000_000_000)


def _two_writes_a_new_note_then_one_its_own(one: UserData, two: UserData) -> None:
    """Window two writes a new note; window one, not having looked again, writes its own:
    window two's note is kept beside window one's as a copy."""
    two.save_note(A, "window two's new note")
    assert two.flush()
    two.close()
    one.save_note(A, "window one's text")
    assert one.flush()
    assert [c.text for c in one.conflict_copies()] == ["window two's new note"]
    one.close()


def test_a_clock_that_stands_still_never_gives_two_texts_one_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A coarse clock, or one stepped back: a note's new version is still above every
    version it replaces, so the window holding the replaced one is told of the conflict
    instead of overwriting the newer text."""
    _stand_the_clock_still(monkeypatch)
    store = Store.open(tmp_path)
    first = store.save_note("a", "first").version
    two = store.save_note("a", "window two's text", first).version
    one = store.save_note("a", "window one's text", first)  # based on `first`: a conflict
    assert one.conflict is not None and one.version != two
    later = store.save_note("a", "window two again", two)  # two never saw one's text
    assert later.conflict is not None and later.conflict.text == "window one's text"
    store.close()


def test_a_note_written_elsewhere_after_a_delete_is_never_overwritten_unseen(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Window one deletes its note; window two then writes a new one; window one, not
    having looked again, writes its own: window two's note is kept as a copy, even on a
    clock that stands still (the new note's version can be the deleted one's)."""
    _stand_the_clock_still(monkeypatch)
    one = open_userdata(data_dir)
    one.save_note(A, "first")
    assert one.flush()
    one.delete_note(A.id)
    assert one.flush()
    two = open_userdata(data_dir)
    _two_writes_a_new_note_then_one_its_own(one, two)


def test_a_note_deleted_elsewhere_then_written_again_is_never_overwritten_unseen(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Window one sees (on a refresh) that window two deleted its note; window two then
    writes a new one; window one, not having looked again, writes its own: window two's
    note is kept as a copy, even on a clock that stands still."""
    _stand_the_clock_still(monkeypatch)
    one, two = open_userdata(data_dir), open_userdata(data_dir)
    one.save_note(A, "first")
    assert one.flush() and two.refresh()
    two.delete_note(A.id)
    assert two.flush() and one.refresh() and one.note(A.id) is None
    _two_writes_a_new_note_then_one_its_own(one, two)
