"""Behaviour the store's other tests left unchecked, found by mutation testing (mutmut).

Each test states what a user relies on; a one-line change to the code that breaks
it makes the test fail.
"""

from __future__ import annotations

from pathlib import Path

from rapidfuzz import fuzz

from tests.store.helpers import PARAGRAPHS, load, make_abstract, write_file
from tui.corpus.model import Abstract, Corpus, normalise
from tui.store.attach import Matcher, match_orphans
from tui.store.records import ConflictDetected, StoreEvent
from tui.store.userdata import UserData

A = make_abstract(PARAGRAPHS[0])


def _corpus(abstracts: list[Abstract]) -> Corpus:
    return Corpus(abstracts, [], [])


def _open(d: Path) -> UserData:
    return UserData.open(d, retry_initial=0.02, retry_max=0.1)


# Conflicts


def test_deleting_a_note_changed_elsewhere_keeps_the_other_text(data_dir: Path) -> None:
    one, two = _open(data_dir), _open(data_dir)
    events: list[StoreEvent] = []
    one.listener = events.append
    one.save_note(A, "base")
    assert one.flush() and two.refresh()
    two.save_note(A, "written in window two")
    assert two.flush()
    one.delete_note(A.id)  # window one never saw window two's text
    assert one.flush()
    assert one.note(A.id) is None
    assert [c.text for c in one.conflict_copies()] == ["written in window two"]
    assert any(isinstance(e, ConflictDetected) and e.abstract_id == A.id for e in events)
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
