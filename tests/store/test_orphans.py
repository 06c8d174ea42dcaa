"""Orphans: a record follows its abstract through reorder and light edits, and is never lost."""

from __future__ import annotations

from pathlib import Path

from rapidfuzz import fuzz

from tests.store.helpers import (
    NEAR,
    PARAGRAPHS,
    corpus_of,
    load,
    make_abstract,
    open_userdata,
    write_file,
)
from tui.corpus.model import Corpus, normalise
from tui.store.attach import AMBIGUITY_MARGIN, Matcher, match_orphans
from tui.store.db import Store
from tui.store.records import OrphanReattached, StoreEvent
from tui.store.userdata import UserData

A = make_abstract(PARAGRAPHS[0])


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


# The ambiguity margin and the number of candidates offered, on texts whose RapidFuzz
# ratios are exact: with a 200-character text, each character changed costs half a point
# (a 100-character one, a full point).
PROSE = normalise(PARAGRAPHS[0] + " " + PARAGRAPHS[1])


def _changed(text: str, *positions: int) -> str:
    chars = list(text)
    for p in positions:
        chars[p] = "#"
    return "".join(chars)


def test_a_runner_up_a_full_point_behind_is_no_tie() -> None:
    """The best candidate moves when the next is exactly `AMBIGUITY_MARGIN` behind."""
    base = PROSE[:100]
    best, second = make_abstract(_changed(base, 10)), make_abstract(_changed(base, 10, 40))
    scores = [fuzz.ratio(base, a.text) for a in (best, second)]
    assert scores == [99.0, 98.0] and scores[0] - scores[1] == AMBIGUITY_MARGIN
    moved, unsure = match_orphans({"lost": base}, Corpus([second, best], [], []))
    assert [(r.old_id, r.new_id, r.score) for r in moved] == [("lost", best.id, 99.0)]
    assert unsure == []


def test_the_user_chooses_among_the_candidates_within_a_point_of_the_best() -> None:
    """A tie offers the candidates less than a point behind the best, not one a full
    point behind it (even when that one is within a point of the second)."""
    base = PROSE[:200]
    one, two, three = (_changed(base, *range(10, 10 + 40 * k, 40)) for k in (1, 2, 3))
    abstracts = [make_abstract(t) for t in (three, two, one)]
    assert [fuzz.ratio(base, a.text) for a in abstracts] == [98.5, 99.0, 99.5]
    moved, [tie] = match_orphans({"lost": base}, Corpus(abstracts, [], []))
    assert moved == [] and tie.orphan_id == "lost"
    assert tie.candidates == ((abstracts[2].id, 99.5), (abstracts[1].id, 99.0))


def test_a_tie_offers_at_most_three_candidates_best_first() -> None:
    base = PROSE[:200]
    changed = [make_abstract(_changed(base, p)) for p in (10, 50, 90, 130)]
    better = make_abstract(base + "!")  # 200 and 201 characters: 100 · 400/401
    assert {fuzz.ratio(base, a.text) for a in changed} == {99.5}
    assert 99.75 < fuzz.ratio(base, better.text) < 100
    moved, [tie] = match_orphans({"lost": base}, Corpus([*changed, better], [], []))
    assert moved == [] and len(tie.candidates) == 3
    assert tie.candidates[0] == (better.id, fuzz.ratio(base, better.text))
    assert {s for _, s in tie.candidates[1:]} == {99.5}


def test_the_same_sentences_in_another_order_are_another_abstract() -> None:
    """Re-attachment compares the texts in order: the same words rearranged (which a
    word-order-blind score rates 95) do not take a record along."""
    base = normalise(PARAGRAPHS[0])
    first, rest = base.split(". ", 1)
    swapped = make_abstract(f"{rest[:-1]}. {first}.")
    assert sorted(swapped.text.split()) == sorted(base.split())
    assert fuzz.ratio(base, swapped.text) < 70 and fuzz.WRatio(base, swapped.text) >= 95
    assert match_orphans({"lost": base}, Corpus([swapped], [], [])) == ([], [])


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
    ud = open_userdata(data_dir)
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
    corpus = corpus_of([far, near, same])
    found = Matcher(corpus).candidates(base)
    assert [i for i, _ in found] == [same.id, near.id]
    assert found[0][1] == 100.0 and found[1][1] == fuzz.ratio(base, NEAR)


def test_match_orphans_moves_the_clear_winner_and_asks_about_a_tie() -> None:
    base = normalise(PARAGRAPHS[0])
    near = make_abstract(NEAR)
    v1 = make_abstract(base.replace("prove", "proved"))
    v2 = make_abstract(base.replace("bounds", "boundz"))
    moved, unsure = match_orphans({"x": NEAR}, corpus_of([near, make_abstract(FAR)]))
    assert [(r.old_id, r.new_id, r.score) for r in moved] == [("x", near.id, 100.0)]
    assert unsure == []
    moved, unsure = match_orphans({"y": base}, corpus_of([v1, v2, near]))
    assert moved == []
    [amb] = unsure
    assert amb.orphan_id == "y" and {i for i, _ in amb.candidates} == {v1.id, v2.id}
    assert match_orphans({}, corpus_of([near])) == ([], [])


def test_a_clear_winner_is_moved_even_with_a_runner_up() -> None:
    base = normalise(PARAGRAPHS[0])
    same, near = make_abstract(base), make_abstract(NEAR)
    texts = {"lost": PARAGRAPHS[3], "x": base}  # the first finds nothing: the next still moves
    moved, unsure = match_orphans(texts, corpus_of([near, same]))
    assert [(r.old_id, r.new_id) for r in moved] == [("x", same.id)] and unsure == []
