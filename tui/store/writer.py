"""The background writer of `UserData`: a queue of operations, committed in batches.

Writes change memory at once (see `memory.py`) and queue an operation here, under its
`queue_key`, so a later edit of the same thing replaces the queued one (only the newest
text of a note needs saving). One thread commits the queue in one transaction per
batch and lets each operation settle memory (see `operations.py`). A failed batch
(read-only directory, permission denied, disk full, locked) stays queued, is retried
with backoff, and is never discarded.
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from tui.store.db import Store
from tui.store.memory import Memory
from tui.store.operations import Key, Operation, complete_batch
from tui.store.records import (
    BulkSaved,
    Notice,
    SaveFailed,
    SavingRecovered,
    StoreEvent,
)

Listener = Callable[[StoreEvent], None]

#: A step changing at least this many things at once is a bulk step: the UI says
#: "saving…" until it is committed, and is told when it is.
BULK_STEP = 100


@contextlib.contextmanager
def _collection_paused(pause: bool) -> Iterator[None]:
    """Cyclic garbage collection held off (when `pause`) while a bulk step's batch is made
    and written: it allocates hundreds of thousands of objects, none of them garbage, and
    the collections they set off walk every object the app holds (a fifth of the writer's
    time for 100,000 records). Left alone when something else turned it off."""
    if not (pause and gc.isenabled()):
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class _Refresh:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.changed = False


class Writer:
    """The queue of changes not yet committed to `store` and the thread that commits
    them, bringing `memory` in line with each commit."""

    def __init__(
        self,
        memory: Memory,
        directory: Path,
        store: Store | None,
        notices: list[str],
        retry_initial: float,
        retry_max: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.memory = memory
        self._lock = memory.lock
        self.directory = directory
        #: User-facing messages from opening (corrupt file set aside, read-only, unwritable).
        self.notices = notices
        #: Called (from the writer thread) with every StoreEvent; set by the UI.
        self.listener: Listener | None = None
        self._store = store
        self._retry_initial = retry_initial
        self._retry_max = retry_max
        # When a failed write is tried again is read on this clock (tests pass their own).
        self._clock = clock
        self._cond = threading.Condition(self._lock)
        self._pending: dict[Key, Operation] = {}
        self._failures = 0
        self._retry_at = 0.0
        self._stopping = False
        self._refreshes: list[_Refresh] = []
        #: Why the last `refresh` could not read the database ("" when it could).
        self.refresh_problem = ""
        #: The rescue file written when the database file was replaced under the app.
        self.lost_file_rescue: Path | None = None
        # What became of the database file, until the file at its path is set up again.
        self._lost: str | None = None
        # Every queueing call is numbered; a batch commits everything queued up to the
        # number it was taken at. A bulk step is saved once a batch past it commits.
        self._queued_seq = 0
        self._saved_seq = 0
        self._bulk_seq = 0
        self._bulk_changes = 0
        self._saving = store is not None and store.read_only is None
        self._last_error = "" if self._saving else (notices[-1] if notices else "")
        self._thread = threading.Thread(target=self._run, name="abstracts-store", daemon=True)

    def start(self) -> None:
        """Start the thread that commits."""
        self._thread.start()

    # Status

    @property
    def store(self) -> Store | None:
        """The open database; None until it could be opened (and after `close_store`)."""
        return self._store

    @property
    def saving_available(self) -> bool:
        """False while writes are failing (or the store is read-only)."""
        return self._saving

    @property
    def pending_count(self) -> int:
        """Changes made in memory and not yet committed to the database."""
        with self._lock:
            return len(self._pending)

    @property
    def last_error(self) -> str:
        """Why saving is unavailable, ready to show; empty when saving works."""
        return self._last_error

    @property
    def bulk_saving(self) -> bool:
        """True from a bulk step (tagging or marking many abstracts at once) until the
        transaction holding it has committed."""
        with self._lock:
            return self._bulk_seq > self._saved_seq

    def queue(self, *ops: Operation) -> None:
        """Queue `ops` (callers hold the lock)."""
        self.queue_many(ops)

    def queue_many(self, ops: Iterable[Operation]) -> None:
        """Queue `ops`, each replacing what is queued under its keys (callers hold the lock)."""
        # Newest wins and moves to the end: the queue holds what is still to be saved.
        # One wake-up for the whole batch (marking 100,000 abstracts read woke the
        # writer 100,000 times and took over half a second).
        pending = self._pending
        count = 0
        for op in ops:
            for key in op.queue_keys():
                pending.pop(key, None)
                pending[key] = op
                count += 1
        self._queued_seq += 1
        if count >= BULK_STEP:
            self._bulk_seq = self._queued_seq
            self._bulk_changes += count
        self._cond.notify_all()

    def queued(self, key: Key) -> Operation | None:
        """The operation queued under `key`, or None (callers hold the lock)."""
        return self._pending.get(key)

    def unqueue(self, key: Key) -> Operation | None:
        """Take the operation queued under `key` out of the queue (callers hold the lock)."""
        return self._pending.pop(key, None)

    def requeue(self, op: Operation) -> None:
        """Put `op` in place of the one queued under its key, keeping its place in the
        queue (callers hold the lock)."""
        self._pending[op.queue_key] = op

    def pending_ops(self) -> list[Operation]:
        """What is queued, oldest first, each operation once (a step is queued under many
        keys; callers hold the lock)."""
        return list({id(op): op for op in self._pending.values()}.values())

    def wait_flushed(self, timeout: float | None) -> bool:
        """Wait until the queue is empty; False when it was not within `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._retry_at = 0.0  # retry now (used on quit): do not wait out a backoff
            self._cond.notify_all()
            while self._pending:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left)
        return True

    @property
    def retry_at(self) -> float | None:
        """When, on the writer's clock, a failed write is next tried; None when none waits."""
        with self._cond:
            return self._retry_at if self._pending and self._failures else None

    def wake(self) -> None:
        """Look at the queue again now (after the clock moved on): a failed write whose
        backoff is over is tried at once."""
        with self._cond:
            self._cond.notify_all()

    def refresh(self, timeout: float = 10.0) -> bool:
        """Reload from disk to see another instance's changes; True if anything changed."""
        request = _Refresh()
        with self._cond:
            self._refreshes.append(request)
            self._cond.notify_all()
        if not request.done.wait(timeout):
            self.refresh_problem = f"Reading your data took more than {timeout:g} s."
            return False
        return request.changed

    def stop(self, timeout: float) -> None:
        """Stop the thread (what is queued stays queued)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join(timeout)

    def file_changed(self) -> bool:
        """Whether the database file was deleted, moved or replaced (see `lostfile`)."""
        store = self._store
        return store is not None and store.file_change() is not None

    def close_store(self) -> None:
        """Close the database (after `stop`)."""
        if self._store is not None:
            self._store.close()
            self._store = None

    def _run(self) -> None:
        while True:
            with self._cond:
                while (
                    not self._stopping
                    and not self._refreshes
                    and not (self._pending and self._clock() >= self._retry_at)
                ):
                    wait = max(0.0, self._retry_at - self._clock()) if self._pending else None
                    self._cond.wait(wait)
                if self._stopping:
                    return
                due = bool(self._pending) and self._clock() >= self._retry_at
                refreshes, self._refreshes = self._refreshes, []
            if due:
                self._write_batch()
            for request in refreshes:
                request.changed = self._reload()
                request.done.set()

    def _write_batch(self) -> None:
        events: list[StoreEvent] = []
        memory = self.memory
        try:
            store = self._ensure_store(events)
            with self._lock:
                sent = self.pending_ops()
                ops = [op.based(memory) for op in sent]
                taken_seq = self._queued_seq
                bulk = len(self._pending) >= BULK_STEP
            with _collection_paused(bulk):
                ops = complete_batch(ops, memory)  # outside the lock: may take a while
                with store.checkpoints_deferred(bulk):
                    results = store.apply(ops)
        except Exception as e:  # sqlite3.Error, OSError, StoreError: all kept and retried
            with self._cond:
                self._failures += 1
                delay = self._retry_initial * 2 ** min(self._failures - 1, 16)
                self._retry_at = self._clock() + min(delay, self._retry_max)
                was_saving, self._saving = self._saving, False
                self._last_error = f"Saving is unavailable ({e}). Changes are kept and retried."
            if was_saving:
                events.append(SaveFailed(self._last_error))
            self.emit(events)
            return
        with self._cond:
            pending = self._pending
            if taken_seq == self._queued_seq:
                pending.clear()  # nothing was queued meanwhile: the batch was the whole queue
            else:
                for op in sent:
                    # What was changed again meanwhile stays queued under its key.
                    for key in op.queue_keys():
                        if pending.get(key) is op:
                            del pending[key]
            for op, result in zip(sent, results, strict=True):
                events += op.settle(result, memory, self)
            recovered = not self._saving
            self._saving, self._failures, self._last_error = True, 0, ""
            bulk_saved = self._saved_seq < self._bulk_seq <= taken_seq
            self._saved_seq = taken_seq
            changes = self._bulk_changes
            if bulk_saved:  # every bulk step so far: a later one keeps counting its own
                self._bulk_changes = 0
            self._cond.notify_all()
        if recovered:
            events.append(SavingRecovered("Saving works again; every change is saved."))
        if bulk_saved:
            events.append(BulkSaved(f"Saved: {changes:,} changes.", changes))
        self.emit(events)
        if bulk:
            store.checkpoint()  # after the commit is told: nobody waits for this

    def _ensure_store(self, events: list[StoreEvent]) -> Store:
        if self._store is not None and (change := self._store.file_change()) is not None:
            # Writing on would go to a file nobody will read again (see lostfile.py).
            self._store.close_lost()
            self._store, self._lost = None, change
        if self._store is None:
            store = Store.open(self.directory)
            try:
                if self._lost is not None:
                    events.append(self._recover(store, self._lost))
                    self._lost = None
                data = store.load()
            except BaseException:
                store.close()
                raise
            events += [Notice(n) for n in store.notices]  # after load: it may add one
            with self._lock:
                self._store = store
                self.memory.merge(data, self.held_keys())
        return self._store

    def _recover(self, store: Store, change: str) -> Notice:
        """The database file was deleted, moved or replaced (`change`): make it again
        from memory in `store` (the file now at its path), or, when another file took
        its place, write what memory holds to a rescue file. Says which."""
        from tui.store import lostfile
        from tui.store.export import merge, to_json
        from tui.store.rescue import rescue_dirs, write_rescue_file

        name = store.path.name
        held = self.memory.as_store_data()
        if change == "replaced":
            path, errors = write_rescue_file(to_json(held), rescue_dirs(self.directory))
            kept = (
                f"what it held before ({lostfile.summary(held)}) is in {path}; "
                f"`abstracts import {path}` merges it"
                if path is not None
                else f"what it held before could not be written anywhere ({'; '.join(errors)})"
            )
            self.lost_file_rescue = path
            return Notice(
                f"{name} {lostfile.WHAT[change]} while the app was running. Changes from "
                f"now on are saved to the new file; {kept}."
            )
        merge(store, lostfile.as_document(held), origin=f"kept in memory when {name} went")
        return Notice(
            f"{name} {lostfile.WHAT[change]} while the app was running. It was made "
            f"again from what the app holds: {lostfile.summary(held)}."
        )

    def _reload(self) -> bool:
        self.refresh_problem = ""
        events: list[StoreEvent] = []
        try:
            if self._store is None or self._store.file_change() is not None:
                self._ensure_store(events)  # reopens, making the file again if it went
            store = self._store
            assert store is not None
            data = store.load()
        except Exception as e:
            self.refresh_problem = f"Could not read your data ({e}); what is shown may be old."
            self.emit(events)
            return False
        self.emit(events)
        with self._lock:
            return self.memory.merge(data, self.held_keys()) or bool(events)

    def held_keys(self) -> frozenset[Key]:
        """The keys memory is ahead of the disk for (see `Operation.held`)."""
        keys = set(self._pending)
        for op in self.pending_ops():
            keys.update(op.held())
        return frozenset(keys)

    def search_keys_pending(self) -> frozenset[str]:
        """Name keys of saved searches with a change still queued."""
        return frozenset(key for kind, key in self.held_keys() if kind == "search")

    def emit(self, events: list[StoreEvent]) -> None:
        """Tell the listener each event (a broken listener must not stop saving)."""
        if self.listener is None:
            return
        for event in events:
            # A broken listener must not stop saving.
            with contextlib.suppress(Exception):
                self.listener(event)
