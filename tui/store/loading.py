"""Reading rows whatever they hold: a bad value is replaced, never fatal, text is never lost.

SQLite columns accept any type, so a row may hold a value no version of this program
meant to write (`'yesterday'` in a REAL column, written by an older import). One such
value must not make the whole store unreadable: it is replaced by a default, the
replacement is remembered, and `Store.load` reports it as a notice.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from tui.store.names import name_key
from tui.store.records import (
    ConflictCopy,
    NoteRow,
    SavedSearch,
    Snapshot,
    StoreData,
    paper_of,
)

Rows = Callable[[str], Iterable[tuple[Any, ...]]]


def as_text(value: Any) -> str:
    """Any stored value as text (bytes decoded, NULL as empty)."""
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def as_version(value: Any) -> int:
    """A note version, or 0 (which any save based on "no version" matches) when unreadable."""
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return 0


class RowReader:
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
        version = as_version(value)
        if version == 0 and value not in (0, "0"):
            self._bad(where, value, 0)
        return version

    def notice(self) -> str | None:
        """One message for the user, or None when every value was as expected."""
        if not self.replaced:
            return None
        shown = "; ".join(self.replaced[:3])
        more = f" (and {len(self.replaced) - 3} more)" if len(self.replaced) > 3 else ""
        return (
            f"Some saved values could not be read and were replaced: {shown}{more}. "
            "No note text was lost; saving the item again stores a correct value."
        )


def read_all(rows: Rows, data: StoreData, reader: RowReader) -> None:
    """Fill `data` from every table, through `reader`."""
    # A store of schema 3 or older, opened read-only (an export), has no `paper` column.
    columns = {as_text(c[0]) for c in rows("SELECT name FROM pragma_table_info('records')")}
    paper = "paper" if "paper" in columns else "NULL"
    for r in rows(
        f"SELECT id, text, headline, source, position, collection, venue, year, {paper} "
        "FROM records"
    ):
        i = as_text(r[0])
        data.records[i] = Snapshot(
            text=as_text(r[1]),
            headline=as_text(r[2]),
            source=as_text(r[3]),
            position=reader.integer(r[4], f"the position of record {i}", 0) or 0,
            collection=as_text(r[5]),
            venue=None if r[6] is None else as_text(r[6]),
            year=reader.integer(r[7], f"the year of record {i}", None),
            paper=paper_of(r[8]),
        )
    for i, t in rows("SELECT id, created FROM bookmarks"):
        data.bookmarks[as_text(i)] = reader.time(t, f"the bookmark time of {as_text(i)}")
    for i, t in rows("SELECT id, created FROM dismissals"):
        data.dismissals[as_text(i)] = reader.time(t, f"the dismissal time of {as_text(i)}")
    for i, t in rows("SELECT id, read_at FROM reads"):
        data.reads[as_text(i)] = reader.time(t, f"the read time of {as_text(i)}")
    for i, text, version, updated in rows("SELECT id, text, version, updated FROM notes"):
        i = as_text(i)
        data.notes[i] = NoteRow(
            as_text(text),
            reader.version(version, f"the version of note {i}"),
            reader.time(updated, f"the time of note {i}"),
        )
    for c in rows(
        "SELECT copy_id, id, text, created, origin FROM conflict_copies ORDER BY copy_id"
    ):
        i = as_text(c[1])
        data.conflicts.append(
            ConflictCopy(
                reader.integer(c[0], f"a conflict copy id of {i}", 0) or 0,
                i,
                as_text(c[2]),
                reader.time(c[3], f"the time of a conflict copy of {i}"),
                as_text(c[4]),
            )
        )
    data.state = {as_text(k): as_text(v) for k, v in rows("SELECT key, value FROM state")}
    data.aliases = {as_text(o): as_text(n) for o, n in rows("SELECT old_id, new_id FROM aliases")}
    for i, tag, t in rows("SELECT id, tag, created FROM tags"):
        i = as_text(i)
        data.tags.setdefault(i, {})[as_text(tag)] = reader.time(t, f"the time of a tag of {i}")
    for name, query, sort, created, updated in rows(
        "SELECT name, query, sort, created, updated FROM saved_searches ORDER BY rowid"
    ):
        shown = as_text(name)
        # Two names differing only in case (not written by abstracts): the first is kept.
        data.searches.setdefault(
            name_key(shown),
            SavedSearch(
                shown,
                as_text(query),
                as_text(sort),
                reader.time(created, f"the creation time of saved search {shown!r}"),
                reader.time(updated, f"the time of saved search {shown!r}"),
            ),
        )
