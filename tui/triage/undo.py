"""Undo and redo for bookmarks, dismissals, read state, notes and tags, many levels deep.

An action records the ids it touches, the value each had before and the value
it set, so undoing writes back exactly what was there (not a toggle, which
would go wrong if something else changed the state in between). A bulk change
("mark all visible as read") is one action and one undo.

Actions reach the user data through the small `Target` protocol, so the UI
hands over its store adaptor and tests hand over a fake. The history lives in
memory only: it does not survive a restart, and every step it takes is an
ordinary write, so it can never leave the store inconsistent.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol, Self

from tui.corpus.model import Abstract, Corpus


class Target(Protocol):
    """Where actions write: the UI's user-data adaptor, or a fake in tests."""

    def set_bookmark(self, id: str, on: bool) -> None:
        """Bookmark (`on`) or un-bookmark one abstract."""

    def set_read(self, ids: Collection[str], on: bool) -> None:
        """Mark several abstracts read (`on`) or unread in one write."""

    def set_dismissed(self, id: str, on: bool) -> None:
        """Dismiss (`on`, "not interested") or un-dismiss one abstract."""

    def set_note(self, id: str, text: str | None) -> None:
        """Save the note of one abstract, or delete it (`None`)."""

    def set_tags(self, on: Collection[tuple[str, str]], off: Collection[tuple[str, str]]) -> None:
        """Put the (id, tag) pairs `on` and take those `off`, in one write."""


class Action(Protocol):
    """A reversible change. `description` completes "Undid: ..." (e.g. `marked 212 as read`)."""

    @property
    def description(self) -> str: ...

    def apply(self, target: Target) -> None:
        """Make the change."""

    def revert(self, target: Target) -> None:
        """Put back exactly what was there before the change."""


def _freeze(
    ids: Iterable[str], before: Mapping[str, bool]
) -> tuple[tuple[str, ...], Mapping[str, bool]]:
    unique = tuple(dict.fromkeys(ids))
    missing = [i for i in unique if i not in before]
    if missing:
        raise ValueError(f"no previous value recorded for {len(missing)} id(s), e.g. {missing[0]}")
    return unique, MappingProxyType({i: bool(before[i]) for i in unique})


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


@dataclass(frozen=True, slots=True, init=False)
class _SetFlag:
    """Set one yes/no flag (bookmarked, read) on `ids` to `after`; `before[id]` is each one's
    previous state, so reverting restores exactly what was there."""

    ids: tuple[str, ...]
    before: Mapping[str, bool]
    after: bool

    def __init__(self, ids: Iterable[str], before: Mapping[str, bool], after: bool) -> None:
        unique, frozen = _freeze(ids, before)
        object.__setattr__(self, "ids", unique)
        object.__setattr__(self, "before", frozen)
        object.__setattr__(self, "after", bool(after))

    @classmethod
    def capture(cls, ids: Iterable[str], after: bool, current: Callable[[str], bool]) -> Self:
        """The action setting `ids` to `after`, reading their current state from `current`."""
        ids = tuple(ids)
        return cls(ids, {i: current(i) for i in ids}, after)

    @property
    def changed(self) -> tuple[str, ...]:
        """The ids whose state this action actually changes."""
        return tuple(i for i in self.ids if self.before[i] != self.after)


@dataclass(frozen=True, slots=True, init=False)
class _SetEach(_SetFlag):
    """A flag written one abstract at a time (`write`), the way bookmarks are."""

    def write(self, target: Target, id: str, on: bool) -> None:
        raise NotImplementedError

    def apply(self, target: Target) -> None:
        for i in self.changed:
            self.write(target, i, self.after)

    def revert(self, target: Target) -> None:
        for i in self.changed:
            self.write(target, i, self.before[i])


@dataclass(frozen=True, slots=True, init=False)
class SetBookmarks(_SetEach):
    """Bookmark (`after=True`) or un-bookmark `ids`."""

    @property
    def description(self) -> str:
        n = len(self.changed)
        if self.after:
            return f"bookmarked {_count(n, 'abstract', 'abstracts')}"
        return f"removed {_count(n, 'bookmark', 'bookmarks')}"

    def write(self, target: Target, id: str, on: bool) -> None:
        target.set_bookmark(id, on)


@dataclass(frozen=True, slots=True, init=False)
class SetDismissed(_SetEach):
    """Dismiss (`after=True`, "not interested") or un-dismiss `ids`."""

    @property
    def description(self) -> str:
        n = len(self.changed)
        if self.after:
            return f"dismissed {_count(n, 'abstract', 'abstracts')}"
        return f"took back {_count(n, 'dismissal', 'dismissals')}"

    def write(self, target: Target, id: str, on: bool) -> None:
        target.set_dismissed(id, on)


@dataclass(frozen=True, slots=True, init=False)
class SetRead(_SetFlag):
    """Mark `ids` read (`after=True`) or unread."""

    @property
    def description(self) -> str:
        return f"marked {len(self.changed):,} as {'read' if self.after else 'unread'}"

    def apply(self, target: Target) -> None:
        changed = self.changed
        if changed:
            target.set_read(changed, self.after)

    def revert(self, target: Target) -> None:
        # Every changed id had the opposite state before, so one write restores them all.
        changed = self.changed
        if changed:
            target.set_read(changed, not self.after)


