"""Quitting never loses text: changes that cannot be committed go to an importable rescue file."""

from __future__ import annotations

import errno
import json
import os
import re
import shlex
import sqlite3
import stat
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.store.helpers import PARAGRAPHS, make_abstract
from tui.commands.export import main_import
from tui.store import rescue
from tui.store.db import Store
from tui.store.export import merge, parse_export, snapshot_fields, to_json
from tui.store.operations import SetBookmark
from tui.store.records import Notice, Snapshot, StoreData, StoreEvent
from tui.store.schema import SCHEMA_VERSION
from tui.store.sql import add_conflict_copy
from tui.store.userdata import UserData

A = make_abstract(PARAGRAPHS[0])


A, B, C = (make_abstract(p, position=i) for i, p in enumerate(PARAGRAPHS[:3], start=1))


@pytest.fixture
def fault(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """While set, every commit fails as a locked database does."""
    failing = threading.Event()
    failing.set()
    real_apply = Store.apply

    def apply(self: Store, ops: list[object]) -> object:
        if failing.is_set():
            raise sqlite3.OperationalError("database is locked")
        return real_apply(self, ops)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "apply", apply)
    return failing


def _open(d: Path) -> tuple[UserData, list[StoreEvent]]:
    ud = UserData.open(d, retry_initial=0.02, retry_max=0.1)
    events: list[StoreEvent] = []
    ud.listener = events.append
    return ud, events


def test_close_writes_importable_rescue_file(
    data_dir: Path, tmp_path: Path, fault: threading.Event
) -> None:
    ud, events = _open(data_dir)
    ud.set_bookmark(A, True)
    ud.save_note(A, "precious text\nwith two lines")
    ud.save_note(B, "a note on B")
    ud.set_read([B], True)
    ud.set_state("resume:x", "{}")
    ud.set_bookmark(C, True)
    ud.set_bookmark(C, False)  # a removal: listed, not importable
    path = ud.close(timeout=0.5)
    assert path is not None and path == ud.rescue_path
    assert path.parent == data_dir and path.name.startswith("abstracts-unsaved-")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any(str(path) in m and "abstracts import" in m for m in notices)
    assert ud.note(A.id) == "precious text\nwith two lines"  # still readable after close
    doc = parse_export(path.read_text(encoding="utf-8"))
    assert {n["id"]: n["text"] for n in doc["notes"]} == {
        A.id: "precious text\nwith two lines",
        B.id: "a note on B",
    }
    assert doc["unsaved_removals"] == [{"kind": "bookmark", "id": C.id}]
    assert "locked" in doc["rescue"]
    fault.clear()
    # The same file imports into another data directory, and into the original one.
    for target in (tmp_path / "elsewhere", data_dir):
        assert main_import([str(path), "--data-dir", str(target)]) == 0
        data = Store.open(target).load()
        assert {i: n.text for i, n in data.notes.items()} == {
            A.id: "precious text\nwith two lines",
            B.id: "a note on B",
        }
        assert set(data.bookmarks) == {A.id} and set(data.reads) == {B.id}
        assert data.records[A.id].text == A.text and data.state == {"resume:x": "{}"}
        assert data.conflicts == []


@pytest.mark.parametrize("changed_elsewhere", [False, True])
def test_rescued_note_edit_replaces_only_an_unchanged_note(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, changed_elsewhere: bool
) -> None:
    ud, _ = _open(data_dir)
    ud.save_note(A, "version one")
    assert ud.flush()
    failing = threading.Event()
    failing.set()
    real_apply = Store.apply

    def apply(self: Store, ops: list[object]) -> object:
        if failing.is_set():
            raise sqlite3.OperationalError("disk I/O error")
        return real_apply(self, ops)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "apply", apply)
    ud.save_note(A, "version two, never committed")
    path = ud.close(timeout=0.3)
    assert path is not None
    failing.clear()
    store = Store.open(data_dir)
    if changed_elsewhere:
        base = store.load().notes[A.id].version
        store.save_note(A.id, "changed by another machine", base)
    store.close()
    assert main_import([str(path)]) == 0
    assert main_import([str(path)]) == 0  # idempotent
    data = Store.open(data_dir).load()
    if changed_elsewhere:
        assert data.notes[A.id].text == "changed by another machine"
        assert [c.text for c in data.conflicts] == ["version two, never committed"]
    else:
        assert data.notes[A.id].text == "version two, never committed"
        assert data.conflicts == []


