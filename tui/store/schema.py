"""The database schema and the migrations between its versions.

The version lives in `PRAGMA user_version`. Version 1 kept only bookmarks and
notes, each with its own copy of the abstract; version 2 adds reading state, note
versions, conflict copies, aliases of re-attached records and UI state, and moves
the abstract snapshots into one `records` table. Version 3 adds tags, dismissals
("not interested", for the taste feed) and saved searches. Version 4 keeps what the
source said of each record's paper (title, authors, ids, links: `Paper.to_json()` as
JSON text, NULL for a conference paragraph) in a `paper` column of `records`.
Version 5 makes every table STRICT (see `strict.py`), so a value of the wrong type is
refused when written rather than checked on every load. Version 6 holds where a record
came from (source file, collection, venue, year) once per file, in `origins`, named by
each record (see `origins.py`), and keeps the records a bulk step makes together, one
row of `record_packs` per step (see `packs.py`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from functools import cache

from tui.store.origins import V6_TABLES, v5_to_v6
from tui.store.strict import V5_TABLES, v4_to_v5

SCHEMA_VERSION = 6

_V2_TABLES = (
    """CREATE TABLE records(
        id TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        headline TEXT NOT NULL,
        source TEXT NOT NULL DEFAULT '',
        position INTEGER NOT NULL DEFAULT 0,
        collection TEXT NOT NULL DEFAULT '',
        venue TEXT,
        year INTEGER,
        created REAL NOT NULL,
        updated REAL NOT NULL)""",
    "CREATE TABLE bookmarks(id TEXT PRIMARY KEY, created REAL NOT NULL)",
    "CREATE TABLE reads(id TEXT PRIMARY KEY, read_at REAL NOT NULL)",
    """CREATE TABLE notes(
        id TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        version INTEGER NOT NULL,
        updated REAL NOT NULL)""",
    """CREATE TABLE conflict_copies(
        copy_id INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL,
        text TEXT NOT NULL,
        created REAL NOT NULL,
        origin TEXT NOT NULL)""",
    "CREATE INDEX conflict_copies_id ON conflict_copies(id)",
    "CREATE TABLE aliases(old_id TEXT PRIMARY KEY, new_id TEXT NOT NULL, at REAL NOT NULL)",
    "CREATE TABLE state(key TEXT PRIMARY KEY, value TEXT NOT NULL, updated REAL NOT NULL)",
)

# Version 3: tables added to version 2. A tag is stored as the user typed it after
# normalising (lower case, `#` dropped, spaces as `-`); one row per abstract and tag.
_V3_ADDED = (
    """CREATE TABLE tags(
        id TEXT NOT NULL,
        tag TEXT NOT NULL,
        created REAL NOT NULL,
        PRIMARY KEY(id, tag))""",
    "CREATE INDEX tags_tag ON tags(tag)",
    "CREATE TABLE dismissals(id TEXT PRIMARY KEY, created REAL NOT NULL)",
    """CREATE TABLE saved_searches(
        name TEXT PRIMARY KEY,
        query TEXT NOT NULL,
        sort TEXT NOT NULL DEFAULT '',
        created REAL NOT NULL,
        updated REAL NOT NULL)""",
)
_V3_TABLES = _V2_TABLES + _V3_ADDED

# Version 4: the record's paper, as JSON text (NULL: none known). A column added in
# place, so every row of version 3 is kept as it was.
_V4_ADDED = ("ALTER TABLE records ADD COLUMN paper TEXT",)
_V4_TABLES = _V3_TABLES + _V4_ADDED

# Kept so tests (and this docstring's reader) can see exactly what version 1 was.
V1_TABLES = (
    """CREATE TABLE bookmarks(
        id TEXT PRIMARY KEY, text TEXT NOT NULL, headline TEXT NOT NULL,
        source TEXT NOT NULL, created REAL NOT NULL)""",
    """CREATE TABLE notes(
        id TEXT PRIMARY KEY, note TEXT NOT NULL, text TEXT NOT NULL, headline TEXT NOT NULL,
        source TEXT NOT NULL, updated REAL NOT NULL)""",
)


def _create_v2(conn: sqlite3.Connection) -> None:
    for statement in _V2_TABLES:
        conn.execute(statement)


def _v1_to_v2(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE bookmarks RENAME TO bookmarks_v1")
    conn.execute("ALTER TABLE notes RENAME TO notes_v1")
    _create_v2(conn)
    conn.execute(
        """INSERT OR IGNORE INTO records(id, text, headline, source, created, updated)
           SELECT id, text, headline, source, updated, updated FROM notes_v1"""
    )
    conn.execute(
        """INSERT OR IGNORE INTO records(id, text, headline, source, created, updated)
           SELECT id, text, headline, source, created, created FROM bookmarks_v1"""
    )
    conn.execute("INSERT INTO bookmarks(id, created) SELECT id, created FROM bookmarks_v1")
    conn.execute(
        "INSERT INTO notes(id, text, version, updated) SELECT id, note, 1, updated FROM notes_v1"
    )
    # Safe to drop: every row was copied above, in the same transaction.
    conn.execute("DROP TABLE bookmarks_v1")
    conn.execute("DROP TABLE notes_v1")


def _create_v6(conn: sqlite3.Connection) -> None:
    for statement in V6_TABLES:
        conn.execute(statement)


def _v2_to_v3(conn: sqlite3.Connection) -> None:
    for statement in _V3_ADDED:
        conn.execute(statement)


def _v3_to_v4(conn: sqlite3.Connection) -> None:
    for statement in _V4_ADDED:
        conn.execute(statement)


#: A step of migration; it may return the values it had to replace (see `strict.py`).
Step = Callable[[sqlite3.Connection], list[str] | None]

# MIGRATIONS[v] takes a database at version v to the next one; 0 is a new file.
MIGRATIONS: dict[int, tuple[int, Step]] = {
    0: (6, _create_v6),
    1: (2, _v1_to_v2),
    2: (3, _v2_to_v3),
    3: (4, _v3_to_v4),
    4: (5, v4_to_v5),
    5: (6, v5_to_v6),
}


def migrate(conn: sqlite3.Connection, replaced: list[str] | None = None) -> int:
    """Bring the database to SCHEMA_VERSION in one transaction; returns the version found.
    A value a step had to replace is described in `replaced`. On any error, the
    transaction is rolled back and the database left as it was.

    The version is read again inside the write transaction, so two processes opening
    a new file at once migrate it exactly once.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = int(conn.execute("PRAGMA user_version").fetchone()[0])
        version = found
        while version < SCHEMA_VERSION:
            target, step = MIGRATIONS[version]
            lines = step(conn)
            if replaced is not None and lines:
                replaced += lines
            version = target
        if version != found:
            conn.execute(f"PRAGMA user_version = {version}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return found


# The tables each version of the schema has, exactly: anything else is not our database.
KNOWN_SCHEMAS: dict[int, Sequence[str]] = {
    0: (),
    1: V1_TABLES,
    2: _V2_TABLES,
    3: _V3_TABLES,
    4: _V4_TABLES,
    5: V5_TABLES,
    6: V6_TABLES,
}


def _tables(conn: sqlite3.Connection) -> dict[str, list[str]]:
    names = [
        str(row[0])
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    return {
        name: sorted(
            str(col[1]) for col in conn.execute("SELECT * FROM pragma_table_info(?)", (name,))
        )
        for name in names
    }


@cache
def _expected(version: int) -> dict[str, list[str]]:
    conn = sqlite3.connect(":memory:")
    try:
        for statement in KNOWN_SCHEMAS[version]:
            conn.execute(statement)
        return _tables(conn)
    finally:
        conn.close()


def foreign_reason(conn: sqlite3.Connection, version: int) -> str | None:
    """Why the database on `conn` (at `version`, not newer than ours) was not made by
    abstracts, ready to show; None when its tables are exactly those of that version."""
    if version not in KNOWN_SCHEMAS:
        return f"its schema version {version} is not one abstracts uses"
    found, expected = _tables(conn), _expected(version)
    if found == expected:
        return None
    unknown = sorted(set(found) - set(expected))
    if unknown:
        return "tables abstracts does not make: " + ", ".join(unknown)
    missing = sorted(set(expected) - set(found))
    if missing:
        return "tables missing: " + ", ".join(missing)
    differ = sorted(name for name in found if found[name] != expected[name])
    return "columns abstracts does not make in: " + ", ".join(differ)
