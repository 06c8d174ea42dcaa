"""Schema 6 (origins): where a record came from is held once per file, in `origins`. A
store written by the schema-5 release, and one written here with that release's SQL,
migrate keeping every value of every row; records sharing a file share one origin, in
the database and in memory; a record keeps its file's name after the file is gone."""

from __future__ import annotations

import copy
import pickle
import sqlite3
from pathlib import Path

import pytest

from tests.store.helpers import RELEASE_V5, every_row, make_abstract, release_store
from tui.commands import export as export_command
from tui.corpus.model import Abstract, Collection, Corpus, SourceRef, abstract_id
from tui.corpus.paper import Paper
from tui.locations import database_path
from tui.store import schema
from tui.store.db import Store, StoreUnavailable
from tui.store.operations import SetBookmark
from tui.store.origins import v5_to_v6
from tui.store.records import Origin, Snapshot, paper_text
from tui.store.strict import V5_TABLES
from tui.store.userdata import UserData

# How the schema-5 release wrote a record (tui/store/sql.py of that release).
_PUT_RECORD_V5 = """INSERT INTO records(id, text, headline, source, position, collection, venue,
                                      year, paper, created, updated)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT(id) DO UPDATE SET text=excluded.text, headline=excluded.headline,
             source=excluded.source, position=excluded.position,
             collection=excluded.collection, venue=excluded.venue, year=excluded.year,
             paper=excluded.paper, updated=excluded.updated"""

_HUGE = "Long abstract. " * 70_000  # about 1 MB
_PAPER = Paper(title="Ünïcode — a paper", year=2021)

#: (id, snapshot) of records as the schema-5 release could hold them: empty and huge
#: text, text and names beyond ASCII, sixty records of one file, one file under two
#: collections, unknown venue and year, no file at all, a paper.
_RECORDS = [
    ("empty", Snapshot("", "", "/d/a.txt", 1, "ICLR 2023 Papers", "ICLR", 2023)),
    ("unicode", Snapshot("Ünïcode — “quotes” ✓ 𝔸", "Ü", "/d/café ✓.txt", 2, "Ärger", "Ä", 1999)),
    ("huge", Snapshot(_HUGE, "Long abstract.", "/d/a.txt", 3, "ICLR 2023 Papers", "ICLR", 2023)),
    *[
        (f"shared{n}", Snapshot(f"Text {n}.", "", "/d/many.txt", n, "Workshop", "W", 2020))
        for n in range(60)
    ],
    ("other label", Snapshot("Same file.", "h", "/d/many.txt", 61, "Workshop 2", "W", 2020)),
    ("no venue", Snapshot("No venue.", "h", "/d/misc.txt", 1, "Misc")),
    ("no file", Snapshot("No file.", "h")),
    ("paper", Snapshot("With a paper.", "h", "/d/lib.bib", 1, "NeurIPS", "NeurIPS", 2021, _PAPER)),
]


