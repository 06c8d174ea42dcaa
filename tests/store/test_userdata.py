"""UserData: memory first, background writes, failures kept and retried, two instances."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from tests.store.helpers import PARAGRAPHS, RELEASE_V4, hold_writes, make_abstract, sqlite_file
from tui.locations import database_path
from tui.store.db import Store
from tui.store.records import (
    ConflictDetected,
    Notice,
    SaveFailed,
    SavingRecovered,
    StoreEvent,
)
from tui.store.schema import SCHEMA_VERSION
from tui.store.userdata import UserData

A, B, C = (make_abstract(p, position=i) for i, p in enumerate(PARAGRAPHS[:3], start=1))


def _open(d: Path) -> UserData:
    return UserData.open(d, retry_initial=0.02, retry_max=0.1)


def _events(ud: UserData) -> list[StoreEvent]:
    seen: list[StoreEvent] = []
    ud.listener = seen.append
    return seen


def test_round_trip_through_restart(data_dir: Path) -> None:
    ud = _open(data_dir)
    assert ud.notices == [] and ud.saving_available
    ud.set_bookmark(A, True)
    ud.set_read([A, B, C], True)
    ud.set_read([C], False)
    ud.save_note(A, "first draft")
    ud.save_note(A, "second draft")
    ud.set_state("resume:fp", '{"selected": 3}')
    # Memory answers at once, before any flush.
    assert ud.is_bookmarked(A.id) and ud.note(A.id) == "second draft"
    assert ud.noted_ids() == {A.id}  # what a search for noted abstracts reads
    assert ud.read_ids() == {A.id, B.id}
    assert ud.flush(timeout=None) and ud.pending_count == 0  # no bound: as long as it takes
    ud.close()
    again = _open(data_dir)
    assert again.bookmarked_ids() == {A.id}
    assert again.read_ids() == {A.id, B.id}
    assert dict(again.note_items()) == {A.id: "second draft"}
    assert again.noted_ids() == {A.id}
    assert again.get_state("resume:fp") == '{"selected": 3}'
    [record] = again.notes()
    assert record.id == A.id and record.text == "second draft" and record.headline
    assert again.snapshot(A.id) is not None and again.snapshot(A.id).text == A.text  # type: ignore[union-attr]
    again.set_bookmark(A, False)
    again.delete_note(A.id)
    again.close()
    third = _open(data_dir)
    assert third.bookmarked_ids() == set() and third.note(A.id) is None
    third.close()


def test_blank_note_on_a_new_abstract_is_not_saved(data_dir: Path) -> None:
    ud = _open(data_dir)
    ud.save_note(A, "   ")
    assert ud.pending_count == 0 and ud.note(A.id) is None
    ud.close()


def test_write_errors_are_kept_retried_and_saved(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fault = threading.Event()
    fault.set()
    real_apply = Store.apply
    attempts = []

    def flaky(self: Store, ops: list[object]) -> object:
        attempts.append(len(ops))
        if fault.is_set():
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return real_apply(self, ops)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "apply", flaky)
    ud = _open(data_dir)
    events = _events(ud)
    ud.save_note(A, "precious text")
    assert not ud.flush(timeout=0.5)
    assert not ud.saving_available and ud.pending_count == 1
    assert "readonly" in ud.last_error
    assert ud.note(A.id) == "precious text"  # kept in memory
    assert len(attempts) >= 3  # retried
    # Told once (not at every retry), with the reason shown in the status line.
    assert [e.message for e in events if isinstance(e, SaveFailed)] == [ud.last_error]
    ud.save_note(A, "precious text, edited while failing")
    fault.clear()
    assert ud.flush(timeout=5)
    assert ud.saving_available and ud.pending_count == 0
    assert any(isinstance(e, SavingRecovered) for e in events)
    ud.close()
    assert Store.open(data_dir).load().notes[A.id].text == "precious text, edited while failing"


def test_disk_full_keeps_text_until_space_returns(data_dir: Path) -> None:
    ud = _open(data_dir)
    ud.save_note(A, "small")
    assert ud.flush()
    store = ud.writer.store
    assert store is not None
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages + 1}")
    big = "lorem ipsum " * 20_000
    ud.save_note(B, big)
    assert not ud.flush(timeout=0.5)
    assert not ud.saving_available and "full" in ud.last_error
    assert ud.note(B.id) == big
    store.conn.execute("PRAGMA max_page_count = 1073741823")
    assert ud.flush(timeout=5) and ud.saving_available
    ud.close()
    assert Store.open(data_dir).load().notes[B.id].text == big


def test_unwritable_directory_then_recovery(tmp_path: Path) -> None:
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the data directory should be")
    data = blocker / "data"
    ud = _open(data)
    assert ud.notices and "unavailable" in ud.notices[0]
    assert not ud.saving_available and ud.last_error == ud.notices[-1]  # the status line
    ud.set_bookmark(A, True)
    ud.save_note(A, "written while the directory was unusable")
    assert not ud.flush(timeout=0.3)
    assert ud.pending_count == 2 and ud.is_bookmarked(A.id)
    blocker.unlink()  # the fault clears
    assert ud.flush(timeout=5) and ud.saving_available
    ud.close()
    reopened = _open(data)
    assert reopened.note(A.id) == "written while the directory was unusable"
    reopened.close()


def test_newer_schema_refuses_writes_and_leaves_file(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    path = sqlite_file(data_dir / "abstracts.db", "CREATE TABLE future(x)", version=99)
    before = path.read_bytes()
    ud = _open(data_dir)
    assert not ud.saving_available
    assert ud.notices == [
        f"{path} was written by a newer version of abstracts (schema 99; this version "
        f"understands {SCHEMA_VERSION}). It is left unchanged and open read-only: changes "
        "made now are not saved. Update abstracts to save again."
    ]
    ud.set_bookmark(A, True)
    assert not ud.flush(timeout=0.3) and ud.is_bookmarked(A.id)
    ud.close()
    assert path.read_bytes() == before


def test_corrupt_database_notice(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "abstracts.db").write_bytes(b"this is not sqlite at all" * 40)
    ud = _open(data_dir)
    assert ud.saving_available and ud.last_error == ""  # told once; saving works
    assert any("corrupt-" in n for n in ud.notices)
    ud.close()


def test_two_instances_same_note_both_survive(data_dir: Path) -> None:
    one, two = _open(data_dir), _open(data_dir)
    events = _events(one)
    one.save_note(A, "base")
    assert one.flush()
    assert two.refresh() and two.note(A.id) == "base"
    two.save_note(A, "edited in window two")
    assert two.flush()
    one.save_note(A, "edited in window one")  # still based on "base"
    assert one.flush()
    conflicts = [e for e in events if isinstance(e, ConflictDetected)]
    assert [c.abstract_id for c in conflicts] == [A.id]
    assert one.note(A.id) == "edited in window one"
    assert [c.text for c in one.conflict_copies()] == ["edited in window two"]
    assert two.refresh()
    assert two.note(A.id) == "edited in window one"
    [record] = two.notes()
    assert [c.text for c in record.conflicts] == ["edited in window two"]
    one.close()
    two.close()


def test_refresh_sees_other_instance(data_dir: Path) -> None:
    one, two = _open(data_dir), _open(data_dir)
    two.set_bookmark(B, True)
    two.set_read([C], True)
    assert two.flush()
    assert one.refresh()
    assert one.is_bookmarked(B.id) and one.is_read(C.id)
    assert not one.refresh()  # nothing new
    one.close()
    two.close()


class _StandingClock:
    """A clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _until(predicate, timeout: float = 10.0) -> None:
    """Wait for the writer thread to get somewhere (a bound, not a measurement)."""
    done = threading.Event()
    for _ in range(int(timeout / 0.005)):
        if predicate():
            return
        done.wait(0.005)
    raise AssertionError("the writer never got there")


