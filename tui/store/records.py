"""Plain data the store reads and writes: snapshots, rows, write operations, events.

Kept apart from `db.py` so the UI, the exporter and the tests can name these
types without pulling in the database code.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tui.corpus.model import venue_year
from tui.corpus.paper import Paper
from tui.sanitize import storable

if TYPE_CHECKING:
    from pathlib import Path

    from tui.corpus.model import Abstract

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_HEADLINE_LIMIT = 100


def fallback_headline(text: str, limit: int = _HEADLINE_LIMIT) -> str:
    """A first-sentence headline, used only when the corpus headline code is unavailable."""
    first = _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def paper_text(paper: Paper | None) -> str | None:
    """A paper as the store keeps it: `Paper.to_json()` as JSON text (None: no paper).

    Non-ASCII is kept as written; a lone surrogate (from a file name's bytes, say),
    which SQLite cannot take, is kept as U+FFFD."""
    if paper is None:
        return None
    return storable(json.dumps(paper.to_json(), ensure_ascii=False))


def paper_of(text: object) -> Paper | None:
    """The paper kept as `text` by `paper_text`; None for NULL or for text that is not a
    JSON object (a damaged value must not make the record unreadable)."""
    if not isinstance(text, str):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return Paper.from_json(data) if isinstance(data, dict) else None


@functools.lru_cache(maxsize=256)
def _absolute(path: Path) -> str:
    # Absolute: a relative path would mean something else from another directory.
    # Cached: a bulk step snapshots thousands of abstracts from a few files, and
    # `Path.absolute` was most of a snapshot's cost.
    return storable(str(path.absolute()))


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What an abstract looked like when a record was made, so no record needs the files.

    `paper` is what its source said of the paper (title, authors, ids, links), so the
    citation exports work from the store alone; None for a conference paragraph.
    """

    text: str
    headline: str
    source: str = ""
    position: int = 0
    collection: str = ""
    venue: str | None = None
    year: int | None = None
    paper: Paper | None = None

    @classmethod
    def of(cls, abstract: Abstract) -> Snapshot:
        """Snapshot a loaded abstract (its source text, headline, first file, venue and year)."""
        try:
            headline = abstract.headline
        except Exception:
            # The headline renderer is optional for the store: a record must never
            # fail to save because LaTeX rendering had a problem.
            headline = fallback_headline(abstract.text)
        source = abstract.sources[0] if abstract.sources else None
        # A file name that is not UTF-8 (and a label made from one) holds lone surrogates,
        # which SQLite and the rescue file cannot take: kept as shown, with U+FFFD.
        return cls(
            text=abstract.text,
            headline=storable(headline),
            source=_absolute(source.path) if source else "",
            position=source.position if source else 0,
            collection=storable(abstract.collection.label),
            venue=abstract.collection.venue,
            year=abstract.collection.year,
            paper=abstract.paper,
        )

    @property
    def venue_year(self) -> str:
        """`ICLR 2023`, or the collection label when venue or year is unknown."""
        return venue_year(self.collection, self.venue, self.year)


@dataclass(frozen=True, slots=True)
class NoteRow:
    """A note as stored: its text and the version every save checks against."""

    text: str
    version: int
    updated: float


@dataclass(frozen=True, slots=True)
class ConflictCopy:
    """A note text that lost a race (or came from an import) and is kept beside the note."""

    copy_id: int
    abstract_id: str
    text: str
    created: float
    origin: str


@dataclass(frozen=True, slots=True)
class NoteRecord:
    """One entry of the notes view: a note, its kept conflict copies, or both."""

    id: str
    text: str
    headline: str
    updated: float
    orphaned: bool
    conflicts: tuple[ConflictCopy, ...] = ()


@dataclass(frozen=True, slots=True)
class SavedSearch:
    """A filter kept under a name: the query text and the order (`relevance` or `file`)."""

    name: str
    query: str
    sort: str
    created: float
    updated: float


@dataclass(slots=True)
class StoreData:
    """Everything in the database, as loaded in one read transaction."""

    records: dict[str, Snapshot] = field(default_factory=dict)
    bookmarks: dict[str, float] = field(default_factory=dict)
    #: "Not interested" (the `x` key): id -> when, like bookmarks.
    dismissals: dict[str, float] = field(default_factory=dict)
    reads: dict[str, float] = field(default_factory=dict)
    notes: dict[str, NoteRow] = field(default_factory=dict)
    conflicts: list[ConflictCopy] = field(default_factory=list)
    state: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    #: Saved searches by `searches.name_key` (names are unique ignoring case).
    searches: dict[str, SavedSearch] = field(default_factory=dict)
    #: abstract id -> {tag: when it was added}
    tags: dict[str, dict[str, float]] = field(default_factory=dict)


# Write operations. UserData queues these; Store.apply writes a batch of them in one
# transaction and returns one result per operation.


@dataclass(frozen=True, slots=True)
class SetBookmark:
    abstract_id: str
    on: bool
    snapshot: Snapshot | None
    at: float


@dataclass(frozen=True, slots=True)
class SetDismissed:
    """Dismiss ("not interested") or un-dismiss an abstract; kept with a snapshot like a
    bookmark, so it survives the abstract's file changing."""

    abstract_id: str
    on: bool
    snapshot: Snapshot | None
    at: float


@dataclass(frozen=True, slots=True)
class SetTag:
    """Put `tag` on an abstract (`on`) or take it off. One (abstract, tag) pair per
    operation: two instances changing different pairs never undo each other's."""

    abstract_id: str
    tag: str
    on: bool
    snapshot: Snapshot | None
    at: float


@dataclass(frozen=True, slots=True)
class SetRead:
    abstract_id: str
    on: bool
    at: float


@dataclass(frozen=True, slots=True)
class SaveNote:
    """Save `text` as the note; `base_version` is the version the text was based on (0: none)."""

    abstract_id: str
    text: str
    snapshot: Snapshot | None
    base_version: int
    at: float
    origin: str = "other instance"


@dataclass(frozen=True, slots=True)
class DeleteNote:
    abstract_id: str
    base_version: int


@dataclass(frozen=True, slots=True)
class SetState:
    key: str
    value: str
    at: float


@dataclass(frozen=True, slots=True)
class Reattach:
    """Move every record of `old_id` to `new_id`, remembering the old id."""

    old_id: str
    new_id: str
    snapshot: Snapshot | None
    at: float


@dataclass(frozen=True, slots=True)
class DismissConflict:
    """Remove one conflict copy: an explicit user action, the only way a copy goes away."""

    copy_id: int


@dataclass(frozen=True, slots=True)
class SaveSearch:
    """Save a search under `name`. `expected` is the (query, sort) the user saw under that
    name (None: no search of that name), so one saved meanwhile elsewhere is kept."""

    name: str
    query: str
    sort: str
    at: float
    expected: tuple[str, str] | None


@dataclass(frozen=True, slots=True)
class RenameSearch:
    """Rename a saved search to hold `query` and `sort` (what the user sees: a change of
    it still queued is folded in). `expected` is what the database held as far as the
    user knew; a search changed elsewhere meanwhile keeps its name and that change."""

    old: str
    new: str
    query: str
    sort: str
    at: float
    expected: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class DeleteSearch:
    """Delete a saved search, unless it no longer holds `expected` (changed elsewhere)."""

    name: str
    expected: tuple[str, str] | None


Operation = (
    SetBookmark
    | SetRead
    | SaveNote
    | DeleteNote
    | SetState
    | Reattach
    | DismissConflict
    | SaveSearch
    | RenameSearch
    | DeleteSearch
    | SetTag
    | SetDismissed
)


@dataclass(frozen=True, slots=True)
class OpResult:
    """The outcome of one operation. `version` is the note version now stored (notes only);
    `conflict` is the copy kept when another writer got there first."""

    op: Operation
    version: int = 0
    conflict: ConflictCopy | None = None
    #: Saved searches only: what the database now holds for each name key it touched
    #: (None: nothing), for memory to mirror; and a message when it differs from the request.
    searches: tuple[tuple[str, SavedSearch | None], ...] = ()
    message: str = ""


# Events UserData reports to its listener (from the writer thread).


@dataclass(frozen=True, slots=True)
class StoreEvent:
    """Something the user should hear about; `message` is ready to show."""

    message: str


@dataclass(frozen=True, slots=True)
class SaveFailed(StoreEvent):
    """Saving stopped working; changes are kept in memory and retried."""


@dataclass(frozen=True, slots=True)
class SavingRecovered(StoreEvent):
    """Saving works again and everything kept in memory has been written."""


@dataclass(frozen=True, slots=True)
class BulkSaved(StoreEvent):
    """A bulk step (see `Writer.bulk_saving`) has been committed: `changes` in all."""

    changes: int = 0


@dataclass(frozen=True, slots=True)
class ConflictDetected(StoreEvent):
    """Another instance (or an import) changed a note at the same time; both texts are kept."""

    abstract_id: str = ""


@dataclass(frozen=True, slots=True)
class OrphanReattached(StoreEvent):
    """A record whose abstract changed was moved to the nearly identical loaded abstract."""

    old_id: str = ""
    new_id: str = ""


@dataclass(frozen=True, slots=True)
class Notice(StoreEvent):
    """Anything else worth telling (a rescue file written, a corrupt database set aside)."""
