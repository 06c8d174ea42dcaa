"""Schema 5 (STRICT tables): a store written by the schema-4 release (and one written by
the schema-5 release, into schema 6) migrates keeping every row; a failed migration
leaves the file as it was; values of the wrong type, which only older versions could
store, are replaced once, named in one notice, never fatal."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from tests.store.helpers import RELEASE_V4, RELEASE_V5, TABLES, every_row, release_store
from tui.commands import export as export_command
from tui.commands.export import main_export
from tui.store import schema
from tui.store.db import Store, StoreUnavailable
from tui.store.strict import v4_to_v5
from tui.store.userdata import UserData


def _release_store(data_dir: Path) -> Path:
    """`data_dir` holding the store the schema-4 release wrote (see fixtures/)."""
    return release_store(data_dir, RELEASE_V4)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("release", [RELEASE_V4, RELEASE_V5], ids=["schema 4", "schema 5"])
def test_the_release_store_keeps_every_row_in_strict_tables(data_dir: Path, release: Path) -> None:
    path = release_store(data_dir, release)
    before = every_row(path)
    assert sum(map(len, before.values())) == 28 and all(before.values())
    store = Store.open(data_dir)
    assert store.notices == []
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    strict = {
        name: "STRICT" in sql
        for name, sql in store.conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type='table'"
        )
        if name != "sqlite_sequence"
    }
    assert strict == dict.fromkeys([*TABLES, "origins", "record_packs"], True)
    assert schema.foreign_reason(store.conn, schema.SCHEMA_VERSION) is None
    assert store.integrity_check() == "ok"
    store.close()
    assert every_row(path) == before


def test_the_release_stores_data_shows_after_the_migration(data_dir: Path) -> None:
    """What the user had: bookmarks, a dismissal, read marks, notes (one with a copy kept
    from another window), tags, saved searches, a re-attached record and resume state."""
    _release_store(data_dir)
    ud = UserData.open(data_dir)
    try:
        assert len(ud.bookmarked_ids()) == 3 and len(ud.dismissed_ids()) == 1
        assert len(ud.read_ids()) == 3 and len(ud.noted_ids()) == 4
        notes = {r.text for r in ud.notes()}
        assert "Ünïcode — “quotes” ✓ and a tab\there" in notes
        assert [c.text for c in ud.conflict_copies()] == [
            "Second thoughts: the bound is loose.\n- check Lemma 3"
        ]
        assert ud.tag_counts() == {"graphs": 2, "reading": 1, "cite": 1, "old-version": 1}
        assert [s.name for s in ud.saved_searches()] == ["gnn", "Später lesen"]
        assert len(ud.aliases()) == 1
        assert ud.get_state("resume:0123456789abcdef") == '{"selected": "x", "filter": "graph"}'
        [paper] = [ud.snapshot(i) for i in ud.tags_by_id() if "cite" in ud.tags_of(i)]
        assert paper is not None and paper.paper is not None
        assert paper.headline.startswith("Attention Is All You Need")
    finally:
        ud.close()


def test_a_failed_migration_leaves_the_file_as_it_was(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _release_store(data_dir)
    before = every_row(path)

    def fails_half_way(conn: sqlite3.Connection) -> list[str]:
        v4_to_v5(conn)  # every table copied and dropped: then the step fails
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setitem(schema.MIGRATIONS, 4, (5, fails_half_way))
    with pytest.raises(StoreUnavailable, match="disk I/O error"):
        Store.open(data_dir)
    assert every_row(path) == before
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone() == (4,)
    conn.close()
    monkeypatch.undo()
    Store.open(data_dir).close()
    assert every_row(path) == before


def test_an_export_reads_the_release_store_without_changing_it(data_dir: Path) -> None:
    path = _release_store(data_dir)
    digest = _digest(path)
    data = export_command.load(data_dir)
    assert len(data.bookmarks) == 3 and len(data.notes) == 4 and len(data.searches) == 2
    assert _digest(path) == digest


def test_a_strict_table_refuses_a_value_of_the_wrong_type(data_dir: Path) -> None:
    store = Store.open(data_dir)
    with pytest.raises(sqlite3.IntegrityError), store.transaction() as conn:
        conn.execute("INSERT INTO bookmarks(id, created) VALUES ('a', 'yesterday')")
    assert store.load().bookmarks == {}
    store.close()


def _damaged_release_store(data_dir: Path) -> Path:
    """The release store with values of the wrong type, as an older import could write."""
    path = _release_store(data_dir)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT INTO notes(id, text, version, updated) VALUES ('abc', 't', 'v1', 'x')")
        conn.execute("INSERT INTO notes(id, text, version, updated) VALUES ('n', 5, 1, 1.0)")
        conn.execute("INSERT INTO bookmarks(id, created) VALUES ('abc', 'x')")
        conn.execute("INSERT INTO reads(id, read_at) VALUES ('abc', 1e300)")
        conn.execute(
            "INSERT INTO records(id, text, headline, position, year, created, updated) "
            "VALUES ('abc', 'abstract', 'Head', 'p', 'y', 0, 0)"
        )
        conn.execute(
            "INSERT INTO conflict_copies(id, text, created, origin) "
            "VALUES ('abc', 'copy text', 'z', 'import')"
        )
        conn.execute("INSERT INTO state(key, value, updated) VALUES ('k', X'FF6869', 0)")
    conn.close()
    return path


def test_values_of_the_wrong_type_are_replaced_once_and_text_is_kept(data_dir: Path) -> None:
    _damaged_release_store(data_dir)
    store = Store.open(data_dir)
    data = store.load()
    assert (data.notes["abc"].text, data.notes["abc"].version, data.notes["abc"].updated) == (
        "t",
        0,
        0.0,
    )
    assert data.notes["n"].text == "5"
    assert data.bookmarks["abc"] == 0.0 and data.reads["abc"] == 0.0
    assert (data.records["abc"].position, data.records["abc"].year) == (0, None)
    assert [(c.text, c.created) for c in data.conflicts if c.abstract_id == "abc"] == [
        ("copy text", 0.0)
    ]
    assert data.state["k"] == "\ufffdhi"  # bytes that are not UTF-8: read, not refused
    [notice] = store.notices
    assert notice.startswith(
        "Some saved values could not be read and were replaced: the position of record abc "
        "was 'p', read as 0; the year of record abc was 'y', read as None; the bookmark time "
        "of abc was 'x', read as 0.0 (and 4 more). No note text was lost"
    )
    # A version that could not be read does not block saving the note, nor is a text lost.
    result = store.save_note("abc", "edited", base_version=0)
    assert result.conflict is None and store.load().notes["abc"].version > 0
    store.close()
    assert Store.open(data_dir).notices == []  # said once: the values are right now


def test_times_at_the_clocks_limits_are_kept(data_dir: Path) -> None:
    """Times as far as 1e11 s either side of 1970 (what the clock can show) are kept as
    they are; past that, they are replaced and named."""
    path = _release_store(data_dir)
    conn = sqlite3.connect(path)
    with conn:
        for i, at in [("early", -1e11), ("late", 1e11), ("later", 1e11 + 1)]:
            conn.execute("INSERT INTO reads(id, read_at) VALUES (?, ?)", (i, at))
        conn.execute("INSERT INTO notes(id, text, version, updated) VALUES ('z', 't', '0', 1)")
    conn.close()
    store = Store.open(data_dir)
    reads = store.load().reads
    assert (reads["early"], reads["late"], reads["later"]) == (-1e11, 1e11, 0.0)
    [notice] = store.notices
    assert "replaced: the read time of later was 100000000001.0, read as 0.0. No note" in notice
    store.close()


@pytest.mark.parametrize(
    ("row", "named"),
    [
        (
            "INSERT INTO notes(id, text, version, updated) VALUES ('n', 't', 'v1', 1)",
            "the version of note n was 'v1', read as 0",
        ),
        (
            "INSERT INTO dismissals(id, created) VALUES ('d', 'x')",
            "the dismissal time of d was 'x', read as 0.0",
        ),
        (
            "INSERT INTO tags(id, tag, created) VALUES ('g', 'tag', 'x')",
            "the time of a tag of g was 'x', read as 0.0",
        ),
        (
            "INSERT INTO aliases(old_id, new_id, at) VALUES ('o', 'n', 'x')",
            "the time of alias o was 'x', read as 0.0",
        ),
        (
            "INSERT INTO state(key, value, updated) VALUES ('s', 'v', 'x')",
            "the time of state 's' was 'x', read as 0.0",
        ),
        (
            "INSERT INTO records(id, text, headline, created, updated) "
            "VALUES ('r', 't', 'h', 'x', 1)",
            "the creation time of record r was 'x', read as 0.0",
        ),
        (
            "INSERT INTO records(id, text, headline, created, updated) "
            "VALUES ('r', 't', 'h', 1, 'x')",
            "the time of record r was 'x', read as 0.0",
        ),
        (
            "INSERT INTO saved_searches(name, query, sort, created, updated) "
            "VALUES ('S', 'q', '', 'x', 1)",
            "the creation time of saved search 'S' was 'x', read as 0.0",
        ),
        (
            "INSERT INTO saved_searches(name, query, sort, created, updated) "
            "VALUES ('S', 'q', '', 1, 'x')",
            "the time of saved search 'S' was 'x', read as 0.0",
        ),
    ],
)
def test_the_notice_names_which_value_was_replaced(data_dir: Path, row: str, named: str) -> None:
    path = _release_store(data_dir)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(row)
    conn.close()
    store = Store.open(data_dir)
    [notice] = store.notices
    assert f"replaced: {named}. No note text" in notice
    store.close()


def test_values_of_the_wrong_type_do_not_stop_export_or_the_app(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _damaged_release_store(data_dir)
    digest = _digest(path)
    for fmt in ("md", "json", "bibtex", "csv"):
        assert main_export(["--format", fmt]) == 0, fmt
        out, err = capsys.readouterr()
        assert "Ünïcode" in out and "could not be read" in err
    assert _digest(path) == digest  # read through a migrated copy
    ud = UserData.open(data_dir)
    try:
        assert not any("unavailable" in n for n in ud.notices)
        assert any("could not be read" in n for n in ud.notices)
    finally:
        ud.close()
