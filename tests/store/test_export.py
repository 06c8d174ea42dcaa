"""Export formats, import idempotence and conflicts, and the CLI's exit codes."""

from __future__ import annotations

import csv
import io
import json
import re
import time
from pathlib import Path

import pytest

from tests.store.helpers import (
    PARAGRAPHS,
    conflict_on,
    corpus_of,
    edited_corpus,
    load,
    make_abstract,
    open_userdata,
)
from tui.commands.export import main_export, main_import
from tui.store.db import Store
from tui.store.export import merge, parse_export, to_json
from tui.store.formats import CSV_COLUMNS, Item, items, to_bibtex, to_csv, to_markdown
from tui.store.records import (
    ConflictCopy,
    NoteRow,
    Snapshot,
    StoreData,
)
from tui.store.schema import SCHEMA_VERSION
from tui.store.userdata import UserData

A = make_abstract(PARAGRAPHS[0])


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


def test_csv_rows_show_flags_times_and_blanks() -> None:
    marked = Snapshot("Text one.", "One", "/d/a.txt", 3, "ICLR 2023 Papers", "ICLR", 2023)
    bare = Snapshot("Text two.", "Two", "/d/b.txt", 1, "Misc")
    at = 1_700_000_000.0
    rows = list(
        csv.reader(
            io.StringIO(
                to_csv(
                    [
                        Item("a", marked, True, at, "my note", (), dismissed=True),
                        Item("b", bare, False, None, None, ()),
                    ]
                )
            )
        )
    )
    assert rows[0] == CSV_COLUMNS
    expected_time = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(at))
    assert rows[1] == [
        "a", "One", "ICLR", "2023", "ICLR 2023 Papers", "/d/a.txt", "3", "yes", "yes",
        expected_time, "my note", "", "Text one.",
    ]  # fmt: skip
    assert rows[2] == [
        "b", "Two", "", "", "Misc", "/d/b.txt", "1", "", "", "", "", "", "Text two.",
    ]  # fmt: skip
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", rows[1][9])


def test_json_export_carries_copies_and_aliases_to_another_store(
    tmp_path: Path, data_dir: Path
) -> None:
    f, old, new = edited_corpus(tmp_path)
    one = conflict_on(data_dir, old, "from window two, café")
    one.attach(load([f]))
    assert one.flush()
    one.close()
    data = Store.open(data_dir).load()
    text = to_json(data)
    assert "café" in text  # written as UTF-8, not escaped
    doc = parse_export(text)
    assert doc["schema"] == SCHEMA_VERSION
    other = Store.open(tmp_path / "elsewhere")
    merge(other, doc, "import")
    merged = other.load()
    assert merged.aliases == {old.id: new.id}
    [copy] = merged.conflicts
    [kept] = data.conflicts
    assert (copy.abstract_id, copy.text, copy.created, copy.origin) == (
        kept.abstract_id,
        kept.text,
        kept.created,
        kept.origin,
    )
    other.close()


def test_bibtex_entries_have_the_year_and_distinct_keys() -> None:
    snap = Snapshot("Text.", "Title", "/d/a.txt", 1, "ICLR 2023 Papers", "ICLR", 2023)
    out = to_bibtex(
        [Item("a b", snap, False, None, None, ()), Item("a/b", snap, False, None, None, ())]
    )
    assert "  year = {2023}" in out
    entries = out.split("\n\n")
    assert len(entries) == 2 and all(e.startswith("@misc{") for e in entries)
    keys = [e.split("{", 1)[1].split(",", 1)[0] for e in entries]
    # Readable keys (venue, year, first content word), made unique by a suffix.
    assert keys[0] != keys[1]
    assert all(re.fullmatch(r"iclr2023[a-z0-9]*", k) for k in keys)


def _store_data() -> StoreData:
    snap = Snapshot(
        "Line one.\nLine two.", "A title", "/d/a.txt", 3, "ICLR 2023 Papers", "ICLR", 2023
    )
    copy = ConflictCopy(7, "c", "their text", 1_700_000_000.0, "other instance")
    return StoreData(
        records={"a": snap},
        bookmarks={"a": 1.0, "b": 2.0},
        reads={"a": 1_700_000_000.0},
        notes={"a": NoteRow("my note  \n", 1, 1.0), "d": NoteRow("noted only", 1, 1.0)},
        conflicts=[copy],
    )


