"""Malformed imports are refused whole; bad stored values never make the store unreadable;
export says so when there is no store, and names an output path it cannot write."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tui.commands.export import main_export, main_import
from tui.locations import database_path
from tui.store.db import Store
from tui.store.loading import as_text
from tui.store.userdata import UserData


def _doc(**sections: Any) -> dict[str, Any]:
    return {"format": "abstracts-export", "version": 1, **sections}


GOOD_NOTE = {"id": "good", "text": "a good note", "updated": 1.0}

MALFORMED = [
    ({"notes": [{"id": "abc", "text": "hi", "updated": "yesterday"}]}, "notes[0]", "updated"),
    ({"notes": [GOOD_NOTE, {"id": "abc", "text": 5}]}, "notes[1]", "text"),
    ({"notes": [{"id": "", "text": "hi"}]}, "notes[0]", "id"),
    ({"notes": [{"id": 7, "text": "hi"}]}, "notes[0]", "id"),
    ({"notes": [{"text": "hi"}]}, "notes[0]", "id"),
    ({"notes": [{"id": "abc", "text": "hi", "base_version": "1"}]}, "notes[0]", "base_version"),
    ({"notes": {"abc": "hi"}}, "notes", "list"),
    ({"notes": ["hi"]}, "notes[0]", "object"),
    ({"state": [1]}, "state", "object"),
    ({"state": {"k": [1, 2]}}, "state['k']", "string"),
    ({"bookmarks": [{"id": "abc", "created": "now"}]}, "bookmarks[0]", "created"),
    ({"bookmarks": [{"id": "abc", "created": True}]}, "bookmarks[0]", "created"),
    ({"reads": [{"id": "abc", "read_at": float("nan")}]}, "reads[0]", "read_at"),
    ({"reads": [{"id": "abc", "read_at": 1e300}]}, "reads[0]", "read_at"),
    ({"records": [{"id": "abc", "text": "t", "headline": None}]}, "records[0]", "headline"),
    ({"records": [{"id": "abc", "text": "t", "headline": "h", "position": "3"}]}, "", "position"),
    ({"records": [{"id": "abc", "text": "t", "headline": "h", "year": 2**70}]}, "", "year"),
    ({"conflict_copies": [{"id": "abc", "text": "t", "origin": 3}]}, "conflict_copies", "origin"),
    ({"aliases": [{"old_id": "a", "new_id": None}]}, "aliases[0]", "new_id"),
    ({"notes": [{"id": "abc", "text": "\ud800"}]}, "notes[0]", "text"),
    ({"records": [{"id": "abc", "text": "t", "headline": "h", "paper": "Title"}]}, "", "paper"),
    (
        {"records": [{"id": "abc", "text": "t", "headline": "h", "paper": {"title": "\ud800"}}]},
        "records[0]",
        "paper",
    ),
    (
        {"records": [{"id": "a", "text": "t", "headline": "h", "paper": {"ids": {"\udc80": "x"}}}]},
        "records[0]",
        "paper",
    ),
    (
        {
            "records": [
                {"id": "a", "text": "t", "headline": "h", "paper": {"authors": [["\udc80"]]}}
            ]
        },
        "records[0]",
        "paper",
    ),
]


@pytest.mark.parametrize(("sections", "where", "field"), MALFORMED)
def test_malformed_import_rejected_whole(
    data_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    sections: dict[str, Any],
    where: str,
    field: str,
) -> None:
    store = Store.open(data_dir)
    store.save_note("mine", "my own note")
    before = store.load()
    store.close()
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps(_doc(**sections)))
    capsys.readouterr()
    assert main_import([str(bad)]) == 1
    err = capsys.readouterr().err
    assert str(bad) in err and where in err and field in err and "Traceback" not in err
    store = Store.open(data_dir)
    assert store.load() == before  # nothing written, not even the good note before it
    store.close()
    assert main_export([]) == 0


def test_null_times_in_import_mean_now(data_dir: Path, tmp_path: Path) -> None:
    f = tmp_path / "p.json"
    notes = [{"id": "abc", "text": "hi", "updated": None}]
    f.write_text(json.dumps(_doc(notes=notes, conflict_copies=[{"id": "abc", "text": "other"}])))
    assert main_import([str(f)]) == 0
    data = Store.open(data_dir).load()
    assert data.notes["abc"].text == "hi" and data.notes["abc"].updated > 0
    assert [c.text for c in data.conflicts] == ["other"]


def _damage(data_dir: Path) -> None:
    """Values of the wrong type, as an older version's import could have written them."""
    store = Store.open(data_dir)
    store.save_note("abc", "the note text")
    store.close()
    conn = sqlite3.connect(database_path(data_dir))
    with conn:
        conn.execute("UPDATE notes SET updated = 'yesterday', version = 'v1' WHERE id = 'abc'")
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
        conn.execute("INSERT INTO state(key, value, updated) VALUES ('k', X'6869', 0)")
    conn.close()


