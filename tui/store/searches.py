"""Saved searches in the database: how saving, renaming, deleting and importing apply.

Names are unique ignoring case (see `names.py`). Nothing is ever silently
overwritten: a save or rename that meets a search another instance made or changed
meanwhile keeps both, the user's under a free name (`name (2)`), and says so.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from tui.store.loading import as_text
from tui.store.names import free_name, name_key, sort_of
from tui.store.records import (
    DeleteSearch,
    OpResult,
    RenameSearch,
    SavedSearch,
    SaveSearch,
)

#: A saved search as the database holds it: (name, query, sort, created, updated).
_Row = tuple[str, str, str, float, float]


def _rows(conn: sqlite3.Connection) -> dict[str, _Row]:
    """key -> the row of every saved search in the database."""
    out: dict[str, _Row] = {}
    for name, query, sort, created, updated in conn.execute(
        "SELECT name, query, sort, created, updated FROM saved_searches ORDER BY rowid"
    ):
        shown = as_text(name)
        out.setdefault(name_key(shown), (shown, as_text(query), as_text(sort), created, updated))
    return out


def _put(conn: sqlite3.Connection, row: SavedSearch) -> None:
    conn.execute(
        "INSERT INTO saved_searches(name, query, sort, created, updated) VALUES (?, ?, ?, ?, ?)",
        (row.name, row.query, row.sort, row.created, row.updated),
    )


def _time(value: object, default: float) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else default  # type: ignore[arg-type]


def _stored(row: _Row) -> SavedSearch:
    """A row another instance wrote, as reading the database shows it (an unreadable
    time as 0, see `loading.RowReader.time`)."""
    return SavedSearch(row[0], row[1], row[2], _time(row[3], 0.0), _time(row[4], 0.0))


def apply_search_op(
    conn: sqlite3.Connection, op: SaveSearch | RenameSearch | DeleteSearch
) -> OpResult:
    """Apply one saved-search operation; the result says what the database now holds."""
    rows = _rows(conn)
    if isinstance(op, SaveSearch):
        return _save(conn, op, rows)
    if isinstance(op, RenameSearch):
        return _rename(conn, op, rows)
    key = name_key(op.name)
    found = rows.get(key)
    if found is None:
        return OpResult(op, searches=((key, None),))
    if (found[1], found[2]) != op.expected:
        return OpResult(
            op,
            searches=((key, _stored(found)),),
            message=f"The saved search “{found[0]}” was changed in another instance since "
            "you saw it, so it was kept, not deleted.",
        )
    conn.execute("DELETE FROM saved_searches WHERE name = ?", (found[0],))
    return OpResult(op, searches=((key, None),))


def _save(conn: sqlite3.Connection, op: SaveSearch, rows: dict[str, _Row]) -> OpResult:
    key = name_key(op.name)
    found = rows.get(key)
    if found is None or (found[1], found[2]) in (op.expected, (op.query, op.sort)):
        created = op.at if found is None else _time(found[3], op.at)
        if found is not None:
            conn.execute("DELETE FROM saved_searches WHERE name = ?", (found[0],))
        row = SavedSearch(op.name, op.query, op.sort, created, op.at)
        _put(conn, row)
        return OpResult(op, searches=((key, row),))
    # Saved (or changed) under this name elsewhere since the user looked: keep both.
    name = free_name(op.name, rows)
    row = SavedSearch(name, op.query, op.sort, op.at, op.at)
    _put(conn, row)
    return OpResult(
        op,
        searches=((key, _stored(found)), (name_key(name), row)),
        message=f"A saved search “{found[0]}” was also saved in another instance; both are "
        f"kept: yours is “{name}”.",
    )


def _rename(conn: sqlite3.Connection, op: RenameSearch, rows: dict[str, _Row]) -> OpResult:
    old, new = name_key(op.old), name_key(op.new)
    found = rows.get(old)
    ours = (op.query, op.sort)
    moves = found is not None and (found[1], found[2]) in (op.expected, ours)
    if moves:
        assert found is not None
        conn.execute("DELETE FROM saved_searches WHERE name = ?", (found[0],))
        del rows[old]
    target = free_name(op.new, rows)
    created = _time(found[3], op.at) if moves and found is not None else op.at
    row = SavedSearch(target, op.query, op.sort, created, op.at)
    _put(conn, row)
    touched: list[tuple[str, SavedSearch | None]] = []
    messages = []
    if found is not None and not moves:
        # Changed elsewhere since the user saw it: that version keeps its name.
        touched.append((old, _stored(found)))
        messages.append(f"“{found[0]}” was changed in another instance; that version is kept.")
    elif old != name_key(target):
        touched.append((old, None))
    if name_key(target) != new:
        # Memory showed the user's search under `new`: the database holds another's there.
        touched.append((new, _stored(rows[new])))
        messages.append(f"“{op.new}” was taken in another instance meanwhile.")
    touched.append((name_key(target), row))
    if messages:
        messages.append(f"Your search is saved as “{target}”.")
    return OpResult(op, searches=tuple(touched), message=" ".join(messages))


def import_search(conn: sqlite3.Connection, entry: dict[str, Any], now: float) -> str | None:
    """Merge one saved search from an import; returns the name it was stored under, or None
    when it was already here (same name and query, or kept by an earlier import of it).
    A different search of that name is never replaced: the import is kept beside it."""
    rows = _rows(conn)
    name, query, sort = entry["name"], entry["query"], sort_of(entry.get("sort") or "")
    key = name_key(name)
    for other_key, row in rows.items():
        same_name = other_key == key or other_key.startswith(key + " (")
        if same_name and (row[1], sort_of(row[2])) == (query, sort):
            return None
    stored = free_name(name, rows)
    created = _time(entry.get("created"), now)
    _put(conn, SavedSearch(stored, query, sort, created, _time(entry.get("updated"), created)))
    return stored