def test_export_selection_narrows_by_bookmark_and_note() -> None:
    data = _store_data()
    assert {it.id for it in items(data)} == {"a", "b", "c", "d"}
    assert {it.id for it in items(data, bookmarked=True)} == {"a", "b"}
    assert {it.id for it in items(data, with_notes=True)} == {"a", "c", "d"}
    assert {it.id for it in items(data, bookmarked=True, with_notes=True)} == {"a"}
    by_id = {it.id: it for it in items(data)}
    a, c = by_id["a"], by_id["c"]
    assert (a.bookmarked, a.read_at, a.note) == (True, 1_700_000_000.0, "my note  \n")
    assert c.conflicts == tuple(data.conflicts) and c.note is None and not c.bookmarked
    assert c.snapshot.text == "" and c.snapshot.headline == "(no snapshot for c)"


def test_markdown_export_shows_each_item_as_documented() -> None:
    data = _store_data()
    chosen = [it for it in items(data) if it.id in ("a", "c")]
    when = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(1_700_000_000.0))
    assert to_markdown(chosen) == "\n".join(
        [
            "# Abstracts export",
            "",
            "## (no snapshot for c)",
            "",
            "*unknown venue* · source unknown · id `c`",
            "",
            "> (text not kept)",
            "",
            f"**Conflict copy** (other instance, {when})",
            "",
            "```text",
            "their text",
            "```",
            "",
            "---",
            "",
            "## A title ★",
            "",
            "*ICLR 2023* · /d/a.txt (#3) · id `a`",
            "",
            "> Line one.",
            "> Line two.",
            "",
            "**Note**",
            "",
            "```text",
            "my note  ",
            "```",
            "",
            "---",
            "",
        ]
    )


def _snap(headline: str) -> Snapshot:
    return Snapshot("Text.", headline, "/d/a.txt", 1, "ICLR 2023 Papers", "ICLR", 2023)


def test_a_bibtex_key_takes_the_first_word_of_two_letters_or_more() -> None:
    from tui.store.formats import bib_keys

    assert bib_keys([_snap("Q learning for robots")]) == ["iclr2023learning"]
    assert bib_keys([_snap("RL agents explore")]) == ["iclr2023rl"]


def test_suffixed_bibtex_keys_never_take_a_key_another_entry_has() -> None:
    """Two entries on `iclr2023graph` get letters; the letter `a` is already the key of
    an entry on "Grapha …", so theirs are `b` and `c`: every key cites one entry."""
    from tui.store.formats import bib_keys

    keys = bib_keys([_snap("Graph networks"), _snap("Grapha tools"), _snap("Graph kernels")])
    assert keys == ["iclr2023graphb", "iclr2023grapha", "iclr2023graphc"]


def test_exporting_the_list_shown_keeps_to_that_list() -> None:
    """`ids` is the list the reader showed: the filters narrow it, never widen it."""
    data = _store_data()  # a and b bookmarked, a and d noted, c has a copy only
    assert {it.id for it in items(data, ids=["a", "c", "x"])} == {"a", "c", "x"}
    assert {it.id for it in items(data, ids=["a", "d"], bookmarked=True)} == {"a"}
    assert {it.id for it in items(data, ids=["b", "c"], with_notes=True)} == {"c"}


def test_the_export_file_is_indented_one_space_and_names_every_time(tmp_path: Path) -> None:
    """One value per line, indented one space (readable, and a diff shows what changed);
    a tag's and a saved search's times are written under the names an import reads."""
    ud = open_userdata(tmp_path)
    ud.attach(corpus_of([A]))
    ud.set_tags(on=[(A.id, "to-cite")])
    ud.save_search("weekly", "graph", "relevance")
    assert ud.flush()
    ud.close()
    store = Store.open(tmp_path)
    text = to_json(store.load())
    store.close()
    assert text.startswith('{\n "format": "abstracts-export",\n "version": ')
    doc = json.loads(text)
    [tag] = doc["tags"]
    assert sorted(tag) == ["created", "id", "tag"] and tag["created"] > 0
    [search] = doc["saved_searches"]
    assert search["created"] > 0 and search["updated"] > 0
