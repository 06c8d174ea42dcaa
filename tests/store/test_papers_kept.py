"""The store keeps each record's paper (title, authors, ids, links), so exports need no files.

A database written by the release before papers (schema 3) opens with every row in
place; a record of a conference paragraph has no paper and is stored and exported
exactly as before.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.store.helpers import (
    PAPER,
    PAPER_TEXT,
    PARAGRAPHS,
    make_abstract,
    make_paper_abstract,
    sqlite_file,
)
from tui.commands import export as export_command
from tui.corpus.model import abstract_id
from tui.corpus.paper import Paper
from tui.locations import database_path
from tui.store import rescue, schema
from tui.store.db import Store
from tui.store.export import merge, parse_export, snapshot_fields, to_json
from tui.store.operations import SetBookmark
from tui.store.records import (
    ConflictCopy,
    NoteRow,
    SavedSearch,
    Snapshot,
    StoreData,
    paper_of,
    paper_text,
)
from tui.store.userdata import UserData

P = make_paper_abstract(PAPER, PAPER_TEXT)
A = make_abstract(PARAGRAPHS[0])


def _schema_3_store(directory: Path) -> Path:
    """A data directory as today's release leaves it: schema 3, text ids, every table used."""
    directory.mkdir(parents=True, exist_ok=True)
    one, two = abstract_id(PARAGRAPHS[0]), abstract_id(PARAGRAPHS[1])
    return sqlite_file(
        database_path(directory),
        *schema.KNOWN_SCHEMAS[3],
        "INSERT INTO records VALUES "
        f"('{one}', '{PARAGRAPHS[0]}', 'We prove bounds', '/c/iclr.txt', 3, 'ICLR 2023 Papers',"
        " 'ICLR', 2023, 10.0, 11.0),"
        f"('{two}', '{PARAGRAPHS[1]}', 'Achieving fusion', '', 0, '', NULL, NULL, 12.0, 12.0)",
        f"INSERT INTO bookmarks VALUES ('{one}', 20.0)",
        f"INSERT INTO dismissals VALUES ('{two}', 21.0)",
        f"INSERT INTO reads VALUES ('{one}', 22.0)",
        f"INSERT INTO notes VALUES ('{one}', 'my note', 7, 23.0)",
        f"INSERT INTO conflict_copies(id, text, created, origin) VALUES ('{one}', 'other', 24.0, 'x')",
        f"INSERT INTO aliases VALUES ('0123456789abcdef', '{one}', 25.0)",
        "INSERT INTO state VALUES ('resume', 'graph', 26.0)",
        f"INSERT INTO tags VALUES ('{one}', 'to-cite', 27.0)",
        "INSERT INTO saved_searches VALUES ('Graphs', 'graph', 'file', 28.0, 29.0)",
        version=3,
    )


def _schema_3_data() -> StoreData:
    one, two = abstract_id(PARAGRAPHS[0]), abstract_id(PARAGRAPHS[1])
    return StoreData(
        records={
            one: Snapshot(
                PARAGRAPHS[0], "We prove bounds", "/c/iclr.txt", 3, "ICLR 2023 Papers", "ICLR", 2023
            ),
            two: Snapshot(PARAGRAPHS[1], "Achieving fusion"),
        },
        bookmarks={one: 20.0},
        dismissals={two: 21.0},
        reads={one: 22.0},
        notes={one: NoteRow("my note", 7, 23.0)},
        conflicts=[ConflictCopy(1, one, "other", 24.0, "x")],
        state={"resume": "graph"},
        aliases={"0123456789abcdef": one},
        searches={"graphs": SavedSearch("Graphs", "graph", "file", 28.0, 29.0)},
        tags={one: {"to-cite": 27.0}},
    )


def test_a_schema_3_store_migrates_with_every_row_in_place(tmp_path: Path) -> None:
    _schema_3_store(tmp_path)
    store = Store.open(tmp_path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    assert store.load() == _schema_3_data()
    assert schema.foreign_reason(store.conn, schema.SCHEMA_VERSION) is None
    columns = [r[1] for r in store.conn.execute("SELECT * FROM pragma_table_info('records')")]
    assert columns[-1] == "paper"
    assert store.conn.execute("SELECT count(*) FROM records WHERE paper IS NULL").fetchone() == (2,)
    assert store.integrity_check() == "ok"
    store.close()


def test_a_schema_3_store_exported_read_only_keeps_every_record(tmp_path: Path) -> None:
    """`abstracts export` opens the store read-only, so its file is never migrated: the
    records are read from a migrated copy in memory."""
    _schema_3_store(tmp_path)
    assert export_command.load(tmp_path) == _schema_3_data()
    version = sqlite3.connect(database_path(tmp_path)).execute("PRAGMA user_version").fetchone()
    assert version == (3,)


def test_a_new_store_has_the_paper_column() -> None:
    conn = sqlite3.connect(":memory:")
    schema.migrate(conn)
    assert conn.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)
    assert schema.foreign_reason(conn, schema.SCHEMA_VERSION) is None
    assert schema.foreign_reason(conn, 5) == "tables abstracts does not make: origins, record_packs"


def test_a_bookmarked_paper_is_stored_with_its_paper(data_dir: Path) -> None:
    ud = UserData.open(data_dir)
    ud.set_bookmark(P, True)
    ud.set_bookmark(A, True)
    assert ud.close() is None
    store = Store.open(data_dir)
    records = store.load().records
    assert records[P.id] == Snapshot(
        PAPER_TEXT,
        P.headline,
        str(Path("library.bib").absolute()),
        1,
        "Advances in Neural Information Processing Systems 2017",
        "Advances in Neural Information Processing Systems",
        2017,
        PAPER,
    )
    assert records[A.id].paper is None
    stored = dict(store.conn.execute("SELECT id, paper FROM records"))
    assert stored[A.id] is None
    assert json.loads(stored[P.id]) == PAPER.to_json()
    store.close()


