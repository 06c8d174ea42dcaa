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

`UserData` is a facade over three parts that share one lock: `memory` (what is
shown), `writer` (the queue and its thread) and `searches` (saved-search writes).
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
from tui.store.memory import Memory
from tui.store.operations import (
    DeleteNote,
    DismissConflict,
    Reattach,
    SaveNote,
    SetBookmark,
    SetDismissed,
    SetReads,
    SetState,
    SetTags,
    complete_batch,
)
from tui.store.records import (
    ConflictDetected,
    NoteRecord,
    Notice,
    OrphanReattached,
    Snapshot,
    StoreData,
)
from tui.store.rescue import rescue_dirs, rescue_document, write_rescue_file
from tui.store.searchdata import SavedSearches
from tui.store.writer import Listener, Writer


class UserData:
    """Bookmarks, read state, notes, saved searches and UI state; implements the search
    `PersonalData` protocol."""

    def __init__(
        self,
        directory: Path,
        store: Store | None,
        data: StoreData,
        notices: list[str],
        retry_initial: float,
        retry_max: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.memory = memory = Memory()
        memory.merge(data, frozenset())
        self.writer = Writer(memory, directory, store, notices, retry_initial, retry_max, clock)
        self.searches = searches = SavedSearches(memory, self.writer)
        #: The rescue file written for changes that could not be saved, or None.
        self.rescue_path: Path | None = None
        # Reads answer from memory: its methods, bound once (the list asks per row).
        self.bookmarked_ids = memory.bookmarked_ids
        self.dismissed_ids = memory.dismissed_ids
        self.read_ids = memory.read_ids
        self.noted_ids = memory.noted_ids
        self.note_items = memory.note_items
        self.is_bookmarked = memory.is_bookmarked
        self.is_dismissed = memory.is_dismissed
        self.is_read = memory.is_read
        self.note = memory.note
        self.read_at = memory.read_at
        self.snapshot = memory.snapshot
        self.tags_of = memory.tags_of
        self.tags_by_id = memory.tags_by_id
        self.tag_index = memory.tag_index
        self.tag_counts = memory.tag_counts
        self.conflict_copies = memory.conflict_copies
        self.aliases = memory.aliases
        self.saved_searches = memory.saved_searches
        self.saved_search = memory.saved_search
        self.save_search = searches.save_search
        self.rename_search = searches.rename_search
        self.delete_search = searches.delete_search
        self.refresh = self.writer.refresh
        self.wake = self.writer.wake
        self.writer.start()

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

    # The writer's state

    @property
    def directory(self) -> Path:
        """The data directory."""
        return self.writer.directory

    @property
    def notices(self) -> list[str]:
        """User-facing messages from opening (corrupt file set aside, read-only, unwritable)."""
        return self.writer.notices

    @property
    def listener(self) -> Listener | None:
        """Called (from the writer thread) with every StoreEvent; set by the UI."""
        return self.writer.listener

    @listener.setter
    def listener(self, listener: Listener | None) -> None:
        self.writer.listener = listener

    @property
    def saving_available(self) -> bool:
        """False while writes are failing (or the store is read-only)."""
        return self.writer.saving_available

    @property
    def pending_count(self) -> int:
        """Changes made in memory and not yet committed to the database."""
        return self.writer.pending_count

    @property
    def last_error(self) -> str:
        """Why saving is unavailable, ready to show; empty when saving works."""
        return self.writer.last_error

    @property
    def bulk_saving(self) -> bool:
        """True from a bulk step (tagging or marking many abstracts at once) until the
        transaction holding it has committed."""
        return self.writer.bulk_saving

    @property
    def retry_at(self) -> float | None:
        """When, on the writer's clock, a failed write is next tried; None when none waits."""
        return self.writer.retry_at

    @property
    def refresh_problem(self) -> str:
        """Why the last `refresh` could not read the database ("" when it could)."""
        return self.writer.refresh_problem

    @property
    def lost_file_rescue(self) -> Path | None:
        """The rescue file written when the database file was replaced under the app."""
        return self.writer.lost_file_rescue

    # Writes: memory now, disk in the background

    def set_bookmark(self, abstract: Abstract, on: bool) -> None:
        """Bookmark (or un-bookmark) an abstract."""
        snap = Snapshot.of(abstract) if on else None
        with self.memory.lock:
            self.memory.set_bookmark(abstract.id, on, snap)
            self.writer.queue(SetBookmark(abstract.id, on, snap, time.time()))

    def set_dismissed(self, abstract: Abstract, on: bool) -> None:
        """Dismiss ("not interested") or un-dismiss an abstract; kept like a bookmark."""
        snap = Snapshot.of(abstract) if on else None
        with self.memory.lock:
            self.memory.set_dismissed(abstract.id, on, snap)
            self.writer.queue(SetDismissed(abstract.id, on, snap, time.time()))

    def set_read(self, abstracts: Iterable[Abstract], on: bool) -> None:
        """Mark many abstracts read (or unread) at once; one memory update, one transaction."""
        now = time.time()
        with self.memory.lock:
            ids = [a.id for a in abstracts]
            self.memory.set_read(ids, on, now)
            if ids:
                self.writer.queue(SetReads(tuple(ids), on, now))

    def set_tags(
        self, on: Iterable[tuple[str, str]] = (), off: Iterable[tuple[str, str]] = ()
    ) -> None:
        """Put tags on (`on`) and take tags off (`off`) abstracts, as (id, tag) pairs with
        normalised tag names; one memory update, one transaction however many pairs.
        Pairs already as asked are skipped.

        The record of a newly tagged abstract is made on the writer's thread (see
        `SetTags.completed`): making 100,000 of them took seconds, tagging a list must not.
        """
        now = time.time()
        with self.memory.lock:
            added, removed = self.memory.set_tags(on, off)
            # One operation per tag and direction, removals first, as memory applied them.
            steps: dict[tuple[str, bool], list[str]] = {}
            for pairs, adding in ((removed, False), (added, True)):
                for i, tag in pairs:
                    steps.setdefault((tag, adding), []).append(i)
            self.writer.queue_many(
                SetTags(tag, tuple(ids), adding, now) for (tag, adding), ids in steps.items()
            )

    def save_note(self, abstract: Abstract, text: str) -> None:
        """Save the note of an abstract (call it while typing, debounced, and on close)."""
        memory = self.memory
        with memory.lock:
            current = memory.note(abstract.id)
            if current == text or (current is None and not text.strip()):
                return  # unchanged, or an editor opened and closed without typing
            snap = Snapshot.of(abstract)
            memory.save_note(abstract.id, text, snap, time.time())
            self.writer.queue(SaveNote(abstract.id, text, snap, 0, time.time()))

    def delete_note(self, abstract_id: str) -> None:
        """Delete a note: an explicit user action, the only way a note goes away."""
        with self.memory.lock:
            if self.memory.note(abstract_id) is None:
                return
            self.memory.delete_note(abstract_id)
            self.writer.queue(DeleteNote(abstract_id, 0))

    def set_state(self, key: str, value: str) -> None:
        """Remember a piece of UI state (for resume), e.g. keyed by the corpus fingerprint."""
        memory = self.memory
        with memory.lock:
            if memory.state.get(key) == value:
                return
            memory.state = {**memory.state, key: value}
            self.writer.queue(SetState(key, value, time.time()))

    def get_state(self, key: str) -> str | None:
        """A value stored with `set_state`, or None."""
        return self.memory.state.get(key)

    def dismiss_conflict(self, copy_id: int) -> bool:
        """Remove a kept conflict copy: an explicit user action, the only way one goes away.

        False when no copy has that id (already dismissed, here or in another instance).
        """
        with self.memory.lock:
            if not self.memory.dismiss_conflict(copy_id):
                return False
            self.writer.queue(DismissConflict(copy_id))
            return True

    # Orphans

    def attach(self, corpus: Corpus) -> AttachReport:
        """Note which abstracts are loaded and re-attach orphans that match one closely."""
        memory = self.memory
        with memory.lock:
            memory.corpus = corpus
            memory.loaded = frozenset(corpus.by_id)
            snapshots = {
                o.id: o.snapshot for o in memory.orphans(dismissed=True) if o.snapshot is not None
            }
        texts = {i: snap.text for i, snap in snapshots.items()}
        papers = {i: snap.paper for i, snap in snapshots.items() if snap.paper is not None}
        moved, unsure = match_orphans(texts, corpus, papers)
        with memory.lock:
            for m in moved:
                self._reattach(m.old_id, corpus.by_id[m.new_id])
            return AttachReport(moved, unsure, memory.orphans())

    def resolve(self, orphan_id: str, chosen_abstract_id: str) -> Reattachment:
        """Re-attach an orphan to the abstract the user chose (after an ambiguous match)."""
        corpus = self.memory.corpus
        with self.memory.lock:
            if corpus is None or chosen_abstract_id not in corpus.by_id:
                raise KeyError(chosen_abstract_id)
            self._reattach(orphan_id, corpus.by_id[chosen_abstract_id])
        return Reattachment(orphan_id, chosen_abstract_id, 0.0)

    def orphans(self) -> list[Orphan]:
        """Records whose abstract is not loaded (empty until `attach` is called)."""
        with self.memory.lock:
            return self.memory.orphans()

    def _reattach(self, old_id: str, target: Abstract) -> None:
        snap, new_id = Snapshot.of(target), target.id
        memory, writer = self.memory, self.writer
        note_moves = memory.note(old_id) is not None and memory.note(new_id) is None
        memory.move(old_id, new_id, snap)
        # An unsaved edit of a note that moves to an empty target is re-keyed to the new
        # id and queued after the move: saved under the old id in the same batch, it
        # would leave the new id's base version stale and report a false conflict.
        # (When the target has its own note, the edit is saved under the old id first
        # and the move then keeps it as a conflict copy.)
        pending = writer.queued(("note", old_id)) if note_moves else None
        if isinstance(pending, SaveNote):
            writer.unqueue(("note", old_id))
            writer.queue(
                Reattach(old_id, new_id, snap, time.time()),
                replace(pending, abstract_id=new_id, snapshot=snap),
            )
        else:
            writer.queue(Reattach(old_id, new_id, snap, time.time()))

    def notes(self) -> list[NoteRecord]:
        """Every note, newest first, each with its kept conflict copies (`conflicts`);
        an abstract whose note was deleted but has copies is listed with text ""."""
        with self.memory.lock:
            return self.memory.note_records()

    # Saving and closing

    def flush(self, timeout: float | None = 10.0, *, rescue: bool = False) -> bool:
        """Wait until every queued change is committed; False if it did not happen in time.

        With `rescue`, changes still uncommitted then are also written to a rescue file
        (`rescue_path`); they stay queued and retried either way.
        """
        done = self.writer.wait_flushed(timeout)
        if not done and rescue:
            self.write_rescue()
        return done

    def close(self, timeout: float = 5.0) -> Path | None:
        """Flush, stop the writer and close the database.

        Changes that could not be committed are written to a rescue file, whose path is
        returned (and kept in `rescue_path`, and reported as a `Notice`); None when
        everything was saved. Unsaved changes also stay readable here.
        """
        writer = self.writer
        if writer.file_changed():
            # The file went with nothing left to commit: the refresh makes it again.
            self.refresh(timeout)
        # One immediate retry when saving is failing, rather than waiting the full timeout.
        writer.wait_flushed(timeout if writer.saving_available else min(timeout, 1.0))
        writer.stop(timeout)
        path = self.write_rescue() if self.pending_count else None
        writer.close_store()
        return path

    def rescue_text(self) -> str | None:
        """The pending changes as an importable JSON export, or None when nothing is pending."""
        memory = self.memory
        with memory.lock:
            pending = self.writer.pending_ops()
            if not pending:
                return None
            reason = self.writer.last_error or "saving did not finish"
            ops = complete_batch(pending, memory)
            doc = rescue_document(ops, memory.records, memory.base_version, reason)
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
        self.writer.emit([Notice(message)])
        return path


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
