"""`Store`: the SQLite database of bookmarks, notes, reading state and UI state.

Durability rules: WAL journal, `synchronous=FULL` (a commit that returned survives a
crash or power cut), a busy timeout so concurrent instances wait rather than fail,
and every write inside `BEGIN IMMEDIATE` (taking the write lock up front avoids the
deadlock a deferred transaction hits when it upgrades from read to write).

Opening (damaged files set aside, newer schemas read-only) lives in `opening.py`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tui.store.loading import RowReader, as_text, as_version, read_all
from tui.store.opening import (
    BUSY_TIMEOUT_MS,
    StoreError,
    StoreReadOnly,
    StoreUnavailable,
    is_corruption,
    open_database,
)
from tui.store.records import (
    ConflictCopy,
    DeleteNote,
    DeleteSearch,
    DismissConflict,
    Operation,
    OpResult,
    Reattach,
    RenameSearch,
    SaveNote,
    SaveSearch,
    SetBookmark,
    SetDismissed,
    SetRead,
    SetState,
    SetTag,
    Snapshot,
    StoreData,
    paper_text,
)
from tui.store.searches import apply_search_op

__all__ = [
    "BUSY_TIMEOUT_MS",
    "Store",
    "StoreError",
    "StoreReadOnly",
    "StoreUnavailable",
    "add_conflict_copy",
    "is_corruption",
    "put_record",
]


def _new_version(current: int) -> int:
    # A microsecond clock rather than a counter: if a note is deleted and written again,
    # a counter would restart and an instance holding an old version could match it.
    return max(current + 1, time.time_ns() // 1000)


class Store:
    """One open `abstracts.db`. Thread-safe (one connection behind a lock)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        notices: list[str],
        read_only: str | None,
        copy_dir: Path | None = None,
    ) -> None:
        self.conn = conn
        self.path = path
        #: The private copy read instead of `path` (an unreadable WAL database), or None.
        self.copy_dir = copy_dir
        self.notices = notices
        #: Why writes are refused, or None when the store is writable.
        self.read_only = read_only
        self._lock = threading.RLock()
        # The file as opened, held so that a file deleted or moved away can still be told
        # apart from one replaced (see `file_change`). None for a read-only store.
        self._opened: int | None = None
        if read_only is None and copy_dir is None:
            with contextlib.suppress(OSError):
                self._opened = os.open(path, os.O_RDONLY | os.O_CLOEXEC)

    @classmethod
    def open(cls, directory: Path, *, read_only: bool = False) -> Store:
        """Open (creating if needed) the store in `directory`.

        A damaged file is set aside and a fresh store started (see `notices`); a
        newer schema opens read-only. Raises `StoreUnavailable` when the database
        cannot be opened at all.
        """
        opened = open_database(directory, read_only=read_only)
        return cls(opened.conn, opened.path, opened.notices, opened.read_only, opened.copy_dir)

    # Reading

    def load(self) -> StoreData:
        """Everything in the store, read in one transaction (a consistent view).

        A value of the wrong type in a row is replaced by a default (text is kept
        as text) and reported once in `notices`, rather than failing the load.
        """
        data = StoreData()
        with self._lock:
            self.conn.execute("BEGIN")
            try:
                self._load_into(data)
            finally:
                self.conn.execute("ROLLBACK")
        return data

    def _rows(self, sql: str) -> list[tuple[Any, ...]]:
        try:
            return list(self.conn.execute(sql))
        except sqlite3.OperationalError:
            if self.read_only is None:
                raise
            return []  # a newer or foreign schema: show what we understand

    def _load_into(self, data: StoreData) -> None:
        reader = RowReader()
        read_all(self._rows, data, reader)
        notice = reader.notice()
        # load runs again on every reload: say it once.
        if notice is not None and notice not in self.notices:
            self.notices.append(notice)

    # Writing

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (`BEGIN IMMEDIATE` ... `COMMIT`); rolled back on any error."""
        if self.read_only is not None:
            raise StoreReadOnly(self.read_only)
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException:
                # The transaction may already be gone (SQLite rolls back on disk full).
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")
                raise

    def apply(self, ops: Sequence[Operation]) -> list[OpResult]:
        """Write `ops` in one transaction; when this returns, they are durable.

        A run of tags put on (or taken off), or of read marks set (or cleared), is
        written with one statement per table (tagging 100,000 abstracts one statement
        at a time took over a second); the result is as if each were applied in turn.
        """
        with self.transaction() as conn:
            results: list[OpResult] = []
            start = 0
            while start < len(ops):
                end = start + 1
                kind = _run_kind(ops[start])
                if kind is not None:
                    while end < len(ops) and _run_kind(ops[end]) == kind:
                        end += 1
                    _apply_run(conn, ops[start:end], on=kind[1])
                    results += [OpResult(op) for op in ops[start:end]]
                else:
                    results.append(_apply_one(conn, ops[start]))
                start = end
            return results

    def save_note(self, abstract_id: str, text: str, base_version: int = 0) -> OpResult:
        """Save one note now (see `SaveNote`); returns the new version and any conflict copy."""
        return self.apply([SaveNote(abstract_id, text, None, base_version, time.time())])[0]

    def file_change(self) -> str | None:
        """None while `path` still names the file this store opened; else what became of
        it: "deleted" (no link left), "moved" (linked elsewhere, nothing at `path`) or
        "replaced" (another file at `path`). See `lostfile`."""
        with self._lock:  # not while another thread closes it
            if self._opened is None:
                return None
            opened = os.fstat(self._opened)
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            return "moved" if opened.st_nlink else "deleted"
        except OSError:
            return None  # cannot look (the folder's permissions changed): the commit says
        if (now.st_dev, now.st_ino) == (opened.st_dev, opened.st_ino):
            return None
        return "replaced"

    def close_lost(self) -> None:
        """Close a store whose file was deleted, moved or replaced (`file_change`).

        SQLite does not checkpoint or remove the write-ahead log of a file no longer at
        its path; left there, it would be replayed into whatever file is put at the path
        next. Checkpointing with TRUNCATE first leaves it empty, which is harmless.
        """
        with self._lock, contextlib.suppress(sqlite3.Error):
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.close()

    def integrity_check(self) -> str:
        """`ok`, or what `PRAGMA integrity_check` found."""
        with self._lock:
            rows = self.conn.execute("PRAGMA integrity_check").fetchall()
        return "\n".join(str(r[0]) for r in rows)

    def close(self) -> None:
        """Close the connection (SQLite checkpoints the WAL when the last one closes)."""
        with self._lock:
            self.conn.close()
            if self._opened is not None:
                os.close(self._opened)
                self._opened = None
        if self.copy_dir is not None:
            shutil.rmtree(self.copy_dir, ignore_errors=True)


_PUT_RECORD = """INSERT INTO records(id, text, headline, source, position, collection, venue,
                                      year, paper, created, updated)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT(id) DO UPDATE SET text=excluded.text, headline=excluded.headline,
             source=excluded.source, position=excluded.position,
             collection=excluded.collection, venue=excluded.venue, year=excluded.year,
             paper=excluded.paper, updated=excluded.updated"""


def _record_row(abstract_id: str, snap: Snapshot, at: float) -> tuple[object, ...]:
    return (
        abstract_id,
        snap.text,
        snap.headline,
        snap.source,
        snap.position,
        snap.collection,
        snap.venue,
        snap.year,
        paper_text(snap.paper),
        at,
        at,
    )


def put_record(conn: sqlite3.Connection, abstract_id: str, snap: Snapshot, at: float) -> None:
    """Insert or refresh the snapshot kept for an abstract id."""
    conn.execute(_PUT_RECORD, _record_row(abstract_id, snap, at))


def _run_kind(op: Operation) -> tuple[type, bool] | None:
    return (type(op), op.on) if isinstance(op, SetTag | SetRead) else None


def _apply_run(conn: sqlite3.Connection, run: Sequence[Operation], on: bool) -> None:
    """Apply consecutive ops of one kind (`_run_kind`): records first (in order, so the
    last snapshot of an id wins), then the marks; the tables are independent, and within
    one kind the order of the marks changes nothing."""
    tags = [op for op in run if isinstance(op, SetTag)]
    reads = [op for op in run if isinstance(op, SetRead)]
    conn.executemany(
        _PUT_RECORD,
        [_record_row(op.abstract_id, op.snapshot, op.at) for op in tags if op.snapshot and op.on],
    )
    if on:
        # In key order (stable: of one pair twice, the first still wins): inserts walk
        # each B-tree once instead of jumping about it.
        conn.executemany(
            "INSERT OR IGNORE INTO tags(id, tag, created) VALUES (?, ?, ?)",
            [
                (op.abstract_id, op.tag, op.at)
                for op in sorted(tags, key=lambda op: (op.abstract_id, op.tag))
            ],
        )
        conn.executemany(
            "INSERT OR IGNORE INTO reads(id, read_at) VALUES (?, ?)",
            [(op.abstract_id, op.at) for op in reads],
        )
    else:
        conn.executemany(
            "DELETE FROM tags WHERE id = ? AND tag = ?", [(op.abstract_id, op.tag) for op in tags]
        )
        conn.executemany("DELETE FROM reads WHERE id = ?", [(op.abstract_id,) for op in reads])


def add_conflict_copy(
    conn: sqlite3.Connection, abstract_id: str, text: str, at: float, origin: str
) -> ConflictCopy:
    """Keep `text` beside the note of `abstract_id`."""
    cur = conn.execute(
        "INSERT INTO conflict_copies(id, text, created, origin) VALUES (?, ?, ?, ?)",
        (abstract_id, text, at, origin),
    )
    return ConflictCopy(int(cur.lastrowid or 0), abstract_id, text, at, origin)


def _note(conn: sqlite3.Connection, abstract_id: str) -> tuple[str, int] | None:
    row = conn.execute("SELECT text, version FROM notes WHERE id = ?", (abstract_id,)).fetchone()
    # Tolerant as in loading, so a bad stored version does not block saving the note.
    return None if row is None else (as_text(row[0]), as_version(row[1]))


def _apply_one(conn: sqlite3.Connection, op: Operation) -> OpResult:
    if isinstance(op, SaveNote):
        return _save_note(conn, op)
    if isinstance(op, SetBookmark):
        return _set_mark(conn, "bookmarks", op)
    if isinstance(op, SetDismissed):
        return _set_mark(conn, "dismissals", op)
    if isinstance(op, SetTag):
        return _set_tag(conn, op)
    if isinstance(op, SetRead):
        if op.on:
            conn.execute(
                "INSERT OR IGNORE INTO reads(id, read_at) VALUES (?, ?)", (op.abstract_id, op.at)
            )
        else:
            conn.execute("DELETE FROM reads WHERE id = ?", (op.abstract_id,))
        return OpResult(op)
    if isinstance(op, SetState):
        conn.execute(
            "INSERT INTO state(key, value, updated) VALUES (?, ?, ?) ON CONFLICT(key) "
            "DO UPDATE SET value = excluded.value, updated = excluded.updated",
            (op.key, op.value, op.at),
        )
        return OpResult(op)
    if isinstance(op, DeleteNote):
        current = _note(conn, op.abstract_id)
        conflict = None
        if current is not None and current[1] != op.base_version:
            # Changed elsewhere since this instance saw it: honour the delete, keep that text.
            conflict = add_conflict_copy(
                conn, op.abstract_id, current[0], time.time(), "changed elsewhere, then deleted"
            )
        conn.execute("DELETE FROM notes WHERE id = ?", (op.abstract_id,))
        return OpResult(op, 0, conflict)
    if isinstance(op, DismissConflict):
        conn.execute("DELETE FROM conflict_copies WHERE copy_id = ?", (op.copy_id,))
        return OpResult(op)
    if isinstance(op, SaveSearch | RenameSearch | DeleteSearch):
        return apply_search_op(conn, op)
    return _reattach(conn, op)


def _set_mark(conn: sqlite3.Connection, table: str, op: SetBookmark | SetDismissed) -> OpResult:
    """Bookmark or dismiss (`table`), keeping the abstract's snapshot; or take it back."""
    if op.on:
        if op.snapshot is not None:
            put_record(conn, op.abstract_id, op.snapshot, op.at)
        conn.execute(
            f"INSERT OR IGNORE INTO {table}(id, created) VALUES (?, ?)", (op.abstract_id, op.at)
        )
    else:
        conn.execute(f"DELETE FROM {table} WHERE id = ?", (op.abstract_id,))
    return OpResult(op)


