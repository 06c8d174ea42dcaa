"""Version 5 of the schema: every table STRICT, and the step that brings a version-4
store into it keeping every row.

Before version 5 a column took a value of any type, so a row could hold one no version
of abstracts meant to write (`'yesterday'` as a time, written by an older import), and
every load checked every cell. STRICT tables refuse such a value when it is written;
the values already stored are converted once, here, as loading used to convert them:
text stays text (bytes decoded, numbers written out), a time or number that cannot be
read becomes a default, and each replacement is reported once.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from typing import Any

# The tables of version 4 with STRICT types. Small rows keyed by id are WITHOUT ROWID:
# one B-tree each instead of a table and its key's index (a bulk tag writes half as
# much). Records, notes, conflict copies and saved searches keep their rowid: large
# rows, AUTOINCREMENT, and the saved searches' order of creation. The index of tags by
# name (`tags_tag`) is gone: no query ever read it, and every tag written paid for it.
V5_TABLES = (
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
        updated REAL NOT NULL,
        paper TEXT) STRICT""",
    "CREATE TABLE bookmarks(id TEXT PRIMARY KEY, created REAL NOT NULL) STRICT, WITHOUT ROWID",
    "CREATE TABLE reads(id TEXT PRIMARY KEY, read_at REAL NOT NULL) STRICT, WITHOUT ROWID",
    """CREATE TABLE notes(
        id TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        version INTEGER NOT NULL,
        updated REAL NOT NULL) STRICT""",
    """CREATE TABLE conflict_copies(
        copy_id INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL,
        text TEXT NOT NULL,
        created REAL NOT NULL,
        origin TEXT NOT NULL) STRICT""",
    "CREATE INDEX conflict_copies_id ON conflict_copies(id)",
    """CREATE TABLE aliases(old_id TEXT PRIMARY KEY, new_id TEXT NOT NULL, at REAL NOT NULL)
        STRICT, WITHOUT ROWID""",
    """CREATE TABLE state(key TEXT PRIMARY KEY, value TEXT NOT NULL, updated REAL NOT NULL)
        STRICT, WITHOUT ROWID""",
    """CREATE TABLE tags(
        id TEXT NOT NULL,
        tag TEXT NOT NULL,
        created REAL NOT NULL,
        PRIMARY KEY(id, tag)) STRICT, WITHOUT ROWID""",
    "CREATE TABLE dismissals(id TEXT PRIMARY KEY, created REAL NOT NULL) STRICT, WITHOUT ROWID",
    """CREATE TABLE saved_searches(
        name TEXT PRIMARY KEY,
        query TEXT NOT NULL,
        sort TEXT NOT NULL DEFAULT '',
        created REAL NOT NULL,
        updated REAL NOT NULL) STRICT""",
)


def as_text(value: Any) -> str:
    """Any stored value (never NULL: the columns it reads refuse it) as text, bytes decoded."""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


class _Converter:
    """Converts stored values, collecting one line per value it had to replace."""

    def __init__(self) -> None:
        self.replaced: list[str] = []

    def _bad(self, where: str, value: Any, default: Any) -> None:
        self.replaced.append(f"{where} was {value!r}, read as {default!r}")

    def time(self, value: Any, where: str) -> float:
        try:
            t = float(value)
        except (TypeError, ValueError, OverflowError):
            t = math.nan
        if math.isfinite(t) and abs(t) <= 1e11:  # outside this, time.localtime fails
            return t
        self._bad(where, value, 0.0)
        return 0.0

    def integer(self, value: Any, where: str, default: int | None) -> int | None:
        if value is None:
            return default
        try:
            return int(value)
        except (TypeError, ValueError, OverflowError):
            self._bad(where, value, default)
            return default

    def version(self, value: Any, where: str) -> int:
        # 0 (which any save based on "no version" matches) when unreadable.
        try:
            return int(value)
        except (TypeError, ValueError, OverflowError):
            self._bad(where, value, 0)
            return 0


def _optional_text(value: Any) -> str | None:
    return None if value is None else as_text(value)