@pytest.mark.parametrize(
    ("retry", "expected"),
    [
        ({"retry_initial": 1.0, "retry_max": 3.0}, [1.0, 2.0, 3.0, 3.0]),
        # What the app uses: a quarter second first, never more than 10 s between tries.
        ({}, [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]),
    ],
)
def test_retry_backoff_doubles_up_to_its_cap_on_the_clock_given(
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    retry: dict[str, float],
    expected: list[float],
) -> None:
    """A failed write waits out its backoff on the writer's clock (not the wall clock):
    it doubles from the first wait up to the cap; it is not tried before that and is
    tried as soon as the clock says so."""
    clock = _StandingClock()
    attempts: list[float] = []
    fault = threading.Event()
    fault.set()
    real_apply = Store.apply

    def failing(self: Store, ops: list[object]) -> object:
        attempts.append(clock.now)
        if fault.is_set():
            raise sqlite3.OperationalError("disk I/O error")
        return real_apply(self, ops)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "apply", failing)
    ud = UserData.open(data_dir, clock=clock, **retry)
    events = _events(ud)
    ud.save_note(A, "kept through the failures")
    waits = []
    for n in range(1, len(expected) + 1):
        # The new backoff is set just after the attempt fails: wait for it, not the old one.
        _until(lambda n=n: len(attempts) == n and (ud.retry_at or 0.0) > clock.now)
        retry_at = ud.retry_at
        assert retry_at is not None
        waits.append(retry_at - clock.now)
        clock.now = retry_at - 0.001  # not yet due: nothing is tried
        ud.refresh()  # answered by the writer thread, after it has read the clock again
        assert len(attempts) == n
        clock.now = retry_at
        if n == len(expected):
            fault.clear()
        ud.wake()
    assert waits == expected
    _until(lambda: ud.pending_count == 0)
    assert ud.retry_at is None and ud.saving_available
    assert [e.message for e in events if isinstance(e, SavingRecovered)] == [
        "Saving works again; every change is saved."
    ]
    # Saving worked again: a new failure waits the first wait again, not the last one.
    fault.set()
    ud.save_note(B, "after the recovery")
    _until(lambda: len(attempts) == len(expected) + 2 and (ud.retry_at or 0.0) > clock.now)
    assert ud.retry_at == clock.now + expected[0]
    fault.clear()
    assert ud.flush(timeout=5)
    ud.close()
    notes = Store.open(data_dir).load().notes
    assert notes[A.id].text == "kept through the failures"
    assert notes[B.id].text == "after the recovery"


