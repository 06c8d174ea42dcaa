"""`UserData`: the in-memory view of the store that the UI reads and writes through.

Reads answer from memory (frozensets and dicts mirroring the database), so the UI
never waits on the disk. Writes change memory at once and queue an operation for a
background writer thread, which commits batches in one transaction each. A failed
write (read-only directory, permission denied, disk full, locked) stays queued, is
retried with backoff, and is never discarded; later edits of the same thing replace
the queued one (only the newest text of a note needs saving).

Closing with changes that cannot be committed writes them to a rescue file (see
`rescue.py`) and reports its path, so quitting never loses text.

Listener events are called from the writer thread (and, for a rescue file, from the
thread that calls `close`); the UI marshals them to its loop.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from tui.corpus.model import Abstract, Corpus
from tui.store.attach import Ambiguity, AttachReport, Orphan, Reattachment, match_orphans
from tui.store.db import Store, StoreUnavailable
from tui.store.export import document_text
from tui.store.records import (
    ConflictDetected,
    DeleteNote,
    DismissConflict,
    NoteRecord,
    Notice,
    Operation,
    OrphanReattached,
    Reattach,
    SaveNote,
    SetBookmark,
    SetDismissed,
    SetRead,
    SetState,
    SetTag,
    Snapshot,
    StoreData,
)
from tui.store.rescue import rescue_dirs, rescue_document, write_rescue_file
from tui.store.searchdata import SavedSearchWrites


class UserData(SavedSearchWrites):
    """Bookmarks, read state, notes, saved searches and UI state; implements the search
    `PersonalData` protocol."""

    # Defaults read before Writer.__init__ starts the writer thread; no __init__ of its
    # own, so the constructor's signature is written once (in Writer).
    _corpus: Corpus | None = None
    #: The rescue file written for changes that could not be saved, or None.
    rescue_path: Path | None = None

    @classmethod
    def open(
        cls,
        data_dir: Path,
        *,
        retry_initial: float = 0.25,
        retry_max: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> UserData:
        """Open the user data in `data_dir`. Never raises for a bad database: see `notices`.
        A failed write is tried again after `retry_initial` seconds on `clock`, doubling
        up to `retry_max`."""
        notices: list[str] = []
        store: Store | None = None
        data = StoreData()
        try:
            store = Store.open(data_dir)
            try:
                data = store.load()
            finally:  # load may add a notice (values it had to replace)
                notices += store.notices
        except Exception as e:  # sqlite3.Error, OSError, StoreError: all kept and retried
            if store is not None:
                store.close()
                store = None
            data = _read_only_load(data_dir)
            notices.append(
                f"Saving is unavailable: {e}. What is saved is shown, read-only; changes made "
                "now are kept in memory and saving is retried. Whatever is still unsaved at "
                "quit is written to a rescue file, which `abstracts import` brings back."
            )
        return cls(data_dir, store, data, notices, retry_initial, retry_max, clock)

    # Writes: memory now, disk in the background

    def set_bookmark(self, abstract: Abstract, on: bool) -> None:
        """Bookmark (or un-bookmark) an abstract."""
        snap = Snapshot.of(abstract) if on else None
        with self._lock:
            self._set_bookmark_memory(abstract.id, on, snap)
            self._queue(("bookmark", abstract.id), SetBookmark(abstract.id, on, snap, time.time()))

    def set_dismissed(self, abstract: Abstract, on: bool) -> None:
        """Dismiss ("not interested") or un-dismiss an abstract; kept like a bookmark."""
        snap = Snapshot.of(abstract) if on else None
        with self._lock:
            self._set_dismissed_memory(abstract.id, on, snap)
            self._queue(("dismiss", abstract.id), SetDismissed(abstract.id, on, snap, time.time()))

    def set_read(self, abstracts: Iterable[Abstract], on: bool) -> None:
        """Mark many abstracts read (or unread) at once; one memory update, one transaction."""
        now = time.time()
        with self._lock:
            ids = [a.id for a in abstracts]
            self._set_read_memory(ids, on, now)
            self._queue_many((("read", i), SetRead(i, on, now)) for i in ids)

    def set_tags(
        self, on: Iterable[tuple[str, str]] = (), off: Iterable[tuple[str, str]] = ()
    ) -> None:
        """Put tags on (`on`) and take tags off (`off`) abstracts, as (id, tag) pairs with
        normalised tag names; one memory update, one transaction however many pairs.
        Pairs already as asked are skipped.

        The record of a newly tagged abstract is made on the writer's thread (see
        `_completed`): making 100,000 of them took seconds, tagging a list must not.
        """
        now = time.time()
        with self._lock:
            tags = self._tags
            on = [p for p in on if p[1] not in tags.get(p[0], ())]
            off = [p for p in off if p[1] in tags.get(p[0], ())]
            self._set_tags_memory(on, off)
            self._queue_many(
                [(_tag_key(i, t), SetTag(i, t, False, None, now)) for i, t in off]
                + [(_tag_key(i, t), SetTag(i, t, True, None, now)) for i, t in on]
            )

    def _completed(self, op: Operation) -> Operation:
        # A tagged abstract keeps a record, as a bookmarked one does. One kept already
        # still describes it (its id is the hash of its text); an id not loaded (an
        # orphan's tag being renamed) keeps the one it has.
        if not isinstance(op, SetTag) or not op.on or op.abstract_id in self._records:
            return op
        abstract = self._corpus.by_id.get(op.abstract_id) if self._corpus is not None else None
        if abstract is None:
            return op
        snap = Snapshot.of(abstract)
        self._records[op.abstract_id] = snap
        return replace(op, snapshot=snap)

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

    def dismiss_conflict(self, copy_id: int) -> bool:
        """Remove a kept conflict copy: an explicit user action, the only way one goes away.

        False when no copy has that id (already dismissed, here or in another instance).
        """
        with self._lock:
            if not self._dismiss_memory(copy_id):
                return False
            self._queue(("conflict", str(copy_id)), DismissConflict(copy_id))
            return True

    # Orphans

    def attach(self, corpus: Corpus) -> AttachReport:
        """Note which abstracts are loaded and re-attach orphans that match one closely."""
        with self._lock:
            self._corpus = corpus
            self._loaded = frozenset(corpus.by_id)
            snapshots = {
                o.id: o.snapshot for o in self._orphans(dismissed=True) if o.snapshot is not None
            }
        texts = {i: snap.text for i, snap in snapshots.items()}
        papers = {i: snap.paper for i, snap in snapshots.items() if snap.paper is not None}
        moved, unsure = match_orphans(texts, corpus, papers)
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
        snap, new_id = Snapshot.of(target), target.id
        note_moves = old_id in self._notes and new_id not in self._notes
        self._move_memory(old_id, new_id, snap)
        # An unsaved edit of a note that moves to an empty target is re-keyed to the new
        # id and queued after the move: saved under the old id in the same batch, it
        # would leave the new id's base version stale and report a false conflict.
        # (When the target has its own note, the edit is saved under the old id first
        # and the move then keeps it as a conflict copy.)
        pending = self._pending.get(("note", old_id))
        rekey = note_moves and isinstance(pending, SaveNote)
        if rekey:
            del self._pending[("note", old_id)]
        self._queue(("reattach", old_id), Reattach(old_id, new_id, snap, time.time()))
        if rekey:
            assert isinstance(pending, SaveNote)
            moved = replace(pending, abstract_id=new_id, snapshot=snap)
            self._queue(("note", new_id), moved)

    def notes(self) -> list[NoteRecord]:
        """Every note, newest first, each with its kept conflict copies (`conflicts`);
        an abstract whose note was deleted but has copies is listed with text ""."""
        with self._lock:
            return self._note_records()

    # Saving and closing

    def flush(self, timeout: float | None = 10.0, *, rescue: bool = False) -> bool:
        """Wait until every queued change is committed; False if it did not happen in time.

        With `rescue`, changes still uncommitted then are also written to a rescue file
        (`rescue_path`); they stay queued and retried either way.
        """
        done = self._wait_flushed(timeout)
        if not done and rescue:
            self.write_rescue()
        return done

    def close(self, timeout: float = 5.0) -> Path | None:
        """Flush, stop the writer and close the database.

        Changes that could not be committed are written to a rescue file, whose path is
        returned (and kept in `rescue_path`, and reported as a `Notice`); None when
        everything was saved. Unsaved changes also stay readable here.
        """
        store = self._store
        if store is not None and store.file_change() is not None:
            # The file went with nothing left to commit: the refresh makes it again.
            self.refresh(timeout)
        # One immediate retry when saving is failing, rather than waiting the full timeout.
        self._wait_flushed(timeout if self._saving else min(timeout, 1.0))
        self._stop_writer(timeout)
        path = self.write_rescue() if self.pending_count else None
        self._close_store()
        return path

    def rescue_text(self) -> str | None:
        """The pending changes as an importable JSON export, or None when nothing is pending."""
        with self._lock:
            if not self._pending:
                return None
            reason = self._last_error or "saving did not finish"
            ops = [self._completed(op) for op in self._pending.values()]
            doc = rescue_document(ops, self._records, self._base_version, reason)
        return document_text(doc)

    def write_rescue(self) -> Path | None:
        """Write the pending changes to a rescue file and report it (a `Notice`).

        Tried in the data directory, then the system temp directory, then the home
        directory; returns the path, or None if nothing was pending or no place worked.
        """
        text = self.rescue_text()
        if text is None:
            return None
        path, errors = write_rescue_file(text, rescue_dirs(self.directory), self.rescue_path)
        if path is None:
            message = (
                "Unsaved changes could not be saved, nor written to a rescue file "
                f"({'; '.join(errors)}). They are still in memory."
            )
        else:
            self.rescue_path = path
            quoted = shlex.quote(str(path))
            message = (
                f"Unsaved changes were written to {path}; import them with "
                f"`abstracts import {quoted}`."
            )
        self._emit([Notice(message)])
        return path


def _tag_key(abstract_id: str, tag: str) -> tuple[str, str]:
    # A tag holds no control character, so a tab cannot be part of either half.
    return ("tag", f"{abstract_id}\t{tag}")


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
