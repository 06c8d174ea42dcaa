"""Opening `abstracts.db`: what the user gets in each case `opening.py` tells apart.

An empty file, a file another instance holds or creates at the same moment, a file the
store keeps failing on, a data directory that cannot be made,
a schema number that is not ours, and a store a newer version of abstracts wrote (also
one it was killed in the middle of). Each case is said in the notice the app shows, or
in the error `abstracts export` prints.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from tests.store.helpers import PARAGRAPHS, make_abstract, open_userdata, sqlite_file
from tui.cli import main
from tui.store import opening, schema
from tui.store.db import Store, StoreReadOnly, StoreUnavailable
from tui.store.records import (
    StoreData,
)
from tui.store.userdata import UserData

A = make_abstract(PARAGRAPHS[0])
B = make_abstract(PARAGRAPHS[1])
NEWER = schema.SCHEMA_VERSION + 1


def newer_notice(path: Path, version: int) -> str:
    """The notice (and the reason writes are refused) for a store a newer version wrote."""
    return (
        f"{path} was written by a newer version of abstracts (schema {version}; this "
        f"version understands {schema.SCHEMA_VERSION}). It is left unchanged and open "
        "read-only: changes made now are not saved. Update abstracts to save again."
    )


def _unavailable(reason: str) -> str:
    return (
        f"Saving is unavailable: {reason}. What is saved is shown, read-only; changes made "
        "now are kept in memory and saving is retried. Whatever is still unsaved at quit "
        "is written to a rescue file, which `abstracts import` brings back."
    )


def _set_aside(directory: Path, label: str) -> list[Path]:
    """The databases set aside in `directory` under `label` (without their -wal/-shm)."""
    found = directory.glob(f"abstracts.db.{label}-*")
    return [p for p in found if not p.name.endswith(("-wal", "-shm"))]


def test_an_empty_database_file_becomes_the_new_store(tmp_path: Path) -> None:
    """A 0-byte abstracts.db (`touch`, or a copy cut off before its first byte) holds
    nothing to keep: it is used as the new store, with no notice and nothing set aside."""
    (tmp_path / "abstracts.db").touch()
    data = UserData.open(tmp_path)
    try:
        assert data.notices == [] and data.saving_available
        data.save_note(A, "kept")
    finally:
        assert data.close() is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["abstracts.db"]
    store = Store.open(tmp_path)
    try:
        assert store.load().notes[A.id].text == "kept"
    finally:
        store.close()


def test_a_negative_schema_number_is_a_strangers_file_not_a_newer_one(tmp_path: Path) -> None:
    """SQLite's schema number (user_version) is signed: -1 is no version of abstracts, and
    never a newer one. The file is set aside as not abstracts', untouched."""
    path = sqlite_file(tmp_path / "abstracts.db", "CREATE TABLE items(name TEXT)", version=-1)
    before = path.read_bytes()
    store = Store.open(tmp_path)
    try:
        (aside,) = _set_aside(tmp_path, "not-abstracts")
        assert aside.read_bytes() == before
        assert store.read_only is None
        assert store.notices == [
            f"The file {path} is not an abstracts database (its schema version -1 is not one "
            f"abstracts uses). It was renamed to {aside.name}, unchanged, and a new empty "
            "store was started."
        ]
    finally:
        store.close()


# Another instance holding the database while this one opens it


class _Clock:
    """`opening`'s `time`: a clock that moves only when opening sleeps or a test moves it."""

    def __init__(self) -> None:
        self.start = self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    strftime = staticmethod(time.strftime)


def _held_until(monkeypatch: pytest.MonkeyPatch, free_at: float, first_wait: float) -> _Clock:
    """Another instance holds the database until `free_at` seconds on the clock returned:
    until then opening reports "database is locked", the first time after SQLite has
    waited `first_wait` seconds, then at once (as switching to WAL does)."""
    clock = _Clock()
    real_open_writable = opening._open_writable

    def open_writable(path: Path, notices: list[str]) -> opening.Opened:
        if clock.now < clock.start + free_at:
            if clock.now == clock.start:
                clock.now += first_wait
            locked = sqlite3.OperationalError("database is locked")
            locked.sqlite_errorcode = 5
            raise locked
        return real_open_writable(path, notices)

    monkeypatch.setattr(opening, "time", clock)
    monkeypatch.setattr(opening, "_open_writable", open_writable)
    return clock


