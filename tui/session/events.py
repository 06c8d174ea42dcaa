"""What the session announces: one event per kind of change, each with what changed,
so an observer redraws only that (a bookmark repaints its row, not the whole list)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.store.attach import AttachReport
    from tui.store.records import StoreEvent


@dataclass(frozen=True)
class SessionEvent:
    """Something in the session changed."""


@dataclass(frozen=True)
class MarksChanged(SessionEvent):
    """The personal state (bookmark, read, dismissed, note, tags) of these abstracts
    changed. `ids` None: of any of them (an undo of a rename, a refresh from disk).
    `rerun_filter`: the filter's results may depend on it (`is:read`, `tag:`) and are
    searched again; a key on one row leaves them as they are, as it always has."""

    ids: frozenset[str] | None = None
    rerun_filter: bool = False


@dataclass(frozen=True)
class StatusChanged(SessionEvent):
    """Only what the header says changed: a progress report, saving state, counts."""


@dataclass(frozen=True)
class DataOpened(SessionEvent):
    """The user's data is open (and the keys pressed meanwhile were applied: `replayed`)."""

    report: AttachReport
    replayed: int


@dataclass(frozen=True)
class KeyQueued(SessionEvent):
    """A change was asked for before the user's data opened; it runs when it opens."""

    waiting: int


@dataclass(frozen=True)
class StoreReported(SessionEvent):
    """The store's writer thread reported something (saving failed, recovered, a conflict)."""

    event: StoreEvent


@dataclass(frozen=True)
class IndexReady(SessionEvent):
    """The whole corpus's search index can be searched (results from a partial one, or
    none, are to be searched again)."""


@dataclass(frozen=True)
class SimilarityReady(SessionEvent):
    """The similarity model is loaded: near-duplicates show, topics can be computed."""


@dataclass(frozen=True)
class TopicsChanged(SessionEvent):
    """The topics are ready, or could not be computed (`topic:` is searched again)."""


@dataclass(frozen=True)
class InboxOpened(SessionEvent):
    """The arrivals since the previous opening are known (`is:new` is searched again)."""

    new: int


@dataclass(frozen=True)
class SearchAgain(SessionEvent):
    """The filter's answer may differ though its text did not (the order changed, the
    inbox opened, the topics are ready): the filter is searched again."""


@dataclass(frozen=True)
class CorpusGrew(SessionEvent):
    """More abstracts were read after the first paint (`finished`: the last file)."""

    finished: bool = False


@dataclass(frozen=True)
class CorpusLoaded(SessionEvent):
    """Every file is read and the read cache written: the background work can start."""