def test_a_listener_that_fails_does_not_stop_saving(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ud = _open(data_dir)
    told: list[StoreEvent] = []

    def broken(event: StoreEvent) -> None:
        told.append(event)
        raise RuntimeError("a broken status line")

    ud.listener = broken
    holding = hold_writes(monkeypatch)
    ud.save_note(A, "first")
    assert not ud.flush(timeout=0.3)
    holding.clear()
    assert ud.flush(timeout=5)
    ud.save_note(B, "second")
    assert ud.flush(timeout=5)
    assert [type(e) for e in told] == [SaveFailed, SavingRecovered]
    ud.close()
    assert Store.open(data_dir).load().notes.keys() == {A.id, B.id}


def test_a_store_that_opens_late_brings_in_what_it_holds_and_says_what_it_found(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saving was unavailable at start; when the database opens at last, what another
    window saved meanwhile shows, next to what was typed here, and what opening the
    database had to say (a value its migration could not read) is told."""
    real_open = Store.open
    unavailable = threading.Event()
    unavailable.set()

    def failing_open(directory: Path, *, read_only: bool = False) -> Store:
        if unavailable.is_set() and not read_only:
            raise sqlite3.OperationalError("database is locked")
        return real_open(directory, read_only=read_only)

    monkeypatch.setattr(Store, "open", failing_open)
    ud = _open(data_dir)
    events = _events(ud)
    assert not ud.saving_available
    ud.save_note(A, "typed here")
    # Another window, of the release before STRICT tables, saved a note and (through an
    # import) a value of the wrong type.
    shutil.copyfile(RELEASE_V4, database_path(data_dir))
    other = sqlite3.connect(database_path(data_dir))
    with other:
        other.execute(
            "INSERT INTO notes(id, text, version, updated) VALUES (?, ?, 1, 1.0)",
            (B.id, "saved by another window"),
        )
        other.execute("INSERT INTO bookmarks(id, created) VALUES ('b', 'yesterday')")
    other.close()
    unavailable.clear()
    assert ud.flush(timeout=5)
    assert ud.note(A.id) == "typed here" and ud.note(B.id) == "saved by another window"
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and "the bookmark time of b was 'yesterday'" in notices[0]
    ud.close()


def test_quitting_while_a_write_hangs_quits_and_rescues_the_change(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that hangs (a network disk gone away) does not keep the app from quitting:
    close gives up after its timeout and writes what was not saved to a rescue file."""
    ud = _open(data_dir)
    entered, release = threading.Event(), threading.Event()
    finished: list[bool] = []

    def hanging(self: Store, ops: list[object]) -> object:
        entered.set()
        release.wait(10)  # a bound for the test, not a measurement
        finished.append(True)
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(Store, "apply", hanging)
    ud.save_note(A, "typed while the disk hangs")
    assert entered.wait(5)
    try:
        path = ud.close(timeout=0.2)
        assert finished == []  # close did not wait for the hung write
    finally:
        release.set()
    assert path is not None and "typed while the disk hangs" in path.read_text(encoding="utf-8")


def test_an_idle_writer_sleeps_until_woken(data_dir: Path) -> None:
    """With nothing to save the writer thread waits to be woken: it does not look at the
    clock (a loop that did would keep a core busy while the app sits idle)."""
    reads: list[float] = []

    def clock() -> float:
        reads.append(0.0)
        return 1000.0

    ud = UserData.open(data_dir, clock=clock)
    ud.save_note(A, "saved")
    assert ud.flush()
    reads.clear()
    ud.refresh()  # answered by the writer thread: it ran, and had nothing to save
    ud.refresh()
    assert reads == []
    ud.close()