@pytest.mark.parametrize(
    ("free_at", "first_wait", "opened_by"),
    [
        (14.99, 14.99, 15.1),  # held almost the whole busy timeout (15 s)
        (0.05, 0.0, 0.1),  # held a moment: tried again in short steps
    ],
)
def test_opening_waits_for_another_instance_that_holds_the_database(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    free_at: float,
    first_wait: float,
    opened_by: float,
) -> None:
    clock = _held_until(monkeypatch, free_at, first_wait)
    store = Store.open(tmp_path)
    try:
        assert store.notices == [] and store.read_only is None
        assert clock.now - clock.start < opened_by
    finally:
        store.close()


def test_opening_gives_up_on_a_database_held_for_the_whole_busy_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Held 15 s (the busy timeout): the user is told it is locked, and nothing is set aside."""
    Store.open(tmp_path).close()
    _held_until(monkeypatch, 15.0, 15.0)
    with pytest.raises(StoreUnavailable) as refused:
        Store.open(tmp_path)
    assert str(refused.value) == f"Cannot open {tmp_path / 'abstracts.db'}: database is locked"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["abstracts.db"]


# A store that goes wrong again right after being set aside


def _at_most(calls: list[int], n: int) -> None:
    calls.append(1)
    if len(calls) > n:
        raise AssertionError("opening set the store aside again and again")


def test_a_store_damaged_again_at_once_is_set_aside_only_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failing disk: the new store started in place of a damaged one is damaged too.
    Opening stops there: one file set aside, and the user told saving is unavailable and
    where the damaged file went (the notice saying so is lost with the store)."""
    Store.open(tmp_path).close()
    calls: list[int] = []
    finding = "*** in database main ***\nPage 2 is never used"

    def always_damaged(conn: sqlite3.Connection) -> str:
        _at_most(calls, 5)
        return finding

    monkeypatch.setattr(opening, "_quick_check", always_damaged)
    data = UserData.open(tmp_path)
    try:
        (aside,) = _set_aside(tmp_path, "corrupt")
        path = tmp_path / "abstracts.db"
        cause = f"database disk image is malformed: {finding}"
        assert data.notices == [
            _unavailable(
                f"Cannot open {path}: {cause} (the damaged file was first renamed to "
                f"{aside.name}, unchanged)"
            )
        ]
        assert not data.saving_available
    finally:
        data.close(timeout=0.2)


def test_a_new_store_still_not_abstracts_is_set_aside_only_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new store started in place of a stranger's file looks like a stranger's too:
    one file set aside, and opening refused with the reason and where the file went."""
    calls: list[int] = []

    def always_foreign(conn: sqlite3.Connection, version: int) -> str:
        _at_most(calls, 5)
        return "tables abstracts does not make: items"

    monkeypatch.setattr(schema, "foreign_reason", always_foreign)
    with pytest.raises(StoreUnavailable) as refused:
        Store.open(tmp_path)
    (aside,) = _set_aside(tmp_path, "not-abstracts")
    assert str(refused.value) == (
        f"Cannot open {tmp_path / 'abstracts.db'}: tables abstracts does not make: items "
        f"(the file, not an abstracts database, was first renamed to {aside.name}, unchanged)"
    )


# Paths that cannot hold a store


def test_a_data_directory_that_cannot_be_made_says_why(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    data = UserData.open(blocker / "data")
    try:
        reason = f"Cannot create the data directory {blocker / 'data'}: Not a directory"
        assert data.notices == [_unavailable(reason)]
    finally:
        data.close(timeout=0.2)


def test_a_store_another_instance_creates_at_the_same_moment_is_opened_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two instances start on a new data folder: both find no abstracts.db, the other
    creates it first. This one opens the other's store, with no notice, its note there."""
    path = tmp_path / "abstracts.db"
    real_open = os.open
    raced: list[bool] = []

    def other_instance_first(file: str, flags: int, mode: int = 0o777, **kw: object) -> int:
        if Path(file) == path and flags & os.O_EXCL and not raced:
            raced.append(True)
            other = Store.open(tmp_path)
            other.save_note("n1", "the other instance's note")
            other.close()
        return real_open(file, flags, mode, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", other_instance_first)
    store = Store.open(tmp_path)
    try:
        assert raced and store.notices == [] and store.read_only is None
        assert store.load().notes["n1"].text == "the other instance's note"
    finally:
        store.close()


# Read-only opening (export, search): never creates or changes anything


def test_a_store_opened_read_only_refuses_writes_saying_so(tmp_path: Path) -> None:
    Store.open(tmp_path).close()
    before = (tmp_path / "abstracts.db").read_bytes()
    store = Store.open(tmp_path, read_only=True)
    try:
        with pytest.raises(StoreReadOnly) as refused:
            store.save_note("n1", "not written")
        assert str(refused.value) == "it was opened read-only"
    finally:
        store.close()
    assert (tmp_path / "abstracts.db").read_bytes() == before


def test_reading_a_store_that_is_not_there_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailable) as refused:
        Store.open(tmp_path, read_only=True)
    path = tmp_path / "abstracts.db"
    assert str(refused.value) == f"Cannot read {path}: unable to open database file"
    assert list(tmp_path.iterdir()) == []


