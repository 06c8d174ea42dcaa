"""Malformed imports are refused whole; export says so when there is no store, and names
an output path it cannot write."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.store.helpers import PARAGRAPHS, make_abstract
from tui.commands.export import main_export, main_import
from tui.locations import database_path
from tui.store.db import Store
from tui.store.export import parse_export
from tui.store.importcheck import ImportProblem, check_document

A = make_abstract(PARAGRAPHS[0])


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
    # An empty store: nothing to export, said, and nothing printed.
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


def _problem(doc: Mapping[str, Any]) -> str:
    with pytest.raises(ImportProblem) as info:
        check_document(doc)
    return str(info.value)


def test_an_import_problem_names_the_record_and_field() -> None:
    bad_year = {"records": [{"id": "x1", "text": "t", "headline": "h", "year": "2023"}]}
    assert _problem(bad_year) == (
        "records[0] (id 'x1'): \"year\" must be a whole number or null, not '2023'"
    )
    bad_alias = {"aliases": [{"old_id": "old", "new_id": 5}]}
    assert _problem(bad_alias) == (
        "aliases[0] (old_id 'old'): \"new_id\" must be a non-empty string, not 5"
    )
    no_id = {"notes": [{"id": "  ", "text": "t"}]}
    assert _problem(no_id) == "notes[0]: \"id\" must be a non-empty string, not '  '"
    numbered = {"saved_searches": [{"name": 5, "query": "dropout"}]}
    assert '"name" must be a trimmed name of at most 80 characters' in _problem(numbered)


def test_optional_fields_may_be_null_but_not_wrong() -> None:
    check_document({"notes": [{"id": "a", "text": "t", "updated": None, "version": None}]})
    check_document({"conflict_copies": [{"id": "a", "text": "t", "origin": None}]})
    assert "a number (a Unix time) or null" in _problem(
        {"notes": [{"id": "a", "text": "t", "updated": "yesterday"}]}
    )
    assert "a string or null" in _problem(
        {"conflict_copies": [{"id": "a", "text": "t", "origin": 3}]}
    )


def test_an_import_problem_shows_the_value_it_found_where_a_list_or_object_belongs() -> None:
    assert _problem({"notes": {"id": "a"}}) == "\"notes\" must be a list, not {'id': 'a'}"
    assert _problem({"bookmarks": ["a1"]}) == "bookmarks[0] must be an object, not 'a1'"
    assert _problem({"state": ["a"]}) == "\"state\" must be an object of strings, not ['a']"
    assert _problem({"state": {"sort": 3}}) == "state['sort'] must be a string, not 3"


def test_a_saved_search_problem_names_the_search_by_its_name() -> None:
    """A saved search has no id: the message calls what it shows a name (it said "id")."""
    assert _problem({"saved_searches": [{"name": "dropout", "query": 5}]}) == (
        "saved_searches[0] (name 'dropout'): \"query\" must be a string, not 5"
    )


@pytest.mark.parametrize("tag", [5, ["a"], "\ud800"])
def test_a_tag_that_is_not_text_is_refused_by_name(tag: object) -> None:
    assert _problem({"tags": [{"id": "a", "tag": tag}]}) == (
        "tags[0] (id 'a'): \"tag\" must be a tag name (not empty, no control character, "
        f"comma or quote), not {tag!r}"
    )


def test_times_are_taken_up_to_what_an_export_can_show() -> None:
    """10**11 seconds either side of 1970 (the years -1199 and 5138): `time.localtime`,
    which every export uses, fails further out, so a time beyond is refused at import."""
    for t in (-(10**11), 10**11, -1e11, 1e11):
        check_document({"bookmarks": [{"id": "a", "created": t}]})
        time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))
    for t in (-(10**11) - 1, 10**11 + 1, 1e11 + 0.5):
        assert _problem({"bookmarks": [{"id": "a", "created": t}]}) == (
            f"bookmarks[0] (id 'a'): \"created\" must be a number (a Unix time), not {t!r}"
        )


def test_a_long_bad_value_is_shortened_in_the_message() -> None:
    message = _problem({"bookmarks": [{"id": "a", "created": "x" * 500}]})
    assert message.endswith("...") and len(message) < 200
    assert message.startswith("bookmarks[0] (id 'a'): \"created\" must be a number (a Unix time)")


def test_whole_numbers_are_taken_up_to_what_sqlite_holds() -> None:
    for year in (-(2**63), 2**63 - 1):
        check_document({"records": [{"id": "x", "text": "t", "headline": "h", "year": year}]})
    for year in (-(2**63) - 1, 2**63):
        assert "whole number" in _problem(
            {"records": [{"id": "x", "text": "t", "headline": "h", "year": year}]}
        )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{", "not JSON (Expecting property name enclosed in double quotes: line 1 column 2"),
        ("[1, 2]", 'not an abstracts export (no "format": "abstracts-export")'),
        ('{"format": "other"}', 'not an abstracts export (no "format": "abstracts-export")'),
        ('{"format": "abstracts-export", "version": 99}', "export format 99 is newer than"),
        ('{"format": "abstracts-export", "version": "1"}', '"version" must be a whole number'),
        ('{"format": "abstracts-export", "version": 1.0}', '"version" must be a whole number'),
    ],
)
def test_what_an_import_says_about_a_file_that_is_not_an_export(text: str, problem: str) -> None:
    with pytest.raises(ImportProblem) as refused:
        parse_export(text)
    assert str(refused.value).startswith(problem)


def test_a_bad_value_is_quoted_whole_up_to_sixty_characters() -> None:
    def quoted(message: str) -> str:
        return message.split(", not ", 1)[1]

    sixty = "x" * 58  # repr adds the two quotes: 60 characters
    assert quoted(_problem({"bookmarks": [{"id": "a", "created": sixty}]})) == repr(sixty)
    longer = "y" * 59
    shown = quoted(_problem({"bookmarks": [{"id": "a", "created": longer}]}))
    assert shown == repr(longer)[:57] + "..." and len(shown) == 60
