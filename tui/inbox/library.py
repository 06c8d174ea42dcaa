"""The library folder: what `abstracts fetch` stored, and the arrivals index.

    <data dir>/library/
        cs.LG/2026-12-01T070000Z.xml          one Atom file per source per fetch
        author-yoshua-bengio-1a2b3c4d/…
        .state/arrivals.json                  when each paper first arrived, the app's openings
        .state/fetch/<source>/                an unfinished fetch's pages (resumed next time)

The files are ordinary Atom: every command and the app read them like any other file
(the hidden `.state` folder is never loaded). A paper's identity is its arXiv id
without version; the index records, per id, the time of the fetch that first stored
it and the newest version stored, and, per source, when it was last fetched.
`is:new` and `new:` read it (`tui.search.inbox`).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tui import locations
from tui.fileio import write_text_atomically

if TYPE_CHECKING:
    from tui.corpus.model import Corpus
    from tui.search.inbox import Inbox

INDEX_VERSION = 1


def state_dir(library: Path) -> Path:
    """The library's hidden folder of bookkeeping (never loaded as papers)."""
    return library / ".state"


def index_path(library: Path) -> Path:
    return state_dir(library) / "arrivals.json"


@dataclass(frozen=True, slots=True)
class Arrival:
    """When a paper first arrived (the start of the fetch that stored it), and the
    newest version stored since."""

    arrived: datetime
    version: int


@dataclass(slots=True)
class Index:
    """The arrivals index: per arXiv id its `Arrival`, per source text its last fetch,
    and the last time the app was opened on this data directory."""

    papers: dict[str, Arrival] = field(default_factory=dict)
    fetched: dict[str, datetime] = field(default_factory=dict)
    opened: datetime | None = None

    def to_json(self) -> str:
        data = {
            "version": INDEX_VERSION,
            "opened": self.opened.isoformat() if self.opened else None,
            "fetched": {s: t.isoformat() for s, t in self.fetched.items()},
            "papers": {
                i: [a.arrived.isoformat(), a.version] for i, a in sorted(self.papers.items())
            },
        }
        return json.dumps(data, indent=0, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Index:
        """The index in `text`; what does not parse is left out (never raised)."""
        try:
            data = json.loads(text)
        except ValueError:
            return cls()
        if not isinstance(data, dict):
            return cls()
        index = cls(opened=_time(data.get("opened")))
        fetched = data.get("fetched")
        if isinstance(fetched, dict):
            for source, value in fetched.items():
                when = _time(value)
                if when is not None:
                    index.fetched[str(source)] = when
        papers = data.get("papers")
        if isinstance(papers, dict):
            for arxiv, value in papers.items():
                if isinstance(value, list) and len(value) == 2 and isinstance(value[1], int):
                    when = _time(value[0])
                    if when is not None:
                        index.papers[str(arxiv)] = Arrival(when, value[1])
        return index


def _time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def read_index(library: Path) -> Index:
    """The library's arrivals index (empty when there is none, or it cannot be read)."""
    try:
        return Index.from_json(index_path(library).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return Index()


def write_index(library: Path, index: Index) -> None:
    """Write the index atomically (creating the hidden folder, private to the user)."""
    folder = state_dir(library)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_text_atomically(index_path(library), index.to_json())


@contextlib.contextmanager
def locked(library: Path, name: str = "index", *, wait: bool = True) -> Iterator[bool]:
    """Hold the library's lock `name` (a fetch and the app write the index): yields
    False when `wait` is False and another process holds it."""
    folder = state_dir(library)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock (one fetch at a time is then the user's care)
        yield True
        return
    fd = os.open(folder / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing releases the lock


def record_opening(library: Path, now: datetime) -> datetime | None:
    """Note that the app opened at `now`; returns the previous opening (None: never),
    from which `is:new` counts. Nothing is written when there is no library."""
    if not library.is_dir():
        return None
    with locked(library):
        index = read_index(library)
        previous = index.opened
        index.opened = now
        write_index(library, index)
    return previous


def paper_files(library: Path) -> Iterator[Path]:
    """The library's Atom files (not its hidden bookkeeping)."""
    if not library.is_dir():
        return
    for folder in sorted(library.iterdir()):
        if folder.name.startswith(".") or not folder.is_dir():
            continue
        yield from sorted(p for p in folder.glob("*.xml") if not p.name.startswith("."))


def has_papers(library: Path) -> bool:
    """True once a fetch stored at least one file of papers."""
    return next(paper_files(library), None) is not None


def default_paths(data_dir: Path) -> list[Path]:
    """What is opened when no PATH is given: the library when it has papers, else the
    bundled seeds (the app, `list`, `search`, `similar` and `feed` agree)."""
    library = locations.library_dir(data_dir)
    return [library] if has_papers(library) else [locations.seeds_dir()]


def arrivals(corpus: Corpus, index: Index) -> dict[str, datetime]:
    """When each loaded paper arrived, by abstract id (papers the index knows by arXiv id)."""
    out: dict[str, datetime] = {}
    if not index.papers:
        return out
    for abstract in corpus.abstracts:
        arxiv = abstract.paper.id_of("arxiv") if abstract.paper is not None else None
        if arxiv is not None and arxiv in index.papers:
            out[abstract.id] = index.papers[arxiv].arrived
    return out


def open_inbox(data_dir: Path, corpus: Corpus, *, opened: datetime | None = None) -> Inbox:
    """The inbox of `corpus` (for `is:new` and `new:`). `opened`: the app opens now, so
    this opening is recorded and `is:new` counts from the previous one; without it (the
    command line), from the last time the app was opened."""
    from tui.search.inbox import Inbox

    library = locations.library_dir(data_dir)
    since = record_opening(library, opened) if opened is not None else None
    index = read_index(library)
    if opened is None:
        since = index.opened
    return Inbox(arrivals(corpus, index), since)
