"""A database abstracts did not make is never modified.

It used to be switched to WAL and given the app's tables, or half-modified and then
refused with "table notes already exists". Opened for writing it is now renamed
aside with its bytes untouched (`abstracts.db.not-abstracts-<timestamp>`) and the
user told, as a corrupt file is; opened read-only (export) it is refused by name.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.store.helpers import make_abstract
from tui.cli import main
from tui.store import schema
from tui.store.db import Store, StoreUnavailable
from tui.store.userdata import UserData


def _unknown_tables(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO items(name) VALUES ('someone else''s data')")
    conn.execute("CREATE TABLE people(name TEXT)")


def _our_table_names_their_columns(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO notes(body) VALUES ('their note')")


def _our_version_and_an_extra_table(conn: sqlite3.Connection) -> None:
    for statement in schema.KNOWN_SCHEMAS[schema.SCHEMA_VERSION]:
        conn.execute(statement)
    conn.execute("CREATE TABLE extra(x)")
    conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")


def _wal_and_unknown_tables(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA journal_mode = WAL")
    _unknown_tables(conn)


def _our_version_a_table_missing(conn: sqlite3.Connection) -> None:
    for statement in schema.KNOWN_SCHEMAS[schema.SCHEMA_VERSION]:
        conn.execute(statement)
    conn.execute("DROP TABLE aliases")
    conn.execute("DROP TABLE tags")
    conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")


def _our_version_other_columns(conn: sqlite3.Connection) -> None:
    for statement in schema.KNOWN_SCHEMAS[schema.SCHEMA_VERSION]:
        conn.execute(statement)
    for table in ("state", "aliases"):
        conn.execute(f"ALTER TABLE {table} ADD COLUMN theirs TEXT")
    conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")


FOREIGN: dict[str, Callable[[sqlite3.Connection], None]] = {
    "unknown-tables": _unknown_tables,
    "notes-with-other-columns": _our_table_names_their_columns,
    "our-version-extra-table": _our_version_and_an_extra_table,
    "wal-unknown-tables": _wal_and_unknown_tables,
    "our-version-tables-missing": _our_version_a_table_missing,
    "our-version-other-columns": _our_version_other_columns,
}
# What the notice says is wrong with each (shown in parentheses after the file's name).
WHY = {
    "unknown-tables": "tables abstracts does not make: items, people",
    "notes-with-other-columns": "tables abstracts does not make: notes",
    "our-version-extra-table": "tables abstracts does not make: extra",
    "wal-unknown-tables": "tables abstracts does not make: items, people",
    "our-version-tables-missing": "tables missing: aliases, tags",
    "our-version-other-columns": "columns abstracts does not make in: aliases, state",
}


def _foreign(directory: Path, make: Callable[[sqlite3.Connection], None]) -> bytes:
    directory.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(directory / "abstracts.db", isolation_level=None)
    make(conn)
    conn.close()
    return (directory / "abstracts.db").read_bytes()


@pytest.mark.parametrize("kind", FOREIGN)
def test_a_foreign_database_is_set_aside_untouched(tmp_path: Path, kind: str) -> None:
    before = _foreign(tmp_path, FOREIGN[kind])
    store = Store.open(tmp_path)
    try:
        # A WAL file's -wal/-shm (made by the read-only look at it) move along with it.
        aside = [
            p
            for p in tmp_path.glob("abstracts.db.not-abstracts-*")
            if not p.name.endswith(("-wal", "-shm"))
        ]
        assert len(aside) == 1 and aside[0].read_bytes() == before
        assert any(
            f"is not an abstracts database ({WHY[kind]})" in n and aside[0].name in n
            for n in store.notices
        )
        assert store.save_note("n1", "a note in the new store").version > 0
        assert store.load().notes["n1"].text == "a note in the new store"
    finally:
        store.close()


def test_the_app_opens_a_new_store_and_says_where_the_file_went(data_dir: Path) -> None:
    before = _foreign(data_dir, _our_table_names_their_columns)
    data = UserData.open(data_dir)
    try:
        assert any("not an abstracts database" in n for n in data.notices)
        assert data.saving_available
        data.save_note(make_abstract("An abstract about graphs."), "kept")
    finally:
        assert data.close() is None
    (aside,) = data_dir.glob("abstracts.db.not-abstracts-*")
    assert aside.read_bytes() == before


def test_export_refuses_a_foreign_database_by_name(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _foreign(data_dir, _unknown_tables)
    assert main(["export", "--format", "json", "--data-dir", str(data_dir)]) != 0
    err = capsys.readouterr().err
    assert str(data_dir / "abstracts.db") in err and "not an abstracts database" in err
    assert sorted(p.name for p in data_dir.iterdir()) == ["abstracts.db"]
    assert (data_dir / "abstracts.db").read_bytes() == before
    with pytest.raises(StoreUnavailable, match="not an abstracts database"):
        Store.open(data_dir, read_only=True)


def test_every_schema_abstracts_makes_is_recognised(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.close()
    assert Store.open(tmp_path).notices == []
    assert set(schema.KNOWN_SCHEMAS) >= {0, 1, schema.SCHEMA_VERSION}


@pytest.mark.parametrize("kind", FOREIGN)
def test_reading_refuses_every_kind_of_foreign_database_by_name(tmp_path: Path, kind: str) -> None:
    """Export and search refuse each stranger's file (one claiming our schema number too),
    saying why, and leave it as it was."""
    before = _foreign(tmp_path, FOREIGN[kind])
    path = tmp_path / "abstracts.db"
    with pytest.raises(StoreUnavailable) as refused:
        Store.open(tmp_path, read_only=True)
    assert str(refused.value) == (
        f"{path} is not an abstracts database ({WHY[kind]}); it was left unchanged."
    )
    assert path.read_bytes() == before


def test_export_refuses_a_foreign_database_it_reads_from_a_private_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stranger's WAL file in a folder SQLite cannot write its side files to is read
    from a private copy: refused by its own name (not the copy's), the copy removed."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    data_dir = tmp_path / "data"
    before = _foreign(data_dir, _wal_and_unknown_tables)
    for suffix in ("-wal", "-shm"):
        (data_dir / f"abstracts.db{suffix}").mkdir()
    assert main(["export", "--format", "json", "--data-dir", str(data_dir)]) != 0
    path = data_dir / "abstracts.db"
    assert (
        f"{path} is not an abstracts database (tables abstracts does not make: items, people)"
        in (capsys.readouterr().err)
    )
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]
