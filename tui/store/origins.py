"""Version 6 of the schema: where a record came from is held once, in `origins`; the
records a bulk step makes are kept together, in `record_packs` (see `packs.py`); and the
step that brings a version-5 store into it keeping every row.

A record keeps what its abstract looked like so the user's marks and notes survive the
corpus file going away (see `records.Snapshot`). Up to version 5 each record held its
source file's path, the collection label, venue and year as text of its own, the same
for every abstract of a file: tagging 100,000 abstracts wrote them 100,000 times. Now
each (source, collection, venue, year) is one row of `origins`, and a record (or a
pack's record) names it by its integer. Origins are
never removed (no record ever is), so an origin named by a record is always there;
loading still reads a record whose origin is missing, with an empty source.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from tui.store.records import Origin
from tui.store.strict import V5_TABLES

#: The origin of a record whose origin row is missing (no version of abstracts removes one).
NO_ORIGIN = Origin()

# The records and origins of version 6; every other table is as in version 5. The
# index on `source` serves the look-up of an origin when a record is written.
_V6_ORIGINS = (
    """CREATE TABLE origins(
        origin INTEGER PRIMARY KEY,
        source TEXT NOT NULL,
        collection TEXT NOT NULL,
        venue TEXT,
        year INTEGER) STRICT""",
    "CREATE INDEX origins_source ON origins(source)",
    """CREATE TABLE records(
        id TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        headline TEXT NOT NULL,
        origin INTEGER NOT NULL REFERENCES origins(origin),
        position INTEGER NOT NULL DEFAULT 0,
        created REAL NOT NULL,
        updated REAL NOT NULL,
        paper TEXT) STRICT""",
    # The records made by one bulk step, together (see `packs.py`).
    """CREATE TABLE record_packs(
        pack INTEGER PRIMARY KEY,
        created REAL NOT NULL,
        ids TEXT NOT NULL,
        origins TEXT NOT NULL,
        positions TEXT NOT NULL,
        headlines TEXT NOT NULL,
        papers TEXT NOT NULL,
        lengths TEXT NOT NULL,
        texts BLOB NOT NULL) STRICT""",
)
# V5_TABLES[0] is its records table.
V6_TABLES = _V6_ORIGINS + V5_TABLES[1:]


def origin_ids(conn: sqlite3.Connection, origins: Sequence[Origin]) -> list[int]:
    """The number in `origins` of each origin, in order; one not there yet is added
    (inside the caller's write transaction, so two processes never add the same one)."""
    numbers = []
    for o in origins:
        key = (o.source, o.collection, o.venue, o.year)
        row = conn.execute(
            "SELECT origin FROM origins WHERE source = ? AND collection = ? AND venue IS ? "
            "AND year IS ? ORDER BY origin LIMIT 1",
            key,
        ).fetchone()
        if row is None:
            row = (
                conn.execute(
                    "INSERT INTO origins(source, collection, venue, year) VALUES (?, ?, ?, ?)", key
                ).lastrowid,
            )
        numbers.append(int(row[0]))
    return numbers


def read_origins(rows: Iterable[tuple[Any, ...]]) -> dict[int, Origin]:
    """Each row of `origins` (origin, source, collection, venue, year) by its number."""
    return {
        o: Origin(source, collection, venue, year) for o, source, collection, venue, year in rows
    }


def v5_to_v6(conn: sqlite3.Connection) -> None:
    """Move every record of a version-5 store into the records and origins of version 6
    (inside the migration's transaction): one origin per distinct (source, collection,
    venue, year), in the order of the records that first name it. No pack is made: a
    record of version 5 stays a row of `records`."""
    conn.execute("ALTER TABLE records RENAME TO records_v5")
    for statement in _V6_ORIGINS:
        conn.execute(statement)
    conn.execute(
        """INSERT INTO origins(source, collection, venue, year)
           SELECT source, collection, venue, year FROM records_v5
           GROUP BY source, collection, venue, year ORDER BY min(rowid)"""
    )
    # `IS`: a venue or year unknown (NULL) matches the origin that has none.
    conn.execute(
        """INSERT INTO records(id, text, headline, origin, position, created, updated, paper)
           SELECT r.id, r.text, r.headline, o.origin, r.position, r.created, r.updated, r.paper
           FROM records_v5 AS r JOIN origins AS o
             ON o.source = r.source AND o.collection = r.collection
             AND o.venue IS r.venue AND o.year IS r.year
           ORDER BY r.rowid"""
    )
    # Safe to drop: every row was copied above, in the same transaction (each record
    # matches exactly one origin: they were made from its distinct values).
    conn.execute("DROP TABLE records_v5")