def test_export_of_a_damaged_store_says_so_and_changes_nothing(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = data_dir / "abstracts.db"
    path.write_bytes(b"this is not a database at all, " * 100)
    assert main(["export", "--format", "json", "--data-dir", str(data_dir)]) != 0
    err = capsys.readouterr().err
    assert f"Cannot read {path}: file is not a database" in err
    assert sorted(p.name for p in data_dir.iterdir()) == ["abstracts.db"]
    assert path.read_bytes() == b"this is not a database at all, " * 100


# A newer version of abstracts: open read-only, shown, left unchanged


def _newer_store(directory: Path) -> None:
    sqlite_file(
        directory / "abstracts.db",
        "CREATE TABLE notes(id TEXT PRIMARY KEY, text TEXT, version INT, updated REAL)",
        f"INSERT INTO notes VALUES ('{A.id}', 'future note', 1, 1.0)",
        version=NEWER,
    )


def test_a_newer_versions_store_shows_what_that_version_saves_meanwhile(data_dir: Path) -> None:
    """Read-only, the data is still read again when another window (the newer version)
    saves something."""
    _newer_store(data_dir)
    data = UserData.open(data_dir)
    try:
        assert data.notices == [newer_notice(data_dir / "abstracts.db", NEWER)]
        assert data.note(A.id) == "future note"
        newer = sqlite3.connect(data_dir / "abstracts.db")
        newer.execute("INSERT INTO notes VALUES (?, 'saved by the newer version', 2, 2.0)", (B.id,))
        newer.commit()
        newer.close()
        assert data.refresh() is True
        assert data.note(B.id) == "saved by the newer version"
    finally:
        data.close(timeout=0.2)


def test_a_newer_version_killed_before_its_checkpoint_is_read_and_left_as_it_was(
    tmp_path: Path,
) -> None:
    """A newer version migrated the store, saved a note, and was killed: the main file
    still says our schema, the -wal holds the newer one and the note. It opens read-only
    with the newer-version notice, shows the note, and both files are left as they were
    (a writable connection would have moved the -wal into the main file on close)."""
    running, killed = tmp_path / "running", tmp_path / "killed"
    Store.open(running).close()
    newer = sqlite3.connect(running / "abstracts.db", isolation_level=None)
    newer.execute("PRAGMA wal_autocheckpoint = 0")
    newer.execute(f"PRAGMA user_version = {NEWER}")
    newer.execute("INSERT INTO notes VALUES (?, 'from the newer version', 1, 1.0)", (A.id,))
    killed.mkdir()
    for name in ("abstracts.db", "abstracts.db-wal"):
        shutil.copyfile(running / name, killed / name)
    newer.close()
    before = {name: (killed / name).read_bytes() for name in ("abstracts.db", "abstracts.db-wal")}
    data = UserData.open(killed)
    try:
        assert data.notices == [newer_notice(killed / "abstracts.db", NEWER)]
        assert data.note(A.id) == "from the newer version"
        assert not data.saving_available
    finally:
        assert data.close(timeout=0.2) is None
    assert {name: (killed / name).read_bytes() for name in before} == before


def test_import_into_a_damaged_store_says_where_the_damaged_file_went(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`abstracts import` sets a damaged database aside as the app does, and says so: the
    app opened afterwards finds a sound store and has nothing to tell."""
    other = tmp_path / "other"
    store = Store.open(other)
    store.save_note(A.id, "imported")
    store.close()
    export = tmp_path / "export.json"
    assert main(["export", "--format", "json", "-o", str(export), "--data-dir", str(other)]) == 0
    (data_dir / "abstracts.db").write_bytes(b"this is not a database at all, " * 100)
    assert main(["import", str(export), "--data-dir", str(data_dir)]) == 0
    (aside,) = _set_aside(data_dir, "corrupt")
    assert (
        "abstracts import: warning: The database abstracts.db was damaged (file is not a "
        f"database). It was renamed to {aside.name}, unchanged, and a new empty store was "
        "started.\n"
    ) in capsys.readouterr().err
    # A newer version's store: the import stops, saying why once.
    newer = tmp_path / "newer"
    newer.mkdir()
    _newer_store(newer)
    assert main(["import", str(export), "--data-dir", str(newer)]) != 0
    why = newer_notice(newer / "abstracts.db", NEWER)
    assert capsys.readouterr().err == f"abstracts import: {why}\n"


def test_a_locked_database_is_told_apart_from_other_errors(tmp_path: Path) -> None:
    import sqlite3

    from tui.store.opening import _is_busy

    path = tmp_path / "x.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t(x)")
    holder.execute("BEGIN EXCLUSIVE")
    other = sqlite3.connect(path, timeout=0)
    with pytest.raises(sqlite3.OperationalError) as locked:
        other.execute("INSERT INTO t VALUES (1)")
    holder.close()
    other.close()
    assert _is_busy(locked.value)
    # An extended code (SQLITE_BUSY_RECOVERY = 5 | 1 << 8), whatever the message says.
    recovering = sqlite3.OperationalError("recovery in progress")
    recovering.sqlite_errorcode = 261  # type: ignore[attr-defined]
    assert _is_busy(recovering)
    # A driver that gives no code: the message tells.
    assert _is_busy(sqlite3.OperationalError("database table is locked"))
    other_error = sqlite3.OperationalError("no such table: t")
    other_error.sqlite_errorcode = 1  # type: ignore[attr-defined]
    assert not _is_busy(other_error)


def test_a_damaged_database_is_told_apart_from_other_errors(tmp_path: Path) -> None:
    import sqlite3

    from tui.store.opening import is_corruption

    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database at all, " * 100)
    with pytest.raises(sqlite3.DatabaseError) as real:
        sqlite3.connect(garbage).execute("SELECT * FROM sqlite_master").fetchall()
    assert is_corruption(real.value)
    # An extended code (SQLITE_CORRUPT_VTAB = 11 | 1 << 8), whatever the message says.
    vtab = sqlite3.DatabaseError("virtual table trouble")
    vtab.sqlite_errorcode = 267  # type: ignore[attr-defined]
    assert is_corruption(vtab)
    # A driver that gives no code: the message tells.
    assert is_corruption(sqlite3.DatabaseError("database disk image is malformed"))
    busy = sqlite3.OperationalError("database is locked")
    busy.sqlite_errorcode = 5  # type: ignore[attr-defined]
    assert not is_corruption(busy)


def test_each_damaged_database_set_aside_keeps_its_own_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Set aside three times in one second: three files, none replaced, named by the
    time and a counter, each with its own -wal and -shm beside it."""
    from tui.store import opening

    real_strftime = time.strftime
    monkeypatch.setattr(time, "strftime", lambda fmt: real_strftime(fmt, time.gmtime(0)))
    db = tmp_path / "abstracts.sqlite3"
    names = []
    for n in range(3):
        for suffix, text in (("", "db"), ("-wal", "wal"), ("-shm", "shm")):
            (tmp_path / f"abstracts.sqlite3{suffix}").write_text(f"{text} {n}")
        names.append(opening.set_aside(db, "corrupt").name)
    stem = "abstracts.sqlite3.corrupt-19700101-000000"
    assert names == [stem, f"{stem}-1", f"{stem}-2"]
    for n, name in enumerate(names):
        for suffix, text in (("", "db"), ("-wal", "wal"), ("-shm", "shm")):
            assert (tmp_path / f"{name}{suffix}").read_text() == f"{text} {n}"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("abstracts.sqlite3-")]


def test_a_store_that_opens_but_cannot_be_read_says_why_and_saves_later(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_load = Store.load
    failures = iter([sqlite3.OperationalError("disk I/O error")])

    def load_failing_once(self: Store) -> StoreData:
        error = next(failures, None)
        if error is not None:
            raise error
        return real_load(self)

    monkeypatch.setattr(Store, "load", load_failing_once)
    ud = open_userdata(data_dir)
    assert ud.notices == [
        "Saving is unavailable: disk I/O error. What is saved is shown, read-only; changes "
        "made now are kept in memory and saving is retried. Whatever is still unsaved at "
        "quit is written to a rescue file, which `abstracts import` brings back."
    ]
    ud.save_note(A, "kept")
    assert ud.flush(timeout=5)
    ud.close()
    assert Store.open(data_dir).load().notes[A.id].text == "kept"
