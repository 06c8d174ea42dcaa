"""Hostile text through export and import.

The store is filled through `abstracts import`, the way hostile text would arrive:
raw escape sequences in abstract text, notes, headlines, file names and ids.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import bibtexparser
import pytest

from tui.commands.export import main_export, main_import
from tui.store import importcheck

OSC52 = "\x1b]52;c;aGVsbG8=\x07"
TITLE = "\x1b]0;TITLE\x07"
HOSTILE = f"Read me{OSC52} then{TITLE} clear\x1b[2J bell\x07 csi\x9b31m bidi\u202eevil\u2069 end"
EVIL_ID = f"id{TITLE}"
NOTE = "100% & $x^2$"
# A terminal obeys these; an export must contain none (tab and line feed are text).
OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
FORMULAS = ['=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1)", "\tx=1"]


def _doc(**sections: object) -> dict[str, object]:
    return {"format": "abstracts-export", "version": 1, **sections}


def _record(i: str, text: str, headline: str, source: str = "/c/f.txt") -> dict[str, object]:
    return {
        "id": i,
        "text": text,
        "headline": headline,
        "source": source,
        "position": 1,
        "collection": "ICLR 2023",
        "venue": "ICLR",
        "year": 2023,
    }


def _import(tmp_path: Path, doc: dict[str, object], data_dir: Path) -> int:
    path = tmp_path / f"in-{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return main_import([str(path), "--data-dir", str(data_dir)])


@pytest.fixture
def hostile_store(tmp_path: Path, data_dir: Path) -> Path:
    doc = _doc(
        records=[
            _record("a1", HOSTILE, f"Headline{OSC52}", source=f"/c/b{OSC52}.txt"),
            _record(EVIL_ID, "Plain abstract.", "Plain headline"),
            *(_record(f"f{n}", f"{f} abstract", f) for n, f in enumerate(FORMULAS)),
        ],
        notes=[
            {"id": "a1", "text": f"my note{TITLE}\nline two"},
            {"id": EVIL_ID, "text": NOTE},
            *({"id": f"f{n}", "text": f} for n, f in enumerate(FORMULAS)),
        ],
        bookmarks=[{"id": "a1", "created": 1.0}],
    )
    assert _import(tmp_path, doc, data_dir) == 0
    return data_dir


def _export(capsys: pytest.CaptureFixture[str], fmt: str) -> str:
    capsys.readouterr()
    assert main_export(["--format", fmt]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["md", "csv", "bibtex", "json"])
def test_no_export_writes_a_control_character(
    hostile_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    out = _export(capsys, fmt)
    assert not OBEYED.search(out), OBEYED.findall(out)
    assert main_export(["--format", fmt, "-o", str(tmp_path / f"out.{fmt}")]) == 0
    assert not OBEYED.search((tmp_path / f"out.{fmt}").read_text(encoding="utf-8"))
    # ...while every printable character is kept: the controls are shown, not dropped.
    if fmt == "md":
        assert "Read me␛]52;c;aGVsbG8=␇ then␛]0;TITLE␇ clear␛[2J bell␇" in out
        assert "my note␛]0;TITLE␇\nline two" in out


def test_json_export_is_lossless(
    hostile_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(_export(capsys, "json"))
    assert {r["id"]: r["text"] for r in doc["records"]}["a1"] == HOSTILE
    assert {n["id"]: n["text"] for n in doc["notes"]}[EVIL_ID] == NOTE


def test_csv_formulas_are_shown_as_text(
    hostile_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = {r["note"]: r for r in csv.DictReader(io.StringIO(_export(capsys, "csv")))}
    for formula in FORMULAS:
        row = rows["'" + formula]
        assert row["headline"] == "'" + formula
        assert row["abstract"] == "'" + formula + " abstract"
    # Text that is no formula is left alone, and numbers stay numbers.
    plain = rows[NOTE]
    assert plain["headline"] == "Plain headline" and plain["year"] == "2023"


_BIB_DECODE = {
    r"\textbackslash{}": "\\",
    r"\textbraceleft{}": "{",
    r"\textbraceright{}": "}",
    r"\textasciitilde{}": "~",
    r"\textasciicircum{}": "^",
    **{"\\" + c: c for c in "%#&_$"},
}
_BIB_ESCAPE = re.compile("|".join(re.escape(k) for k in _BIB_DECODE))


def _bib_decode(value: str) -> str:
    """The text a BibTeX value typesets as; fails on a special character left raw."""
    rest = _BIB_ESCAPE.sub("", value)
    assert not re.search(r"[\\{}%#&_$~^]", rest), f"unescaped LaTeX special in {value!r}"
    return _BIB_ESCAPE.sub(lambda m: _BIB_DECODE[m.group()], value)


def _bib_entries(text: str) -> dict[str, dict[str, str]]:
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    return {e.key: {f.key: f.value for f in e.fields} for e in library.entries}


def test_bibtex_escapes_latex_specials_and_parses(
    hostile_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = _bib_entries(_export(capsys, "bibtex"))
    assert len(entries) == 2 + len(FORMULAS)
    notes = {_bib_decode(fields["note"]) for fields in entries.values()}
    assert NOTE in notes and "my note␛]0;TITLE␇ line two" in notes
    # Keys are venue, year and a headline word in lowercase ASCII, whatever the text holds.
    assert all(re.fullmatch("iclr2023[a-z0-9]+", key) for key in entries)
    (evil,) = (k for k, fields in entries.items() if _bib_decode(fields["note"]) == NOTE)
    assert evil == "iclr2023plain"


@pytest.mark.parametrize(
    "text",
    [
        NOTE,
        "unbalanced { brace and } } closers and a \\ backslash",
        "}, note = {injected}, x = {",
        "@misc{evil, title={x}} % comment # hash _ under ~ tilde ^ caret",
        "\\}{\\{",
    ],
)
def test_hostile_notes_round_trip_through_bibtexparser(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    doc = _doc(records=[_record("r", text, text)], notes=[{"id": "r", "text": text}])
    assert _import(tmp_path, doc, data_dir) == 0
    (fields,) = _bib_entries(_export(capsys, "bibtex")).values()
    assert set(fields) == {"title", "howpublished", "abstract", "year", "note"}
    for name in ("title", "abstract", "note"):
        assert _bib_decode(fields[name]) == " ".join(text.split())


def _deep(levels: int) -> str:
    return (
        '{"format": "abstracts-export", "version": 1, "state": ' + "[" * levels + "]" * levels + "}"
    )


def _digest(directory: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.iterdir())
        if p.is_file()
    }


@pytest.mark.parametrize("levels", [30, 100_000])
def test_deeply_nested_import_is_refused_and_changes_nothing(
    hostile_store: Path, tmp_path: Path, levels: int
) -> None:
    """Run as a command: before the limit, 100,000 levels ended in a RecursionError traceback."""
    before = _digest(hostile_store)
    bad = tmp_path / "deep.json"
    bad.write_text(_deep(levels), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "tui", "import", str(bad), "--data-dir", str(hostile_store)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"{bad}: nested " in result.stderr and "nothing imported" in result.stderr
    assert _digest(hostile_store) == before


def test_a_shallow_export_is_within_the_nesting_limit() -> None:
    def nested(levels: int) -> object:
        return json.loads(_deep(levels))

    importcheck.check_nesting(nested(importcheck.MAX_DEPTH - 1))  # the document is one more
    importcheck.check_nesting({"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ {{{{{{{{{{{{{{{{{{{{"})
    with pytest.raises(importcheck.ImportLimit):
        importcheck.check_nesting(nested(importcheck.MAX_DEPTH))


def test_an_import_over_the_size_limit_is_refused_and_one_of_exactly_the_limit_read_whole(
    tmp_path: Path,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(_doc(notes=[{"id": "n", "text": "x" * 5000}])), encoding="utf-8")
    size = path.stat().st_size
    monkeypatch.setattr(importcheck, "MAX_IMPORT_BYTES", size - 1)
    assert main_import([str(path)]) == 2
    assert capsys.readouterr().err == (
        f"abstracts import: {path}: {size:,} bytes, more than the {size - 1:,} an import "
        "reads; nothing imported\n"
    )
    assert not any(data_dir.iterdir())  # not even a store created
    monkeypatch.setattr(importcheck, "MAX_IMPORT_BYTES", size)
    assert main_import([str(path)]) == 0
    assert capsys.readouterr().out == "Imported 1 note, 0 bookmarks, 0 read marks.\n"
    assert main_export(["--format", "json"]) == 0
    (note,) = json.loads(capsys.readouterr().out)["notes"]
    assert note["text"] == "x" * 5000


@pytest.mark.skipif(
    not Path("/proc/self/status").is_file(), reason="needs a file longer than its size says"
)
def test_a_file_longer_than_its_size_said_is_refused_at_the_limit(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that grows while it is read is cut off at the limit, not read to its end:
    a /proc file is one, a regular file whose size says 0 bytes."""
    monkeypatch.setattr(importcheck, "MAX_IMPORT_BYTES", 100)
    assert main_import(["/proc/self/status"]) == 2
    assert capsys.readouterr().err == (
        "abstracts import: /proc/self/status: more than the 100 bytes an import reads; "
        "nothing imported\n"
    )
    assert not any(data_dir.iterdir())


def test_a_folder_is_refused_as_not_a_file(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    assert main_import([str(folder)]) == 2
    assert capsys.readouterr().err == (
        f"abstracts import: {folder}: not a regular file; only a file can be imported; "
        "nothing imported\n"
    )
    assert not any(data_dir.iterdir())


def test_a_fifo_is_never_opened_for_reading(tmp_path: Path, data_dir: Path) -> None:
    fifo = tmp_path / "export.json"
    os.mkfifo(fifo)
    result = subprocess.run(
        [sys.executable, "-m", "tui", "import", str(fifo)],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert result.returncode == 2 and "not a regular file" in result.stderr


def test_import_messages_show_ids_never_obey_them(
    hostile_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    changed = _doc(notes=[{"id": EVIL_ID, "text": "another text"}])
    assert _import(tmp_path, changed, hostile_store) == 0
    out = capsys.readouterr().out
    assert "Note id␛]0;TITLE␇ differs from yours" in out
    assert not OBEYED.search(out)