def _v5_store(data_dir: Path) -> Path:
    """A store of schema 5 made with that release's tables and SQL, holding `_RECORDS`
    (written at times 1.0, 2.0, ...) and a tag on each."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = database_path(data_dir)
    conn = sqlite3.connect(path)
    with conn:
        for statement in V5_TABLES:
            conn.execute(statement)
        for n, (i, s) in enumerate(_RECORDS, start=1):
            row = (i, s.text, s.given_headline, s.source, s.position, s.collection)
            more = (s.venue, s.year, paper_text(s.paper), float(n), float(n))
            conn.execute(_PUT_RECORD_V5, row + more)
            conn.execute("INSERT INTO tags(id, tag, created) VALUES (?, 't', ?)", (i, float(n)))
        conn.execute("PRAGMA user_version = 5")
    conn.close()
    return path


def test_every_value_of_a_schema_5_record_is_kept(data_dir: Path) -> None:
    path = _v5_store(data_dir)
    before = every_row(path)
    store = Store.open(data_dir)
    assert store.notices == []
    assert store.conn.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)
    assert store.load().records == dict(_RECORDS)
    assert store.integrity_check() == "ok"
    store.close()
    assert every_row(path) == before
    assert len(before["records"]) == len(_RECORDS) and len(before["tags"]) == len(_RECORDS)


def test_the_migration_makes_one_origin_per_file_and_collection(data_dir: Path) -> None:
    _v5_store(data_dir)
    store = Store.open(data_dir)
    origins = store.conn.execute(
        "SELECT source, collection, venue, year FROM origins ORDER BY origin"
    ).fetchall()
    assert origins == [
        ("/d/a.txt", "ICLR 2023 Papers", "ICLR", 2023),
        ("/d/café ✓.txt", "Ärger", "Ä", 1999),
        ("/d/many.txt", "Workshop", "W", 2020),
        ("/d/many.txt", "Workshop 2", "W", 2020),
        ("/d/misc.txt", "Misc", None, None),
        ("", "", None, None),
        ("/d/lib.bib", "NeurIPS", "NeurIPS", 2021),
    ]
    shared = store.conn.execute(
        "SELECT count(DISTINCT origin), count(*) FROM records WHERE id LIKE 'shared%'"
    ).fetchone()
    assert shared == (1, 60)
    store.close()


def test_the_schema_5_release_store_exported_read_only_is_not_changed(data_dir: Path) -> None:
    path = release_store(data_dir, RELEASE_V5)
    before = path.read_bytes()
    exported = export_command.load(data_dir)  # read from a migrated copy in memory
    assert path.read_bytes() == before
    store = Store.open(data_dir)
    assert exported == store.load()
    assert len(exported.records) == 7
    store.close()


def test_a_failed_migration_to_origins_leaves_the_file_as_it_was(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _v5_store(data_dir)
    before = every_row(path)

    def fails_after_the_copy(conn: sqlite3.Connection) -> None:
        v5_to_v6(conn)
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setitem(schema.MIGRATIONS, 5, (6, fails_after_the_copy))
    with pytest.raises(StoreUnavailable, match="disk I/O error"):
        Store.open(data_dir)
    assert every_row(path) == before
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone() == (5,)
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'origins'").fetchone() is None
    conn.close()


def test_records_of_one_file_share_one_origin_row_across_steps(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    one = [make_abstract(f"Paragraph {n} of the file.", "f.txt", n) for n in range(1, 4)]
    two = make_abstract("Another file's paragraph.", "g.txt")
    store.apply([SetBookmark(a.id, True, Snapshot.of(a), 1.0) for a in one[:2]])
    store.apply([SetBookmark(a.id, True, Snapshot.of(a), 2.0) for a in (one[2], two)])
    # An origin equal to a stored one but another object (made without the cache).
    made = Snapshot.of(one[0])
    twin = Origin(made.source, made.collection, made.venue, made.year)
    assert twin is not made.origin
    store.apply([SetBookmark("twin", True, Snapshot.at(twin, "Twin.", "", 9, None), 3.0)])
    rows = store.conn.execute(
        "SELECT o.source, count(*) FROM records JOIN origins AS o USING (origin) GROUP BY origin"
    ).fetchall()
    assert rows == [(str(Path("f.txt").absolute()), 4), (str(Path("g.txt").absolute()), 1)]
    store.close()


def test_a_record_refreshed_from_another_file_names_that_files_origin(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    a = make_abstract("The same paragraph in two files.", "old.txt", 4)
    moved = Abstract(a.id, a.text, Collection("Misc"), [SourceRef(Path("new.txt"), 1)])
    store.apply([SetBookmark(a.id, True, Snapshot.of(a), 1.0)])
    store.apply([SetBookmark(a.id, True, Snapshot.of(moved), 2.0)])
    record = store.load().records[a.id]
    assert (record.source, record.position, record.collection, record.venue, record.year) == (
        str(Path("new.txt").absolute()),
        1,
        "Misc",
        None,
        None,
    )
    store.close()


def test_a_record_whose_origin_row_is_missing_still_loads(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    a = make_abstract("Kept whatever happens to its origin.")
    store.apply([SetBookmark(a.id, True, Snapshot.of(a), 1.0)])
    with store.transaction() as conn:
        conn.execute("DELETE FROM origins")
    record = store.load().records[a.id]
    assert (record.text, record.source, record.collection, record.venue) == (a.text, "", "", None)
    store.close()


def test_a_tagged_record_keeps_its_text_and_file_after_the_file_is_gone(
    tmp_path: Path, data_dir: Path
) -> None:
    corpus_file = tmp_path / "iclr.txt"
    corpus_file.write_text("unused")
    texts = [f"Abstract {n} of a file that will be deleted." for n in range(150)]
    collection = Collection("ICLR 2023 Papers", "ICLR", 2023)
    abstracts = [
        Abstract(abstract_id(t), t, collection, [SourceRef(corpus_file, n + 1)])
        for n, t in enumerate(texts)
    ]
    ud = UserData.open(data_dir)
    ud.attach(Corpus(abstracts, [], []))
    ud.set_tags(on=[(a.id, "kept") for a in abstracts])  # a bulk step: records made
    assert ud.close() is None
    corpus_file.unlink()
    ud = UserData.open(data_dir)
    ud.attach(Corpus([], [], []))
    for n, a in enumerate(abstracts):
        snap = ud.snapshot(a.id)
        assert snap is not None and ud.tags_of(a.id) == {"kept"}
        assert (snap.text, snap.source, snap.position) == (a.text, str(corpus_file), n + 1)
    ud.close()


def test_snapshots_of_one_file_share_their_origin() -> None:
    a = make_abstract("First paragraph.", "f.txt", 1)
    b = make_abstract("Second paragraph.", "f.txt", 2)
    c = make_abstract("Elsewhere.", "g.txt", 1)
    assert Snapshot.of(a, cwd="/d").origin is Snapshot.of(b, cwd="/d").origin
    assert Snapshot.of(a, cwd="/d").origin == Origin("/d/f.txt", "ICLR 2023 Papers", "ICLR", 2023)
    assert Snapshot.of(c, cwd="/d").source == "/d/g.txt"
    assert Snapshot.of(a, cwd="/e").source == "/e/f.txt"  # the directory is part of the key


def test_a_snapshot_of_an_abstract_without_a_file_keeps_its_collection() -> None:
    a = Abstract("x", "Text.", Collection("Misc\udcff", None, 2001), [])
    snap = Snapshot.of(a, headline=False)
    assert (snap.source, snap.position, snap.collection, snap.year) == ("", 0, "Misc\ufffd", 2001)


def test_a_snapshot_is_a_value_compared_by_every_field() -> None:
    snap = Snapshot("Text.", "Head", "/d/a.txt", 3, "C", "V", 2020, _PAPER)
    same = Snapshot.at(Origin("/d/a.txt", "C", "V", 2020), "Text.", "Head", 3, _PAPER)
    assert snap == same and hash(snap) == hash(same)
    assert (snap.source, snap.collection, snap.venue, snap.year) == ("/d/a.txt", "C", "V", 2020)
    for other in (
        Snapshot("Text!", "Head", "/d/a.txt", 3, "C", "V", 2020, _PAPER),
        Snapshot("Text.", "Head", "/d/b.txt", 3, "C", "V", 2020, _PAPER),
        Snapshot("Text.", "Head", "/d/a.txt", 4, "C", "V", 2020, _PAPER),
        Snapshot("Text.", "Head", "/d/a.txt", 3, "C", "V", 2021, _PAPER),
        Snapshot("Text.", "Head", "/d/a.txt", 3, "C", "V", 2020),
        Snapshot("Text.", "", "/d/a.txt", 3, "C", "V", 2020, _PAPER),
    ):
        assert other != snap
    with pytest.raises(AttributeError):
        snap.text = "changed"
    assert "source='/d/a.txt'" in repr(snap)


def test_a_headline_made_from_the_text_is_made_once() -> None:
    snap = Snapshot("A first sentence. And more.", "")
    made = snap.headline
    assert made == "A first sentence."
    assert snap.headline is made
    assert snap == Snapshot("A first sentence. And more.", "")  # the cache is not a field


def test_snapshots_made_for_a_bulk_step_are_those_made_one_at_a_time() -> None:
    one = [make_abstract(f"Paragraph {n}.", "f.txt", n) for n in range(1, 4)]
    path = one[0].sources[0].path  # one Path per file, shared, as the loader does
    misc = Collection("Misc", None, None)
    same_file_other_label = Abstract("m", "Other label.", misc, [SourceRef(path, 9)])
    no_file = Abstract("n", "No file.", misc, [])
    with_paper = Abstract("p", "A paper.", misc, [SourceRef(Path("/abs/lib.bib"), 1)], paper=_PAPER)
    abstracts = [*one, same_file_other_label, no_file, with_paper, *one]
    many = Snapshot.of_many(abstracts, "/d")
    assert many == [Snapshot.of(a, headline=False, cwd="/d") for a in abstracts]
    assert many[0].origin is many[2].origin and many[3].origin != many[0].origin
    assert (many[4].source, many[5].source) == ("", "/abs/lib.bib")
    assert many[5].paper == _PAPER
    assert Snapshot.of_many([], "/d") == []


def test_a_snapshot_copies_and_pickles_as_it_is() -> None:
    snap = Snapshot("Text.", "Head", "/d/a.txt", 3, "C", "V", 2020, _PAPER)
    assert copy.copy(snap) == snap
    assert pickle.loads(pickle.dumps(snap)) == snap


def test_an_origin_without_venue_or_year_is_found_again(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    for n, at in enumerate((1.0, 2.0)):
        snap = Snapshot(f"Text {n}.", "", "/d/misc.txt", n, "Misc")  # venue and year unknown
        store.apply([SetBookmark(f"r{n}", True, snap, at)])
    assert store.conn.execute("SELECT count(*) FROM origins").fetchone() == (1,)
    assert store.load().records["r1"] == Snapshot("Text 1.", "", "/d/misc.txt", 1, "Misc")
    store.close()
