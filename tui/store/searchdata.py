"""Saving, renaming and deleting saved searches through `UserData`: memory at once, the
database in the background (see `writer.py`), as every other change."""

from __future__ import annotations

import time

from tui.store.memory import Memory
from tui.store.names import NameProblem, name_key, normalise_name, sort_of
from tui.store.records import SavedSearch
from tui.store.searchops import DeleteSearch, RenameSearch, SaveSearch
from tui.store.writer import Writer


class NameTaken(NameProblem):
    """Another saved search already has that name (case ignored)."""


class SavedSearches:
    """The saved-search part of `UserData`: its writes, over the shared memory and writer."""

    def __init__(self, memory: Memory, writer: Writer) -> None:
        self._memory = memory
        self._writer = writer

    def _expected(self, key: str) -> tuple[str, str] | None:
        """What the database holds under `key` as far as this instance knows: what a
        change still queued was based on, else what memory shows."""
        pending = self._writer.queued(("search", key))
        if isinstance(pending, SaveSearch | DeleteSearch):
            return pending.expected
        current = self._memory.searches.get(key)
        return None if current is None else (current.query, current.sort)

    def save_search(self, name: str, query: str, sort: str) -> SavedSearch:
        """Save `query` (and its order) under `name`, replacing a search of that name.

        The UI asks before replacing one (see `saved_search`). Raises `NameProblem`
        for a name that cannot be used.
        """
        name = normalise_name(name)
        now = time.time()
        memory = self._memory
        with memory.lock:
            key = name_key(name)
            expected = self._expected(key)
            current = memory.searches.get(key)
            created = current.created if current is not None else now
            row = SavedSearch(name, query, sort_of(sort), created, now)
            memory.searches = {**memory.searches, key: row}
            self._writer.queue(SaveSearch(name, query, row.sort, now, expected))
            return row

    def rename_search(self, old: str, new: str) -> SavedSearch:
        """Rename a saved search. Raises `NameTaken` when another search has the new name,
        `NameProblem` for a name that cannot be used, KeyError when `old` is unknown."""
        new = normalise_name(new)
        now = time.time()
        memory = self._memory
        with memory.lock:
            old_key, new_key = name_key(old), name_key(new)
            current = memory.searches.get(old_key)
            if current is None:
                raise KeyError(old)
            if new_key != old_key and new_key in memory.searches:
                raise NameTaken(f"there is already a saved search named “{new}”")
            row = SavedSearch(new, current.query, current.sort, current.created, now)
            expected = self._expected(old_key)
            # A save of the old name still queued is folded into the move: left in the
            # queue, a later save of that name would replace it and land after the move.
            self._writer.unqueue(("search", old_key))
            searches = dict(memory.searches)
            del searches[old_key]
            searches[new_key] = row
            memory.searches = searches
            op = RenameSearch(current.name, new, current.query, current.sort, now, expected)
            self._writer.queue(op)
            return row

    def delete_search(self, name: str) -> bool:
        """Delete a saved search (an explicit user action); False when there is none."""
        memory = self._memory
        with memory.lock:
            key = name_key(name)
            if key not in memory.searches:
                return False
            expected = self._expected(key)
            searches = dict(memory.searches)
            del searches[key]
            memory.searches = searches
            self._writer.queue(DeleteSearch(name, expected))
            return True
