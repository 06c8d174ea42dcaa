"""The records a bulk step makes, kept together: one row of `record_packs` per step.

Tagging 100,000 abstracts for the first time makes a record for each (its text, so the
tag outlives the corpus file). Written a row each, SQLite's per-row work (binding the
values, inserting into the table and into the index of ids) was most of the step's time
whatever the rows' size. A pack holds the step's records in one row: their ids,
origins, positions, headlines and papers as JSON arrays, and their texts in UTF-8 one
after another with each one's length in bytes. A record written later on its own (a bookmark, a note,
a re-attachment, an import) goes to `records` as before, and a record in both is read
from `records`. Packs are never changed or removed, as no record ever is.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from tui.store.origins import NO_ORIGIN, origin_ids, read_origins
from tui.store.records import Origin, Snapshot, paper_of, paper_text

#: The columns of a pack as `read_packs` takes them.
PACK_COLUMNS = "ids, origins, positions, headlines, papers, lengths, texts"


def put_pack(conn: sqlite3.Connection, records: Sequence[tuple[str, Snapshot]], at: float) -> None:
    """Keep `records` (id, snapshot) in one pack made at `at`; nothing when there are none."""
    if not records:
        return
    # The abstracts of a step come from a few files, whose records share an origin object:
    # each is looked up once (by identity; two equal origins are found as the same row).
    distinct = {id(s.origin): s.origin for _, s in records}
    numbers = dict(zip(distinct, origin_ids(conn, list(distinct.values())), strict=True))
    # UTF-8, each text on its own: joined as one `str`, a single character beyond the BMP
    # in any text made the whole of them four bytes a character to join and encode.
    texts = [s.text.encode() for _, s in records]
    conn.execute(
        f"INSERT INTO record_packs(created, {PACK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            at,
            json.dumps([i for i, _ in records]),
            json.dumps([numbers[id(s.origin)] for _, s in records]),
            json.dumps([s.position for _, s in records]),
            json.dumps([s.given_headline for _, s in records]),
            json.dumps([None if s.paper is None else paper_text(s.paper) for _, s in records]),
            json.dumps([len(t) for t in texts]),
            b"".join(texts),
        ),
    )


def read_packs(
    rows: Iterable[tuple[Any, ...]], origins: dict[int, Origin]
) -> Iterator[tuple[str, Snapshot]]:
    """The records of each pack (rows of `PACK_COLUMNS`), in order. A pack that cannot be
    read (changed by hand: abstracts never writes one so) is passed over, so the rest of
    the store still opens."""
    for row in rows:
        try:
            yield from _unpacked(row, origins)
        except (ValueError, TypeError, RecursionError):  # not JSON, lengths or UTF-8
            continue


def _unpacked(row: tuple[Any, ...], origins: dict[int, Origin]) -> list[tuple[str, Snapshot]]:
    """The records of one pack; none when its arrays or texts do not match."""
    *arrays, texts = row
    columns = [json.loads(c) for c in arrays]
    ids, lengths = columns[0], columns[-1]
    if not all(isinstance(c, list) and len(c) == len(ids) for c in columns):
        return []
    if sum(lengths) != len(texts) or not all(isinstance(i, str) for i in ids):
        return []
    at, start, out = Snapshot.at, 0, []
    for i, number, position, headline, paper, length in zip(*columns, strict=True):
        text, start = texts[start : start + length].decode(), start + length
        snap = at(origins.get(number) or NO_ORIGIN, text, headline, position, paper_of(paper))
        out.append((i, snap))
    return out


def packed(conn: sqlite3.Connection) -> dict[str, Snapshot]:
    """Every record kept in a pack, by id (a later pack's wins), with the origins as stored."""
    origins = read_origins(
        conn.execute("SELECT origin, source, collection, venue, year FROM origins")
    )
    rows = conn.execute(f"SELECT {PACK_COLUMNS} FROM record_packs ORDER BY pack")
    return dict(read_packs(rows, origins))
