"""The database layer: round trips, migration, newer schema, damaged files, disk full."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from tests.store.helpers import sqlite_file
from tui.store import schema
from tui.store.db import Store, StoreUnavailable
from tui.store.operations import DeleteNote, Reattach, SaveNote, SetBookmark, SetReads, SetState
from tui.store.records import Snapshot

SNAP = Snapshot("Some text. More.", "Some text.", "/c/f.txt", 3, "ICLR 2023 Papers", "ICLR", 2023)


def test_new_store_permissions_and_pragmas(tmp_path: Path) -> None:
    d = tmp_path / "new" / "data"
    store = Store.open(d)
    assert stat.S_IMODE(os.stat(d).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(d / "abstracts.db").st_mode) == 0o600
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    store.close()


def test_round_trip_every_record_kind(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.apply(
        [
            SetBookmark("a", True, SNAP, 1.0),
            SetReads(("a",), True, 2.0),
            SetReads(("b",), True, 3.0),
            SaveNote("a", "my *note*\n", SNAP, 0, 4.0),
            SetState("resume:xyz", '{"selected": "a"}', 5.0),
        ]
    )
    store.close()
    data = Store.open(tmp_path).load()
    assert data.bookmarks == {"a": 1.0}
    assert data.reads == {"a": 2.0, "b": 3.0}
    assert data.notes["a"].text == "my *note*\n"
    assert data.records["a"] == SNAP
    assert data.state == {"resume:xyz": '{"selected": "a"}'}


def test_unbookmark_unread_delete(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    ops = [SetBookmark("a", True, SNAP, 1.0), SaveNote("a", "x", SNAP, 0, 1.0)]
    v = store.apply(ops)[1].version
    store.apply(
        [SetBookmark("a", False, None, 2.0), SetReads(("a",), False, 2.0), DeleteNote("a", v)]
    )
    data = store.load()
    assert data.bookmarks == {} and data.notes == {} and data.conflicts == []
    assert data.records["a"] == SNAP  # the snapshot stays


def test_version_mismatch_keeps_both(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    v1 = store.save_note("a", "first").version
    store.save_note("a", "second, from instance B", v1)
    result = store.save_note("a", "third, from instance A", v1)  # A still based on v1
    assert result.conflict is not None
    data = store.load()
    assert data.notes["a"].text == "third, from instance A"
    assert [c.text for c in data.conflicts] == ["second, from instance B"]


def test_reattach_moves_and_keeps_old_id(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.apply([SetBookmark("old", True, SNAP, 1.0), SaveNote("old", "n", SNAP, 0, 1.0)])
    store.apply([SaveNote("new", "other", SNAP, 0, 1.0)])
    store.apply([Reattach("old", "new", SNAP, 2.0)])
    data = store.load()
    assert "new" in data.bookmarks and "old" not in data.bookmarks
    assert data.notes["new"].text == "other" and "old" not in data.notes
    assert [c.text for c in data.conflicts] == ["n"]
    assert data.aliases == {"old": "new"}
    assert "old" in data.records  # the old snapshot is never thrown away


def _v1_fixture(path: Path) -> None:
    conn = sqlite3.connect(path)
    for statement in schema.V1_TABLES:
        conn.execute(statement)
    conn.execute("INSERT INTO bookmarks VALUES ('b1', 'Text B1.', 'Head B1', 'b.txt', 10.0)")
    conn.executemany(
        "INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?)",
        [
            ("n1", "note one", "Text N1.", "Head N1", "n.txt", 20.0),
            ("b1", "note on b1", "Text B1.", "Head B1", "b.txt", 30.0),
        ],
    )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()


def test_migration_from_v1(tmp_path: Path) -> None:
    _v1_fixture(tmp_path / "abstracts.db")
    store = Store.open(tmp_path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    data = store.load()
    assert data.bookmarks == {"b1": 10.0}
    assert {i: n.text for i, n in data.notes.items()} == {"n1": "note one", "b1": "note on b1"}
    assert data.records["n1"].headline == "Head N1" and data.records["b1"].text == "Text B1."
    # The migrated store takes new kinds of records.
    store.apply([SetReads(("n1",), True, 1.0)])
    assert store.load().reads == {"n1": 1.0}
    assert store.integrity_check() == "ok"


def test_failed_migration_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _v1_fixture(tmp_path / "abstracts.db")

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("ALTER TABLE bookmarks RENAME TO bookmarks_v1")
        raise sqlite3.OperationalError("simulated failure half-way")

    monkeypatch.setitem(schema.MIGRATIONS, 1, (2, broken))
    with pytest.raises(StoreUnavailable, match="simulated"):
        Store.open(tmp_path)
    conn = sqlite3.connect(tmp_path / "abstracts.db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert conn.execute("SELECT count(*) FROM bookmarks").fetchone()[0] == 1


def test_newer_schema_is_read_only_and_unchanged(tmp_path: Path) -> None:
    path = sqlite_file(
        tmp_path / "abstracts.db",
        "CREATE TABLE notes(id TEXT PRIMARY KEY, text TEXT, version INT, updated REAL, x)",
        "INSERT INTO notes VALUES ('a', 'future note', 1, 1.0, 'x')",
        version=7,
    )
    before = path.read_bytes()
    store = Store.open(tmp_path)
    assert store.read_only is not None and "newer version" in store.read_only
    assert store.load().notes["a"].text == "future note"
    with pytest.raises(Exception, match="newer version"):
        store.save_note("a", "overwrite?")
    store.close()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if "corrupt" in p.name) == []


def _good_store(tmp_path: Path) -> Path:
    store = Store.open(tmp_path)
    for i in range(200):
        store.save_note(f"id{i}", "x" * 500)
    store.close()
    return tmp_path / "abstracts.db"


# What the notice gives as the cause (in parentheses after the file's name): a file that is
# not SQLite, or too short to hold SQLite's 100-byte header, is "not a database"; damage
# inside is "malformed", with what SQLite's check found when the check is what found it.
DAMAGE_CAUSE = {
    "garbage": "(file is not a database)",
    "truncated": "(database disk image is malformed)",
    "header": "(file is not a database)",
    "scribbled": "(database disk image is malformed)",
    "page-lost": "(database disk image is malformed: *** in database main ***\n"
    "Page {last} is never used)",
}


@pytest.mark.parametrize("damage", DAMAGE_CAUSE)
def test_damaged_database_is_set_aside(tmp_path: Path, damage: str) -> None:
    path = _good_store(tmp_path)
    raw = path.read_bytes()
    last = len(raw) // 4096 + 1
    if damage == "garbage":
        bad = os.urandom(5000)
    elif damage == "truncated":
        bad = raw[: len(raw) // 3]
    elif damage == "header":
        bad = raw[:60]
    elif damage == "scribbled":  # pages overwritten in the middle
        bad = raw[:4096] + b"\xff" * 8192 + raw[4096 + 8192 :]
    else:  # a page added at the end (and counted) that nothing uses: only the check finds it
        bad = raw[:28] + last.to_bytes(4, "big") + raw[32:] + bytes(4096)
    path.write_bytes(bad)
    (tmp_path / "abstracts.db-wal").write_bytes(b"wal bytes")
    store = Store.open(tmp_path)
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("abstracts.db.corrupt-")]
    main = [p for p in aside if not p.name.endswith(("-wal", "-shm"))]
    assert len(main) == 1 and main[0].read_bytes() == bad
    assert any(p.name.endswith("-wal") and p.read_bytes() == b"wal bytes" for p in aside)
    assert store.notices == [
        f"The database abstracts.db was damaged {DAMAGE_CAUSE[damage].format(last=last)}. It "
        f"was renamed to {main[0].name}, unchanged, and a new empty store was started."
    ]
    assert store.load().notes == {}
    store.save_note("a", "fresh start")
    assert store.integrity_check() == "ok"


def test_disk_full_keeps_database_intact(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.save_note("small", "kept")
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages + 2}")
    with pytest.raises(sqlite3.OperationalError, match="full"):
        store.save_note("big", "y" * 200_000)
    store.conn.execute("PRAGMA max_page_count = 1073741823")
    assert store.load().notes["small"].text == "kept"
    store.save_note("big", "y" * 200_000)
    assert store.integrity_check() == "ok"


def test_migration_from_v2_keeps_every_row_and_adds_the_v3_tables(tmp_path: Path) -> None:
    path = tmp_path / "abstracts.db"
    conn = sqlite3.connect(path)
    for statement in schema.KNOWN_SCHEMAS[2]:
        conn.execute(statement)
    conn.execute(
        "INSERT INTO records(id, text, headline, created, updated) "
        "VALUES ('a1', 'Text A1.', 'Head A1', 1.0, 1.0)"
    )
    conn.execute("INSERT INTO bookmarks VALUES ('a1', 5.0)")
    conn.execute("INSERT INTO notes VALUES ('a1', 'kept note', 3, 6.0)")
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    store = Store.open(tmp_path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    data = store.load()
    assert data.bookmarks == {"a1": 5.0}
    assert data.notes["a1"].text == "kept note" and data.notes["a1"].version == 3
    tables = {
        str(row[0])
        for row in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    assert {"tags", "dismissals", "saved_searches"} <= tables
    assert schema.foreign_reason(store.conn, schema.SCHEMA_VERSION) is None
    assert store.integrity_check() == "ok"


def _new_store_no_tables_yet(directory: Path) -> Path:
    """A store an instance has just created: WAL, version 0, no tables yet."""
    path = directory / "abstracts.db"
    new = sqlite3.connect(path, isolation_level=None)
    new.execute("PRAGMA journal_mode = WAL")
    new.close()
    return path


def _another_instance_migrates(path: Path) -> None:
    other = sqlite3.connect(path, isolation_level=None)
    try:
        schema.migrate(other)
    finally:
        other.close()


def test_a_store_another_instance_is_creating_is_never_set_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two instances opening a new data folder at once: the second reads the version,
    the first then creates the tables, the second reads the tables. Read apart, a new
    store looked like a stranger's file and was set aside, and every note the first
    instance saved from then on went into the file set aside (seen as a flaky
    test_two_processes_save_500_notes_each)."""
    from tui.store import opening

    path = _new_store_no_tables_yet(tmp_path)
    real_quick_check = opening._quick_check

    def other_instance_migrates_meanwhile(conn: sqlite3.Connection) -> str:
        _another_instance_migrates(path)
        return real_quick_check(conn)

    monkeypatch.setattr(opening, "_quick_check", other_instance_migrates_meanwhile)
    store = Store.open(tmp_path)
    try:
        assert store.notices == []
        assert sorted(p.name for p in tmp_path.iterdir() if "not-abstracts" in p.name) == []
    finally:
        store.close()


def test_a_store_another_instance_is_creating_is_readable_by_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`abstracts export` (a read-only open) while the app creates a new data folder: the
    export reads the version, the app then creates the tables, the export reads the
    tables. Read apart, the new store looked like a stranger's file and the export was
    refused with "not an abstracts database"."""
    from tui.store import opening

    path = _new_store_no_tables_yet(tmp_path)
    real_foreign_reason = schema.foreign_reason

    def other_instance_migrates_meanwhile(conn: sqlite3.Connection, version: int) -> str | None:
        _another_instance_migrates(path)
        return real_foreign_reason(conn, version)

    monkeypatch.setattr(opening.schema, "foreign_reason", other_instance_migrates_meanwhile)
    store = Store.open(tmp_path, read_only=True)
    try:
        assert store.read_only is not None
        # The check's read transaction is over: what is read next is the store as it is now.
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            ["abstracts.db", "abstracts.db-wal", "abstracts.db-shm"]
        )
    finally:
        store.close()
