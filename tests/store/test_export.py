"""Export formats, import idempotence and conflicts, and the CLI's exit codes."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.store.helpers import PARAGRAPHS, make_abstract
from tui.commands.export import main_export, main_import
from tui.store.db import Store
from tui.store.userdata import UserData

A, B, C = (
    make_abstract(p, path="/c/iclr2023.txt", position=i) for i, p in enumerate(PARAGRAPHS[:3], 1)
)
TRICKY = 'A "quoted", comma\nnew line; {unbalanced brace and $\\alpha$'


def _fill(data_dir: Path) -> None:
    ud = UserData.open(data_dir)
    ud.set_bookmark(A, True)
    ud.save_note(A, "note on A")
    ud.save_note(B, TRICKY)
    ud.set_read([A, C], True)
    ud.set_state("resume:x", "{}")
    assert ud.flush()
    ud.close()


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main_export(list(argv))
    return code, capsys.readouterr().out


def test_markdown(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(data_dir)
    code, out = _run(capsys, "--format", "md")
    assert code == 0
    assert "★" in out and "ICLR 2023" in out and "/c/iclr2023.txt (#1)" in out
    assert "note on A" in out and A.text[:40] in out and "{unbalanced" in out
    code, only = _run(capsys, "--bookmarked")
    assert "note on A" in only and "unbalanced" not in only


def test_csv_quoting(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(data_dir)
    code, out = _run(capsys, "--format", "csv", "--with-notes")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 2
    by_id = {r["id"]: r for r in rows}
    assert by_id[B.id]["note"] == TRICKY and by_id[A.id]["bookmarked"] == "yes"
    assert by_id[A.id]["venue"] == "ICLR" and by_id[A.id]["year"] == "2023"


def test_bibtex(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(data_dir)
    code, out = _run(capsys, "--format", "bibtex")
    assert code == 0 and out.count("@misc{") == 2
    assert "@misc{iclr2023prove," in out and "note = {note on A}" in out
    assert "howpublished = {ICLR 2023}" in out
    for entry in out.split("@misc")[1:]:
        assert entry.count("{") == entry.count("}")


def test_json_round_trip_and_import_idempotent(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(data_dir)
    out_file = tmp_path / "export.json"
    assert main_export(["--format", "json", "-o", str(out_file)]) == 0
    doc = json.loads(out_file.read_text())
    assert doc["format"] == "abstracts-export" and doc["version"] == 1
    assert {n["id"] for n in doc["notes"]} == {A.id, B.id}
    assert doc["state"] == {"resume:x": "{}"}

    other = tmp_path / "other-machine"
    assert main_import([str(out_file), "--data-dir", str(other)]) == 0
    first = Store.open(other).load()
    assert {i: n.text for i, n in first.notes.items()} == {A.id: "note on A", B.id: TRICKY}
    assert set(first.bookmarks) == {A.id} and set(first.reads) == {A.id, C.id}
    assert first.records[A.id].headline
    capsys.readouterr()
    assert main_import([str(out_file), "--data-dir", str(other)]) == 0
    assert "Nothing new" in capsys.readouterr().out
    second = Store.open(other).load()
    assert (
        second.notes == first.notes and second.conflicts == [] and second.records == first.records
    )

    # A note edited on the other machine: importing keeps both, reported, and stays idempotent.
    store = Store.open(other)
    store.save_note(A.id, "edited on the other machine", first.notes[A.id].version)
    store.close()
    assert main_import([str(out_file), "--data-dir", str(other)]) == 0
    assert A.id in capsys.readouterr().out
    assert main_import([str(out_file), "--data-dir", str(other)]) == 0
    merged = Store.open(other).load()
    assert merged.notes[A.id].text == "edited on the other machine"
    assert [c.text for c in merged.conflicts] == ["note on A"]

    # ...and the conflict copy itself goes out in the JSON and comes back in losslessly.
    capsys.readouterr()
    assert main_export(["--format", "json", "--data-dir", str(other)]) == 0
    again = json.loads(capsys.readouterr().out)
    assert [c["text"] for c in again["conflict_copies"]] == ["note on A"]


def test_export_needs_no_corpus(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(data_dir)  # no corpus is ever loaded: everything comes from snapshots
    code, out = _run(capsys, "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert {r["id"] for r in doc["records"]} >= {A.id, B.id}


def test_exit_codes(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main_export(["--format", "nope"]) == 2
    Store.open(data_dir).close()
    assert main_export([]) == 3  # an existing, empty store: nothing to export
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main_import([str(bad)]) == 1
    bad.write_text('{"something": "else"}')
    assert main_import([str(bad)]) == 1
    assert main_import([str(tmp_path / "missing.json")]) == 1
    assert main_import([]) == 2
    _fill(data_dir)
    assert main_export(["-o", str(tmp_path / "no" / "such" / "dir" / "x.md")]) == 1


def test_output_file_replaced_atomically(data_dir: Path, tmp_path: Path) -> None:
    _fill(data_dir)
    target = tmp_path / "notes.md"
    target.write_text("old content")
    assert main_export(["-o", str(target)]) == 0
    assert "note on A" in target.read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".notes.md")] == []


def test_every_format_survives_export_then_import_elsewhere(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    relative = make_abstract(PARAGRAPHS[3], path="corpus/list.txt", position=4)
    _fill(data_dir)
    ud = UserData.open(data_dir)
    ud.set_bookmark(relative, True)
    assert ud.close() is None
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    for fmt in ("md", "json", "bibtex", "csv"):
        assert main_export(["--format", fmt, "-o", str(first / f"out.{fmt}")]) == 0
    other = tmp_path / "other-data"
    assert main_import([str(first / "out.json"), "--data-dir", str(other)]) == 0
    for fmt in ("md", "json", "bibtex", "csv"):
        argv = ["--format", fmt, "--data-dir", str(other), "-o", str(second / f"out.{fmt}")]
        assert main_export(argv) == 0
    for fmt in ("md", "bibtex", "csv"):
        assert (first / f"out.{fmt}").read_text() == (second / f"out.{fmt}").read_text(), fmt
    before, after = (json.loads((d / "out.json").read_text()) for d in (first, second))
    for doc in (before, after):
        del doc["exported"]
        for note in doc["notes"]:
            del note["version"]  # a per-store concurrency token, new in each store
    assert before == after
    # A snapshot's source does not depend on the directory the corpus was opened from.
    source = next(r["source"] for r in after["records"] if r["id"] == relative.id)
    assert source == str(tmp_path / "corpus" / "list.txt")


def test_import_summary_wording(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(data_dir)
    out_file = tmp_path / "export.json"
    assert main_export(["--format", "json", "-o", str(out_file)]) == 0
    capsys.readouterr()
    assert main_import([str(out_file), "--data-dir", str(tmp_path / "other")]) == 0
    assert capsys.readouterr().out.startswith("Imported 2 notes, 1 bookmark, 2 read marks.")


def test_an_empty_note_in_an_import_is_not_a_note(tmp_path: Path) -> None:
    from tui.commands.export import main_import
    from tui.store.userdata import UserData

    doc = {
        "format": "abstracts-export",
        "version": 1,
        "notes": [{"id": "abc", "text": "  ", "updated": 1.0}],
    }
    path = tmp_path / "empty-note.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    data_dir = tmp_path / "data"
    code = main_import([str(path), "--data-dir", str(data_dir)])
    assert code == 0
    stored = UserData.open(data_dir)
    try:
        assert stored.noted_ids() == frozenset()
    finally:
        stored.close()
