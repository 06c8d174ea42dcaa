"""The SQL of each write: what `operations` runs inside `Store.apply`'s transaction.

Plain functions of a connection and values; which one a change runs is decided by its
operation class (see `operations.py`). Every table is STRICT (see `schema.py`), so
what is read back is of the type written.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence

from tui.store.origins import origin_ids
from tui.store.records import ConflictCopy, Snapshot, paper_text

# `?7` twice: a record is made and updated at the same time, and each value bound per row
# is part of a bulk step's cost.
_PUT_RECORD = """INSERT INTO records(id, text, headline, origin, position, paper, created, updated)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
           ON CONFLICT(id) DO UPDATE SET text=excluded.text, headline=excluded.headline,
             origin=excluded.origin, position=excluded.position, paper=excluded.paper,
             updated=excluded.updated"""

#: The tables of marks kept per abstract id, and their time column.
MARK_TABLES = {"bookmarks": "created", "dismissals": "created", "reads": "read_at"}


def new_version(current: int) -> int:
    """The version of a note saved over one at `current`.

    A microsecond clock rather than a counter: if a note is deleted and written again,
    a counter would restart and an instance holding an old version could match it."""
    return max(current + 1, time.time_ns() // 1000)


def put_record(conn: sqlite3.Connection, abstract_id: str, snap: Snapshot, at: float) -> None:
    """Insert or refresh the snapshot kept for an abstract id."""
    put_records(conn, ((abstract_id, snap),), at)


def put_records(
    conn: sqlite3.Connection, records: Iterable[tuple[str, Snapshot]], at: float
) -> None:
    """`put_record` for each (id, snapshot), all made at `at`; of one id twice, the last wins."""
    records = list(records)
    # The abstracts of a step come from a few files, whose records share an origin object:
    # each is looked up once (by identity, which costs nothing per record; two equal
    # origins are found as the same row).
    distinct = {id(s.origin): s.origin for _, s in records}
    numbers = dict(zip(distinct, origin_ids(conn, list(distinct.values())), strict=True))
    # The rows made in one comprehension: a function call per row was a tenth of a bulk
    # step's writing.
    conn.executemany(
        _PUT_RECORD,
        [
            (
                i,
                s.text,
                s.given_headline,
                numbers[id(s.origin)],
                s.position,
                None if s.paper is None else paper_text(s.paper),
                at,
            )
            for i, s in records
        ],
    )


def set_mark(conn: sqlite3.Connection, table: str, abstract_id: str, on: bool, at: float) -> None:
    """Put a mark of `MARK_TABLES` on (the first time is kept) or take it off."""
    if on:
        conn.execute(
            f"INSERT OR IGNORE INTO {table}(id, {MARK_TABLES[table]}) VALUES (?, ?)",
            (abstract_id, at),
        )
    else:
        conn.execute(f"DELETE FROM {table} WHERE id = ?", (abstract_id,))


# The ids of a step go to SQLite as one JSON array, read by `json_each` in one statement:
# binding 100,000 rows one at a time (executemany) took three times as long. In key
# order (sorted by SQLite), so inserts walk the B-tree once instead of jumping about it.


def set_reads(conn: sqlite3.Connection, ids: Sequence[str], on: bool, at: float) -> None:
    """Mark each id read at `at` (a read mark keeps its first time), or unread."""
    if on:
        conn.execute(
            "INSERT OR IGNORE INTO reads(id, read_at) SELECT value, ? FROM json_each(?) "
            "ORDER BY value",
            (at, json.dumps(ids)),
        )
    else:
        conn.execute(
            "DELETE FROM reads WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),)
        )


def set_tags(conn: sqlite3.Connection, tag: str, ids: Sequence[str], on: bool, at: float) -> None:
    """Put `tag` on each id at `at` (a tag keeps its first time), or take it off."""
    if on:
        conn.execute(
            "INSERT OR IGNORE INTO tags(id, tag, created) SELECT value, ?, ? FROM json_each(?) "
            "ORDER BY value",
            (tag, at, json.dumps(ids)),
        )
    else:
        conn.execute(
            "DELETE FROM tags WHERE tag = ? AND id IN (SELECT value FROM json_each(?))",
            (tag, json.dumps(ids)),
        )


def set_state(conn: sqlite3.Connection, key: str, value: str, at: float) -> None:
    """Remember a piece of UI state."""
    conn.execute(
        "INSERT INTO state(key, value, updated) VALUES (?, ?, ?) ON CONFLICT(key) "
        "DO UPDATE SET value = excluded.value, updated = excluded.updated",
        (key, value, at),
    )


def add_conflict_copy(
    conn: sqlite3.Connection, abstract_id: str, text: str, at: float, origin: str
) -> ConflictCopy:
    """Keep `text` beside the note of `abstract_id`."""
    cur = conn.execute(
        "INSERT INTO conflict_copies(id, text, created, origin) VALUES (?, ?, ?, ?)",
        (abstract_id, text, at, origin),
    )
    return ConflictCopy(int(cur.lastrowid or 0), abstract_id, text, at, origin)


def dismiss_conflict(conn: sqlite3.Connection, copy_id: int) -> None:
    """Remove one conflict copy."""
    conn.execute("DELETE FROM conflict_copies WHERE copy_id = ?", (copy_id,))


def note(conn: sqlite3.Connection, abstract_id: str) -> tuple[str, int] | None:
    """The (text, version) of the note of `abstract_id` as stored, or None."""
    row = conn.execute("SELECT text, version FROM notes WHERE id = ?", (abstract_id,)).fetchone()
    return None if row is None else (row[0], row[1])


def save_note(
    conn: sqlite3.Connection, abstract_id: str, text: str, base_version: int, at: float, origin: str
) -> tuple[int, ConflictCopy | None]:
    """Save `text` as the note, based on `base_version` (0: none); the version now
    stored, and the copy kept of a text saved elsewhere since (else None)."""
    current = note(conn, abstract_id)
    if current is not None and current[0] == text:
        return current[1], None  # same text: nothing to decide, nothing to write
    conflict = None
    if current is not None and current[1] != base_version:
        # Someone else saved since our text was based on it: ours becomes the note,
        # theirs is kept beside it, and the caller tells the user.
        conflict = add_conflict_copy(conn, abstract_id, current[0], at, origin)
    version = new_version(max(current[1] if current else 0, base_version))
    conn.execute(
        "INSERT INTO notes(id, text, version, updated) VALUES (?, ?, ?, ?) ON CONFLICT(id) "
        "DO UPDATE SET text = excluded.text, version = excluded.version, "
        "updated = excluded.updated",
        (abstract_id, text, version, at),
    )
    return version, conflict


def delete_note(
    conn: sqlite3.Connection, abstract_id: str, base_version: int
) -> ConflictCopy | None:
    """Delete the note; a text saved elsewhere since `base_version` is kept as a copy."""
    current = note(conn, abstract_id)
    conflict = None
    if current is not None and current[1] != base_version:
        # Changed elsewhere since this instance saw it: honour the delete, keep that text.
        conflict = add_conflict_copy(
            conn, abstract_id, current[0], time.time(), "changed elsewhere, then deleted"
        )
    conn.execute("DELETE FROM notes WHERE id = ?", (abstract_id,))
    return conflict


def reattach(
    conn: sqlite3.Connection, old: str, new: str, at: float
) -> tuple[int, ConflictCopy | None]:
    """Move every record of `old` to `new`, remembering the old id. Returns the version
    of the note now under `new` (0: none) and the copy kept when both had a note."""
    for table, column in MARK_TABLES.items():
        conn.execute(
            f"INSERT OR IGNORE INTO {table}(id, {column}) SELECT ?, {column} FROM {table} "
            "WHERE id = ?",
            (new, old),
        )
        conn.execute(f"DELETE FROM {table} WHERE id = ?", (old,))
    conn.execute(
        "INSERT OR IGNORE INTO tags(id, tag, created) SELECT ?, tag, created FROM tags WHERE id = ?",
        (new, old),
    )
    conn.execute("DELETE FROM tags WHERE id = ?", (old,))
    moved, target = note(conn, old), note(conn, new)
    conflict = None
    version = target[1] if target else 0
    if moved is not None:
        if target is None:
            conn.execute("UPDATE notes SET id = ? WHERE id = ?", (new, old))
            version = moved[1]
        else:
            if target[0] != moved[0]:
                conflict = add_conflict_copy(conn, new, moved[0], at, f"re-attached from {old}")
            conn.execute("DELETE FROM notes WHERE id = ?", (old,))
    conn.execute("UPDATE conflict_copies SET id = ? WHERE id = ?", (new, old))
    conn.execute("UPDATE aliases SET new_id = ? WHERE new_id = ?", (new, old))
    conn.execute(
        "INSERT OR REPLACE INTO aliases(old_id, new_id, at) VALUES (?, ?, ?)", (old, new, at)
    )
    return version, conflict
