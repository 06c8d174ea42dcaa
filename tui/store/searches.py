"""Saved searches in the database: how saving, renaming, deleting and importing apply.

Names are unique ignoring case (see `names.py`). Nothing is ever silently
overwritten: a save or rename that meets a search another instance made or changed
meanwhile keeps both, the user's under a free name (`name (2)`), and says so.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from tui.store.names import free_name, name_key, sort_of
from tui.store.records import SavedSearch

#: What a saved-search write touched: each name key and what the database now holds
#: there (None: nothing), and a message when that differs from what was asked.
Touched = tuple[tuple[tuple[str, SavedSearch | None], ...], str]


def _rows(conn: sqlite3.Connection) -> dict[str, SavedSearch]:
    """key -> every saved search in the database (of two names differing only in case,
    which abstracts never writes, the first)."""
    out: dict[str, SavedSearch] = {}
    for row in conn.execute(
        "SELECT name, query, sort, created, updated FROM saved_searches ORDER BY rowid"
    ):
        out.setdefault(name_key(row[0]), SavedSearch(*row))
    return out


def _put(conn: sqlite3.Connection, row: SavedSearch) -> None:
    conn.execute(
        "INSERT INTO saved_searches(name, query, sort, created, updated) VALUES (?, ?, ?, ?, ?)",
        (row.name, row.query, row.sort, row.created, row.updated),
    )


def _time(value: object, default: float) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else default  # type: ignore[arg-type]


def _drop(conn: sqlite3.Connection, row: SavedSearch) -> None:
    conn.execute("DELETE FROM saved_searches WHERE name = ?", (row.name,))


def save(
    conn: sqlite3.Connection,
    name: str,
    query: str,
    sort: str,
    at: float,
    expected: tuple[str, str] | None,
) -> Touched:
    """Save `query` under `name`, unless the search of that name is no longer `expected`
    (None: none) nor this one: then both are kept, this one under a free name."""
    rows = _rows(conn)
    key = name_key(name)
    found = rows.get(key)
    if found is None or (found.query, found.sort) in (expected, (query, sort)):
        created = at if found is None else found.created
        if found is not None:
            _drop(conn, found)
        row = SavedSearch(name, query, sort, created, at)
        _put(conn, row)
        return ((key, row),), ""
    # Saved (or changed) under this name elsewhere since the user looked: keep both.
    free = free_name(name, rows)
    row = SavedSearch(free, query, sort, at, at)
    _put(conn, row)
    return (
        ((key, found), (name_key(free), row)),
        f"A saved search “{found.name}” was also saved in another instance; both are "
        f"kept: yours is “{free}”.",
    )


def rename(
    conn: sqlite3.Connection,
    old: str,
    new: str,
    query: str,
    sort: str,
    at: float,
    expected: tuple[str, str] | None,
) -> Touched:
    """Rename `old` to `new`, holding `query` and `sort`; a search changed elsewhere
    meanwhile (no longer `expected`) keeps its name, and one made elsewhere under `new`
    keeps that name (ours takes a free one)."""
    rows = _rows(conn)
    old_key, new_key = name_key(old), name_key(new)
    found = rows.get(old_key)
    moves = found is not None and (found.query, found.sort) in (expected, (query, sort))
    if moves:
        assert found is not None
        _drop(conn, found)
        del rows[old_key]
    target = free_name(new, rows)
    created = found.created if moves and found is not None else at
    row = SavedSearch(target, query, sort, created, at)
    _put(conn, row)
    touched: list[tuple[str, SavedSearch | None]] = []
    messages = []
    if found is not None and not moves:
        # Changed elsewhere since the user saw it: that version keeps its name.
        touched.append((old_key, found))
        messages.append(f"“{found.name}” was changed in another instance; that version is kept.")
    elif old_key != name_key(target):
        touched.append((old_key, None))
    if name_key(target) != new_key:
        # Memory showed the user's search under `new`: the database holds another's there.
        touched.append((new_key, rows[new_key]))
        messages.append(f"“{new}” was taken in another instance meanwhile.")
    touched.append((name_key(target), row))
    if messages:
        messages.append(f"Your search is saved as “{target}”.")
    return tuple(touched), " ".join(messages)


def delete(conn: sqlite3.Connection, name: str, expected: tuple[str, str] | None) -> Touched:
    """Delete the search `name`, unless it no longer holds `expected` (changed elsewhere)."""
    key = name_key(name)
    found = _rows(conn).get(key)
    if found is None:
        return ((key, None),), ""
    if (found.query, found.sort) != expected:
        return (
            ((key, found),),
            f"The saved search “{found.name}” was changed in another instance since "
            "you saw it, so it was kept, not deleted.",
        )
    _drop(conn, found)
    return ((key, None),), ""


def import_search(conn: sqlite3.Connection, entry: dict[str, Any], now: float) -> str | None:
    """Merge one saved search from an import; returns the name it was stored under, or None
    when it was already here (same name and query, or kept by an earlier import of it).
    A different search of that name is never replaced: the import is kept beside it."""
    rows = _rows(conn)
    name, query, sort = entry["name"], entry["query"], sort_of(entry.get("sort") or "")
    key = name_key(name)
    for other_key, row in rows.items():
        same_name = other_key == key or other_key.startswith(key + " (")
        if same_name and (row.query, sort_of(row.sort)) == (query, sort):
            return None
    stored = free_name(name, rows)
    created = _time(entry.get("created"), now)
    _put(conn, SavedSearch(stored, query, sort, created, _time(entry.get("updated"), created)))
    return stored