def test_rescue_falls_back_to_temp_then_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    data = blocker / "data"  # nothing can be created here: the store is unavailable
    temp, home = tmp_path / "tmp", tmp_path / "home"
    temp.mkdir()
    home.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("HOME", str(home))

    ud, _ = _open(data)
    ud.save_note(A, "kept in the temp dir")
    first = ud.close(timeout=0.2)
    assert first is not None and first.parent == temp

    monkeypatch.setattr(tempfile, "tempdir", str(blocker / "tmp"))
    ud, _ = _open(data)
    ud.save_note(A, "kept in the home dir")
    second = ud.close(timeout=0.2)
    assert second is not None and second.parent == home
    assert json.loads(second.read_text())["notes"][0]["text"] == "kept in the home dir"

    monkeypatch.setenv("HOME", str(blocker / "home"))
    ud, events = _open(data)
    ud.save_note(A, "nowhere to write")
    assert ud.close(timeout=0.2) is None and ud.rescue_path is None
    told = [e.message for e in events if isinstance(e, Notice) and "still in memory" in e.message]
    # Each place tried, with why it failed: the data directory, the temp and the home one.
    assert len(told) == 1 and told[0].startswith(
        "Unsaved changes could not be saved, nor written to a rescue file ("
    )
    tried = told[0][told[0].index("(") + 1 : told[0].rindex(")")].split("; ")
    assert [t.split(": ")[0] for t in tried] == [
        str(data),
        str(blocker / "tmp"),
        str(blocker / "home"),
    ]
    # In the system's words, without the error number and file name repeated.
    assert {t.split(": ", 1)[1] for t in tried} == {os.strerror(errno.ENOTDIR)}
    assert ud.note(A.id) == "nowhere to write"
    text = ud.rescue_text()  # the UI can still print it as a last resort
    assert text is not None and "nowhere to write" in text


