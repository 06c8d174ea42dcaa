"""Bulk steps (tagging or marking a whole list): written as one transaction whose result
is the same as applying each change in turn, and reported as saving until committed."""

from __future__ import annotations

import gc
import json
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.store.helpers import hold_writes, make_abstract
from tui.corpus.model import Abstract, Corpus
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


def test_a_tagged_abstracts_record_is_saved_when_the_first_write_failed(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    abstract = make_abstract("We prove a bound on graphs. Then we test it.")
    data = UserData.open(data_dir, retry_initial=0.01, retry_max=0.05)
    data.attach(Corpus([abstract], [], []))
    holding = hold_writes(monkeypatch)
    data.set_tags(on=[(abstract.id, "t")])
    assert not data.flush(timeout=0.2)  # tried, failed, kept
    holding.clear()
    assert data.flush(timeout=10)
    data.close()
    stored = Store.open(data_dir).load()
    assert stored.tags[abstract.id].keys() == {"t"}
    assert stored.records[abstract.id].text == abstract.text


def _many(count: int, topic: str) -> list[Abstract]:
    return [make_abstract(f"Abstract number {n} about {topic}.") for n in range(count)]


def test_a_change_made_while_a_bulk_step_is_written_is_saved_after_it(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    abstracts = _many(150, "graphs")
    data = UserData.open(data_dir)
    data.attach(Corpus(abstracts, [], []))
    writing, release = threading.Event(), threading.Event()
    real_apply = Store.apply

    def slow_apply(store: Store, ops: list[object]) -> object:
        writing.set()
        release.wait(10)
        return real_apply(store, ops)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "apply", slow_apply)
    data.set_tags(on=[(a.id, "t") for a in abstracts])
    data.set_read(abstracts, True)
    assert writing.wait(10)
    # Both steps are being written: one pair of each changed again meanwhile.
    data.set_tags(off=[(abstracts[0].id, "t")])
    data.set_read(abstracts[1:2], False)
    release.set()
    assert data.flush(timeout=10) and data.pending_count == 0
    data.close()
    stored = Store.open(data_dir).load()
    assert {i for i, tags in stored.tags.items() if "t" in tags} == {a.id for a in abstracts[1:]}
    assert stored.reads.keys() == {a.id for a in abstracts} - {abstracts[1].id}


def test_a_later_change_replaces_a_queued_step_for_its_abstract_alone(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    abstracts = _many(150, "trees")
    data = UserData.open(data_dir, retry_initial=0.01, retry_max=0.05)
    data.attach(Corpus(abstracts, [], []))
    holding = hold_writes(monkeypatch)
    data.set_tags(on=[(a.id, "t") for a in abstracts])
    data.set_tags(off=[(abstracts[0].id, "t")])
    data.set_read(abstracts, True)
    data.set_read(abstracts[:2], False)
    assert data.pending_count == 300  # one change per abstract and kind, the step's or later
    holding.clear()
    assert data.flush(timeout=10)
    data.close()
    stored = Store.open(data_dir).load()
    assert {i for i, tags in stored.tags.items() if "t" in tags} == {a.id for a in abstracts[1:]}
    assert stored.reads.keys() == {a.id for a in abstracts[2:]}


def test_an_unsaved_bulk_step_goes_to_the_rescue_file_whole(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    abstracts = _many(120, "proofs")
    data = UserData.open(data_dir, retry_initial=0.01, retry_max=0.05)
    data.attach(Corpus(abstracts, [], []))
    hold_writes(monkeypatch)
    data.set_tags(on=[(a.id, "t") for a in abstracts])
    data.set_read(abstracts, True)
    rescued = data.close(timeout=0.2)
    assert rescued is not None
    doc = json.loads(rescued.read_text(encoding="utf-8"))
    ids = sorted(a.id for a in abstracts)
    assert sorted(t["id"] for t in doc["tags"] if t["tag"] == "t") == ids
    assert sorted(r["id"] for r in doc["reads"]) == ids
    assert sorted(r["id"] for r in doc["records"]) == ids  # each with its text
    assert {r["text"] for r in doc["records"]} == {a.text for a in abstracts}


BULK_CHILD = """
import sys
from pathlib import Path
from tests.store.helpers import make_abstract
from tui.corpus.model import Corpus
from tui.store.userdata import UserData
abstracts = [make_abstract(f"Abstract {n} about kills.") for n in range(3000)]
ud = UserData.open(Path(sys.argv[1]))
ud.attach(Corpus(abstracts, [], []))
step = 0
while True:
    ud.set_tags(on=[(a.id, f"step{step}") for a in abstracts])
    ud.set_read(abstracts, step % 2 == 0)
    assert ud.flush(timeout=60)
    print(step, flush=True)
    step += 1
"""


def test_sigkill_during_bulk_steps_keeps_each_whole_or_not_at_all(tmp_path: Path) -> None:
    rng = random.Random(7)
    for kill in range(3):
        data_dir = tmp_path / f"data{kill}"
        child = subprocess.Popen(
            [sys.executable, "-c", BULK_CHILD, str(data_dir)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).parents[2],
        )
        try:
            assert child.stdout is not None
            saved = int(child.stdout.readline())  # one step committed: kill during the next
            time.sleep(rng.uniform(0.0, 0.3))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(10)
        assert child.returncode == -signal.SIGKILL
        stored = Store.open(data_dir).load()
        counts: dict[str, int] = {}
        for tags in stored.tags.values():
            for tag in tags:
                counts[tag] = counts.get(tag, 0) + 1
        assert counts.keys() >= {f"step{n}" for n in range(saved + 1)}
        assert set(counts.values()) == {3000}  # every step on all of them, or on none
        assert len(stored.records) == 3000
        assert len(stored.reads) in (0, 3000)


def _in_the_file_itself(data_dir: Path) -> int:
    """Tags the database file holds without its write-ahead log (what a checkpoint copied)."""
    uri = f"file:{data_dir / 'abstracts.db'}?immutable=1"
    conn = sqlite3.connect(uri, uri=True)
    try:
        if conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'tags'").fetchone()[0]:
            return int(conn.execute("SELECT count(*) FROM tags").fetchone()[0])
        return 0  # not even the tables: the store's first commits are all in the log
    finally:
        conn.close()


def _wide(count: int) -> list[Abstract]:
    # Long texts: the step's records fill more than SQLite's 1,000-page log threshold.
    words = "graph " * 400
    return [make_abstract(f"Abstract number {n} about {words}") for n in range(count)]


def test_a_bulk_steps_commit_leaves_the_log_to_a_checkpoint_after_it_is_told(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    abstracts = _wide(2500)
    data = UserData.open(data_dir)
    data.attach(Corpus(abstracts, [], []))
    checkpoints: list[int] = []
    monkeypatch.setattr(Store, "checkpoint", lambda store: checkpoints.append(1))
    data.set_tags(on=[(a.id, "t") for a in abstracts])
    assert data.flush(timeout=30)
    # Committed (in the log) but not copied into the file by the commit itself.
    assert _in_the_file_itself(data_dir) == 0
    assert Store.open(data_dir).load().tags.keys() == {a.id for a in abstracts}
    monkeypatch.undo()
    data.set_bookmark(abstracts[0], True)  # a small batch's commit checkpoints as SQLite does
    assert data.flush(timeout=30)
    assert _in_the_file_itself(data_dir) == 2500
    data.close()


def test_a_bulk_step_is_copied_into_the_database_file_once_saved(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    abstracts = _wide(2500)
    data = UserData.open(data_dir)
    data.attach(Corpus(abstracts, [], []))
    checkpointed = threading.Event()
    real_checkpoint = Store.checkpoint

    def checkpoint(store: Store) -> None:
        real_checkpoint(store)
        checkpointed.set()

    monkeypatch.setattr(Store, "checkpoint", checkpoint)
    data.set_tags(on=[(a.id, "t") for a in abstracts])
    assert data.flush(timeout=30)
    assert checkpointed.wait(10)  # on the writer thread, after the commit is told
    assert _in_the_file_itself(data_dir) == 2500
    data.close()


def test_garbage_collection_is_paused_while_a_bulk_batch_is_written_and_back_on_after(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert gc.isenabled()
    abstracts = _many(writer.BULK_STEP, "cycles")  # exactly a bulk step
    data = UserData.open(data_dir)
    data.attach(Corpus(abstracts, [], []))
    collecting: list[bool] = []
    real_apply = Store.apply

    def apply(store: Store, ops: list[object]) -> object:
        collecting.append(gc.isenabled())
        return real_apply(store, ops)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "apply", apply)
    data.set_tags(on=[(a.id, "few") for a in abstracts[: writer.BULK_STEP - 1]])
    assert data.flush(timeout=10)
    data.set_tags(on=[(a.id, "all") for a in abstracts])
    assert data.flush(timeout=10)
    data.close()
    assert collecting == [True, False]  # paused for the bulk step's batch alone
    assert gc.isenabled()


class _CheckpointFails:
    """A store's connection whose checkpoints fail (an I/O error), everything else as is."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if "wal_checkpoint" in sql:
            raise sqlite3.OperationalError("disk I/O error")
        return self._conn.execute(sql, *args)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> object:
        return getattr(self._conn, name)


def test_a_failed_checkpoint_after_a_bulk_step_leaves_saving_working(data_dir: Path) -> None:
    abstracts = _many(150, "disks")
    data = UserData.open(data_dir)
    data.attach(Corpus(abstracts, [], []))
    store = data.writer.store
    assert store is not None
    store.conn = _CheckpointFails(store.conn)  # type: ignore[assignment]
    data.set_tags(on=[(a.id, "t") for a in abstracts])
    assert data.flush(timeout=10)
    data.set_bookmark(abstracts[0], True)  # the writer goes on after the failed checkpoint
    assert data.flush(timeout=10) and data.saving_available
    data.close()
    stored = Store.open(data_dir).load()
    assert len(stored.tags) == 150 and stored.bookmarks.keys() == {abstracts[0].id}
