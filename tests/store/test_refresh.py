"""Refreshing from the database: what another window saved shows, changes still queued here
are kept, and a refresh that cannot read says so without reporting a change."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.store.helpers import (
    PARAGRAPHS,
    edited_corpus,
    hold_writes,
    load,
    make_abstract,
    open_userdata,
)
from tui.store.db import Store
from tui.store.records import (
    StoreData,
)

A = make_abstract(PARAGRAPHS[0])


def test_refresh_says_whether_anything_changed(data_dir: Path) -> None:
    one, two = open_userdata(data_dir), open_userdata(data_dir)
    assert one.refresh() is False
    two.save_note(A, "from window two")
    assert two.flush()
    assert one.refresh() is True and one.note(A.id) == "from window two"
    assert one.refresh() is False
    one.close()
    two.close()


def test_a_queued_reattachment_survives_a_refresh(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f, old, new = edited_corpus(tmp_path)
    ud = open_userdata(data_dir)
    ud.save_note(old, "note")
    ud.set_bookmark(old, True)
    ud.set_read([old], True)
    ud.set_tags(on=[(old.id, "to-cite")])
    ud.set_dismissed(old, True)
    assert ud.flush()
    holding = hold_writes(monkeypatch)
    ud.attach(load([f]))
    ud.refresh()  # the database still has everything under the old id
    assert ud.note(new.id) == "note" and ud.is_bookmarked(new.id) and ud.is_read(new.id)
    assert ud.note(old.id) is None and not ud.is_bookmarked(old.id) and not ud.is_read(old.id)
    assert ud.tags_of(new.id) == {"to-cite"} and ud.tags_of(old.id) == frozenset()
    assert ud.is_dismissed(new.id) and not ud.is_dismissed(old.id)
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()


def test_a_store_that_cannot_open_never_reports_a_change(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    ud = open_userdata(blocker / "data")  # nothing can be created here: the store is unavailable
    assert ud.refresh() is False
    ud.close(timeout=0.2)


def test_a_refresh_that_cannot_read_the_database_reports_no_change(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = open_userdata(data_dir)
    ud.set_bookmark(A, True)
    assert ud.flush()

    def unreadable(self: Store) -> StoreData:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(Store, "load", unreadable)
    assert ud.refresh() is False and ud.is_bookmarked(A.id)  # what was shown stays
    ud.close()


def test_saved_searches_changed_while_saving_fails_survive_a_refresh(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the database is locked, a search saved and a search deleted stay as the
    user left them through a refresh (which reads the database's older view)."""
    ud = open_userdata(data_dir)
    ud.save_search("old", "dropout", "relevance")
    assert ud.flush()
    holding = hold_writes(monkeypatch)
    ud.save_search("new", "attention", "relevance")
    assert ud.delete_search("old")
    ud.refresh()
    assert [s.name for s in ud.saved_searches()] == ["new"]
    holding.clear()
    assert ud.flush(timeout=5)
    assert [s.name for s in ud.saved_searches()] == ["new"]
    ud.close()


def test_another_windows_tag_shows_while_a_bookmark_here_waits_to_be_saved(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = open_userdata(data_dir), open_userdata(data_dir)
    two.set_tags(on=[(A.id, "to-read")])
    assert two.flush()
    two.close()
    holding = hold_writes(monkeypatch)
    one.set_bookmark(A, True)  # queued: the database is locked
    one.refresh()
    assert one.tags_of(A.id) == {"to-read"} and one.is_bookmarked(A.id)
    holding.clear()
    assert one.flush(timeout=5)
    one.close()


def test_a_rename_and_a_bookmark_waiting_to_be_saved_survive_a_refresh(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = open_userdata(data_dir)
    ud.save_search("a", "dropout", "relevance")
    assert ud.flush()
    holding = hold_writes(monkeypatch)
    ud.set_bookmark(A, True)
    ud.rename_search("a", "b")
    ud.refresh()  # the database still has "a" and no bookmark
    assert [s.name for s in ud.saved_searches()] == ["b"] and ud.is_bookmarked(A.id)
    holding.clear()
    assert ud.flush(timeout=5)
    assert [s.name for s in ud.saved_searches()] == ["b"] and ud.is_bookmarked(A.id)
    ud.close()