def test_a_snapshot_refreshed_without_a_paper_forgets_the_old_one(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.apply([SetBookmark(P.id, True, Snapshot.of(P), 1.0)])
    store.apply([SetBookmark(P.id, True, Snapshot("text", "head"), 2.0)])
    assert store.load().records[P.id] == Snapshot("text", "head")
    store.close()


@pytest.mark.parametrize("value", ["not json", "[1, 2]", '"title"', "", "[" * 100_000])
def test_a_damaged_paper_value_reads_as_no_paper(tmp_path: Path, value: str) -> None:
    store = Store.open(tmp_path)
    store.apply([SetBookmark(P.id, True, Snapshot.of(P), 1.0)])
    with store.transaction() as conn:
        conn.execute("UPDATE records SET paper = ?", (value,))
    made = Snapshot.of(P)
    no_paper = Snapshot.at(made.origin, made.text, made.given_headline, made.position, None)
    assert store.load().records[P.id] == no_paper
    assert store.notices == []
    store.close()


def test_paper_text_is_json_with_non_ascii_kept_and_reads_back() -> None:
    text = paper_text(PAPER)
    assert text is not None and "Müller" in text and "\\u" not in text
    assert json.loads(text) == PAPER.to_json()
    assert paper_of(text) == PAPER
    assert paper_text(None) is None and paper_of(None) is None
    assert paper_text(Paper(title="Lone \udc80 byte")) == paper_text(
        Paper(title="Lone \ufffd byte")
    )


def test_the_json_export_carries_the_paper_and_only_where_there_is_one() -> None:
    data = StoreData(records={P.id: Snapshot.of(P), A.id: Snapshot.of(A)}, bookmarks={P.id: 1.0})
    doc = json.loads(to_json(data))
    by_id = {r["id"]: r for r in doc["records"]}
    assert by_id[P.id]["paper"] == PAPER.to_json()
    assert by_id[A.id] == {"id": A.id, **snapshot_fields(Snapshot.of(A))}
    assert "paper" not in by_id[A.id]
    assert set(by_id[A.id]) == {
        "id",
        "text",
        "headline",
        "source",
        "position",
        "collection",
        "venue",
        "year",
    }


def test_importing_a_json_export_gives_back_each_paper(tmp_path: Path) -> None:
    data = StoreData(records={P.id: Snapshot.of(P), A.id: Snapshot.of(A)}, bookmarks={P.id: 1.0})
    store = Store.open(tmp_path)
    report = merge(store, parse_export(to_json(data)), origin="test")
    assert report.records == 2
    assert store.load().records == data.records
    again = merge(store, parse_export(to_json(data)), origin="test")
    assert again.records == 0 and not again.changed
    store.close()


def test_an_import_gives_a_stored_record_its_paper_only_when_it_has_none(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    bare = Snapshot(PAPER_TEXT, "kept headline")
    second = make_paper_abstract(Paper(title="Second"), "Another abstract.")
    store.apply([SetBookmark(i, True, bare, 1.0) for i in (P.id, second.id)])
    snapshots = {P.id: Snapshot.of(P), second.id: Snapshot.of(second)}
    doc = parse_export(to_json(StoreData(records=snapshots)))
    assert merge(store, doc, origin="test").records == 2
    records = store.load().records
    assert records[P.id] == Snapshot(PAPER_TEXT, "kept headline", paper=PAPER)
    assert records[second.id] == Snapshot(PAPER_TEXT, "kept headline", paper=Paper(title="Second"))
    other = Paper(title="Another title")
    for record in doc["records"]:
        record["paper"] = other.to_json()
    assert merge(store, doc, origin="test").records == 0
    assert store.load().records[P.id].paper == PAPER
    store.close()


def test_a_rescue_file_carries_the_paper(tmp_path: Path) -> None:
    op = SetBookmark(P.id, True, Snapshot.of(P), 5.0)
    doc = rescue.rescue_document([op], {}, lambda _: 0, "test")
    assert doc["records"] == [{"id": P.id, **snapshot_fields(Snapshot.of(P))}]
    assert doc["records"][0]["paper"]["ids"] == {
        "doi": "10.5555/3295222.3295349",
        "arxiv": "1706.03762",
        "citekey": "vaswani2017attention",
    }
    store = Store.open(tmp_path)
    merge(store, parse_export(json.dumps(doc)), origin="rescue")
    assert store.load().records[P.id].paper == PAPER
    store.close()


@pytest.mark.parametrize(
    "paper",
    [
        {"title": "Kept", "year": "2017", "authors": [{"given": "X"}]},
        {"title": "Kept", "authors": 5, "keywords": "a", "ids": ["doi"], "links": 3},
        {"title": "Kept", "authors": {"family": "Doe"}, "year": True, "extra": None},
    ],
)
def test_a_paper_of_the_wrong_shape_in_an_import_keeps_what_is_right(
    tmp_path: Path, paper: dict[str, object]
) -> None:
    """Fields of the wrong type are dropped, as from any source; the record is imported."""
    doc = parse_export(to_json(StoreData(records={P.id: Snapshot.of(P)})))
    doc["records"][0]["paper"] = paper
    store = Store.open(tmp_path)
    merge(store, doc, origin="test")
    assert store.load().records[P.id].paper == Paper(title="Kept")
    store.close()
