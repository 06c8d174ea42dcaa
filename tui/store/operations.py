"""The write operations, each knowing every step of its own way to the disk.

`UserData` changes memory at once and queues an operation under its `queue_keys` (a
later change of the same thing replaces it). The writer thread fills in what was left
to it (`based`: the note version a text is based on; `completed`: a tagged abstract's
record), `Store.apply` writes a batch in one transaction (`write`; a step tagging or
marking many abstracts with one statement per table), memory takes what the database
decided (`settle`), and what could not be saved goes to a rescue file (`rescue`). What
differs between kinds of change is written here, once per kind, and nowhere else (the
saved searches' in `searchops.py`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol

from tui.store import sql
from tui.store.packs import put_pack
from tui.store.records import (
    ConflictCopy,
    OrphanReattached,
    SavedSearch,
    Snapshot,
    StoreEvent,
)

if TYPE_CHECKING:
    from tui.corpus.model import Corpus

#: What an operation is queued under: (kind, what it changes).
Key = tuple[str, str]
#: No records made by earlier steps of a batch (`Operation.completed`).
_NOTHING_MADE: Mapping[str, Snapshot] = {}


class Operation:
    """A change queued for the database. Subclasses are frozen dataclasses."""

    __slots__ = ()

    @property
    def queue_key(self) -> Key:
        """A later operation with the same key replaces this one while it is queued."""
        raise NotImplementedError

    def queue_keys(self) -> Sequence[Key]:
        """Every key this is queued under: one, or one per thing a step changes (a later
        change of one of them replaces it for that one alone)."""
        return (self.queue_key,)

    def held(self) -> Iterable[Key]:
        """Keys besides its own queue keys that memory is ahead of the disk for while this
        is queued (`Memory.merge` keeps memory's view of them on a reload)."""
        return ()

    def based(self, memory: MemoryPort) -> Operation:
        """This operation with what memory knows when it is written (callers hold the lock)."""
        return self

    def completed(
        self, memory: MemoryPort, made: Mapping[str, Snapshot] = _NOTHING_MADE
    ) -> Operation:
        """This operation with what was left to the writer's thread (outside the lock);
        `made`: the records steps before it in the same batch make (see `complete_batch`)."""
        return self

    def records_made(self) -> Sequence[tuple[str, Snapshot]]:
        """The records this (completed) operation writes for abstracts that had none."""
        return ()

    def write(self, conn: sqlite3.Connection) -> OpResult:
        """Write this operation inside the open transaction on `conn`."""
        raise NotImplementedError

    def settle(self, result: OpResult, memory: MemoryPort, writer: WriterPort) -> list[StoreEvent]:
        """Bring memory in line with what was committed (the lock is held); the events."""
        return memory.settled(result)

    def rescue(self, doc: RescuePort) -> None:
        """Put this unsaved operation into a rescue document."""
        raise NotImplementedError


class OpResult(NamedTuple):
    """The outcome of one operation. `version` is the note version now stored (notes only);
    `conflict` is the copy kept when another writer got there first. (A tuple: a bulk
    step makes 100,000 of them, and a frozen dataclass took four times as long.)"""

    op: Operation
    version: int = 0
    conflict: ConflictCopy | None = None
    #: Saved searches only: what the database now holds for each name key it touched
    #: (None: nothing), for memory to mirror; and a message when it differs from the request.
    searches: tuple[tuple[str, SavedSearch | None], ...] = ()
    message: str = ""


# What an operation uses of the store's other parts (memory, the writer, a rescue
# document), as protocols: `Memory`, `Writer` and `RescueDoc` provide them, and import
# this module; this module imports none of them.


class MemoryPort(Protocol):
    """The store's memory, as an operation settles into it (the lock is held)."""

    records: dict[str, Snapshot]
    corpus: Corpus | None

    def settled(self, result: OpResult) -> list[StoreEvent]: ...

    def base_version(self, abstract_id: str) -> int: ...

    def note_saved(self, abstract_id: str, version: int | None) -> None: ...

    def moved_saved(self, old_id: str, new_id: str, version: int) -> None: ...

    def mirror_searches(self, result: OpResult, pending: frozenset[str]) -> list[StoreEvent]: ...


class WriterPort(Protocol):
    """The writer's queue, as a saved-search operation reads and refills it."""

    def queued(self, key: Key) -> Operation | None: ...

    def requeue(self, op: Operation) -> None: ...

    def search_keys_pending(self) -> frozenset[str]: ...


class RescuePort(Protocol):
    """A rescue document being filled with what could not be saved."""

    base_version: Callable[[str], int]
    state: dict[str, str]

    def keep(self, abstract_id: str, snap: Snapshot | None) -> None: ...

    def add(self, section: str, entry: dict[str, Any]) -> None: ...

    def removal(self, entry: dict[str, Any]) -> None: ...


@dataclass(frozen=True, slots=True)
class _Mark(Operation):
    """A mark kept with a snapshot of the abstract (bookmark, dismissal), or taken off."""

    abstract_id: str
    on: bool
    snapshot: Snapshot | None
    at: float

    KIND: ClassVar[str] = ""
    TABLE: ClassVar[str] = ""
    REMOVAL: ClassVar[str] = ""

    @property
    def queue_key(self) -> Key:
        return (self.KIND, self.abstract_id)

    def write(self, conn: sqlite3.Connection) -> OpResult:
        if self.on and self.snapshot is not None:
            sql.put_record(conn, self.abstract_id, self.snapshot, self.at)
        sql.set_mark(conn, self.TABLE, self.abstract_id, self.on, self.at)
        return OpResult(self)

    def rescue(self, doc: RescuePort) -> None:
        if self.on:
            doc.keep(self.abstract_id, self.snapshot)
            doc.add(self.TABLE, {"id": self.abstract_id, "created": self.at})
        else:
            doc.removal({"kind": self.REMOVAL, "id": self.abstract_id})


@dataclass(frozen=True, slots=True)
class SetBookmark(_Mark):
    """Bookmark an abstract (keeping its snapshot) or take the bookmark off."""

    KIND: ClassVar[str] = "bookmark"
    TABLE: ClassVar[str] = "bookmarks"
    REMOVAL: ClassVar[str] = "bookmark"


@dataclass(frozen=True, slots=True)
class SetDismissed(_Mark):
    """Dismiss ("not interested") or un-dismiss an abstract; kept with a snapshot like a
    bookmark, so it survives the abstract's file changing."""

    KIND: ClassVar[str] = "dismiss"
    TABLE: ClassVar[str] = "dismissals"
    REMOVAL: ClassVar[str] = "dismissal"


# A step (tagging or marking read a whole list) is one operation however many abstracts
# it changes, queued under one key per abstract so that a later change of one of them
# replaces it for that one alone, and two instances changing different abstracts never
# undo each other's. Compared by identity (eq=False): one step sits under 100,000 keys,
# and the queue tells steps apart without hashing their ids.


@dataclass(frozen=True, slots=True, eq=False)
class SetTags(Operation):
    """Put `tag` on each abstract of `ids` (`on`) or take it off.

    A tagged abstract keeps a record, as a bookmarked one does: `records` are those the
    writer makes for abstracts without one (see `completed`), written with the tags."""

    tag: str
    ids: tuple[str, ...]
    on: bool
    at: float
    records: tuple[tuple[str, Snapshot], ...] = ()

    def queue_keys(self) -> Sequence[Key]:
        # A tag holds no control character, so a tab cannot be part of either half.
        tag = self.tag
        return [("tag", f"{i}\t{tag}") for i in self.ids]

    def completed(
        self, memory: MemoryPort, made: Mapping[str, Snapshot] = _NOTHING_MADE
    ) -> Operation:
        # One kept already still describes its abstract (its id is the hash of its text);
        # an id not loaded (an orphan's tag being renamed) keeps the one it has. Made
        # without a headline: a bulk step makes 100,000 of them, and nobody reads them
        # now. Memory takes them once committed (`settle`), so a failed write makes them
        # again when it is retried.
        corpus = memory.corpus
        if not self.on or corpus is None:
            return self
        have, by_id, cwd = memory.records, corpus.by_id, os.getcwd()
        # In the step's order (the list's, mostly the files'): in id order, snapshotting
        # jumped about memory and took four times as long, and sorting the records for
        # the writing cost more than it saved.
        new = {
            i: a
            for i in self.ids
            if i not in have and i not in made and (a := by_id.get(i)) is not None
        }
        made = dict(zip(new, Snapshot.of_many(new.values(), cwd), strict=True))
        if not made:
            return self
        # Not `replace`, which inspects the fields each time.
        return SetTags(self.tag, self.ids, True, self.at, tuple(made.items()))

    def records_made(self) -> Sequence[tuple[str, Snapshot]]:
        return self.records

    def write(self, conn: sqlite3.Connection) -> OpResult:
        if self.on:  # taking a tag off keeps no record; those made go in one pack
            put_pack(conn, self.records, self.at)
        sql.set_tags(conn, self.tag, self.ids, self.on, self.at)
        return OpResult(self)

    def settle(self, result: OpResult, memory: MemoryPort, writer: WriterPort) -> list[StoreEvent]:
        written = result.op
        if isinstance(written, SetTags):
            memory.records.update(written.records)
        return []

    def rescue(self, doc: RescuePort) -> None:
        made = dict(self.records)
        for i in self.ids:
            if self.on:
                doc.keep(i, made.get(i))
                doc.add("tags", {"id": i, "tag": self.tag, "created": self.at})
            else:
                doc.removal({"kind": "tag", "id": i, "tag": self.tag})


@dataclass(frozen=True, slots=True, eq=False)
class SetReads(Operation):
    """Mark each abstract of `ids` read (its first time is kept) or unread."""

    ids: tuple[str, ...]
    on: bool
    at: float

    def queue_keys(self) -> Sequence[Key]:
        return [("read", i) for i in self.ids]

    def write(self, conn: sqlite3.Connection) -> OpResult:
        sql.set_reads(conn, self.ids, self.on, self.at)
        return OpResult(self)

    def settle(self, result: OpResult, memory: MemoryPort, writer: WriterPort) -> list[StoreEvent]:
        return []

    def rescue(self, doc: RescuePort) -> None:
        for i in self.ids:
            if self.on:
                doc.add("reads", {"id": i, "read_at": self.at})
            else:
                doc.removal({"kind": "read", "id": i})


@dataclass(frozen=True, slots=True)
class SaveNote(Operation):
    """Save `text` as the note; `base_version` is the version the text was based on (0: none)."""

    abstract_id: str
    text: str
    snapshot: Snapshot | None
    base_version: int
    at: float
    origin: str = "other instance"

    @property
    def queue_key(self) -> Key:
        return ("note", self.abstract_id)

    def based(self, memory: MemoryPort) -> Operation:
        # The version last seen in the database, looked up when the write happens:
        # queued edits replace each other.
        return replace(self, base_version=memory.base_version(self.abstract_id))

    def write(self, conn: sqlite3.Connection) -> OpResult:
        if self.snapshot is not None:
            sql.put_record(conn, self.abstract_id, self.snapshot, self.at)
        version, conflict = sql.save_note(
            conn, self.abstract_id, self.text, self.base_version, self.at, self.origin
        )
        return OpResult(self, version, conflict)

    def settle(self, result: OpResult, memory: MemoryPort, writer: WriterPort) -> list[StoreEvent]:
        memory.note_saved(self.abstract_id, result.version)
        return memory.settled(result)

    def rescue(self, doc: RescuePort) -> None:
        doc.keep(self.abstract_id, self.snapshot)
        base = doc.base_version(self.abstract_id)
        doc.add(
            "notes",
            {
                "id": self.abstract_id,
                "text": self.text,
                "version": base,
                "base_version": base,
                "updated": self.at,
            },
        )


@dataclass(frozen=True, slots=True)
class DeleteNote(Operation):
    """Delete a note, keeping as a copy a text saved elsewhere since `base_version`."""

    abstract_id: str
    base_version: int

    @property
    def queue_key(self) -> Key:
        return ("note", self.abstract_id)

    def based(self, memory: MemoryPort) -> Operation:
        return replace(self, base_version=memory.base_version(self.abstract_id))

    def write(self, conn: sqlite3.Connection) -> OpResult:
        return OpResult(self, 0, sql.delete_note(conn, self.abstract_id, self.base_version))

    def settle(self, result: OpResult, memory: MemoryPort, writer: WriterPort) -> list[StoreEvent]:
        memory.note_saved(self.abstract_id, None)
        return memory.settled(result)

    def rescue(self, doc: RescuePort) -> None:
        doc.removal({"kind": "note", "id": self.abstract_id})


@dataclass(frozen=True, slots=True)
class SetState(Operation):
    """Remember a piece of UI state (for resume)."""

    key: str
    value: str
    at: float

    @property
    def queue_key(self) -> Key:
        return ("state", self.key)

    def write(self, conn: sqlite3.Connection) -> OpResult:
        sql.set_state(conn, self.key, self.value, self.at)
        return OpResult(self)

    def rescue(self, doc: RescuePort) -> None:
        doc.state[self.key] = self.value


@dataclass(frozen=True, slots=True)
class Reattach(Operation):
    """Move every record of `old_id` to `new_id`, remembering the old id."""

    old_id: str
    new_id: str
    snapshot: Snapshot | None
    at: float

    @property
    def queue_key(self) -> Key:
        return ("reattach", self.old_id)

    def held(self) -> Iterable[Key]:
        # The records are moving from the old id to the new one: memory is ahead of
        # the disk for both until the move is saved.
        moved = (self.old_id, self.new_id)
        kinds = ("bookmark", "dismiss", "read", "note", "tags")
        return [(k, i) for i in moved for k in kinds]

    def write(self, conn: sqlite3.Connection) -> OpResult:
        if self.snapshot is not None:
            sql.put_record(conn, self.new_id, self.snapshot, self.at)
        version, conflict = sql.reattach(conn, self.old_id, self.new_id, self.at)
        return OpResult(self, version, conflict)

    def settle(self, result: OpResult, memory: MemoryPort, writer: WriterPort) -> list[StoreEvent]:
        memory.moved_saved(self.old_id, self.new_id, result.version)
        moved = OrphanReattached(
            f"A note or bookmark was moved to an edited version of its abstract "
            f"({self.old_id} → {self.new_id}).",
            old_id=self.old_id,
            new_id=self.new_id,
        )
        return [moved, *memory.settled(result)]

    def rescue(self, doc: RescuePort) -> None:
        doc.keep(self.new_id, self.snapshot)
        doc.add("aliases", {"old_id": self.old_id, "new_id": self.new_id})


@dataclass(frozen=True, slots=True)
class DismissConflict(Operation):
    """Remove one conflict copy: an explicit user action, the only way a copy goes away."""

    copy_id: int

    @property
    def queue_key(self) -> Key:
        return ("conflict", str(self.copy_id))

    def write(self, conn: sqlite3.Connection) -> OpResult:
        sql.dismiss_conflict(conn, self.copy_id)
        return OpResult(self)

    def rescue(self, doc: RescuePort) -> None:
        doc.removal({"kind": "conflict_copy", "copy_id": self.copy_id})


def complete_batch(ops: Sequence[Operation], memory: MemoryPort) -> list[Operation]:
    """`ops`, written together, each completed (outside the lock) in order: a record one
    step makes is not made again by a later one. Two tag steps on every abstract, queued
    before the writer took either, wrote the same 100,000 records (and their texts) twice."""
    made: dict[str, Snapshot] = {}
    done: list[Operation] = []
    for op in ops:
        completed = op.completed(memory, made)
        made.update(completed.records_made())
        done.append(completed)
    return done
