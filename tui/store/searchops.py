"""The saved-search operations (see `operations.py` for what an operation does): saving,
renaming and deleting a saved search, never silently overwriting one changed elsewhere
(see `searches.py`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, replace

from tui.store import searches
from tui.store.names import name_key
from tui.store.operations import Key, MemoryPort, Operation, OpResult, RescuePort, WriterPort
from tui.store.records import StoreEvent


@dataclass(frozen=True, slots=True)
class SaveSearch(Operation):
    """Save a search under `name`. `expected` is the (query, sort) the user saw under that
    name (None: no search of that name), so one saved meanwhile elsewhere is kept."""

    name: str
    query: str
    sort: str
    at: float
    expected: tuple[str, str] | None

    @property
    def queue_key(self) -> Key:
        return ("search", name_key(self.name))

    def write(self, conn: sqlite3.Connection) -> OpResult:
        touched, message = searches.save(
            conn, self.name, self.query, self.sort, self.at, self.expected
        )
        return OpResult(self, searches=touched, message=message)

    def settle(self, result: OpResult, memory: MemoryPort, writer: WriterPort) -> list[StoreEvent]:
        events = memory.mirror_searches(result, writer.search_keys_pending())
        # A save or delete of the same name queued while this one was being written was
        # based on what this one was based on: once this has landed as asked, it is
        # based on what this wrote. Else the user's second thought would meet their
        # first as another instance's change (kept beside it as "name (2)", or not
        # deleted). (A delete in flight needs nothing: a save onto no search applies.)
        key = name_key(self.name)
        row = dict(result.searches).get(key)
        queued = writer.queued(("search", key))
        if (
            isinstance(queued, SaveSearch | DeleteSearch)
            and row is not None
            and (row.query, row.sort) == (self.query, self.sort)
        ):
            writer.requeue(replace(queued, expected=(row.query, row.sort)))
        return events

    def rescue(self, doc: RescuePort) -> None:
        search = {"name": self.name, "query": self.query, "sort": self.sort, "updated": self.at}
        doc.add("saved_searches", search)


@dataclass(frozen=True, slots=True)
class RenameSearch(Operation):
    """Rename a saved search to hold `query` and `sort` (what the user sees: a change of
    it still queued is folded in). `expected` is what the database held as far as the
    user knew; a search changed elsewhere meanwhile keeps its name and that change."""

    old: str
    new: str
    query: str
    sort: str
    at: float
    expected: tuple[str, str] | None = None

    @property
    def queue_key(self) -> Key:
        # A key of its own: a later change of either name must not replace the move.
        return ("search-rename", f"{name_key(self.old)}\0{name_key(self.new)}\0{self.at!r}")

    def held(self) -> Iterable[Key]:
        return [self.queue_key, ("search", name_key(self.old)), ("search", name_key(self.new))]

    def write(self, conn: sqlite3.Connection) -> OpResult:
        touched, message = searches.rename(
            conn, self.old, self.new, self.query, self.sort, self.at, self.expected
        )
        return OpResult(self, searches=touched, message=message)

    def settle(self, result: OpResult, memory: MemoryPort, writer: WriterPort) -> list[StoreEvent]:
        return memory.mirror_searches(result, writer.search_keys_pending())

    def rescue(self, doc: RescuePort) -> None:
        search = {"name": self.new, "query": self.query, "sort": self.sort, "updated": self.at}
        doc.add("saved_searches", search)
        doc.removal({"kind": "saved_search", "name": self.old})


@dataclass(frozen=True, slots=True)
class DeleteSearch(Operation):
    """Delete a saved search, unless it no longer holds `expected` (changed elsewhere)."""

    name: str
    expected: tuple[str, str] | None

    @property
    def queue_key(self) -> Key:
        return ("search", name_key(self.name))

    def write(self, conn: sqlite3.Connection) -> OpResult:
        touched, message = searches.delete(conn, self.name, self.expected)
        return OpResult(self, searches=touched, message=message)

    def settle(self, result: OpResult, memory: MemoryPort, writer: WriterPort) -> list[StoreEvent]:
        return memory.mirror_searches(result, writer.search_keys_pending())

    def rescue(self, doc: RescuePort) -> None:
        doc.removal({"kind": "saved_search", "name": self.name})
