"""The in-memory mirror of the store that `UserData` answers from.

Public sets are frozensets replaced on change (copy-on-write), so a search running
in a worker thread can iterate them while the UI toggles a bookmark.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import replace
from typing import TYPE_CHECKING

from tui.store.attach import Orphan
from tui.store.names import name_key
from tui.store.records import (
    ConflictCopy,
    ConflictDetected,
    NoteRecord,
    NoteRow,
    Notice,
    SavedSearch,
    Snapshot,
    StoreData,
    StoreEvent,
)

if TYPE_CHECKING:
    from tui.corpus.model import Corpus
    from tui.store.operations import OpResult


_NO_TAGS: frozenset[str] = frozenset()


class Memory:
    """Bookmarks, reads, notes, tags, snapshots and state held in memory, guarded by one lock.

    The other parts of `UserData` (the writer, the saved searches) share `lock`; the
    methods that change memory expect it held.
    """

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._bookmarks: frozenset[str] = frozenset()
        self._dismissed: frozenset[str] = frozenset()
        self._reads: dict[str, float] = {}
        self._read_ids: frozenset[str] = frozenset()
        self._notes: dict[str, str] = {}
        self._noted: frozenset[str] = frozenset()
        self._note_updated: dict[str, float] = {}
        self._versions: dict[str, int] = {}
        #: Abstract id -> the snapshot kept for it (bookmarked, dismissed, noted or tagged).
        self.records: dict[str, Snapshot] = {}
        self._conflicts: list[ConflictCopy] = []
        #: UI state for resume; replaced on change.
        self.state: dict[str, str] = {}
        self._aliases: dict[str, str] = {}
        #: The loaded corpus (see `UserData.attach`) and its ids; None until then.
        self.corpus: Corpus | None = None
        self.loaded: frozenset[str] | None = None
        # new id -> old id for a note moved by a re-attachment not yet committed: the
        # database still holds it under the old id, at the old id's version.
        self._note_moved_from: dict[str, str] = {}
        # Tags both ways. Per abstract: changed in place, read per row with .get. Per tag:
        # sets changed in place under the lock (a tag on 100,000 abstracts is not copied
        # on every key press), frozen for a reader when it asks, only the tags changed since.
        self._tags: dict[str, frozenset[str]] = {}
        self._tag_sets: dict[str, set[str]] = {}
        self._tag_frozen: dict[str, frozenset[str]] = {}
        self._tag_dirty: set[str] = set()
        #: Saved searches by name key; replaced on change, like the sets above.
        self.searches: dict[str, SavedSearch] = {}

    # PersonalData (search) and the quick questions the list asks per row

    def bookmarked_ids(self) -> AbstractSet[str]:
        """Ids of bookmarked abstracts."""
        return self._bookmarks

    def dismissed_ids(self) -> AbstractSet[str]:
        """Ids of abstracts dismissed ("not interested")."""
        return self._dismissed

    def read_ids(self) -> AbstractSet[str]:
        """Ids of abstracts marked read."""
        return self._read_ids

    def noted_ids(self) -> AbstractSet[str]:
        """Ids of abstracts with a note."""
        return self._noted

    def note_items(self) -> Iterable[tuple[str, str]]:
        """(abstract id, note text) for every note."""
        return list(self._notes.items())

    def is_bookmarked(self, abstract_id: str) -> bool:
        """Whether the abstract is bookmarked."""
        return abstract_id in self._bookmarks

    def is_dismissed(self, abstract_id: str) -> bool:
        """Whether the abstract is dismissed ("not interested")."""
        return abstract_id in self._dismissed

    def is_read(self, abstract_id: str) -> bool:
        """Whether the abstract is marked read."""
        return abstract_id in self._read_ids

    def note(self, abstract_id: str) -> str | None:
        """The note of an abstract, or None."""
        return self._notes.get(abstract_id)

    def read_at(self, abstract_id: str) -> float | None:
        """When the abstract was first marked read (epoch seconds), or None."""
        return self._reads.get(abstract_id)

    def snapshot(self, abstract_id: str) -> Snapshot | None:
        """The snapshot kept for an abstract id (bookmarked, dismissed or noted ones), or None."""
        return self.records.get(abstract_id)

    def tags_of(self, abstract_id: str) -> frozenset[str]:
        """The tags of an abstract (empty when it has none)."""
        return self._tags.get(abstract_id, frozenset())

    def tags_by_id(self) -> Mapping[str, AbstractSet[str]]:
        """Abstract id -> its tags, for the list's rows (read with `.get`, never iterated:
        it changes in place)."""
        return self._tags

    def tag_index(self) -> Mapping[str, AbstractSet[str]]:
        """Tag -> ids of the abstracts that have it: a mapping never changed once returned,
        so a search thread can iterate it (the freezing happens here, on its thread)."""
        with self.lock:
            if self._tag_dirty:
                frozen = dict(self._tag_frozen)
                for tag in self._tag_dirty:
                    ids = self._tag_sets.get(tag)
                    if ids:
                        frozen[tag] = frozenset(ids)
                    else:
                        frozen.pop(tag, None)
                self._tag_frozen, self._tag_dirty = frozen, set()
            return self._tag_frozen

    def tag_counts(self) -> dict[str, int]:
        """Tag -> how many abstracts have it, loaded or not."""
        with self.lock:
            return {tag: len(ids) for tag, ids in self._tag_sets.items()}

    def conflict_copies(self) -> list[ConflictCopy]:
        """Note texts kept after concurrent edits or imports."""
        return list(self._conflicts)

    def aliases(self) -> dict[str, str]:
        """Old id -> new id for every re-attached record."""
        return dict(self._aliases)

    def saved_searches(self) -> list[SavedSearch]:
        """Every saved search, by name (case ignored)."""
        return [s for _, s in sorted(self.searches.items())]

    def saved_search(self, name: str) -> SavedSearch | None:
        """The saved search of that name (case ignored), or None."""
        return self.searches.get(name_key(name.strip().removeprefix("@").strip()))

    # Memory updates (callers hold the lock)

    def set_bookmark(self, i: str, on: bool, snap: Snapshot | None) -> None:
        """Bookmark `i` (keeping `snap`) or take the bookmark off."""
        self._bookmarks = self._bookmarks | {i} if on else self._bookmarks - {i}
        if snap is not None:
            self.records[i] = snap

    def set_dismissed(self, i: str, on: bool, snap: Snapshot | None) -> None:
        """Dismiss `i` (keeping `snap`) or take the dismissal back."""
        self._dismissed = self._dismissed | {i} if on else self._dismissed - {i}
        if snap is not None:
            self.records[i] = snap

    def set_tags(
        self, on: Iterable[tuple[str, str]], off: Iterable[tuple[str, str]]
    ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """Add the (id, tag) pairs `on` and remove those `off`, skipping pairs already as
        asked; returns the pairs (added, removed) that changed."""
        tags = self._tags
        on = [p for p in on if p[1] not in tags.get(p[0], ())]
        off = [p for p in off if p[1] in tags.get(p[0], ())]
        self._change_tags(on, off)
        return on, off

    def _change_tags(self, on: Iterable[tuple[str, str]], off: Iterable[tuple[str, str]]) -> None:
        tags = self._tags
        for pairs, adding in ((off, False), (on, True)):
            by_tag: dict[str, list[str]] = {}
            for i, tag in pairs:
                by_tag.setdefault(tag, []).append(i)
            for tag, ids in by_tag.items():
                # One set made per set of tags the abstracts had: tagging 100,000 abstracts
                # tagged alike makes one set, not 100,000 (it took a third of a second).
                made: dict[frozenset[str], frozenset[str]] = {}
                for i in ids:
                    have = tags.get(i, _NO_TAGS)
                    now = made.get(have)
                    if now is None:
                        now = made[have] = have | {tag} if adding else have - {tag}
                    if now:
                        tags[i] = now
                    else:
                        tags.pop(i, None)
                if adding:
                    self._tag_sets.setdefault(tag, set()).update(ids)
                elif (tagged := self._tag_sets.get(tag)) is not None:
                    tagged.difference_update(ids)
                    if not tagged:
                        del self._tag_sets[tag]
                self._tag_dirty.add(tag)

    def _replace_tags(self, pairs: Iterable[tuple[str, str]]) -> None:
        tags: dict[str, set[str]] = {}
        by_tag: dict[str, set[str]] = {}
        for i, tag in pairs:
            tags.setdefault(i, set()).add(tag)
            by_tag.setdefault(tag, set()).add(i)
        self._tags = {i: frozenset(ts) for i, ts in tags.items()}
        self._tag_dirty = set(self._tag_sets) | set(by_tag)
        self._tag_sets = by_tag

    def set_read(self, ids: list[str], on: bool, at: float) -> None:
        """Mark `ids` read at `at` (those read already keep their time), or unread."""
        if on:
            for i in ids:
                self._reads.setdefault(i, at)
        else:
            for i in ids:
                self._reads.pop(i, None)
        self._read_ids = frozenset(self._reads)

    def save_note(self, i: str, text: str, snap: Snapshot, at: float) -> None:
        """Make `text` the note of `i`, changed at `at`."""
        self._notes[i] = text
        self._note_updated[i] = at
        self.records[i] = snap
        self._noted = frozenset(self._notes)

    def delete_note(self, i: str) -> None:
        """Take the note of `i` away."""
        self._notes.pop(i, None)
        self._note_updated.pop(i, None)
        self._noted = frozenset(self._notes)

    def move(self, old: str, new: str, snap: Snapshot) -> None:
        """Move everything of `old` to `new` (a re-attachment), remembering the old id."""
        self.records[new] = snap
        if old in self._bookmarks:
            self._bookmarks = (self._bookmarks - {old}) | {new}
        if old in self._dismissed:
            self._dismissed = (self._dismissed - {old}) | {new}
        if old in self._reads:
            self._reads.setdefault(new, self._reads.pop(old))
            self._read_ids = frozenset(self._reads)
        if old in self._notes:
            text, updated = self._notes.pop(old), self._note_updated.pop(old, 0.0)
            if new not in self._notes:
                self._notes[new], self._note_updated[new] = text, updated
                self._note_moved_from[new] = self._note_moved_from.pop(old, old)
            # else: the database keeps the moved text as a conflict copy (see sql.reattach)
            self._noted = frozenset(self._notes)
        self._conflicts = [
            replace(c, abstract_id=new) if c.abstract_id == old else c for c in self._conflicts
        ]
        moved_tags = self._tags.get(old, frozenset())
        if moved_tags:
            self._change_tags([(new, t) for t in moved_tags], [(old, t) for t in moved_tags])
        self._aliases[old] = new

    def settled(self, result: OpResult) -> list[StoreEvent]:
        """Keep the conflict copy a commit made, if any; the event to report."""
        if result.conflict is None:
            return []
        self._conflicts.append(result.conflict)
        return [
            ConflictDetected(
                "This note was also changed elsewhere (another window or an import). "
                "Both texts are kept: yours is the note, the other is listed beside it.",
                abstract_id=result.conflict.abstract_id,
            )
        ]

    def note_saved(self, abstract_id: str, version: int | None) -> None:
        """The database now holds the note of `abstract_id` at `version` (None: no note)."""
        if version is None:
            self._versions.pop(abstract_id, None)
        else:
            self._versions[abstract_id] = version

    def moved_saved(self, old_id: str, new_id: str, version: int) -> None:
        """A re-attachment is committed: the note (at `version`, 0: none) is under `new_id`."""
        self._versions.pop(old_id, None)
        if self._note_moved_from.get(new_id) == old_id:
            del self._note_moved_from[new_id]
        if version:
            self._versions[new_id] = version

    def mirror_searches(self, result: OpResult, pending: frozenset[str]) -> list[StoreEvent]:
        """Take what the database now holds for the names a saved-search op touched,
        except the name keys `pending` (changed again since, still queued)."""
        searches = dict(self.searches)
        for key, row in result.searches:
            if key in pending:
                continue
            if row is None:
                searches.pop(key, None)
            else:
                searches[key] = row
        self.searches = searches
        return [Notice(result.message)] if result.message else []

    def base_version(self, abstract_id: str) -> int:
        """The database version a note edit of `abstract_id` is based on."""
        source = self._note_moved_from.get(abstract_id, abstract_id)
        return self._versions.get(source, 0)

    def dismiss_conflict(self, copy_id: int) -> bool:
        """Remove a conflict copy; False when none has that id."""
        kept = [c for c in self._conflicts if c.copy_id != copy_id]
        found = len(kept) != len(self._conflicts)
        self._conflicts = kept
        return found

    def note_records(self) -> list[NoteRecord]:
        """Every note and its conflict copies, newest first (see `UserData.notes`)."""
        copies: dict[str, list[ConflictCopy]] = {}
        for c in self._conflicts:
            copies.setdefault(c.abstract_id, []).append(c)
        out = []
        for i in set(self._notes) | set(copies):
            snap = self.records.get(i)
            # A copy alone (its note deleted) sorts by when the copy was made.
            updated = (
                self._note_updated.get(i, 0.0)
                if i in self._notes
                else max((c.created for c in copies.get(i, ())), default=0.0)
            )
            out.append(
                NoteRecord(
                    id=i,
                    text=self._notes.get(i, ""),
                    headline=snap.headline if snap else "",
                    updated=updated,
                    orphaned=self.loaded is not None and i not in self.loaded,
                    conflicts=tuple(copies.get(i, ())),
                )
            )
        return sorted(out, key=lambda r: (-r.updated, r.id))

    def orphans(self, *, dismissed: bool = False) -> list[Orphan]:
        """Records whose abstract is not loaded; with `dismissed`, dismissals too (they are
        re-attached like the rest, but are not worth telling the user about)."""
        if self.loaded is None:
            return []
        ids = set(self._bookmarks) | set(self._notes) | {c.abstract_id for c in self._conflicts}
        ids |= set(self._tags)
        if dismissed:
            ids |= self._dismissed
        return [
            Orphan(i, self.records.get(i), i in self._bookmarks, self._notes.get(i))
            for i in sorted(ids - self.loaded)
        ]

    def merge(self, data: StoreData, pending: frozenset[tuple[str, str]]) -> bool:
        """Take the database's view, except where a change of ours (its queue key in
        `pending`) is still queued; True when anything shown changed."""
        before = (
            self._bookmarks,
            self._dismissed,
            self._read_ids,
            dict(self._notes),
            len(self._conflicts),
            dict(self._tags),
            self.searches,
        )
        self._bookmarks = _merged_ids(data.bookmarks, self._bookmarks, "bookmark", pending)
        self._dismissed = _merged_ids(data.dismissals, self._dismissed, "dismiss", pending)
        reads = {i: t for i, t in data.reads.items() if ("read", i) not in pending}
        reads.update({i: t for i, t in self._reads.items() if ("read", i) in pending})
        self._reads, self._read_ids = reads, frozenset(reads)
        notes: dict[str, str] = {}
        for i, row in data.notes.items():
            if ("note", i) not in pending:
                notes[i] = row.text
                self._versions[i] = row.version
                self._note_updated[i] = row.updated
        for i in list(self._versions):
            if i not in data.notes and ("note", i) not in pending:
                del self._versions[i]
        notes.update({i: t for i, t in self._notes.items() if ("note", i) in pending})
        self._notes, self._noted = notes, frozenset(notes)
        self.records = {**self.records, **data.records}
        self._conflicts = [c for c in data.conflicts if ("conflict", str(c.copy_id)) not in pending]
        self.state = {
            **data.state,
            **{k: v for k, v in self.state.items() if ("state", k) in pending},
        }
        self._aliases = {**data.aliases, **self._aliases}
        self._merge_tags(data.tags, pending)
        self.searches = {
            **{k: s for k, s in data.searches.items() if ("search", k) not in pending},
            **{k: s for k, s in self.searches.items() if ("search", k) in pending},
        }
        after = (
            self._bookmarks,
            self._dismissed,
            self._read_ids,
            self._notes,
            len(self._conflicts),
            self._tags,
            self.searches,
        )
        return before != after

    def as_store_data(self) -> StoreData:
        """Everything held, as a store would load it (times memory does not keep, a
        bookmark's or a tag's, are now): what a lost database file is made again from."""
        now = time.time()
        with self.lock:
            return StoreData(
                records=dict(self.records),
                bookmarks=dict.fromkeys(self._bookmarks, now),
                dismissals=dict.fromkeys(self._dismissed, now),
                reads=dict(self._reads),
                notes={
                    i: NoteRow(text, self._versions.get(i, 0), self._note_updated.get(i, now))
                    for i, text in self._notes.items()
                },
                conflicts=list(self._conflicts),
                state=dict(self.state),
                aliases=dict(self._aliases),
                tags={i: dict.fromkeys(tags, now) for i, tags in self._tags.items() if tags},
                searches=dict(self.searches),
            )

    def _merge_tags(
        self, disk: Mapping[str, Mapping[str, float]], pending: frozenset[tuple[str, str]]
    ) -> None:
        """The database's tags, except the pairs (and moved ids) with a change still queued."""
        queued = {tuple(key.split("\t", 1)) for kind, key in pending if kind == "tag"}
        moving = {key for kind, key in pending if kind == "tags"}

        def ours(pair: tuple[str, str]) -> bool:
            return pair in queued or pair[0] in moving

        pairs = {(i, t) for i, ts in disk.items() for t in ts if not ours((i, t))}
        pairs |= {(i, t) for i, ts in self._tags.items() for t in ts if ours((i, t))}
        self._replace_tags(pairs)


def _merged_ids(
    stored: Iterable[str], ours: frozenset[str], kind: str, pending: frozenset[tuple[str, str]]
) -> frozenset[str]:
    """The database's ids, except where a change of ours (`(kind, id)`) is still queued."""
    merged = {i for i in stored if (kind, i) not in pending}
    merged |= {i for i in ours if (kind, i) in pending}
    return frozenset(merged)