def _set_tag(conn: sqlite3.Connection, op: SetTag) -> OpResult:
    if op.on:
        if op.snapshot is not None:
            put_record(conn, op.abstract_id, op.snapshot, op.at)
        conn.execute(
            "INSERT OR IGNORE INTO tags(id, tag, created) VALUES (?, ?, ?)",
            (op.abstract_id, op.tag, op.at),
        )
    else:
        conn.execute("DELETE FROM tags WHERE id = ? AND tag = ?", (op.abstract_id, op.tag))
    return OpResult(op)


def _save_note(conn: sqlite3.Connection, op: SaveNote) -> OpResult:
    current = _note(conn, op.abstract_id)
    if op.snapshot is not None:
        put_record(conn, op.abstract_id, op.snapshot, op.at)
    if current is not None and current[0] == op.text:
        return OpResult(op, current[1])  # same text: nothing to decide, nothing to write
    conflict = None
    if current is not None and current[1] != op.base_version:
        # Someone else saved since our text was based on it: ours becomes the note,
        # theirs is kept beside it, and the caller tells the user.
        conflict = add_conflict_copy(conn, op.abstract_id, current[0], op.at, op.origin)
    version = _new_version(max(current[1] if current else 0, op.base_version))
    conn.execute(
        "INSERT INTO notes(id, text, version, updated) VALUES (?, ?, ?, ?) ON CONFLICT(id) "
        "DO UPDATE SET text = excluded.text, version = excluded.version, "
        "updated = excluded.updated",
        (op.abstract_id, op.text, version, op.at),
    )
    return OpResult(op, version, conflict)


def _reattach(conn: sqlite3.Connection, op: Reattach) -> OpResult:
    old, new = op.old_id, op.new_id
    if op.snapshot is not None:
        put_record(conn, new, op.snapshot, op.at)
    for table, column in (
        ("bookmarks", "created"),
        ("reads", "read_at"),
        ("dismissals", "created"),
    ):
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
    moved, target = _note(conn, old), _note(conn, new)
    conflict = None
    version = target[1] if target else 0
    if moved is not None:
        if target is None:
            conn.execute("UPDATE notes SET id = ? WHERE id = ?", (new, old))
            version = moved[1]
        else:
            if target[0] != moved[0]:
                conflict = add_conflict_copy(conn, new, moved[0], op.at, f"re-attached from {old}")
            conn.execute("DELETE FROM notes WHERE id = ?", (old,))
    conn.execute("UPDATE conflict_copies SET id = ? WHERE id = ?", (new, old))
    conn.execute("UPDATE aliases SET new_id = ? WHERE new_id = ?", (new, old))
    conn.execute(
        "INSERT OR REPLACE INTO aliases(old_id, new_id, at) VALUES (?, ?, ?)", (old, new, op.at)
    )
    return OpResult(op, version, conflict)