Row = tuple[Any, ...]
#: Per table: its columns, and how a row of version 4 becomes one of version 5.
_COPIES: dict[str, tuple[str, Callable[[_Converter, Row], Row]]] = {
    "records": (
        "id, text, headline, source, position, collection, venue, year, created, updated, paper",
        lambda c, r: (
            as_text(r[0]),
            *map(as_text, r[1:4]),
            c.integer(r[4], f"the position of record {as_text(r[0])}", 0) or 0,
            as_text(r[5]),
            _optional_text(r[6]),
            c.integer(r[7], f"the year of record {as_text(r[0])}", None),
            c.time(r[8], f"the creation time of record {as_text(r[0])}"),
            c.time(r[9], f"the time of record {as_text(r[0])}"),
            _optional_text(r[10]),
        ),
    ),
    "bookmarks": (
        "id, created",
        lambda c, r: (as_text(r[0]), c.time(r[1], f"the bookmark time of {as_text(r[0])}")),
    ),
    "dismissals": (
        "id, created",
        lambda c, r: (as_text(r[0]), c.time(r[1], f"the dismissal time of {as_text(r[0])}")),
    ),
    "reads": (
        "id, read_at",
        lambda c, r: (as_text(r[0]), c.time(r[1], f"the read time of {as_text(r[0])}")),
    ),
    "notes": (
        "id, text, version, updated",
        lambda c, r: (
            as_text(r[0]),
            as_text(r[1]),
            c.version(r[2], f"the version of note {as_text(r[0])}"),
            c.time(r[3], f"the time of note {as_text(r[0])}"),
        ),
    ),
    "conflict_copies": (
        "copy_id, id, text, created, origin",
        lambda c, r: (
            r[0],  # the rowid: always an integer
            as_text(r[1]),
            as_text(r[2]),
            c.time(r[3], f"the time of a conflict copy of {as_text(r[1])}"),
            as_text(r[4]),
        ),
    ),
    "aliases": (
        "old_id, new_id, at",
        lambda c, r: (
            as_text(r[0]),
            as_text(r[1]),
            c.time(r[2], f"the time of alias {as_text(r[0])}"),
        ),
    ),
    "state": (
        "key, value, updated",
        lambda c, r: (as_text(r[0]), as_text(r[1]), c.time(r[2], f"the time of state {r[0]!r}")),
    ),
    "tags": (
        "id, tag, created",
        lambda c, r: (
            as_text(r[0]),
            as_text(r[1]),
            c.time(r[2], f"the time of a tag of {as_text(r[0])}"),
        ),
    ),
    "saved_searches": (
        "name, query, sort, created, updated",
        lambda c, r: (
            as_text(r[0]),
            as_text(r[1]),
            as_text(r[2]),
            c.time(r[3], f"the creation time of saved search {as_text(r[0])!r}"),
            c.time(r[4], f"the time of saved search {as_text(r[0])!r}"),
        ),
    ),
}


def v4_to_v5(conn: sqlite3.Connection) -> list[str]:
    """Copy every row of a version-4 store into STRICT tables (inside the migration's
    transaction); returns one line per value that had to be replaced.

    Rows are copied in rowid order, so the saved searches keep theirs; two keys that
    become the same text (a key stored as bytes beside the same key as text, which
    abstracts never wrote) keep the first.
    """
    converter = _Converter()
    # Its name is taken again by the new table's index (`tags_tag` goes with its table).
    conn.execute("DROP INDEX IF EXISTS conflict_copies_id")
    for table in _COPIES:
        conn.execute(f"ALTER TABLE {table} RENAME TO {table}_v4")
    for statement in V5_TABLES:
        conn.execute(statement)
    for table, (columns, convert) in _COPIES.items():
        rows = conn.execute(f"SELECT {columns} FROM {table}_v4 ORDER BY rowid").fetchall()
        marks = ", ".join("?" * (columns.count(",") + 1))
        conn.executemany(
            f"INSERT OR IGNORE INTO {table}({columns}) VALUES ({marks})",
            (convert(converter, row) for row in rows),
        )
        # Safe to drop: every row was copied above, in the same transaction.
        conn.execute(f"DROP TABLE {table}_v4")
    return converter.replaced


def replaced_notice(replaced: list[str]) -> str | None:
    """One message for the user about the values replaced, or None when there were none."""
    if not replaced:
        return None
    shown = "; ".join(replaced[:3])
    more = f" (and {len(replaced) - 3} more)" if len(replaced) > 3 else ""
    return (
        f"Some saved values could not be read and were replaced: {shown}{more}. "
        "No note text was lost; saving the item again stores a correct value."
    )
