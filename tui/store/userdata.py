"""`UserData`: the in-memory view of the store that the UI reads and writes through.

Reads answer from memory (frozensets and dicts mirroring the database), so the UI
never waits on the disk. Writes change memory at once and queue an operation for a
background writer thread, which commits batches in one transaction each. A failed
write (read-only directory, permission denied, disk full, locked) stays queued, is
retried with backoff, and is never discarded; later edits of the same thing replace
the queued one (only the newest text of a note needs saving).

Listener events are called from the writer thread; the UI marshals them to its loop.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from tui.corpus.model import Abstract, Corpus
from tui.store.attach import Ambiguity, AttachReport, Orphan, Reattachment, match_orphans
from tui.store.db import Store, StoreUnavailable
from tui.store.memory import Memory
from tui.store.records import (
    ConflictCopy,
    ConflictDetected,
    DeleteNote,
    Notice,
    Operation,
    OrphanReattached,
    Reattach,
    SaveFailed,
    SaveNote,
    SavingRecovered,
    SetBookmark,
    SetRead,
    SetState,
    Snapshot,
    StoreData,
    StoreEvent,
)

Listener = Callable[[StoreEvent], None]
_Key = tuple[str, str]


@dataclass(frozen=True, slots=True)
class NoteRecord:
    """One note as the notes view lists it."""

    id: str
    text: str
    headline: str
    updated: float
    orphaned: bool
    conflicts: tuple[ConflictCopy, ...] = ()


class _Refresh:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.changed = False


class UserData(Memory):
    """Bookmarks, read state, notes and UI state; implements the search `PersonalData` protocol."""

    def __init__(
        self,
        directory: Path,
        store: Store | None,
        data: StoreData,
        notices: list[str],
        retry_initial: float,
        retry_max: float,
    ) -> None:
        super().__init__()
        self.directory = directory
        #: User-facing messages from opening (corrupt file set aside, read-only, unwritable).
        self.notices = notices
        #: Called (from the writer thread) with every StoreEvent; set by the UI.
        self.listener: Listener | None = None
        self._store = store
        self._retry_initial = retry_initial
        self._retry_max = retry_max
        self._cond = threading.Condition(self._lock)
        self._pending: dict[_Key, Operation] = {}
        self._failures = 0
        self._retry_at = 0.0
        self._stopping = False
        self._refreshes: list[_Refresh] = []
        self._saving = store is not None and store.read_only is None
        self._last_error = "" if self._saving else (notices[-1] if notices else "")
        self._corpus: Corpus | None = None
        self._merge(data, frozenset())
        self._thread = threading.Thread(target=self._run, name="abstracts-store", daemon=True)
        self._thread.start()

    @classmethod
    def open(
        cls, data_dir: Path, *, retry_initial: float = 0.25, retry_max: float = 10.0
    ) -> UserData:
        """Open the user data in `data_dir`. Never raises for a bad database: see `notices`."""
        notices: list[str] = []
        store: Store | None = None
        data = StoreData()
        try:
            store = Store.open(data_dir)
            notices += store.notices
            data = store.load()
        except Exception as e:  # sqlite3.Error, OSError, StoreError: all kept and retried
            if store is not None:
                store.close()
                store = None
            notices.append(
                f"Saving is unavailable: {e}. Changes are kept in memory and saving is retried."
            )
            data = _read_only_load(data_dir)
        return cls(data_dir, store, data, notices, retry_initial, retry_max)

    # Status

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

    # Writes: memory now, disk in the background

    def set_bookmark(self, abstract: Abstract, on: bool) -> None:
        """Bookmark (or un-bookmark) an abstract."""
        snap = Snapshot.of(abstract) if on else None
        with self._lock:
            self._set_bookmark_memory(abstract.id, on, snap)
            self._queue(("bookmark", abstract.id), SetBookmark(abstract.id, on, snap, time.time()))

    def set_read(self, abstracts: Iterable[Abstract], on: bool) -> None:
        """Mark many abstracts read (or unread) at once; one memory update, one transaction."""
        now = time.time()
        with self._lock:
            ids = [a.id for a in abstracts]
            self._set_read_memory(ids, on, now)
            for i in ids:
                self._queue(("read", i), SetRead(i, on, now))

    def save_note(self, abstract: Abstract, text: str) -> None:
        """Save the note of an abstract (call it while typing, debounced, and on close)."""
        with self._lock:
            current = self._notes.get(abstract.id)
            if current == text or (current is None and not text.strip()):
                return  # unchanged, or an editor opened and closed without typing
            snap = Snapshot.of(abstract)
            self._save_note_memory(abstract.id, text, snap, time.time())
            self._queue(("note", abstract.id), SaveNote(abstract.id, text, snap, 0, time.time()))

    def delete_note(self, abstract_id: str) -> None:
        """Delete a note: an explicit user action, the only way a note goes away."""
        with self._lock:
            if abstract_id not in self._notes:
                return
            self._delete_note_memory(abstract_id)
            self._queue(("note", abstract_id), DeleteNote(abstract_id, 0))

    def set_state(self, key: str, value: str) -> None:
        """Remember a piece of UI state (for resume), e.g. keyed by the corpus fingerprint."""
        with self._lock:
            if self._state.get(key) == value:
                return
            self._state = {**self._state, key: value}
            self._queue(("state", key), SetState(key, value, time.time()))

    def get_state(self, key: str) -> str | None:
        """A value stored with `set_state`, or None."""
        return self._state.get(key)

    def _queue(self, key: _Key, op: Operation) -> None:
        # Newest wins and moves to the end: the queue holds what is still to be saved.
        self._pending.pop(key, None)
        self._pending[key] = op
        self._cond.notify_all()

    # Orphans

    def attach(self, corpus: Corpus) -> AttachReport:
        """Note which abstracts are loaded and re-attach orphans that match one closely."""
        with self._lock:
            self._corpus = corpus
            self._loaded = frozenset(corpus.by_id)
            texts = {o.id: o.snapshot.text for o in self._orphans() if o.snapshot is not None}
        moved, unsure = match_orphans(texts, corpus)
        with self._lock:
            for m in moved:
                self._reattach(m.old_id, corpus.by_id[m.new_id])
            return AttachReport(moved, unsure, self._orphans())

    def resolve(self, orphan_id: str, chosen_abstract_id: str) -> Reattachment:
        """Re-attach an orphan to the abstract the user chose (after an ambiguous match)."""
        with self._lock:
            if self._corpus is None or chosen_abstract_id not in self._corpus.by_id:
                raise KeyError(chosen_abstract_id)
            self._reattach(orphan_id, self._corpus.by_id[chosen_abstract_id])
        return Reattachment(orphan_id, chosen_abstract_id, 0.0)

    def orphans(self) -> list[Orphan]:
        """Records whose abstract is not loaded (empty until `attach` is called)."""
        with self._lock:
            return self._orphans()

    def _reattach(self, old_id: str, target: Abstract) -> None:
        snap = Snapshot.of(target)
        self._move_memory(old_id, target.id, snap)
        self._queue(("reattach", old_id), Reattach(old_id, target.id, snap, time.time()))

    def notes(self) -> list[NoteRecord]:
        """Every note (and every kept conflict copy), newest first, for the notes view."""
        with self._lock:
            copies: dict[str, list[ConflictCopy]] = {}
            for c in self._conflicts:
                copies.setdefault(c.abstract_id, []).append(c)
            out = []
            for i in set(self._notes) | set(copies):
                snap = self._records.get(i)
                out.append(
                    NoteRecord(
                        id=i,
                        text=self._notes.get(i, ""),
                        headline=snap.headline if snap else "",
                        updated=self._note_updated.get(i, 0.0),
                        orphaned=self._loaded is not None and i not in self._loaded,
                        conflicts=tuple(copies.get(i, ())),
                    )
                )
        return sorted(out, key=lambda r: -r.updated)

    # The writer thread

    def flush(self, timeout: float | None = 10.0) -> bool:
        """Wait until every queued change is committed; False if it did not happen in time."""
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

    def refresh(self, timeout: float = 10.0) -> bool:
        """Reload from disk to see another instance's changes; True if anything changed."""
        request = _Refresh()
        with self._cond:
            self._refreshes.append(request)
            self._cond.notify_all()
        return request.done.wait(timeout) and request.changed

    def close(self, timeout: float = 5.0) -> None:
        """Flush, stop the writer and close the database. Unsaved changes stay readable here."""
        # One immediate retry when saving is failing, rather than waiting the full timeout.
        self.flush(timeout if self._saving else min(timeout, 1.0))
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join(timeout)
        if self._store is not None:
            self._store.close()
            self._store = None

    def _run(self) -> None:
        while True:
            with self._cond:
                while (
                    not self._stopping
                    and not self._refreshes
                    and not (self._pending and time.monotonic() >= self._retry_at)
                ):
                    wait = max(0.0, self._retry_at - time.monotonic()) if self._pending else None
                    self._cond.wait(wait)
                if self._stopping:
                    return
                due = bool(self._pending) and time.monotonic() >= self._retry_at
                refreshes, self._refreshes = self._refreshes, []
            if due:
                self._write_batch()
            for request in refreshes:
                request.changed = self._reload()
                request.done.set()

    def _write_batch(self) -> None:
        events: list[StoreEvent] = []
        try:
            store = self._ensure_store(events)
            with self._lock:
                batch = list(self._pending.items())
                ops = [self._with_base(op) for _, op in batch]
            results = store.apply(ops)
        except Exception as e:  # sqlite3.Error, OSError, StoreError: all kept and retried
            with self._cond:
                self._failures += 1
                delay = self._retry_initial * 2 ** min(self._failures - 1, 16)
                self._retry_at = time.monotonic() + min(delay, self._retry_max)
                was_saving, self._saving = self._saving, False
                self._last_error = f"Saving is unavailable ({e}). Changes are kept and retried."
            if was_saving:
                events.append(SaveFailed(self._last_error))
            self._emit(events)
            return
        with self._cond:
            for (key, sent), result in zip(batch, results, strict=True):
                if self._pending.get(key) is sent:
                    del self._pending[key]
                events += self._apply_result(result)
            recovered = not self._saving
            self._saving, self._failures, self._last_error = True, 0, ""
            self._cond.notify_all()
        if recovered:
            events.append(SavingRecovered("Saving works again; every change is saved."))
        self._emit(events)

    def _ensure_store(self, events: list[StoreEvent]) -> Store:
        if self._store is None:
            store = Store.open(self.directory)
            events += [Notice(n) for n in store.notices]
            data = store.load()
            with self._lock:
                self._store = store
                self._merge(data, self._pending_ids())
        return self._store

    def _with_base(self, op: Operation) -> Operation:
        # The version a note text is based on is the one last seen in the database,
        # looked up when the write happens: queued edits replace each other.
        if isinstance(op, SaveNote | DeleteNote):
            return replace(op, base_version=self._versions.get(op.abstract_id, 0))
        return op

    def _reload(self) -> bool:
        try:
            if self._store is None:
                return False
            data = self._store.load()
        except Exception:
            return False
        with self._lock:
            return self._merge(data, self._pending_ids())

    def _pending_ids(self) -> frozenset[_Key]:
        keys = set(self._pending)
        for kind, key in self._pending:
            if kind == "reattach":  # the old id's records are moving: memory is ahead
                keys |= {("bookmark", key), ("read", key), ("note", key)}
        return frozenset(keys)

    def _emit(self, events: list[StoreEvent]) -> None:
        if self.listener is None:
            return
        for event in events:
            # A broken listener must not stop saving.
            with contextlib.suppress(Exception):
                self.listener(event)


def _read_only_load(data_dir: Path) -> StoreData:
    """Whatever can be read from a store that cannot be opened for writing."""
    try:
        store = Store.open(data_dir, read_only=True)
    except StoreUnavailable:
        return StoreData()
    try:
        return store.load()
    except Exception:
        return StoreData()
    finally:
        store.close()


__all__ = [
    "Ambiguity",
    "AttachReport",
    "ConflictDetected",
    "NoteRecord",
    "Orphan",
    "OrphanReattached",
    "Reattachment",
    "UserData",
]
