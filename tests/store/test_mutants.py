"""Behaviour the store's other tests left unchecked, found by mutation testing (mutmut).

Each test states what a user relies on; a one-line change to the code that breaks
it makes the test fail.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from rapidfuzz import fuzz

from tests.store.helpers import PARAGRAPHS, load, make_abstract, write_file
from tests.store.test_conflicts import _hold_writes
from tui.corpus.model import Abstract, Corpus, normalise
from tui.store.attach import Matcher, Reattachment, match_orphans
from tui.store.db import Store
from tui.store.export import merge, parse_export, to_json
from tui.store.formats import CSV_COLUMNS, Item, items, to_bibtex, to_csv, to_markdown
from tui.store.importcheck import ImportProblem, check_document
from tui.store.operations import SetBookmark
from tui.store.records import (
    ConflictCopy,
    ConflictDetected,
    NoteRow,
    OrphanReattached,
    Snapshot,
    StoreData,
    StoreEvent,
)
from tui.store.schema import SCHEMA_VERSION
from tui.store.userdata import UserData

A = make_abstract(PARAGRAPHS[0])


def _corpus(abstracts: list[Abstract]) -> Corpus:
    return Corpus(abstracts, [], [])


def _open(d: Path) -> UserData:
    return UserData.open(d, retry_initial=0.02, retry_max=0.1)


def _conflict_on(data_dir: Path, abstract: Abstract, theirs: str) -> UserData:
    """Window one's note of `abstract`, with window two's text `theirs` kept as a copy."""
    one, two = _open(data_dir), _open(data_dir)
    one.save_note(abstract, "base")
    assert one.flush() and two.refresh()
    two.save_note(abstract, theirs)
    assert two.flush()
    two.close()
    one.save_note(abstract, "from window one")
    assert one.flush()
    return one


# Conflicts


def _window_two_saves_unseen(
    data_dir: Path, theirs: str
) -> tuple[UserData, UserData, list[StoreEvent]]:
    """Two windows on one note; window two saves `theirs`, which window one (its events
    listened to) has not seen."""
    one, two = _open(data_dir), _open(data_dir)
    events: list[StoreEvent] = []
    one.listener = events.append
    one.save_note(A, "base")
    assert one.flush() and two.refresh()
    two.save_note(A, theirs)
    assert two.flush()
    return one, two, events


def test_deleting_a_note_changed_elsewhere_keeps_the_other_text(data_dir: Path) -> None:
    one, two, events = _window_two_saves_unseen(data_dir, "written in window two")
    one.delete_note(A.id)  # window one never saw window two's text
    assert one.flush()
    assert one.note(A.id) is None
    # The notes view says why the copy was kept: "also kept (changed elsewhere, then deleted)".
    assert [(c.text, c.origin) for c in one.conflict_copies()] == [
        ("written in window two", "changed elsewhere, then deleted")
    ]
    assert [(e.message, e.abstract_id) for e in events if isinstance(e, ConflictDetected)] == [
        (
            "This note was also changed elsewhere (another window or an import). Both texts "
            "are kept: yours is the note, the other is listed beside it.",
            A.id,
        )
    ]
    assert two.refresh() and two.note(A.id) is None
    assert [c.text for c in two.conflict_copies()] == ["written in window two"]
    one.close()
    two.close()


def test_deleting_a_note_nobody_else_changed_leaves_no_copy(data_dir: Path) -> None:
    one, two = _open(data_dir), _open(data_dir)
    one.save_note(A, "base")
    assert one.flush() and two.refresh()
    two.delete_note(A.id)
    assert two.flush()
    assert two.conflict_copies() == [] and two.notes() == []
    assert one.refresh() and one.note(A.id) is None and one.conflict_copies() == []
    one.close()
    two.close()


# Orphans: the re-attach threshold

NEAR = normalise(PARAGRAPHS[0]).replace("The bounds are", "They are")  # one clause reworded
FAR = (
    normalise(PARAGRAPHS[0])[:95]
    + " Our method improves robustness on several image benchmarks by a wide margin."
)


def test_fixture_ratios_sit_either_side_of_the_threshold() -> None:
    base = normalise(PARAGRAPHS[0])
    assert 96 < fuzz.ratio(base, NEAR) < 99
    assert 65 < fuzz.ratio(base, FAR) < 75


def _orphan_note_then_reload(tmp_path: Path, data_dir: Path, new_text: str) -> UserData:
    f = write_file(tmp_path / "a.txt", "ICLR 2023 Papers", [PARAGRAPHS[0]])
    ud = _open(data_dir)
    ud.attach(load([f]))
    ud.save_note(load([f]).abstracts[0], "my note")
    assert ud.flush()
    write_file(f, "ICLR 2023 Papers", [new_text, PARAGRAPHS[2]])
    return ud


def test_a_lightly_edited_abstract_takes_its_note_along(tmp_path: Path, data_dir: Path) -> None:
    ud = _orphan_note_then_reload(tmp_path, data_dir, NEAR)
    corpus = load([tmp_path / "a.txt"])
    report = ud.attach(corpus)
    new = corpus.abstracts[0]
    assert [(r.old_id, r.new_id) for r in report.reattached] == [(A.id, new.id)]
    assert report.orphans == [] and ud.note(new.id) == "my note"
    ud.close()


def test_a_different_abstract_sharing_a_first_sentence_is_not_reattached(
    tmp_path: Path, data_dir: Path
) -> None:
    ud = _orphan_note_then_reload(tmp_path, data_dir, FAR)
    corpus = load([tmp_path / "a.txt"])
    report = ud.attach(corpus)
    assert report.reattached == [] and report.ambiguous == []
    assert [(o.id, o.note) for o in report.orphans] == [(A.id, "my note")]
    assert all(ud.note(a.id) is None for a in corpus.abstracts)
    ud.close()


def test_matcher_scores_and_orders_candidates() -> None:
    base = normalise(PARAGRAPHS[0])
    near, far = make_abstract(NEAR), make_abstract(FAR)
    same = make_abstract(base)
    corpus = _corpus([far, near, same])
    found = Matcher(corpus).candidates(base)
    assert [i for i, _ in found] == [same.id, near.id]
    assert found[0][1] == 100.0 and found[1][1] == fuzz.ratio(base, NEAR)


def test_match_orphans_moves_the_clear_winner_and_asks_about_a_tie() -> None:
    base = normalise(PARAGRAPHS[0])
    near = make_abstract(NEAR)
    v1 = make_abstract(base.replace("prove", "proved"))
    v2 = make_abstract(base.replace("bounds", "boundz"))
    moved, unsure = match_orphans({"x": NEAR}, _corpus([near, make_abstract(FAR)]))
    assert [(r.old_id, r.new_id, r.score) for r in moved] == [("x", near.id, 100.0)]
    assert unsure == []
    moved, unsure = match_orphans({"y": base}, _corpus([v1, v2, near]))
    assert moved == []
    [amb] = unsure
    assert amb.orphan_id == "y" and {i for i, _ in amb.candidates} == {v1.id, v2.id}
    assert match_orphans({}, _corpus([near])) == ([], [])


def test_a_clear_winner_is_moved_even_with_a_runner_up() -> None:
    base = normalise(PARAGRAPHS[0])
    same, near = make_abstract(base), make_abstract(NEAR)
    texts = {"lost": PARAGRAPHS[3], "x": base}  # the first finds nothing: the next still moves
    moved, unsure = match_orphans(texts, _corpus([near, same]))
    assert [(r.old_id, r.new_id) for r in moved] == [("x", same.id)] and unsure == []


# Re-attachment moves everything a record holds


def _edited_corpus(tmp_path: Path) -> tuple[Path, Abstract, Abstract]:
    f = write_file(tmp_path / "a.txt", "ICLR 2023 Papers", PARAGRAPHS[:2])
    old = load([f]).abstracts[0]
    write_file(f, "ICLR 2023 Papers", [NEAR, PARAGRAPHS[1]])
    return f, old, load([f]).abstracts[0]


def test_reattachment_moves_read_marks_copies_and_snapshot(tmp_path: Path, data_dir: Path) -> None:
    f, old, new = _edited_corpus(tmp_path)
    other = load([f]).abstracts[1]
    _conflict_on(data_dir, other, "another abstract's copy").close()
    one = _conflict_on(data_dir, old, "from window two")
    events: list[StoreEvent] = []
    one.listener = events.append
    one.set_read([old], True)
    assert one.flush()
    read_at = one.read_at(old.id)
    copy = next(c for c in one.conflict_copies() if c.abstract_id == old.id)
    updated = next(r.updated for r in one.notes() if r.id == old.id)

    report = one.attach(load([f]))
    assert [(r.old_id, r.new_id) for r in report.reattached] == [(old.id, new.id)]
    assert one.is_read(new.id) and not one.is_read(old.id) and one.read_at(new.id) == read_at
    assert new.id in one.read_ids() and old.id not in one.read_ids()
    assert new.id in one.noted_ids() and old.id not in one.noted_ids()
    assert sorted((c.abstract_id, c.text) for c in one.conflict_copies()) == sorted(
        [(new.id, copy.text), (other.id, "another abstract's copy")]
    )
    assert one.aliases() == {old.id: new.id}
    snap = one.snapshot(new.id)
    assert snap is not None and snap.text == new.text
    [record] = [r for r in one.notes() if r.id != other.id]
    assert record.id == new.id and record.conflicts[0].text == "from window two"
    assert record.updated == updated  # the note moved; it was not edited
    assert one.flush()
    [moved] = [e for e in events if isinstance(e, OrphanReattached)]
    assert (moved.old_id, moved.new_id) == (old.id, new.id)
    assert old.id in moved.message and new.id in moved.message
    one.close()

    data = Store.open(data_dir).load()
    assert set(data.reads) == {new.id} and set(data.notes) == {new.id, other.id}
    assert sorted(c.abstract_id for c in data.conflicts) == sorted([new.id, other.id])
    assert data.records[new.id].text == new.text


def test_a_note_edited_after_its_reattachment_is_no_conflict(
    tmp_path: Path, data_dir: Path
) -> None:
    f, old, new = _edited_corpus(tmp_path)
    ud = _open(data_dir)
    events: list[StoreEvent] = []
    ud.listener = events.append
    ud.save_note(old, "first")
    assert ud.flush()
    ud.attach(load([f]))
    assert ud.flush()
    ud.save_note(new, "second, after the move")
    assert ud.flush()
    assert ud.conflict_copies() == [] and not any(isinstance(e, ConflictDetected) for e in events)
    ud.close()
    assert Store.open(data_dir).load().conflicts == []


def test_a_note_moved_twice_before_saving_then_edited_is_no_conflict(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The abstract edited twice (two re-attachments queued while saving waits), then its
    note edited: one note, no conflict copy (the edit is based on the version the
    database holds under the first id)."""
    f, old, mid = _edited_corpus(tmp_path)
    ud = _open(data_dir)
    ud.save_note(old, "first")
    assert ud.flush()
    holding = _hold_writes(monkeypatch)
    ud.attach(load([f]))  # old -> mid
    write_file(f, "ICLR 2023 Papers", [NEAR.replace("They are", "These are"), PARAGRAPHS[1]])
    new = load([f]).abstracts[0]
    assert [(r.old_id, r.new_id) for r in ud.attach(load([f])).reattached] == [(mid.id, new.id)]
    ud.save_note(new, "second, after both moves")
    holding.clear()
    assert ud.flush(timeout=5)
    assert ud.conflict_copies() == []
    ud.close()
    data = Store.open(data_dir).load()
    assert {i: n.text for i, n in data.notes.items()} == {new.id: "second, after both moves"}
    assert data.conflicts == []


