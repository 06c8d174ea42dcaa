"""Reading every table into a `StoreData`.

The tables are STRICT (since schema version 5, see `strict.py`), so each value is of the type
its column declares and is taken as it is. A store of an older schema is read after its
migration (opened read-only: a migrated copy in memory, see `opening.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from tui.store.names import name_key
from tui.store.origins import NO_ORIGIN, read_origins
from tui.store.packs import PACK_COLUMNS, read_packs
from tui.store.records import (
    ConflictCopy,
    NoteRow,
    SavedSearch,
    Snapshot,
    StoreData,
    paper_of,
)

Rows = Callable[[str], Iterable[tuple[Any, ...]]]


def read_all(rows: Rows, data: StoreData) -> None:
    """Fill `data` from every table, each read with `rows(sql)`."""
    # Each origin read once: the records of a file share it (and its path's text).
    origins = read_origins(rows("SELECT origin, source, collection, venue, year FROM origins"))
    # Records of bulk steps first: one also in `records` (written on its own) is read there.
    data.records.update(
        read_packs(rows(f"SELECT {PACK_COLUMNS} FROM record_packs ORDER BY pack"), origins)
    )
    for i, text, headline, origin, position, paper in rows(
        "SELECT id, text, headline, origin, position, paper FROM records"
    ):
        # An origin missing (no version of abstracts removes one): the record still reads.
        data.records[i] = Snapshot.at(
            origins.get(origin) or NO_ORIGIN, text, headline, position, paper_of(paper)
        )
    data.bookmarks = dict(rows("SELECT id, created FROM bookmarks"))
    data.dismissals = dict(rows("SELECT id, created FROM dismissals"))
    data.reads = dict(rows("SELECT id, read_at FROM reads"))
    for i, text, version, updated in rows("SELECT id, text, version, updated FROM notes"):
        data.notes[i] = NoteRow(text, version, updated)
    data.conflicts = [
        ConflictCopy(*c)
        for c in rows(
            "SELECT copy_id, id, text, created, origin FROM conflict_copies ORDER BY copy_id"
        )
    ]
    data.state = dict(rows("SELECT key, value FROM state"))
    data.aliases = dict(rows("SELECT old_id, new_id FROM aliases"))
    for i, tag, t in rows("SELECT id, tag, created FROM tags"):
        data.tags.setdefault(i, {})[tag] = t
    for row in rows(
        "SELECT name, query, sort, created, updated FROM saved_searches ORDER BY rowid"
    ):
        # Two names differing only in case (not written by abstracts): the first is kept.
        data.searches.setdefault(name_key(row[0]), SavedSearch(*row))
