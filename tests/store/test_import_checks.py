"""Malformed imports are refused whole; export says so when there is no store, and names
an output path it cannot write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui.commands.export import main_export, main_import
from tui.locations import database_path
from tui.store.db import Store


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
