"""The database file deleted, moved or replaced while the app runs: the store notices at
the next commit or refresh, makes the file again from memory or writes a rescue file,
and says which; a refresh that cannot read is never taken for "nothing changed"."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path

import pytest

from tests.store.helpers import make_abstract
from tui.locations import database_path
from tui.store.db import Store
from tui.store.operations import Reattach, SaveNote
from tui.store.records import Notice, StoreEvent
from tui.store.userdata import UserData

A, B, C = (make_abstract(f"Abstract {n} about graphs.") for n in "ABC")


def _opened(data_dir: Path) -> tuple[UserData, list[StoreEvent]]:
    store = Store.open(data_dir)
    store.save_note(C.id, "theirs")
    # Based on no version while one is stored: "theirs" is kept as a conflict copy.
    store.apply([SaveNote(C.id, "ours", None, 0, 1.0), Reattach("gone", C.id, None, 1.0)])
    store.close()
    data = UserData.open(data_dir)
    events: list[StoreEvent] = []
    data.listener = events.append
    data.set_bookmark(A, True)
    data.save_note(A, "a note written before")
    data.set_tags(on=[(A.id, "kept")])
    data.set_read([A], True)
    data.set_dismissed(C, True)
    data.save_search("graphs", "graph", "relevance")
    data.set_state("resume", "A")
    assert data.flush(timeout=10)
    return data, events


def _stored(data_dir: Path) -> tuple[set[str], dict[str, str], dict[str, set[str]]]:
    store = Store.open(data_dir)
    loaded = store.load()
    store.close()
    notes = {i: n.text for i, n in loaded.notes.items()}
    return set(loaded.bookmarks), notes, {i: set(t) for i, t in loaded.tags.items()}


def _rest(data_dir: Path) -> tuple[set[str], set[str], list[str], dict[str, str], set[str]]:
    """Read marks, dismissals, saved searches, state and records as stored."""
    store = Store.open(data_dir)
    loaded = store.load()
    store.close()
    searches = [s.query for s in loaded.searches.values()]
    records = set(loaded.records)
    assert [(c.abstract_id, c.text) for c in loaded.conflicts] == [(C.id, "theirs")]
    assert loaded.aliases == {"gone": C.id}
    return set(loaded.reads), set(loaded.dismissals), searches, loaded.state, records


def _notices(events: list[StoreEvent]) -> list[str]:
    return [e.message for e in events if isinstance(e, Notice)]


@pytest.mark.parametrize(
    ("lose", "said"),
    [
        (lambda db, tmp: os.unlink(db), "was deleted"),
        (lambda db, tmp: os.rename(db, tmp / "elsewhere.db"), "was moved away"),
    ],
    ids=["deleted", "moved"],
)
def test_a_database_gone_from_its_path_is_made_again_from_memory(
    data_dir: Path, tmp_path: Path, lose: object, said: str
) -> None:
    data, events = _opened(data_dir)
    lose(database_path(data_dir), tmp_path)  # type: ignore[operator]
    data.set_bookmark(B, True)  # the next commit notices
    assert data.flush(timeout=10)
    data.close()
    assert _stored(data_dir) == (
        {A.id, B.id},
        {A.id: "a note written before", C.id: "ours"},
        {A.id: {"kept"}},
    )
    assert _rest(data_dir) == ({A.id}, {C.id}, ["graph"], {"resume": "A"}, {A.id, B.id, C.id})
    assert _notices(events) == [
        f"abstracts.db {said} while the app was running. It was made again from what the "
        "app holds: 2 bookmarks, 2 notes, 1 read mark, 1 tag, 1 dismissal and 1 saved search."
    ]


def test_a_database_replaced_is_kept_and_what_memory_held_goes_to_a_rescue_file(
    data_dir: Path, tmp_path: Path
) -> None:
    data, events = _opened(data_dir)
    other = tmp_path / "other"
    store = Store.open(other)
    store.apply([])
    store.close()
    other_data = UserData.open(other)
    other_data.set_bookmark(C, True)
    other_data.close()
    os.replace(database_path(other), database_path(data_dir))
    data.set_bookmark(B, True)
    assert data.flush(timeout=10)
    data.close()
    # The file put in its place is not overwritten: it gets the change made after.
    assert _stored(data_dir)[0] == {B.id, C.id}
    rescue = data.lost_file_rescue
    assert rescue is not None and rescue.parent == data_dir
    held = json.loads(rescue.read_text(encoding="utf-8"))
    assert {b["id"] for b in held["bookmarks"]} == {A.id, B.id}
    assert sorted(n["text"] for n in held["notes"]) == ["a note written before", "ours"]
    # Times memory keeps are kept; those it does not (a tag's) are when it was written.
    assert {n["text"]: n["updated"] for n in held["notes"]}["ours"] == 1.0
    assert [type(t["created"]) for t in held["tags"]] == [float]
    assert [c["text"] for c in held["conflict_copies"]] == ["theirs"]
    assert held["aliases"] == [{"old_id": "gone", "new_id": C.id}]
    assert [s["name"] for s in held["saved_searches"]] == ["graphs"]
    assert _notices(events) == [
        "abstracts.db was replaced by another file while the app was running. Changes from "
        f"now on are saved to the new file; what it held before (2 bookmarks, 2 notes, "
        f"1 read mark, 1 tag, 1 dismissal and 1 saved search) is in {rescue}; `abstracts import {rescue}` merges it."
    ]


def test_a_refresh_notices_a_deleted_database_and_makes_it_again(data_dir: Path) -> None:
    data, events = _opened(data_dir)
    os.unlink(database_path(data_dir))
    assert data.refresh() is True  # the file was made again: not "up to date"
    assert data.refresh_problem == ""
    assert _stored(data_dir)[0] == {A.id}
    data.close()
    assert len(_notices(events)) == 1


def test_a_refresh_that_cannot_read_says_why(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, _ = _opened(data_dir)

    def broken(store: Store) -> object:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(Store, "load", broken)
    assert data.refresh() is False
    assert data.refresh_problem == (
        "Could not read your data (disk I/O error); what is shown may be old."
    )
    monkeypatch.undo()
    assert data.refresh() is False and data.refresh_problem == ""
    data.close()


def test_an_unchanged_file_is_not_taken_for_a_lost_one(data_dir: Path) -> None:
    store = Store.open(data_dir)
    assert store.file_change() is None
    os.link(database_path(data_dir), data_dir / "hard-link.db")
    assert store.file_change() is None  # another name for it changes nothing
    os.unlink(database_path(data_dir))
    assert store.file_change() == "moved"
    os.unlink(data_dir / "hard-link.db")
    assert store.file_change() == "deleted"
    (database_path(data_dir)).write_bytes(b"")
    assert store.file_change() == "replaced"
    store.close()
    read_only = Store.open(data_dir, read_only=True)
    os.unlink(database_path(data_dir))
    assert read_only.file_change() is None  # a store that never writes has nothing to lose
    read_only.close()


def test_a_refresh_that_takes_too_long_says_so(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, _ = _opened(data_dir)
    release = threading.Event()
    real_load = Store.load

    def slow(store: Store) -> object:
        release.wait(10)
        return real_load(store)

    monkeypatch.setattr(Store, "load", slow)
    assert data.refresh(timeout=0.05) is False
    assert data.refresh_problem == "Reading your data took more than 0.05 s."
    release.set()
    data.close()


def test_what_was_kept_is_counted_in_words() -> None:
    from tui.store.lostfile import summary
    from tui.store.records import SavedSearch, StoreData

    search = SavedSearch("s", "q", "relevance", 1.0, 1.0)
    assert summary(StoreData()) == "nothing"
    assert summary(StoreData(reads={"a": 1.0})) == "1 read mark"
    two = StoreData(dismissals={"a": 1.0, "b": 1.0}, searches={"s": search, "t": search})
    assert summary(two) == "2 dismissals and 2 saved searches"


def test_a_database_deleted_with_nothing_left_to_save_is_made_again_at_close(
    data_dir: Path,
) -> None:
    data, events = _opened(data_dir)
    os.unlink(database_path(data_dir))
    assert data.close() is None
    assert _stored(data_dir)[0] == {A.id}
    assert "was deleted" in _notices(events)[0]


def test_a_replaced_database_with_nowhere_for_a_rescue_file_says_so(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tui.store.rescue

    data, events = _opened(data_dir)
    nowhere, gone = tmp_path / "missing", tmp_path / "gone"
    monkeypatch.setattr(tui.store.rescue, "rescue_dirs", lambda directory: [nowhere, gone])
    os.unlink(database_path(data_dir))
    Store.open(data_dir).close()  # another file at the path
    data.set_bookmark(B, True)
    assert data.flush(timeout=10)
    data.close()
    (notice,) = _notices(events)
    assert notice.endswith(
        "Changes from now on are saved to the new file; what it held before could not be "
        f"written anywhere ({nowhere}: No such file or directory; "
        f"{gone}: No such file or directory)."
    )
    assert data.lost_file_rescue is None


def test_a_refresh_opens_a_store_that_could_not_be_opened_or_says_why(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.store.db import StoreUnavailable

    def refused(directory: Path, *, read_only: bool = False) -> Store:
        raise StoreUnavailable("the disk is away")

    real_open = Store.open
    monkeypatch.setattr(Store, "open", refused)
    data = UserData.open(data_dir)
    assert data.refresh() is False
    assert data.refresh_problem == (
        "Could not read your data (the disk is away); what is shown may be old."
    )
    monkeypatch.setattr(Store, "open", real_open)
    data.refresh()
    assert data.refresh_problem == ""
    data.set_bookmark(A, True)
    data.close()
    assert _stored(data_dir)[0] == {A.id}
