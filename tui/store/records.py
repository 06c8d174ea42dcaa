"""Plain data the store reads and writes: snapshots, rows, events (the write operations
are in `operations.py`).

Kept apart from `db.py` so the UI, the exporter and the tests can name these
types without pulling in the database code.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.corpus._record import Record
from tui.corpus.model import Abstract, Collection, venue_year
from tui.corpus.paper import Paper
from tui.sanitize import storable

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


class Origin(Record):
    """Where a record came from: its source file's absolute path (or ""), and the label,
    venue and year of that file's collection. One is shared by the records of a file, in
    memory as in the database (the `origins` table, see `origins.py`)."""

    __match_args__ = ("source", "collection", "venue", "year")
    __slots__ = __match_args__
    source: str
    collection: str
    venue: str | None
    year: int | None

    def __init__(
        self,
        source: str = "",
        collection: str = "",
        venue: str | None = None,
        year: int | None = None,
    ) -> None:
        _set = object.__setattr__
        _set(self, "source", source)
        _set(self, "collection", collection)
        _set(self, "venue", venue)
        _set(self, "year", year)


# Cached: a bulk step snapshots thousands of abstracts from a few files, and making the
# origin (the path above all) was most of a snapshot's cost; the records of a file then
# share one. Keyed by the path's text, which a Path keeps, where hashing a Path builds
# its parts again every time.
@functools.lru_cache(maxsize=256)
def _origin(source: str, collection: str, venue: str | None, year: int | None) -> Origin:
    return Origin(source, collection, venue, year)


@functools.lru_cache(maxsize=256)
def _origin_of(path: str, cwd: str, label: str, venue: str | None, year: int | None) -> Origin:
    # A file name that is not UTF-8 (and a label made from one) holds lone surrogates,
    # which SQLite and the rescue file cannot take: kept as shown, with U+FFFD.
    return _origin(storable(str(Path(cwd, path))) if path else "", storable(label), venue, year)


class Snapshot(Record):
    """What an abstract looked like when a record was made, so no record needs the files.

    `paper` is what its source said of the paper (title, authors, ids, links), so the
    citation exports work from the store alone; None for a conference paragraph.
    `given_headline` is the headline as made when the record was (stored in the
    `headline` column); "" when none was made: a bulk step makes thousands of records
    and computing a headline is most of a record's cost, so `headline` makes it from
    the text when first asked for. `source`, `collection`, `venue` and `year` are those
    of its `origin`.

    Immutable, compared and hashed by its fields (a `Record`, not a frozen dataclass:
    a bulk step makes 100,000 of them, and a frozen dataclass's `__init__`, with eight
    fields where the origin now holds four, took three times as long).
    """

    __match_args__ = ("text", "given_headline", "origin", "position", "paper")
    # `_made`: the headline made from the text, once asked for (unset until then).
    __slots__ = (*__match_args__, "_made")
    text: str
    given_headline: str
    origin: Origin
    position: int
    paper: Paper | None

    def __init__(
        self,
        text: str,
        given_headline: str = "",
        source: str = "",
        position: int = 0,
        collection: str = "",
        venue: str | None = None,
        year: int | None = None,
        paper: Paper | None = None,
    ) -> None:
        _set = object.__setattr__
        _set(self, "text", text)
        _set(self, "given_headline", given_headline)
        _set(self, "origin", _origin(source, collection, venue, year))
        _set(self, "position", position)
        _set(self, "paper", paper)

    @classmethod
    def at(
        cls, origin: Origin, text: str, given_headline: str, position: int, paper: Paper | None
    ) -> Snapshot:
        """A snapshot of an abstract from `origin` (shared, not copied)."""
        snap = object.__new__(cls)
        _set = object.__setattr__
        _set(snap, "text", text)
        _set(snap, "given_headline", given_headline)
        _set(snap, "origin", origin)
        _set(snap, "position", position)
        _set(snap, "paper", paper)
        return snap

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Its fields are not `__init__`'s arguments (the origin stands for four of them).
        return (
            Snapshot.at,
            (self.origin, self.text, self.given_headline, self.position, self.paper),
        )

    @classmethod
    def of(cls, abstract: Abstract, *, headline: bool = True, cwd: str | None = None) -> Snapshot:
        """Snapshot a loaded abstract (its source text, first file, venue and year, and,
        unless `headline` is False, its headline: see `given_headline`). A relative
        file name is made absolute from `cwd`, else the current directory (that of the
        moment, never a cached one: it may have changed since)."""
        sources, collection = abstract.sources, abstract.collection
        return cls.at(
            _origin_of(
                str(sources[0].path) if sources else "",
                os.getcwd() if cwd is None else cwd,
                collection.label,
                collection.venue,
                collection.year,
            ),
            abstract.text,
            _headline_of(abstract) if headline else "",
            sources[0].position if sources else 0,
            abstract.paper,
        )

    @classmethod
    def of_many(cls, abstracts: Iterable[Abstract], cwd: str) -> list[Snapshot]:
        """`of(a, headline=False, cwd=cwd)` of each abstract, for a bulk step: the origin
        of each file is made once, found again by its objects' identities (the abstracts
        of a file share their path and collection, and are alive throughout)."""
        origins: dict[tuple[int, int], Origin] = {}
        made = []
        at = cls.at
        for a in abstracts:
            sources, collection = a.sources, a.collection
            path = sources[0].path if sources else None
            key = (id(path), id(collection))
            origin = origins.get(key)
            if origin is None:
                name = "" if path is None else str(path)
                label, venue, year = collection.label, collection.venue, collection.year
                origin = origins[key] = _origin_of(name, cwd, label, venue, year)
            position = sources[0].position if sources else 0
            made.append(at(origin, a.text, "", position, a.paper))
        return made

    @property
    def source(self) -> str:
        """The absolute path of the file it came from ("" when unknown)."""
        return self.origin.source

    @property
    def collection(self) -> str:
        """The label of its file's collection (`ICLR 2023 Papers`)."""
        return self.origin.collection

    @property
    def venue(self) -> str | None:
        """The venue of its file's collection, if known."""
        return self.origin.venue

    @property
    def year(self) -> int | None:
        """The year of its file's collection, if known."""
        return self.origin.year

    @property
    def headline(self) -> str:
        """The abstract's headline: the one given, else made from the text (and the
        paper's title) as the corpus makes it, once."""
        if self.given_headline:
            return self.given_headline
        made: str | None = getattr(self, "_made", None)
        if made is None:
            made = _headline_of(Abstract("", self.text, _NO_COLLECTION, [], paper=self.paper))
            object.__setattr__(self, "_made", made)  # a cache: immutable for everything else
        return made

    @property
    def venue_year(self) -> str:
        """`ICLR 2023`, or the collection label when venue or year is unknown."""
        return venue_year(self.collection, self.venue, self.year)


_NO_COLLECTION = Collection("", None, None)


def _headline_of(abstract: Abstract) -> str:
    try:
        headline = abstract.headline
    except Exception:
        # The headline renderer is optional for the store: a record must never
        # fail to save because LaTeX rendering had a problem.
        headline = fallback_headline(abstract.text)
    return storable(headline)


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
