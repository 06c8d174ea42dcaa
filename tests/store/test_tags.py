"""Tags in the store: memory first, saved in the background, two instances, re-attachment,
restart and SIGKILL after the save."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.store.helpers import (
    PARAGRAPHS,
    corpus_of,
    hold_writes,
    load,
    make_abstract,
    open_userdata,
    write_file,
)
from tui.corpus.model import Corpus
from tui.store.db import Store
from tui.store.userdata import UserData

A = make_abstract(PARAGRAPHS[0])


A, B, C = (make_abstract(p, position=i) for i, p in enumerate(PARAGRAPHS[:3], start=1))
CORPUS = Corpus([A, B, C], [], [])


def _open(d: Path, corpus: Corpus = CORPUS) -> UserData:
    ud = UserData.open(d, retry_initial=0.02, retry_max=0.1)
    ud.attach(corpus)
    return ud


def test_tags_answer_from_memory_and_survive_a_restart(data_dir: Path) -> None:
    ud = _open(data_dir)
    ud.set_tags(on=[(A.id, "to-cite"), (B.id, "to-cite"), (A.id, "rg")])
    # At once, before anything is committed.
    assert ud.tags_of(A.id) == {"to-cite", "rg"}
    assert ud.tag_index() == {"to-cite": {A.id, B.id}, "rg": {A.id}}
    assert ud.tag_counts() == {"to-cite": 2, "rg": 1}
    ud.set_tags(off=[(B.id, "to-cite")])
    assert ud.tag_index()["to-cite"] == {A.id}
    ud.close()
    again = _open(data_dir)
    assert again.tags_of(A.id) == {"to-cite", "rg"} and again.tags_of(B.id) == frozenset()
    # A tagged abstract keeps a record, as a bookmarked one does.
    snapshot = again.snapshot(A.id)
    assert snapshot is not None and snapshot.text == A.text
    again.close()


def test_the_index_given_to_a_search_is_never_changed_afterwards(data_dir: Path) -> None:
    ud = _open(data_dir)
    ud.set_tags(on=[(A.id, "x")])
    seen = ud.tag_index()
    ud.set_tags(on=[(B.id, "x"), (C.id, "y")], off=[(A.id, "x")])
    assert seen == {"x": {A.id}}
    assert ud.tag_index() == {"x": {B.id}, "y": {C.id}}
    ud.close()


def test_a_tag_taken_off_its_last_abstract_leaves_the_index(data_dir: Path) -> None:
    """A search for a tag nobody has any more finds nothing (not the abstract it was on)."""
    ud = _open(data_dir)
    ud.set_tags(on=[(A.id, "x"), (B.id, "y")])
    assert ud.tag_index() == {"x": {A.id}, "y": {B.id}}
    ud.set_tags(off=[(A.id, "x")])
    assert ud.tag_index() == {"y": {B.id}}
    ud.set_tags(on=[(C.id, "z")])
    ud.set_tags(off=[(C.id, "z")])  # on and off again before any search asked
    assert ud.tag_index() == {"y": {B.id}}
    ud.close()


def test_pairs_already_as_asked_queue_nothing(data_dir: Path) -> None:
    ud = _open(data_dir)
    ud.set_tags(on=[(A.id, "x")])
    assert ud.flush()
    ud.set_tags(on=[(A.id, "x")], off=[(B.id, "x")])
    assert ud.pending_count == 0
    ud.close()


def test_a_pair_named_twice_in_one_change_changes_once(data_dir: Path) -> None:
    ud = _open(data_dir)
    ud.set_tags(on=[(A.id, "x"), (A.id, "x"), (B.id, "x")])
    assert ud.tags_of(A.id) == {"x"} and ud.tag_counts() == {"x": 2}
    ud.set_tags(off=[(A.id, "x"), (A.id, "x")])
    assert ud.tags_of(A.id) == frozenset() and ud.tag_index() == {"x": {B.id}}
    assert ud.flush()
    ud.close()
    assert Store.open(data_dir).load().tags.keys() == {B.id}


def test_two_instances_keep_both_tags_and_refresh_sees_the_other(data_dir: Path) -> None:
    one, two = _open(data_dir), _open(data_dir)
    one.set_tags(on=[(A.id, "mine")])
    two.set_tags(on=[(A.id, "theirs"), (B.id, "theirs")])
    assert one.flush() and two.flush()
    assert one.refresh() and two.refresh()
    assert one.tags_of(A.id) == two.tags_of(A.id) == {"mine", "theirs"}
    assert one.tag_index()["theirs"] == {A.id, B.id}
    one.close()
    two.close()


def test_a_tag_removed_in_one_and_added_in_the_other_follows_the_last_save(
    data_dir: Path,
) -> None:
    """The rule: per (abstract, tag) pair, the change committed last wins; a queued change
    of this instance is never replaced by what a refresh reads."""
    one, two = _open(data_dir), _open(data_dir)
    one.set_tags(on=[(A.id, "x")])
    assert one.flush() and two.refresh()
    one.set_tags(off=[(A.id, "x")])
    assert one.flush()
    two.set_tags(on=[(A.id, "x")])  # two still sees x: nothing to queue
    two.set_tags(off=[(A.id, "x")])
    two.set_tags(on=[(A.id, "x")])  # two adds it back after one removed it
    assert two.flush()
    assert one.refresh() and one.tags_of(A.id) == {"x"}
    one.close()
    two.close()
    assert Store.open(data_dir).load().tags[A.id].keys() == {"x"}


def test_a_refresh_keeps_a_queued_tag(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ud, other = _open(data_dir), _open(data_dir)
    other.set_tags(on=[(B.id, "theirs")])
    assert other.flush()
    real_apply = Store.apply

    def failing(self: Store, ops: list[object]) -> object:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(Store, "apply", failing)
    ud.set_tags(on=[(A.id, "mine")])
    assert not ud.flush(timeout=0.2)
    assert ud.refresh() and ud.pending_count == 1
    assert ud.tags_of(A.id) == {"mine"} and ud.tags_of(B.id) == {"theirs"}
    monkeypatch.setattr(Store, "apply", real_apply)
    assert ud.flush()
    ud.close()
    other.close()


def test_tags_move_with_a_reattached_abstract(tmp_path: Path) -> None:
    data = tmp_path / "data"
    text = PARAGRAPHS[3]
    first = load([write_file(tmp_path / "a.txt", "ICLR 2023", [text])])
    ud = _open(data, first)
    [old] = first.abstracts
    ud.set_tags(on=[(old.id, "gnn")])
    ud.close()
    edited = load([write_file(tmp_path / "a.txt", "ICLR 2023", [text.replace("fix", "fix.")])])
    [new] = edited.abstracts
    assert new.id != old.id
    ud = _open(data, edited)
    assert ud.tags_of(new.id) == {"gnn"} and ud.tags_of(old.id) == frozenset()
    assert ud.aliases() == {old.id: new.id}
    ud.close()
    stored = Store.open(data).load().tags
    assert {i: set(tags) for i, tags in stored.items()} == {new.id: {"gnn"}}


def test_an_orphans_tags_are_kept_and_listed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    ud = _open(data)
    ud.set_tags(on=[(C.id, "later")])
    ud.close()
    ud = _open(data, Corpus([A], [], []))
    assert [o.id for o in ud.orphans()] == [C.id]
    assert ud.tag_counts() == {"later": 1}
    ud.close()


CHILD = """
import sys, time
from pathlib import Path
from tests.store.helpers import PARAGRAPHS, make_abstract
from tui.corpus.model import Corpus
from tui.store.userdata import UserData
a = make_abstract(PARAGRAPHS[0])
ud = UserData.open(Path(sys.argv[1]))
ud.attach(Corpus([a], [], []))
ud.set_tags(on=[(a.id, "kept")])
assert ud.flush()
print("saved", flush=True)
time.sleep(60)
"""


def test_sigkill_after_the_save_keeps_the_tags(data_dir: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(data_dir)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "saved"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    assert child.returncode == -signal.SIGKILL
    ud = _open(data_dir)
    assert ud.tags_of(A.id) == {"kept"}
    ud.close()


def test_a_tag_taken_off_stays_off_through_a_refresh_and_a_restart(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = open_userdata(data_dir)
    ud.set_tags(on=[(A.id, "to-cite")])
    assert ud.flush()
    holding = hold_writes(monkeypatch)
    ud.set_tags(off=[(A.id, "to-cite")])
    ud.refresh()  # the database still has the tag; the queued removal wins
    assert ud.tags_of(A.id) == frozenset()
    holding.clear()
    assert ud.flush(timeout=5)
    ud.close()
    again = open_userdata(data_dir)
    assert again.tags_of(A.id) == frozenset()
    again.close()


def test_a_tagged_abstract_keeps_its_record_and_a_tag_before_the_corpus_is_saved(
    data_dir: Path,
) -> None:
    ud = open_userdata(data_dir)
    ud.set_tags(on=[(A.id, "early")])  # before the corpus is attached: no record to keep
    assert ud.flush(timeout=5)
    b = make_abstract(PARAGRAPHS[1])
    ud.attach(corpus_of([A, b]))
    ud.set_tags(on=[(b.id, "to-cite")])
    assert ud.flush(timeout=5)
    snap = ud.snapshot(b.id)  # the notes and orphans views show it by this record
    assert snap is not None and snap.text == b.text
    ud.close()