def test_flush_with_rescue_rewrites_one_file(
    data_dir: Path, fault: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    seconds = iter(range(1000))  # each rescue written a second later than the last
    monkeypatch.setattr(rescue.time, "strftime", lambda fmt: f"20261201-{next(seconds):06d}")
    ud, events = _open(data_dir)
    ud.save_note(A, "draft one")
    assert not ud.flush(timeout=0.2)
    assert ud.rescue_path is None  # a plain flush only waits
    assert not ud.flush(timeout=0.2, rescue=True)
    first = ud.rescue_path
    assert first is not None
    told = [e.message for e in events if isinstance(e, Notice)]
    assert told == [
        f"Unsaved changes were written to {first}; import them with "
        f"`abstracts import {shlex.quote(str(first))}`."
    ]
    ud.save_note(A, "draft two")
    assert not ud.flush(timeout=0.2, rescue=True)
    assert ud.rescue_path == first
    assert "draft two" in first.read_text()
    assert len(list(data_dir.glob("abstracts-unsaved-*.json"))) == 1
    fault.clear()
    assert ud.flush(timeout=5)
    assert ud.close() is None  # everything saved: no new rescue file
    assert Store.open(data_dir).load().notes[A.id].text == "draft two"


def test_clean_close_writes_nothing(data_dir: Path) -> None:
    ud, _ = _open(data_dir)
    ud.save_note(A, "saved normally")
    assert ud.close() is None and ud.rescue_path is None
    assert list(data_dir.glob("abstracts-unsaved-*")) == []


def test_a_rescue_taken_while_a_write_hangs_says_so_and_keeps_the_records(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that never returns (no error to show): the rescue file says saving did
    not finish, and a tag put on a bookmarked abstract carries that abstract's record."""
    ud, _ = _open(data_dir)
    ud.set_bookmark(A, True)
    assert ud.flush()
    entered, release = threading.Event(), threading.Event()
    real_apply = Store.apply

    def hanging(self: Store, ops: list[object]) -> object:
        entered.set()
        release.wait()
        return real_apply(self, ops)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "apply", hanging)
    ud.set_tags(on=[(A.id, "to-cite")])
    assert entered.wait(5)
    text = ud.rescue_text()
    assert text is not None
    doc = json.loads(text)
    assert doc["rescue"] == "saving did not finish"
    assert doc["tags"][0]["id"] == A.id and [r["id"] for r in doc["records"]] == [A.id]
    release.set()
    assert ud.flush(timeout=5)
    ud.close()


def test_a_rescue_file_gives_back_each_field_it_holds(
    data_dir: Path,
    tmp_path: Path,
    fault: threading.Event,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Field by field: a note edit with the version it was made over and when it was
    written; a saved search with its order and when it was saved; the record of the
    abstract noted; and a dismissed conflict copy, listed by its id as a removal the
    import cannot make. Imported elsewhere, the times and the order come back as they were."""
    now = [1000.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    fault.clear()
    ud, _ = _open(data_dir)
    ud.save_note(A, "first words")
    assert ud.flush()
    store = Store.open(data_dir)
    with store.transaction() as conn:
        copy = add_conflict_copy(conn, A.id, "words from elsewhere", 500.0, "another machine")
    version = store.load().notes[A.id].version
    store.close()
    assert ud.refresh() and [c.copy_id for c in ud.conflict_copies()] == [copy.copy_id]
    fault.set()
    now[0] = 2000.0
    ud.save_note(A, "second words, never committed")
    now[0] = 3000.0
    ud.save_search("weekly", "graph year:2023", "file")
    assert ud.dismiss_conflict(copy.copy_id)
    path = ud.close(timeout=0.3)
    assert path is not None
    doc = parse_export(path.read_text(encoding="utf-8"))
    # The sections of a JSON export (but conflict copies), and only two more: why the
    # file was written and the removals it cannot carry.
    export_sections = set(json.loads(to_json(StoreData()))) - {"conflict_copies"}
    assert set(doc) == export_sections | {"rescue", "unsaved_removals"}
    assert doc["notes"] == [
        {
            "id": A.id,
            "text": "second words, never committed",
            "version": version,
            "base_version": version,
            "updated": 2000.0,
        }
    ]
    assert doc["saved_searches"] == [
        {"name": "weekly", "query": "graph year:2023", "sort": "file", "updated": 3000.0}
    ]
    assert doc["records"] == [{"id": A.id, **snapshot_fields(Snapshot.of(A))}]
    assert doc["unsaved_removals"] == [{"kind": "conflict_copy", "copy_id": copy.copy_id}]

    fault.clear()
    now[0] = 9000.0  # the import, much later
    elsewhere = tmp_path / "elsewhere"
    assert main_import([str(path), "--data-dir", str(elsewhere)]) == 0
    capsys.readouterr()
    data = Store.open(elsewhere).load()
    assert [(i, n.text, n.updated) for i, n in data.notes.items()] == [
        (A.id, "second words, never committed", 2000.0)
    ]
    assert [(s.name, s.query, s.sort, s.updated) for s in data.searches.values()] == [
        ("weekly", "graph year:2023", "file", 3000.0)
    ]
    assert data.records == {A.id: Snapshot.of(A)}


def test_a_search_saved_then_renamed_while_saving_fails_is_rescued_once(
    data_dir: Path, fault: threading.Event
) -> None:
    """The save is folded into the rename: the rescue file holds the search under its
    new name only (imported, it would otherwise come back twice)."""
    ud, _ = _open(data_dir)
    ud.save_search("draft", "graph", "file")
    ud.rename_search("draft", "weekly")
    path = ud.close(timeout=0.3)
    assert path is not None
    doc = parse_export(path.read_text(encoding="utf-8"))
    assert [(s["name"], s["query"], s["sort"]) for s in doc["saved_searches"]] == [
        ("weekly", "graph", "file")
    ]


def test_a_rescue_file_is_named_for_when_and_by_which_process_it_was_written(
    data_dir: Path, fault: threading.Event
) -> None:
    ud, _ = _open(data_dir)
    ud.save_note(A, "kept")
    before = time.strftime("%Y%m%d-%H%M%S")
    path = ud.close(timeout=0.3)
    after = time.strftime("%Y%m%d-%H%M%S")
    assert path is not None
    found = re.fullmatch(rf"abstracts-unsaved-(\d{{8}}-\d{{6}})-{os.getpid()}\.json", path.name)
    assert found is not None and before <= found[1] <= after


def test_a_rescue_file_reads_as_written(data_dir: Path, fault: threading.Event) -> None:
    """The file (and the text the UI prints as a last resort) shows a note's characters
    as typed, not as JSON escapes, one value per line indented one space, as an export."""
    ud, _ = _open(data_dir)
    ud.save_note(A, "café, naïve, 数据")
    text = ud.rescue_text()
    ud.close(timeout=0.3)
    assert text is not None
    assert text.startswith('{\n "format": "abstracts-export",\n "version": ')
    assert '   "text": "café, naïve, 数据",' in text.splitlines()


def test_a_rescue_file_is_safe_to_print_and_gives_back_every_character(
    data_dir: Path, tmp_path: Path, fault: threading.Event
) -> None:
    """A note holding what a terminal obeys (an 8-bit CSI, a right-to-left override, DEL)
    is written escaped, as an export is, so `cat` on the file changes nothing on screen;
    importing the file gives back the note exactly as typed."""
    typed = "red \x9b31m here \u202egnp.exe\x7f end"
    ud, _ = _open(data_dir)
    ud.save_note(A, typed)
    path = ud.close(timeout=0.3)
    assert path is not None
    raw = path.read_text(encoding="utf-8")
    assert not {"\x9b", "\u202e", "\x7f"} & set(raw)
    assert "\\u009b" in raw and "\\u202e" in raw
    fault.clear()
    other = tmp_path / "other"
    assert main_import([str(path), "--data-dir", str(other)]) == 0
    assert Store.open(other).load().notes[A.id].text == typed


def test_a_missing_home_directory_leaves_the_other_places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no home directory (no HOME, no password entry), a rescue file still goes to
    the data directory or the temp directory."""

    def no_home(cls: type[Path]) -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", classmethod(no_home))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    assert rescue.rescue_dirs(tmp_path / "data") == [tmp_path / "data", tmp_path / "tmp"]


def test_a_rescue_file_holds_every_kind_of_unsaved_change(tmp_path: Path) -> None:
    from tui.store.operations import DeleteNote, Reattach, SaveNote, SetReads
    from tui.store.rescue import rescue_document

    def snap(text: str) -> Snapshot:
        return Snapshot(text, text, "/d/a.txt", 1, "ICLR 2023 Papers", "ICLR", 2023)

    ops = [
        SetBookmark("a", True, None, 1.0),  # its snapshot comes from what the app knows
        SetReads(("b",), False, 2.0),
        SaveNote("c", "unsaved note", snap("Abstract c."), 4, 3.0),
        DeleteNote("d", 1),
        Reattach("old", "e", snap("Abstract e."), 5.0),
    ]
    before = time.time()
    doc = rescue_document(ops, {"a": snap("Abstract a.")}, lambda _: 4, "the disk is full")
    assert doc["schema"] == SCHEMA_VERSION and before <= doc["exported"] <= time.time()
    assert [(r["id"], r["text"]) for r in doc["records"]] == [
        ("a", "Abstract a."),
        ("c", "Abstract c."),
        ("e", "Abstract e."),
    ]
    assert doc["unsaved_removals"] == [{"kind": "read", "id": "b"}, {"kind": "note", "id": "d"}]
    assert doc["aliases"] == [{"old_id": "old", "new_id": "e"}]
    # `abstracts import` takes it back.
    store = Store.open(tmp_path)
    report = merge(store, parse_export(json.dumps(doc)), "rescue")
    assert (report.notes, report.bookmarks, report.records) == (1, 1, 3)
    data = store.load()
    assert data.notes["c"].text == "unsaved note" and data.aliases == {"old": "e"}
    store.close()


def test_a_rescued_edit_of_an_unchanged_note_counts_as_one_note(tmp_path: Path) -> None:
    from tui.store.operations import SaveNote
    from tui.store.rescue import rescue_document

    store = Store.open(tmp_path)
    stored = store.save_note("c", "the text the edit started from")
    ops = [SaveNote("c", "the edit that could not be saved", None, stored.version, 3.0)]
    doc = rescue_document(ops, {}, lambda _: stored.version, "the disk was full")
    report = merge(store, parse_export(json.dumps(doc)), "rescue")
    assert (report.notes, report.copies) == (1, 0)
    assert store.load().notes["c"].text == "the edit that could not be saved"
    store.close()


def test_rescued_edits_of_stored_notes_count_as_notes_added(tmp_path: Path) -> None:
    """A rescue file's edits of notes stored here replace them, and the report counts
    each one."""
    store = Store.open(tmp_path)
    versions = {i: store.save_note(i, "before").version for i in ("n1", "n2")}
    notes = [
        {"id": i, "text": f"rescued {i}", "updated": 1.0, "base_version": v}
        for i, v in versions.items()
    ]
    report = merge(store, {"format": "abstracts-export", "version": 1, "notes": notes}, "rescue")
    assert (report.notes, report.copies) == (2, 0)
    assert {i: n.text for i, n in store.load().notes.items()} == {
        "n1": "rescued n1",
        "n2": "rescued n2",
    }
    store.close()
