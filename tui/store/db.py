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

from tui.store.loading import read_all
from tui.store.opening import (
    BUSY_TIMEOUT_MS,
    StoreError,
    StoreReadOnly,
    StoreUnavailable,
    is_corruption,
    open_database,
)
from tui.store.operations import Operation, OpResult, SaveNote
from tui.store.records import StoreData

__all__ = [
    "BUSY_TIMEOUT_MS",
    "Store",
    "StoreError",
    "StoreReadOnly",
    "StoreUnavailable",
    "is_corruption",
]


#: SQLite's default: a commit copies the write-ahead log into the database once it holds
#: this many pages.
AUTOCHECKPOINT = 1000


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
        """Everything in the store, read in one transaction (a consistent view)."""
        data = StoreData()
        with self._lock:
            self.conn.execute("BEGIN")
            try:
                read_all(self._rows, data)
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
        """Write `ops` in one transaction, in order; when this returns, they are durable."""
        with self.transaction() as conn:
            return [op.write(conn) for op in ops]

    @contextmanager
    def checkpoints_deferred(self, defer: bool = True) -> Iterator[None]:
        """While this lasts (when `defer`), commits leave the write-ahead log for
        `checkpoint` to copy into the database file, where SQLite does it within a
        commit once the log passes 1,000 pages. Durable all the same (the log is synced
        first); a bulk step's commit returns sooner (copying its 30 MB was a sixth of
        tagging 100,000 abstracts)."""
        if not defer:
            yield
            return
        with self._lock:
            self.conn.execute("PRAGMA wal_autocheckpoint = 0")
            try:
                yield
            finally:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute(f"PRAGMA wal_autocheckpoint = {AUTOCHECKPOINT}")

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database file as far as no reader of another
        connection still needs it (PASSIVE: never waits); a failure leaves it for later."""
        with self._lock, contextlib.suppress(sqlite3.Error):
            self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

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
