"""Saving, renaming and deleting saved searches through `UserData`: memory at once, the
database in the background (see `writer.py`), as every other change."""

from __future__ import annotations

import time
from dataclasses import replace

from tui.store.names import NameProblem, name_key, normalise_name, sort_of
from tui.store.records import (
    DeleteSearch,
    OpResult,
    RenameSearch,
    SavedSearch,
    SaveSearch,
    StoreEvent,
)
from tui.store.writer import Writer


class NameTaken(NameProblem):
    """Another saved search already has that name (case ignored)."""


class SavedSearchWrites(Writer):
    """The saved-search half of `UserData`'s writes."""

    def _apply_result(self, result: object) -> list[StoreEvent]:
        events = super()._apply_result(result)
        assert isinstance(result, OpResult)
        if isinstance(result.op, SaveSearch):
            self._rebase_queued(result.op, dict(result.searches))
        return events

    def _rebase_queued(self, sent: SaveSearch, landed: dict[str, SavedSearch | None]) -> None:
        """A save or delete of the same name queued while `sent` was being written was based
        on what `sent` was based on (`_expected`): once `sent` has landed as asked, it is
        based on what `sent` wrote. Else the user's second thought would meet their first as another
        instance's change (kept beside it as "name (2)", or not deleted). With the lock held
        (a delete in flight needs nothing: a save onto no search always applies)."""
        key = name_key(sent.name)
        queued, row = self._pending.get(("search", key)), landed.get(key)
        if (
            isinstance(queued, SaveSearch | DeleteSearch)
            and row is not None
            and (row.query, row.sort) == (sent.query, sent.sort)
        ):
            self._pending[("search", key)] = replace(queued, expected=(row.query, row.sort))

    def _expected(self, key: str) -> tuple[str, str] | None:
        """What the database holds under `key` as far as this instance knows: what a
        change still queued was based on, else what memory shows."""
        pending = self._pending.get(("search", key))
        if isinstance(pending, SaveSearch | DeleteSearch):
            return pending.expected
        current = self._searches.get(key)
        return None if current is None else (current.query, current.sort)

    def save_search(self, name: str, query: str, sort: str) -> SavedSearch:
        """Save `query` (and its order) under `name`, replacing a search of that name.

        The UI asks before replacing one (see `saved_search`). Raises `NameProblem`
        for a name that cannot be used.
        """
        name = normalise_name(name)
        now = time.time()
        with self._lock:
            key = name_key(name)
            expected = self._expected(key)
            current = self._searches.get(key)
            created = current.created if current is not None else now
            row = SavedSearch(name, query, sort_of(sort), created, now)
            self._searches = {**self._searches, key: row}
            self._queue(("search", key), SaveSearch(name, query, row.sort, now, expected))
            return row

    def rename_search(self, old: str, new: str) -> SavedSearch:
        """Rename a saved search. Raises `NameTaken` when another search has the new name,
        `NameProblem` for a name that cannot be used, KeyError when `old` is unknown."""
        new = normalise_name(new)
        now = time.time()
        with self._lock:
            old_key, new_key = name_key(old), name_key(new)
            current = self._searches.get(old_key)
            if current is None:
                raise KeyError(old)
            if new_key != old_key and new_key in self._searches:
                raise NameTaken(f"there is already a saved search named “{new}”")
            row = SavedSearch(new, current.query, current.sort, current.created, now)
            expected = self._expected(old_key)
            # A save of the old name still queued is folded into the move: left in the
            # queue, a later save of that name would replace it and land after the move.
            self._pending.pop(("search", old_key), None)
            searches = dict(self._searches)
            del searches[old_key]
            searches[new_key] = row
            self._searches = searches
            # A key of its own: a later change of either name must not replace the move.
            key = ("search-rename", f"{old_key}\0{new_key}\0{now!r}")
            op = RenameSearch(current.name, new, current.query, current.sort, now, expected)
            self._queue(key, op)
            return row

    def delete_search(self, name: str) -> bool:
        """Delete a saved search (an explicit user action); False when there is none."""
        with self._lock:
            key = name_key(name)
            if key not in self._searches:
                return False
            expected = self._expected(key)
            searches = dict(self._searches)
            del searches[key]
            self._searches = searches
            self._queue(("search", key), DeleteSearch(name, expected))
            return True
