"""Bulk steps (tagging or marking a whole list): written as one transaction whose result
is the same as applying each change in turn, and reported as saving until committed."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.store.helpers import make_abstract
from tui.corpus.model import Corpus
from tui.store import writer
from tui.store.db import Store
from tui.store.operations import SetReads, SetTags
from tui.store.records import BulkSaved, Snapshot, StoreEvent
from tui.store.userdata import UserData

SNAP_A = Snapshot("first text", "first")
SNAP_B = Snapshot("second text", "second")


@pytest.mark.parametrize(
    ("ops", "tags"),
    [
        ([SetTags("t", ("a",), True, 1.0), SetTags("t", ("a",), False, 2.0)], {}),
        (
            [SetTags("t", ("a", "b"), False, 1.0), SetTags("t", ("a",), True, 2.0)],
            {"a": {"t": 2.0}},
        ),
        (
            [
                SetTags("t", ("b", "c"), True, 5.0),
                SetTags("u", ("a",), True, 3.0),
                SetTags("t", ("b", "b"), True, 4.0),
                SetTags("t", ("c",), False, 6.0),
            ],
            {"a": {"u": 3.0}, "b": {"t": 5.0}},
        ),
    ],
)
def test_steps_of_tag_changes_end_as_if_applied_one_by_one(
    data_dir: Path, ops: list[SetTags], tags: dict[str, dict[str, float]]
) -> None:
    store = Store.open(data_dir)
    results = store.apply(ops)
    assert [r.op for r in results] == ops
    assert store.load().tags == tags
    store.close()


def test_steps_of_read_marks_end_as_if_applied_one_by_one(data_dir: Path) -> None:
    store = Store.open(data_dir)
    store.apply(
        [
            SetReads(("a", "b"), True, 1.0),
            SetReads(("a", "a"), True, 2.0),
            SetReads(("b", "d"), False, 4.0),
            SetReads(("c",), False, 5.0),
            SetReads(("c",), True, 6.0),
        ]
    )
    assert store.load().reads == {"a": 1.0, "c": 6.0}
    store.close()


def test_the_last_snapshot_of_an_abstract_in_a_batch_is_its_record(data_dir: Path) -> None:
    store = Store.open(data_dir)
    # The later snapshot sorts first by its text: the one that wins is still the later.
    store.apply(
        [
            SetTags("t", ("a",), True, 1.0, (("a", SNAP_B),)),
            SetTags("u", ("a",), True, 2.0, (("a", SNAP_A),)),
        ]
    )
    store.apply([SetTags("t", ("b",), False, 1.0, (("b", SNAP_A),))])  # off: keeps no record
    data = store.load()
    assert data.records == {"a": SNAP_A}
    assert data.tags == {"a": {"t": 1.0, "u": 2.0}}
    store.close()


def test_a_bulk_step_is_saving_until_committed_then_reported_once(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    abstracts = [make_abstract(f"Abstract number {n} about graphs.") for n in range(150)]
    data = UserData.open(data_dir)
    data.attach(Corpus(abstracts, [], []))
    events: list[StoreEvent] = []
    data.listener = events.append
    held = threading.Event()
    real_apply = Store.apply

    def slow_apply(store: Store, ops: list[object]) -> object:
        held.wait(10)
        return real_apply(store, ops)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "apply", slow_apply)
    data.set_tags(on=[(a.id, "all") for a in abstracts[: writer.BULK_STEP - 1]])
    assert not data.bulk_saving  # fewer changes than a bulk step: no "saving…"
    data.set_tags(on=[(a.id, "many") for a in abstracts])
    assert data.bulk_saving
    data.set_read(abstracts[:100], True)
    held.set()
    assert data.flush(timeout=10)
    assert not data.bulk_saving
    data.close()  # the writer has stopped: every event it had to tell is told
    # Both steps were queued before either was saved: told once, counted together.
    saved = [e for e in events if isinstance(e, BulkSaved)]
    assert saved == [BulkSaved("Saved: 250 changes.", 250)]
    assert Store.open(data_dir).load().tags[abstracts[0].id].keys() == {"all", "many"}


def test_a_small_change_after_a_bulk_step_does_not_report_it_again(data_dir: Path) -> None:
    abstracts = [make_abstract(f"Abstract number {n} about trees.") for n in range(100)]
    data = UserData.open(data_dir)
    events: list[StoreEvent] = []
    data.listener = events.append
    data.set_read(abstracts, True)  # exactly a bulk step
    assert data.flush(timeout=10)
    data.set_bookmark(abstracts[0], True)
    assert data.flush(timeout=10)
    data.set_tags(on=[(a.id, "t") for a in abstracts[:-1]] + [(abstracts[0].id, "u")])
    assert data.flush(timeout=10)
    data.close()
    assert [e for e in events if isinstance(e, BulkSaved)] == [
        BulkSaved("Saved: 100 changes.", 100),
        BulkSaved("Saved: 100 changes.", 100),  # each step counted alone
    ]


def test_a_tagged_abstracts_record_is_saved_without_a_headline_and_reads_with_one(
    data_dir: Path,
) -> None:
    """Tagging many abstracts makes a record of each: its headline, most of a record's
    cost, is not made then; it is made from the text when a record is read."""
    abstract = make_abstract("We prove a bound. Then we test it on graphs.")
    data = UserData.open(data_dir)
    data.attach(Corpus([abstract], [], []))
    data.set_tags(on=[(abstract.id, "later")])
    assert data.flush()
    data.close()
    record = Store.open(data_dir).load().records[abstract.id]
    assert record.given_headline == ""
    assert record.headline == abstract.headline == "We prove a bound."