def test_reattaching_onto_the_same_note_text_keeps_no_copy(tmp_path: Path, data_dir: Path) -> None:
    f, old, new = _edited_corpus(tmp_path)
    ud = _open(data_dir)
    ud.save_note(old, "same words")
    ud.save_note(new, "same words")
    assert ud.flush()
    ud.attach(load([f]))
    assert ud.flush()
    assert ud.note(new.id) == "same words" and ud.conflict_copies() == []
    ud.close()
    data = Store.open(data_dir).load()
    assert {i: n.text for i, n in data.notes.items()} == {new.id: "same words"}
    assert data.conflicts == []


def test_an_unsaved_edit_follows_its_note_to_the_edited_abstract(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f, old, new = _edited_corpus(tmp_path)
    ud = _open(data_dir)
    ud.save_note(old, "saved")
    assert ud.flush()
    holding = _hold_writes(monkeypatch)
    ud.save_note(old, "typed, not yet saved")
    ud.attach(load([f]))
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()
    data = Store.open(data_dir).load()
    assert {i: n.text for i, n in data.notes.items()} == {new.id: "typed, not yet saved"}
    assert data.records[new.id].text == new.text and data.conflicts == []


def test_a_bookmark_taken_off_after_a_reattachment_onto_it_stays_off(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bookmarked, then an orphan's bookmark moved onto it, then taken off, all while
    saving waits: it stays off after a restart. (A change that replaces a queued one is
    saved after everything queued before it, here after the move that bookmarks it.)"""
    f, old, new = _edited_corpus(tmp_path)
    ud = _open(data_dir)
    ud.set_bookmark(old, True)
    assert ud.flush()
    holding = _hold_writes(monkeypatch)
    ud.set_bookmark(new, True)
    ud.attach(load([f]))  # moves the old abstract's bookmark onto the edited one
    ud.set_bookmark(new, False)
    assert not ud.is_bookmarked(new.id)
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()
    assert Store.open(data_dir).load().bookmarks.keys() == set()


def test_resolve_reports_the_move_and_refuses_an_unknown_abstract(
    tmp_path: Path, data_dir: Path
) -> None:
    f, old, new = _edited_corpus(tmp_path)
    ud = _open(data_dir)
    ud.save_note(old, "note")
    with pytest.raises(KeyError):
        ud.resolve(old.id, new.id)  # nothing attached yet: no abstract to choose
    ud.attach(load([f]))
    with pytest.raises(KeyError, match="no-such-id"):
        ud.resolve(new.id, "no-such-id")
    other = load([f]).abstracts[1]
    assert ud.resolve(new.id, other.id) == Reattachment(new.id, other.id, 0.0)
    assert ud.note(other.id) == "note"
    ud.close()


def test_a_note_deleted_before_it_was_ever_saved_leaves_saving_working(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = _open(data_dir)
    holding = _hold_writes(monkeypatch)
    ud.save_note(A, "typed and deleted again before any save")
    ud.delete_note(A.id)
    holding.clear()
    assert ud.flush(timeout=5)
    other = make_abstract(PARAGRAPHS[1])
    ud.save_note(other, "saved afterwards")
    assert ud.flush(timeout=5)
    ud.close()
    assert {i: n.text for i, n in Store.open(data_dir).load().notes.items()} == {
        other.id: "saved afterwards"
    }


def test_a_queued_delete_survives_a_refresh(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = _open(data_dir)
    ud.save_note(A, "to be deleted")
    assert ud.flush()
    holding = _hold_writes(monkeypatch)
    ud.delete_note(A.id)
    assert A.id not in ud.noted_ids() and ud.notes() == []
    ud.refresh()  # the database still has the note; the queued delete wins
    assert ud.note(A.id) is None and A.id not in ud.noted_ids()
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()
    assert Store.open(data_dir).load().notes == {}


# CSV export


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


# Refreshing from the database


def test_refresh_says_whether_anything_changed(data_dir: Path) -> None:
    one, two = _open(data_dir), _open(data_dir)
    assert one.refresh() is False
    two.save_note(A, "from window two")
    assert two.flush()
    assert one.refresh() is True and one.note(A.id) == "from window two"
    assert one.refresh() is False
    one.close()
    two.close()


def test_a_queued_reattachment_survives_a_refresh(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f, old, new = _edited_corpus(tmp_path)
    ud = _open(data_dir)
    ud.save_note(old, "note")
    ud.set_bookmark(old, True)
    ud.set_read([old], True)
    ud.set_tags(on=[(old.id, "to-cite")])
    ud.set_dismissed(old, True)
    assert ud.flush()
    holding = _hold_writes(monkeypatch)
    ud.attach(load([f]))
    ud.refresh()  # the database still has everything under the old id
    assert ud.note(new.id) == "note" and ud.is_bookmarked(new.id) and ud.is_read(new.id)
    assert ud.note(old.id) is None and not ud.is_bookmarked(old.id) and not ud.is_read(old.id)
    assert ud.tags_of(new.id) == {"to-cite"} and ud.tags_of(old.id) == frozenset()
    assert ud.is_dismissed(new.id) and not ud.is_dismissed(old.id)
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()


# The notes view


def test_notes_view_is_newest_first_and_copies_alone_are_listed(data_dir: Path) -> None:
    b, c = make_abstract(PARAGRAPHS[1]), make_abstract(PARAGRAPHS[2])
    one = _conflict_on(data_dir, A, "from window two")
    one.delete_note(A.id)  # A keeps only its conflict copy
    time.sleep(0.01)
    one.save_note(b, "second")
    time.sleep(0.01)
    one.save_note(c, "third")
    assert one.flush()
    records = one.notes()
    assert [r.id for r in records] == [c.id, b.id, A.id]
    assert [r.updated for r in records] == sorted((r.updated for r in records), reverse=True)
    assert records[2].text == "" and records[2].updated == records[2].conflicts[0].created
    assert records[0].headline == Snapshot.of(c).headline
    one.close()


# Export formats


def test_json_export_carries_copies_and_aliases_to_another_store(
    tmp_path: Path, data_dir: Path
) -> None:
    f, old, new = _edited_corpus(tmp_path)
    one = _conflict_on(data_dir, old, "from window two, café")
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


# Import checks: messages that point at the bad field


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


# Bookmarks, read marks, state


def test_bookmark_and_read_marks_turn_on_and_off(data_dir: Path) -> None:
    ud = _open(data_dir)
    before = time.time()
    ud.set_bookmark(A, True)
    ud.set_read([A], True)
    snap = ud.snapshot(A.id)
    assert snap is not None and snap.text == A.text
    read_at = ud.read_at(A.id)
    assert read_at is not None and before <= read_at <= time.time()
    ud.set_read([A], True)  # marking again keeps when it was first read
    assert ud.read_at(A.id) == read_at
    assert ud.flush()
    ud.set_bookmark(A, False)
    ud.set_read([A], False)
    assert not ud.is_bookmarked(A.id) and A.id not in ud.bookmarked_ids()
    assert not ud.is_read(A.id) and ud.read_at(A.id) is None
    assert ud.flush()
    ud.close()
    data = Store.open(data_dir).load()
    assert data.bookmarks == {} and data.reads == {} and data.records[A.id].text == A.text


def test_queued_marks_and_state_survive_a_refresh(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = _open(data_dir)
    holding = _hold_writes(monkeypatch)
    ud.set_bookmark(A, True)
    ud.set_read([A], True)
    ud.set_state("resume", "row 3")
    ud.refresh()  # the database has none of them yet
    assert ud.is_bookmarked(A.id) and ud.is_read(A.id) and ud.get_state("resume") == "row 3"
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()
    data = Store.open(data_dir).load()
    assert set(data.bookmarks) == {A.id} and set(data.reads) == {A.id}
    assert data.state == {"resume": "row 3"}


def test_a_note_saved_again_after_its_deletion_is_no_conflict(data_dir: Path) -> None:
    ud = _open(data_dir)
    ud.save_note(A, "first")
    assert ud.flush()
    ud.delete_note(A.id)
    assert ud.flush()
    ud.save_note(A, "second")
    assert ud.flush()
    assert ud.conflict_copies() == [] and ud.note(A.id) == "second"
    ud.close()


def test_a_note_without_a_snapshot_is_listed_without_a_headline(
    tmp_path: Path, data_dir: Path
) -> None:
    store = Store.open(data_dir)
    merge(store, {"notes": [{"id": "imported-id", "text": "a note from elsewhere"}]}, "import")
    store.close()
    ud = _open(data_dir)
    [record] = ud.notes()
    assert (record.id, record.text, record.headline) == ("imported-id", "a note from elsewhere", "")
    ud.close()


# Import: what the report counts


def test_the_import_report_counts_each_note_added_and_each_copy_kept(tmp_path: Path) -> None:
    """`abstracts import` says how many notes it added and how many it kept as copies
    beside a different local note: two of each here, and an identical note is neither."""
    source = Store.open(tmp_path / "source")
    for abstract_id, text in (("n1", "new one"), ("n2", "new two"), ("c1", "theirs 1")):
        source.save_note(abstract_id, text)
    source.save_note("c2", "theirs 2")
    source.save_note("same", "identical")
    doc = parse_export(to_json(source.load()))
    source.close()
    target = Store.open(tmp_path / "target")
    for abstract_id, text in (("c1", "mine 1"), ("c2", "mine 2"), ("same", "identical")):
        target.save_note(abstract_id, text)
    report = merge(target, doc, "import")
    assert (report.notes, report.copies) == (2, 2)
    assert sorted(report.conflicts) == ["c1", "c2"]
    again = merge(target, doc, "import")  # importing twice changes nothing
    assert (again.notes, again.copies, again.changed) == (0, 0, False)
    target.close()


def test_a_bad_value_is_quoted_whole_up_to_sixty_characters() -> None:
    def quoted(message: str) -> str:
        return message.split(", not ", 1)[1]

    sixty = "x" * 58  # repr adds the two quotes: 60 characters
    assert quoted(_problem({"bookmarks": [{"id": "a", "created": sixty}]})) == repr(sixty)
    longer = "y" * 59
    shown = quoted(_problem({"bookmarks": [{"id": "a", "created": longer}]}))
    assert shown == repr(longer)[:57] + "..." and len(shown) == 60


# BibTeX keys


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


# Another instance holding the database: wait and retry, never "damaged"


def test_a_locked_database_is_told_apart_from_other_errors(tmp_path: Path) -> None:
    import sqlite3

    from tui.store.opening import _is_busy

    path = tmp_path / "x.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t(x)")
    holder.execute("BEGIN EXCLUSIVE")
    other = sqlite3.connect(path, timeout=0)
    with pytest.raises(sqlite3.OperationalError) as locked:
        other.execute("INSERT INTO t VALUES (1)")
    holder.close()
    other.close()
    assert _is_busy(locked.value)
    # An extended code (SQLITE_BUSY_RECOVERY = 5 | 1 << 8), whatever the message says.
    recovering = sqlite3.OperationalError("recovery in progress")
    recovering.sqlite_errorcode = 261  # type: ignore[attr-defined]
    assert _is_busy(recovering)
    # A driver that gives no code: the message tells.
    assert _is_busy(sqlite3.OperationalError("database table is locked"))
    other_error = sqlite3.OperationalError("no such table: t")
    other_error.sqlite_errorcode = 1  # type: ignore[attr-defined]
    assert not _is_busy(other_error)


def test_a_damaged_database_is_told_apart_from_other_errors(tmp_path: Path) -> None:
    import sqlite3

    from tui.store.opening import is_corruption

    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database at all, " * 100)
    with pytest.raises(sqlite3.DatabaseError) as real:
        sqlite3.connect(garbage).execute("SELECT * FROM sqlite_master").fetchall()
    assert is_corruption(real.value)
    # An extended code (SQLITE_CORRUPT_VTAB = 11 | 1 << 8), whatever the message says.
    vtab = sqlite3.DatabaseError("virtual table trouble")
    vtab.sqlite_errorcode = 267  # type: ignore[attr-defined]
    assert is_corruption(vtab)
    # A driver that gives no code: the message tells.
    assert is_corruption(sqlite3.DatabaseError("database disk image is malformed"))
    busy = sqlite3.OperationalError("database is locked")
    busy.sqlite_errorcode = 5  # type: ignore[attr-defined]
    assert not is_corruption(busy)


def test_each_damaged_database_set_aside_keeps_its_own_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Set aside three times in one second: three files, none replaced, named by the
    time and a counter, each with its own -wal and -shm beside it."""
    from tui.store import opening

    real_strftime = time.strftime
    monkeypatch.setattr(time, "strftime", lambda fmt: real_strftime(fmt, time.gmtime(0)))
    db = tmp_path / "abstracts.sqlite3"
    names = []
    for n in range(3):
        for suffix, text in (("", "db"), ("-wal", "wal"), ("-shm", "shm")):
            (tmp_path / f"abstracts.sqlite3{suffix}").write_text(f"{text} {n}")
        names.append(opening.set_aside(db, "corrupt").name)
    stem = "abstracts.sqlite3.corrupt-19700101-000000"
    assert names == [stem, f"{stem}-1", f"{stem}-2"]
    for n, name in enumerate(names):
        for suffix, text in (("", "db"), ("-wal", "wal"), ("-shm", "shm")):
            assert (tmp_path / f"{name}{suffix}").read_text() == f"{text} {n}"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("abstracts.sqlite3-")]


def test_a_note_reattached_onto_another_note_is_kept_as_a_copy_and_reported(
    tmp_path: Path,
) -> None:
    """Both texts survive: the one already there stays the note, the moved one becomes a
    copy that says where it came from, and the writer is told (so the user is)."""
    from tui.store.operations import Reattach

    store = Store.open(tmp_path)
    store.save_note("old", "written on the old abstract")
    mine = store.save_note("new", "written on the new abstract")
    [result] = store.apply([Reattach("old", "new", None, 1_700_000_000.0)])
    assert result.conflict is not None
    copy = result.conflict
    assert (copy.abstract_id, copy.text, copy.origin) == (
        "new",
        "written on the old abstract",
        "re-attached from old",
    )
    assert result.version == mine.version
    data = store.load()
    assert data.notes["new"].text == "written on the new abstract" and "old" not in data.notes
    assert [(c.text, c.origin) for c in data.conflicts] == [(copy.text, copy.origin)]
    store.close()


def test_a_refresh_during_a_queued_reattachment_keeps_other_unsaved_changes(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a re-attachment waits to be saved, a note and a bookmark on another abstract
    wait too: a refresh (another window saved something) must not drop them."""
    f, old, new = _edited_corpus(tmp_path)
    other = make_abstract(PARAGRAPHS[3])
    ud = _open(data_dir)
    ud.save_note(old, "note")
    assert ud.flush()
    holding = _hold_writes(monkeypatch)
    ud.attach(load([f]))
    ud.save_note(other, "not saved yet")
    ud.set_bookmark(other, True)
    ud.refresh()
    assert ud.note(other.id) == "not saved yet" and ud.is_bookmarked(other.id)
    assert ud.note(new.id) == "note"
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()


def test_a_store_that_cannot_open_never_reports_a_change(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    ud = _open(blocker / "data")  # nothing can be created here: the store is unavailable
    assert ud.refresh() is False
    ud.close(timeout=0.2)


def test_a_refresh_that_cannot_read_the_database_reports_no_change(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = _open(data_dir)
    ud.set_bookmark(A, True)
    assert ud.flush()

    def unreadable(self: Store) -> StoreData:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(Store, "load", unreadable)
    assert ud.refresh() is False and ud.is_bookmarked(A.id)  # what was shown stays
    ud.close()


# Rescue files: what could not be saved, as an importable export


def test_a_rescue_file_holds_every_kind_of_unsaved_change(tmp_path: Path) -> None:
    from tui.store.operations import DeleteNote, Reattach, SaveNote, SetBookmark, SetRead
    from tui.store.rescue import rescue_document

    def snap(text: str) -> Snapshot:
        return Snapshot(text, text, "/d/a.txt", 1, "ICLR 2023 Papers", "ICLR", 2023)

    ops = [
        SetBookmark("a", True, None, 1.0),  # its snapshot comes from what the app knows
        SetRead("b", False, 2.0),
        SaveNote("c", "unsaved note", snap("Abstract c."), 4, 3.0),
        DeleteNote("d", 1),
        Reattach("old", "e", snap("Abstract e."), 5.0),
    ]
    before = time.time()
    doc = rescue_document(ops, {"a": snap("Abstract a.")}, lambda _: 4, "the disk is full")
    assert doc["schema"] == SCHEMA_VERSION and before <= doc["exported"] <= time.time()
    assert [(r["id"], r["text"]) for r in doc["records"]] == [
        ("a", "Abstract a."),
        ("c", "Abstract c."),
        ("e", "Abstract e."),
    ]
    assert doc["unsaved_removals"] == [{"kind": "read", "id": "b"}, {"kind": "note", "id": "d"}]
    assert doc["aliases"] == [{"old_id": "old", "new_id": "e"}]
    # `abstracts import` takes it back.
    store = Store.open(tmp_path)
    report = merge(store, parse_export(json.dumps(doc)), "rescue")
    assert (report.notes, report.bookmarks, report.records) == (1, 1, 3)
    data = store.load()
    assert data.notes["c"].text == "unsaved note" and data.aliases == {"old": "e"}
    store.close()


def test_an_import_adds_what_is_new_after_what_is_already_there(tmp_path: Path) -> None:
    """A record already stored is skipped, not the end of the import: the records after
    it are added too, and the counts say exactly what was added."""
    store = Store.open(tmp_path)
    store.apply(
        [SetBookmark("have", True, Snapshot("Had.", "Had", "/d/a.txt", 2, "C", None, None), 1.0)]
    )
    bare = {"id": "bare", "text": "Bare record.", "headline": "Bare"}  # no source, position
    doc = {
        "format": "abstracts-export",
        "version": 1,
        "records": [{"id": "have", "text": "Had.", "headline": "Had"}, bare],
        "bookmarks": [
            {"id": "have", "created": 1.0},  # already bookmarked: not counted
            {"id": "b1", "created": 2.0},
            {"id": "b2", "created": 4.0},
        ],
        "reads": [{"id": "b1", "read_at": 3.0}],
    }
    report = merge(store, doc, "import")
    assert (report.records, report.bookmarks, report.reads) == (1, 2, 1)
    record = store.load().records["bare"]
    assert (record.source, record.position, record.collection) == ("", 0, "")
    store.close()


def test_whole_numbers_are_taken_up_to_what_sqlite_holds() -> None:
    for year in (-(2**63), 2**63 - 1):
        check_document({"records": [{"id": "x", "text": "t", "headline": "h", "year": year}]})
    for year in (-(2**63) - 1, 2**63):
        assert "whole number" in _problem(
            {"records": [{"id": "x", "text": "t", "headline": "h", "year": year}]}
        )


def test_exporting_the_list_shown_keeps_to_that_list() -> None:
    """`ids` is the list the reader showed: the filters narrow it, never widen it."""
    data = _store_data()  # a and b bookmarked, a and d noted, c has a copy only
    assert {it.id for it in items(data, ids=["a", "c", "x"])} == {"a", "c", "x"}
    assert {it.id for it in items(data, ids=["a", "d"], bookmarked=True)} == {"a"}
    assert {it.id for it in items(data, ids=["b", "c"], with_notes=True)} == {"c"}


def test_marking_unread_what_is_not_read_changes_nothing(data_dir: Path) -> None:
    """ "Mark unread" on a list where only some rows are read (undo of `A`, or `r` on a row
    read meanwhile elsewhere) unmarks those and leaves the rest alone."""
    b = make_abstract(PARAGRAPHS[1])
    ud = _open(data_dir)
    ud.set_read([A], True)
    ud.set_read([A, b], False)
    assert not ud.is_read(A.id) and not ud.is_read(b.id)
    assert ud.flush()
    assert ud.read_ids() == set()
    ud.close()


def test_a_rescued_edit_of_an_unchanged_note_counts_as_one_note(tmp_path: Path) -> None:
    from tui.store.operations import SaveNote
    from tui.store.rescue import rescue_document

    store = Store.open(tmp_path)
    stored = store.save_note("c", "the text the edit started from")
    ops = [SaveNote("c", "the edit that could not be saved", None, stored.version, 3.0)]
    doc = rescue_document(ops, {}, lambda _: stored.version, "the disk was full")
    report = merge(store, parse_export(json.dumps(doc)), "rescue")
    assert (report.notes, report.copies) == (1, 0)
    assert store.load().notes["c"].text == "the edit that could not be saved"
    store.close()


# Notes: the same text, and versions on a clock that stands still


def test_two_windows_typing_the_same_text_keep_no_copy_and_stay_in_step(data_dir: Path) -> None:
    """Window one saves the very text window two saved meanwhile: nothing to keep beside
    it, and window one now knows the note's version, so its next edit is no conflict."""
    one, two, events = _window_two_saves_unseen(data_dir, "the same words")
    one.save_note(A, "the same words")  # window one never saw window two's save
    assert one.flush()
    assert one.conflict_copies() == []
    one.save_note(A, "window one goes on")
    assert one.flush()
    assert one.conflict_copies() == [] and one.note(A.id) == "window one goes on"
    assert not any(isinstance(e, ConflictDetected) for e in events)
    one.close()
    two.close()


def _stand_the_clock_still(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every note version the store makes reads the same clock value."""
    from tui.store import db

    monkeypatch.setattr(db.time, "time_ns", lambda: 1_000_000_000_000_000)


def _two_writes_a_new_note_then_one_its_own(one: UserData, two: UserData) -> None:
    """Window two writes a new note; window one, not having looked again, writes its own:
    window two's note is kept beside window one's as a copy."""
    two.save_note(A, "window two's new note")
    assert two.flush()
    two.close()
    one.save_note(A, "window one's text")
    assert one.flush()
    assert [c.text for c in one.conflict_copies()] == ["window two's new note"]
    one.close()


def test_a_clock_that_stands_still_never_gives_two_texts_one_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A coarse clock, or one stepped back: a note's new version is still above every
    version it replaces, so the window holding the replaced one is told of the conflict
    instead of overwriting the newer text."""
    _stand_the_clock_still(monkeypatch)
    store = Store.open(tmp_path)
    first = store.save_note("a", "first").version
    two = store.save_note("a", "window two's text", first).version
    one = store.save_note("a", "window one's text", first)  # based on `first`: a conflict
    assert one.conflict is not None and one.version != two
    later = store.save_note("a", "window two again", two)  # two never saw one's text
    assert later.conflict is not None and later.conflict.text == "window one's text"
    store.close()


def test_a_note_written_elsewhere_after_a_delete_is_never_overwritten_unseen(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Window one deletes its note; window two then writes a new one; window one, not
    having looked again, writes its own: window two's note is kept as a copy, even on a
    clock that stands still (the new note's version can be the deleted one's)."""
    _stand_the_clock_still(monkeypatch)
    one = _open(data_dir)
    one.save_note(A, "first")
    assert one.flush()
    one.delete_note(A.id)
    assert one.flush()
    two = _open(data_dir)
    _two_writes_a_new_note_then_one_its_own(one, two)


def test_a_note_deleted_elsewhere_then_written_again_is_never_overwritten_unseen(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Window one sees (on a refresh) that window two deleted its note; window two then
    writes a new one; window one, not having looked again, writes its own: window two's
    note is kept as a copy, even on a clock that stands still."""
    _stand_the_clock_still(monkeypatch)
    one, two = _open(data_dir), _open(data_dir)
    one.save_note(A, "first")
    assert one.flush() and two.refresh()
    two.delete_note(A.id)
    assert two.flush() and one.refresh() and one.note(A.id) is None
    _two_writes_a_new_note_then_one_its_own(one, two)


def test_saved_searches_changed_while_saving_fails_survive_a_refresh(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the database is locked, a search saved and a search deleted stay as the
    user left them through a refresh (which reads the database's older view)."""
    ud = _open(data_dir)
    ud.save_search("old", "dropout", "relevance")
    assert ud.flush()
    holding = _hold_writes(monkeypatch)
    ud.save_search("new", "attention", "relevance")
    assert ud.delete_search("old")
    ud.refresh()
    assert [s.name for s in ud.saved_searches()] == ["new"]
    holding.clear()
    assert ud.flush(timeout=5)
    assert [s.name for s in ud.saved_searches()] == ["new"]
    ud.close()


def test_another_windows_tag_shows_while_a_bookmark_here_waits_to_be_saved(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = _open(data_dir), _open(data_dir)
    two.set_tags(on=[(A.id, "to-read")])
    assert two.flush()
    two.close()
    holding = _hold_writes(monkeypatch)
    one.set_bookmark(A, True)  # queued: the database is locked
    one.refresh()
    assert one.tags_of(A.id) == {"to-read"} and one.is_bookmarked(A.id)
    holding.clear()
    assert one.flush(timeout=5)
    one.close()


def test_a_search_saved_under_the_old_name_while_a_rename_is_written_stays(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user renames a saved search, then saves a new search under the old name while
    the rename is being written: once the rename is written, the new search still shows
    (the rename's "nothing under the old name now" does not hide it)."""
    ud = _open(data_dir)
    ud.save_search("a", "dropout", "relevance")
    assert ud.flush()
    real_apply = Store.apply
    shown_between: list[str] = []

    def apply(self: Store, ops: list[Any]) -> Any:
        if not shown_between:
            ud.save_search("a", "attention", "relevance")  # typed during the rename's write
            shown_between.append("")
        elif shown_between == [""]:
            found = ud.saved_search("a")
            shown_between[0] = found.query if found else "(none)"
        return real_apply(self, ops)

    monkeypatch.setattr(Store, "apply", apply)
    ud.rename_search("a", "b")
    assert ud.flush(timeout=5)
    assert shown_between == ["attention"]
    assert {s.name: s.query for s in ud.saved_searches()} == {"a": "attention", "b": "dropout"}
    ud.close()


def test_a_rename_and_a_bookmark_waiting_to_be_saved_survive_a_refresh(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = _open(data_dir)
    ud.save_search("a", "dropout", "relevance")
    assert ud.flush()
    holding = _hold_writes(monkeypatch)
    ud.set_bookmark(A, True)
    ud.rename_search("a", "b")
    ud.refresh()  # the database still has "a" and no bookmark
    assert [s.name for s in ud.saved_searches()] == ["b"] and ud.is_bookmarked(A.id)
    holding.clear()
    assert ud.flush(timeout=5)
    assert [s.name for s in ud.saved_searches()] == ["b"] and ud.is_bookmarked(A.id)
    ud.close()


def test_every_conflict_saved_in_one_write_is_reported(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    b = make_abstract(PARAGRAPHS[1])
    one, two = _open(data_dir), _open(data_dir)
    events: list[StoreEvent] = []
    one.listener = events.append
    for abstract in (A, b):
        one.save_note(abstract, "base")
    assert one.flush() and two.refresh()
    for abstract in (A, b):
        two.save_note(abstract, "from window two")
    assert two.flush()
    holding = _hold_writes(monkeypatch)  # both edits go in one write once it works again
    for abstract in (A, b):
        one.save_note(abstract, "from window one")
    holding.clear()
    assert one.flush(timeout=5)
    assert sorted(e.abstract_id for e in events if isinstance(e, ConflictDetected)) == sorted(
        [A.id, b.id]
    )
    one.close()
    two.close()


def test_an_import_counts_each_dismissal_and_keeps_when_each_tag_was_put_on(
    tmp_path: Path,
) -> None:
    store = Store.open(tmp_path)
    doc = {
        "format": "abstracts-export",
        "version": 1,
        "dismissals": [{"id": "d1", "created": 1.0}, {"id": "d2", "created": 2.0}],
        "tags": [
            {"id": "t1", "tag": "to-cite", "created": 5.0},
            {"id": "t1", "tag": "later"},  # no time in the file: the import's
        ],
    }
    before = time.time()
    report = merge(store, doc, "import")
    after = time.time()
    assert (report.dismissals, report.tags) == (2, 2)
    tags = store.load().tags["t1"]
    assert tags["to-cite"] == 5.0 and before <= tags["later"] <= after
    store.close()


def test_a_tag_taken_off_stays_off_through_a_refresh_and_a_restart(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = _open(data_dir)
    ud.set_tags(on=[(A.id, "to-cite")])
    assert ud.flush()
    holding = _hold_writes(monkeypatch)
    ud.set_tags(off=[(A.id, "to-cite")])
    ud.refresh()  # the database still has the tag; the queued removal wins
    assert ud.tags_of(A.id) == frozenset()
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()
    again = _open(data_dir)
    assert again.tags_of(A.id) == frozenset()
    again.close()


def test_an_import_failing_half_way_changes_nothing_and_says_the_file_is_malformed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should the checks ever miss a bad field, the import still stops with a message
    (not a traceback), and what it wrote before the bad field is rolled back."""
    from tui.store import export

    monkeypatch.setattr(export, "check_document", lambda doc: None)  # a gap in the checks
    store = Store.open(tmp_path)
    doc = {
        "format": "abstracts-export",
        "version": 1,
        "bookmarks": [{"id": "fine", "created": 1.0}, {"id": "no time"}],
    }
    with pytest.raises(ImportProblem, match=r"^malformed export \(KeyError"):
        merge(store, doc, "import")
    assert store.load().bookmarks == {}
    store.close()


def test_the_same_state_or_note_text_set_again_queues_nothing(data_dir: Path) -> None:
    ud = _open(data_dir)
    ud.set_state("resume", "row 1")
    ud.save_note(A, "a note")
    assert ud.flush()
    ud.set_state("resume", "row 1")
    assert ud.pending_count == 0
    ud.save_note(A, "a note")  # the editor closed without a change
    assert ud.pending_count == 0
    ud.close()


def test_a_tagged_abstract_keeps_its_record_and_a_tag_before_the_corpus_is_saved(
    data_dir: Path,
) -> None:
    ud = _open(data_dir)
    ud.set_tags(on=[(A.id, "early")])  # before the corpus is attached: no record to keep
    assert ud.flush(timeout=5)
    b = make_abstract(PARAGRAPHS[1])
    ud.attach(_corpus([A, b]))
    ud.set_tags(on=[(b.id, "to-cite")])
    assert ud.flush(timeout=5)
    snap = ud.snapshot(b.id)  # the notes and orphans views show it by this record
    assert snap is not None and snap.text == b.text
    ud.close()


def test_a_store_that_opens_but_cannot_be_read_says_why_and_saves_later(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_load = Store.load
    failures = iter([sqlite3.OperationalError("disk I/O error")])

    def load_failing_once(self: Store) -> StoreData:
        error = next(failures, None)
        if error is not None:
            raise error
        return real_load(self)

    monkeypatch.setattr(Store, "load", load_failing_once)
    ud = _open(data_dir)
    assert ud.notices == [
        "Saving is unavailable: disk I/O error. What is saved is shown, read-only; changes "
        "made now are kept in memory and saving is retried. Whatever is still unsaved at "
        "quit is written to a rescue file, which `abstracts import` brings back."
    ]
    ud.save_note(A, "kept")
    assert ud.flush(timeout=5)
    ud.close()
    assert Store.open(data_dir).load().notes[A.id].text == "kept"


def test_rescued_edits_of_stored_notes_count_as_notes_added(tmp_path: Path) -> None:
    """A rescue file's edits of notes stored here replace them, and the report counts
    each one."""
    store = Store.open(tmp_path)
    versions = {i: store.save_note(i, "before").version for i in ("n1", "n2")}
    notes = [
        {"id": i, "text": f"rescued {i}", "updated": 1.0, "base_version": v}
        for i, v in versions.items()
    ]
    report = merge(store, {"format": "abstracts-export", "version": 1, "notes": notes}, "rescue")
    assert (report.notes, report.copies) == (2, 0)
    assert {i: n.text for i, n in store.load().notes.items()} == {
        "n1": "rescued n1",
        "n2": "rescued n2",
    }
    store.close()


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


def test_the_export_file_is_indented_one_space_and_names_every_time(tmp_path: Path) -> None:
    """One value per line, indented one space (readable, and a diff shows what changed);
    a tag's and a saved search's times are written under the names an import reads."""
    ud = _open(tmp_path)
    ud.attach(_corpus([A]))
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