def test_load_tolerates_bad_values_and_keeps_text(data_dir: Path) -> None:
    _damage(data_dir)
    store = Store.open(data_dir)
    data = store.load()
    assert data.notes["abc"].text == "the note text" and data.notes["abc"].updated == 0.0
    assert data.notes["n"].text == "5"
    assert data.bookmarks == {"abc": 0.0} and data.reads == {"abc": 0.0}
    assert data.records["abc"].position == 0 and data.records["abc"].year is None
    assert [(c.text, c.created) for c in data.conflicts] == [("copy text", 0.0)]
    assert data.state["k"] == "hi"
    assert len(store.notices) == 1 and "and 4 more" in store.notices[0]
    assert store.notices[0].count(", read as ") == 3  # three shown, the rest counted
    store.load()
    assert len(store.notices) == 1  # reported once, not once per reload
    # A bad stored version does not block saving the note, and saving repairs the row.
    store.save_note("abc", "edited", base_version=data.notes["abc"].version)
    repaired = store.load()
    assert repaired.notes["abc"].text == "edited" and repaired.notes["abc"].version > 0
    assert repaired.conflicts == data.conflicts
    store.close()


def test_damaged_values_do_not_stop_export_or_the_app(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _damage(data_dir)
    for fmt in ("md", "json", "bibtex", "csv"):
        assert main_export(["--format", fmt]) == 0, fmt
        out, err = capsys.readouterr()
        assert "the note text" in out and "warning" in err and "could not be read" in err
    ud = UserData.open(data_dir)
    try:
        assert not any("unavailable" in n for n in ud.notices)
        assert any("could not be read" in n for n in ud.notices)
    finally:
        ud.close()


def _store_with_a_note(directory: Path) -> None:
    """A store with something to export."""
    store = Store.open(directory)
    store.save_note("x", "a note")
    store.close()


def test_export_without_a_store(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-dir"
    assert main_export(["--data-dir", str(missing)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and f"no abstracts.db in {missing}: nothing to export" in err
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    assert main_export(["--data-dir", str(empty_dir), "--format", "json"]) == 1
    assert not database_path(empty_dir).exists()  # exporting never creates a store
    Store.open(empty_dir).close()
    # An empty store: nothing to export (issue 10), said, and nothing printed.
    capsys.readouterr()
    assert main_export(["--data-dir", str(empty_dir), "--format", "json"]) == 3
    assert capsys.readouterr().out == ""
    _store_with_a_note(empty_dir)
    assert main_export(["--data-dir", str(empty_dir), "--format", "json"]) == 0
    assert [n["text"] for n in json.loads(capsys.readouterr().out)["notes"]] == ["a note"]


@pytest.mark.skipif(not Path("/proc/version").is_file(), reason="needs Linux /proc")
def test_unwritable_output_is_named(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _store_with_a_note(data_dir)
    assert main_export(["-o", "/proc/version"]) == 1
    err = capsys.readouterr().err
    assert "cannot write /proc/version: cannot create a file in /proc" in err


def test_output_problems_explained(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _store_with_a_note(data_dir)
    assert main_export(["-o", str(tmp_path)]) == 1
    assert f"cannot write {tmp_path}: it is a directory" in capsys.readouterr().err
    target = tmp_path / "nope" / "x.md"
    assert main_export(["-o", str(target)]) == 1
    assert f"the directory {target.parent} does not exist" in capsys.readouterr().err


def test_what_the_replaced_values_notice_says_and_what_it_leaves_alone(data_dir: Path) -> None:
    """A note with no version yet (0, stored as a number or as text) and times as far as
    1e11 s either side of 1970 (the year 5138: what the clock can show) are read as they
    are, with no notice. Past that, the notice names each replaced value, what it was and
    what it is read as."""
    Store.open(data_dir).close()
    conn = sqlite3.connect(database_path(data_dir))
    with conn:
        for row in [("zero", 0, 1e11), ("text0", "0", -1e11), ("one", 1, 2.0)]:
            conn.execute("INSERT INTO notes(id, text, version, updated) VALUES (?, 'n', ?, ?)", row)
        # Bytes that are not UTF-8: read with a replacement character, not refused.
        conn.execute("INSERT INTO state(key, value, updated) VALUES ('k', X'FF6869', 0)")
        for row in [("r1", None, 2020), ("r2", "NeurIPS", None)]:
            conn.execute(
                "INSERT INTO records(id, text, headline, venue, year, created, updated) "
                "VALUES (?, 'abstract', 'Head', ?, ?, 0, 0)",
                row,
            )
    conn.close()
    store = Store.open(data_dir)
    data = store.load()
    assert store.notices == [] and data.state["k"] == "\ufffdhi"
    assert as_text(None) == ""  # a NULL (only where the schema allows none) reads as empty
    # A venue or year not known stays unknown (not an empty name, not year 0).
    assert [(r.venue, r.year) for r in data.records.values()] == [(None, 2020), ("NeurIPS", None)]
    assert {i: (n.version, n.updated) for i, n in data.notes.items()} == {
        "zero": (0, 1e11),
        "text0": (0, -1e11),
        "one": (1, 2.0),
    }
    store.close()
    conn = sqlite3.connect(database_path(data_dir))
    with conn:
        conn.execute("UPDATE notes SET updated = 100000000001.0 WHERE id = 'zero'")
        conn.execute("UPDATE notes SET version = 'v1' WHERE id = 'one'")
        conn.execute(
            "INSERT INTO records(id, text, headline, position, year, created, updated) "
            "VALUES ('r', 'abstract', 'Head', 'p', 2020, 0, 0)"
        )
    conn.close()
    store = Store.open(data_dir)
    store.load()
    assert store.notices == [
        "Some saved values could not be read and were replaced: the position of record r was "
        "'p', read as 0; the time of note zero was 100000000001.0, read as 0.0; the version "
        "of note one was 'v1', read as 0. No note text was lost; saving the item again stores "
        "a correct value."
    ]
    store.close()
    conn = sqlite3.connect(database_path(data_dir))
    with conn:
        conn.execute("INSERT INTO tags(id, tag, created) VALUES ('r', 'later', 'x')")
    conn.close()
    store = Store.open(data_dir)
    store.load()
    [notice] = store.notices
    assert "the version of note one was 'v1', read as 0 (and 1 more). No note" in notice
    store.close()


@pytest.mark.parametrize(
    ("row", "named"),
    [
        (
            "INSERT INTO records(id, text, headline, position, year, created, updated) "
            "VALUES ('r', 'abstract', 'Head', 1, 'y', 0, 0)",
            "the year of record r was 'y', read as None",
        ),
        (
            "INSERT INTO bookmarks(id, created) VALUES ('b', 'x')",
            "the bookmark time of b was 'x', read as 0.0",
        ),
        (
            "INSERT INTO dismissals(id, created) VALUES ('d', 'x')",
            "the dismissal time of d was 'x', read as 0.0",
        ),
        (
            "INSERT INTO reads(id, read_at) VALUES ('e', 'x')",
            "the read time of e was 'x', read as 0.0",
        ),
        (
            "INSERT INTO conflict_copies(id, text, created, origin) VALUES ('c', 't', 'x', 'o')",
            "the time of a conflict copy of c was 'x', read as 0.0",
        ),
        (
            "INSERT INTO tags(id, tag, created) VALUES ('g', 'tag', 'x')",
            "the time of a tag of g was 'x', read as 0.0",
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
    """Whatever table a bad value is in, the notice says which value it was."""
    Store.open(data_dir).close()
    conn = sqlite3.connect(database_path(data_dir))
    with conn:
        conn.execute(row)
    conn.close()
    store = Store.open(data_dir)
    store.load()
    [notice] = store.notices
    assert f"replaced: {named}. No note text" in notice
    store.close()


def test_an_import_with_a_huge_integer_is_refused_in_one_line(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "p.json"
    f.write_text(
        '{"format": "abstracts-export", "version": 1, "reads": '
        '[{"id": "a", "read_at": ' + "9" * 5000 + "}]}",
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main_import([str(f)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"abstracts import: {f}: a number in it is too long to read (")
    assert err.count("\n") == 1 and not database_path(data_dir).exists()


def test_an_import_starting_with_a_byte_order_mark_is_read(data_dir: Path, tmp_path: Path) -> None:
    f = tmp_path / "p.json"
    f.write_bytes(b"\xef\xbb\xbf" + json.dumps(_doc(notes=[GOOD_NOTE])).encode("utf-8"))
    assert main_import([str(f)]) == 0
    assert Store.open(data_dir).load().notes["good"].text == "a good note"


@pytest.mark.parametrize(
    ("version", "message"),
    [
        ('"1"', '"version" must be a whole number from 1, not "1"'),
        ("true", '"version" must be a whole number from 1, not true'),
        ("0", '"version" must be a whole number from 1, not 0'),
        ("2", "export format 2 is newer than this version reads (1)"),
    ],
)
def test_an_export_version_that_is_not_one_this_reads_is_named(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], version: str, message: str
) -> None:
    f = tmp_path / "p.json"
    f.write_text(f'{{"format": "abstracts-export", "version": {version}}}', encoding="utf-8")
    capsys.readouterr()
    assert main_import([str(f)]) == 1
    assert capsys.readouterr().err == f"abstracts import: {f}: {message}\n"