@dataclass(frozen=True, slots=True)
class SetNote:
    """Change one abstract's note from `before` to `after` (None: no note), e.g. everything
    one editor session did, so emptying a note (which deletes it) can be undone."""

    id: str
    before: str | None
    after: str | None

    @property
    def changed(self) -> tuple[str, ...]:
        return (self.id,) if self.before != self.after else ()

    @property
    def description(self) -> str:
        if self.after is None:
            return "deleted a note"
        return "wrote a note" if self.before is None else "edited a note"

    def apply(self, target: Target) -> None:
        target.set_note(self.id, self.after)

    def revert(self, target: Target) -> None:
        target.set_note(self.id, self.before)


@dataclass(frozen=True, slots=True)
class ChangeTags:
    """Tags put on (`added`) and taken off (`removed`) abstracts, as (id, tag) pairs that
    really changed: tagging one abstract, a whole list, renaming, merging or deleting a
    tag is one step. `description` is written when the change is made."""

    added: tuple[tuple[str, str], ...]
    removed: tuple[tuple[str, str], ...]
    description: str

    @classmethod
    def capture(
        cls,
        add: Iterable[tuple[str, str]],
        remove: Iterable[tuple[str, str]],
        has: Callable[[str, str], bool],
        description: str,
    ) -> Self:
        """The change adding and removing pairs, keeping only those not already so
        (`has(id, tag)` reads the current state)."""
        added = tuple(p for p in dict.fromkeys(add) if not has(*p))
        removed = tuple(p for p in dict.fromkeys(remove) if has(*p) and p not in added)
        return cls(added, removed, description)

    @property
    def changed(self) -> tuple[tuple[str, str], ...]:
        return self.added + self.removed

    def apply(self, target: Target) -> None:
        target.set_tags(self.added, self.removed)

    def revert(self, target: Target) -> None:
        target.set_tags(self.removed, self.added)


def _changes_something(action: Action) -> bool:
    changed = getattr(action, "changed", True)
    return bool(changed)


@dataclass
class UndoStack:
    """The undo and redo history of one session, at most `limit` steps deep."""

    target: Target
    limit: int = 1000
    _undo: list[Action] = field(default_factory=list, repr=False)
    _redo: list[Action] = field(default_factory=list, repr=False)

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def do(self, action: Action) -> bool:
        """Apply `action` through the target and record it. A no-op is neither applied nor recorded.

        Returns whether anything changed. Any new action clears the redo history.
        """
        if not _changes_something(action):
            return False
        action.apply(self.target)
        self.record(action)
        return True

    def record(self, action: Action) -> None:
        """Record an action the caller has already applied."""
        self._undo.append(action)
        if len(self._undo) > self.limit:
            del self._undo[: len(self._undo) - self.limit]
        self._redo.clear()

    def undo(self) -> Action | None:
        """Revert the latest action and return it, or None when there is nothing to undo.

        If the target raises, the action stays where it was so the user can retry.
        """
        if not self._undo:
            return None
        action = self._undo[-1]
        action.revert(self.target)
        self._undo.pop()
        self._redo.append(action)
        return action

    def redo(self) -> Action | None:
        """Re-apply the latest undone action and return it, or None when there is none."""
        if not self._redo:
            return None
        action = self._redo[-1]
        action.apply(self.target)
        self._redo.pop()
        self._undo.append(action)
        return action


class AbstractWriter(Protocol):
    """What `tui.store.userdata.UserData` offers: writes keyed by `Abstract`, not by id."""

    def set_bookmark(self, abstract: Abstract, on: bool) -> None: ...

    def set_read(self, abstracts: Iterable[Abstract], on: bool) -> None: ...

    def set_dismissed(self, abstract: Abstract, on: bool) -> None: ...

    def save_note(self, abstract: Abstract, text: str) -> None: ...

    def delete_note(self, abstract_id: str) -> None: ...

    def set_tags(
        self, on: Iterable[tuple[str, str]] = (), off: Iterable[tuple[str, str]] = ()
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class CorpusTarget:
    """Adapts the user data (which takes `Abstract`s) to the id-based `Target` actions use.

    Ids not in the corpus (an abstract whose file was closed since) are skipped, except
    that a note can always be deleted and tags always changed.
    """

    writer: AbstractWriter
    corpus: Corpus

    def set_bookmark(self, id: str, on: bool) -> None:
        abstract = self.corpus.by_id.get(id)
        if abstract is not None:
            self.writer.set_bookmark(abstract, on)

    def set_read(self, ids: Collection[str], on: bool) -> None:
        by_id = self.corpus.by_id
        found = [by_id[i] for i in ids if i in by_id]
        if found:
            self.writer.set_read(found, on)

    def set_dismissed(self, id: str, on: bool) -> None:
        abstract = self.corpus.by_id.get(id)
        if abstract is not None:
            self.writer.set_dismissed(abstract, on)

    def set_note(self, id: str, text: str | None) -> None:
        if text is None:
            self.writer.delete_note(id)
        elif (abstract := self.corpus.by_id.get(id)) is not None:
            self.writer.save_note(abstract, text)

    def set_tags(self, on: Collection[tuple[str, str]], off: Collection[tuple[str, str]]) -> None:
        # By id, orphans included: renaming a tag renames it on abstracts not loaded too.
        self.writer.set_tags(on, off)


def undo_notice(action: Action) -> str:
    """The notification after an undo: `Undid: marked 212 as read`."""
    return f"Undid: {action.description}"


def redo_notice(action: Action) -> str:
    """The notification after a redo: `Redid: marked 212 as read`."""
    return f"Redid: {action.description}"
