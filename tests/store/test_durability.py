"""A commit that returned survives a power cut: WAL with synchronous=FULL on every
connection that writes.

A SIGKILL cannot tell FULL from OFF (the kernel still holds what was written), so
the crash test stays green if durability is weakened; these tests do not.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from tests.store.helpers import make_abstract
from tui.store.db import Store
from tui.store.userdata import UserData

FULL = 2


def _durable(conn: sqlite3.Connection) -> None:
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == FULL
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_store_opens_with_synchronous_full(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    try:
        _durable(store.conn)
    finally:
        store.close()
    reopened = Store.open(tmp_path)  # per connection: set again on every open
    try:
        _durable(reopened.conn)
    finally:
        reopened.close()


def test_the_apps_writer_thread_commits_on_a_synchronous_full_connection(
    data_dir: Path,
) -> None:
    data = UserData.open(data_dir)
    try:
        data.save_note(make_abstract("An abstract about graphs."), "durable")
        assert data.flush(timeout=10)
        # The connection the writer thread commits on (no public handle: it is private).
        _durable(data.writer.store.conn)  # type: ignore[union-attr]
    finally:
        data.close()


def test_a_store_the_writer_opens_later_is_synchronous_full(tmp_path: Path) -> None:
    blocked = tmp_path / "data"
    blocked.write_text("a file where the data directory should be", encoding="utf-8")
    data = UserData.open(blocked, retry_initial=0.02, retry_max=0.05)
    try:
        assert not data.saving_available
        data.save_note(make_abstract("An abstract about graphs."), "saved once possible")
        blocked.unlink()  # the directory can be made now: the writer's retry opens the store
        deadline = time.monotonic() + 10
        while data.pending_count and time.monotonic() < deadline:
            time.sleep(0.02)
        assert data.pending_count == 0
        _durable(data.writer.store.conn)  # type: ignore[union-attr]
    finally:
        data.close()
