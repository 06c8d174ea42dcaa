"""Orphans: a record follows its abstract through reorder and light edits, and is never lost."""

from __future__ import annotations

from pathlib import Path

from tests.store.helpers import PARAGRAPHS, load, make_abstract, write_file
from tui.store.db import Store
from tui.store.records import OrphanReattached, StoreEvent
from tui.store.userdata import UserData


def test_reorder_edit_remove(tmp_path: Path, data_dir: Path) -> None:
    f = tmp_path / "iclr2023.txt"
    write_file(f, "ICLR 2023 Papers", PARAGRAPHS)
    corpus = load([f])
    target = corpus.abstracts[1]
    ud = UserData.open(data_dir, retry_initial=0.02)
    events: list[StoreEvent] = []
    ud.listener = events.append
    assert ud.attach(corpus).orphans == []
    ud.set_bookmark(target, True)
    ud.save_note(target, "my note on the combinatorial paper")
    assert ud.flush()

    # Reorder: same text, same id, nothing to do.
    write_file(f, "ICLR 2023 Papers", list(reversed(PARAGRAPHS)))
    report = ud.attach(load([f]))
    assert report.reattached == [] and report.orphans == []
    assert ud.note(target.id) == "my note on the combinatorial paper"

    # Edit slightly: a typo fixed -> new id, the note follows.
    edited = PARAGRAPHS[1].replace("transformative", "transformational")
    write_file(f, "ICLR 2023 Papers", [PARAGRAPHS[0], edited, *PARAGRAPHS[2:]])
    corpus2 = load([f])
    new = next(a for a in corpus2.abstracts if a.text.startswith("Achieving"))
    assert new.id != target.id
    report = ud.attach(corpus2)
    assert [(r.old_id, r.new_id) for r in report.reattached] == [(target.id, new.id)]
    assert report.orphans == []
    assert ud.note(new.id) == "my note on the combinatorial paper" and ud.is_bookmarked(new.id)
    assert ud.note(target.id) is None
    assert ud.flush()
    assert any(isinstance(e, OrphanReattached) for e in events)
    ud.close()
    data = Store.open(data_dir).load()
    assert data.notes[new.id].text == "my note on the combinatorial paper"
    assert data.aliases == {target.id: new.id}

    # Remove it: orphaned, listed with its snapshot, never lost.
    write_file(f, "ICLR 2023 Papers", [PARAGRAPHS[0], *PARAGRAPHS[2:]])
    ud = UserData.open(data_dir)
    report = ud.attach(load([f]))
    [orphan] = report.orphans
    assert orphan.id == new.id and orphan.bookmarked
    assert orphan.note == "my note on the combinatorial paper"
    assert orphan.snapshot is not None and orphan.snapshot.text == edited
    assert [n.orphaned for n in ud.notes()] == [True]
    ud.close()
    assert new.id in Store.open(data_dir).load().notes


def test_competing_candidates_are_ambiguous_then_resolved(tmp_path: Path, data_dir: Path) -> None:
    base = PARAGRAPHS[0]
    f = tmp_path / "a.txt"
    write_file(f, "ICLR 2023 Papers", [base])
    ud = UserData.open(data_dir)
    ud.attach(load([f]))
    ud.save_note(load([f]).abstracts[0], "note")
    # Two versions, each one character away from the original.
    v1, v2 = base.replace("prove", "proved"), base.replace("bounds", "boundz")
    write_file(f, "ICLR 2023 Papers", [v1, v2])
    corpus = load([f])
    report = ud.attach(corpus)
    [amb] = report.ambiguous
    assert len(amb.candidates) == 2 and report.reattached == []
    assert [o.id for o in report.orphans] == [amb.orphan_id]
    chosen = amb.candidates[1][0]
    ud.resolve(amb.orphan_id, chosen)
    assert ud.note(chosen) == "note" and ud.orphans() == []
    assert ud.flush()
    ud.close()


def test_unrelated_text_stays_orphan(tmp_path: Path, data_dir: Path) -> None:
    f = tmp_path / "a.txt"
    write_file(f, "ICLR 2023 Papers", PARAGRAPHS[:1])
    ud = UserData.open(data_dir)
    ud.set_bookmark(load([f]).abstracts[0], True)
    write_file(f, "ICLR 2023 Papers", PARAGRAPHS[1:])
    report = ud.attach(load([f]))
    assert report.reattached == [] and len(report.orphans) == 1
    ud.close()


def test_nothing_is_an_orphan_before_the_abstracts_are_loaded(data_dir: Path) -> None:
    """While the corpus is still loading, a note is not shown as orphaned."""
    ud = UserData.open(data_dir, retry_initial=0.02)
    ud.save_note(make_abstract(PARAGRAPHS[0]), "written before the corpus loaded")
    [note] = ud.notes()
    assert not note.orphaned and ud.orphans() == []
    ud.close()
