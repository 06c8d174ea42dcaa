"""Tags leaving and coming back: md, csv, BibTeX keywords, and a JSON round trip into a
fresh data dir that merges with the tags already there."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.store.helpers import PARAGRAPHS, make_abstract
from tui.commands.export import main_export, main_import
from tui.corpus.model import Corpus
from tui.store.userdata import UserData

A, B = (
    make_abstract(p, path="/c/iclr2023.txt", position=i) for i, p in enumerate(PARAGRAPHS[:2], 1)
)
CORPUS = Corpus([A, B], [], [])


def _tag(data_dir: Path, on: list[tuple[str, str]]) -> None:
    ud = UserData.open(data_dir)
    ud.attach(CORPUS)
    ud.set_tags(on=on)
    assert ud.flush()
    ud.close()


def _export(capsys: pytest.CaptureFixture[str], data_dir: Path, fmt: str) -> str:
    assert main_export(["--format", fmt, "--data-dir", str(data_dir)]) == 0
    return capsys.readouterr().out


def test_readable_formats_carry_the_tags(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Only tagged: a tag alone is enough for an abstract to be exported.
    _tag(data_dir, [(A.id, "to-cite"), (A.id, "rg"), (B.id, "rg")])
    md = _export(capsys, data_dir, "md")
    assert "Tags: #rg #to-cite" in md and "Tags: #rg\n" in md
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(_export(capsys, data_dir, "csv")))}
    assert rows[A.id]["tags"] == "rg to-cite" and rows[B.id]["tags"] == "rg"
    bib = _export(capsys, data_dir, "bibtex")
    assert "keywords = {rg, to-cite}" in bib and "keywords = {rg}" in bib


def test_json_round_trip_into_a_fresh_data_dir_merges_tags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    _tag(here, [(A.id, "to-cite"), (B.id, "rg")])
    _tag(there, [(A.id, "mine")])
    exported = tmp_path / "tags.json"
    exported.write_text(_export(capsys, here, "json"), encoding="utf-8")
    doc = json.loads(exported.read_text(encoding="utf-8"))
    assert {(t["id"], t["tag"]) for t in doc["tags"]} == {(A.id, "to-cite"), (B.id, "rg")}
    assert main_import([str(exported), "--data-dir", str(there)]) == 0
    assert "2 tags" in capsys.readouterr().out
    ud = UserData.open(there)
    assert ud.tags_of(A.id) == {"to-cite", "mine"} and ud.tags_of(B.id) == {"rg"}
    assert ud.snapshot(B.id) is not None  # the record came along: B's tag is not orphaned text
    ud.close()
    # Importing again changes nothing.
    assert main_import([str(exported), "--data-dir", str(there)]) == 0
    assert "Nothing new" in capsys.readouterr().out


def test_imported_tag_names_are_normalised_and_bad_ones_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = {
        "format": "abstracts-export",
        "version": 1,
        "tags": [{"id": A.id, "tag": "#Related Work", "created": 1.0}],
    }
    good = tmp_path / "good.json"
    good.write_text(json.dumps(doc), encoding="utf-8")
    assert main_import([str(good), "--data-dir", str(tmp_path / "d")]) == 0
    ud = UserData.open(tmp_path / "d")
    assert ud.tags_of(A.id) == {"related-work"}
    ud.close()
    doc["tags"] = [{"id": A.id, "tag": "a,b"}]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    assert main_import([str(bad), "--data-dir", str(tmp_path / "d")]) != 0
    err = capsys.readouterr().err
    assert "tags[0]" in err and '"tag" must be a tag name' in err


def test_a_rescue_file_keeps_unsaved_tags(tmp_path: Path) -> None:
    from tui.store.operations import SetTags
    from tui.store.records import Snapshot
    from tui.store.rescue import rescue_document

    snap = Snapshot.of(A)
    doc = rescue_document(
        [
            SetTags("kept", (A.id,), True, 5.0, ((A.id, snap),)),
            SetTags("gone", (B.id,), False, 5.0),
        ],
        {},
        lambda _: 0,
        "test",
    )
    assert doc["tags"] == [{"id": A.id, "tag": "kept", "created": 5.0}]
    assert {"kind": "tag", "id": B.id, "tag": "gone"} in doc["unsaved_removals"]
    assert [r["id"] for r in doc["records"]] == [A.id]
