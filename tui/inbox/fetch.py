"""Fetching what is new for each followed source into the library, resumably.

For each source, pages of the API (newest submissions first, `PAGE_SIZE` a page) are
asked for until one reaches papers submitted before the cutoff: the last fetch of
that source less `OVERLAP` (arXiv announces a paper a day or more after it is
submitted, so the last days are read again; papers already stored are skipped), or,
the first time, `FIRST_FETCH` back. At most `MAX_PAPERS` are read per source and fetch.

Each page is saved (atomically) in the source's hidden state folder as it comes, and a
state file records the pages done, so a fetch killed half way resumes where it stopped
the next time. Once a source's pages are all in, its papers not stored before (or in
a newer version) go into one Atom file of the library, written atomically; then the
arrivals index is updated and the state removed. Each step can be repeated after a
crash without storing a paper twice; a fetch that fails leaves every stored file as
it was, and says why.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from xml.etree.ElementTree import Element

from tui.fileio import write_text_atomically
from tui.inbox import atom
from tui.inbox.client import Cancelled, Client, Clock, FetchError, Unreachable, query_url
from tui.inbox.library import Arrival, Index, locked, read_index, state_dir, write_index
from tui.inbox.sources import Source

PAGE_SIZE = 100
MAX_PAPERS = 2_000
FIRST_FETCH = timedelta(days=7)
OVERLAP = timedelta(days=3)
_STAMP = "%Y-%m-%dT%H%M%SZ"


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a fetch is: source `number` of `sources`, `pages` done of about `expected`."""

    source: Source
    number: int
    sources: int
    pages: int
    expected: int
    papers: int

    @property
    def fraction(self) -> float:
        """The whole fetch's progress, 0..1 (each source an equal share)."""
        within = min(1.0, self.pages / self.expected) if self.expected else 0.0
        return min(1.0, (self.number - 1 + within) / max(1, self.sources))


@dataclass(frozen=True, slots=True)
class SourceResult:
    """One source's outcome: papers `stored` into `path`, or the `error` that stopped it."""

    source: Source
    stored: int = 0
    path: Path | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Settings:
    """Where and how much to fetch."""

    api_url: str
    page_size: int = PAGE_SIZE
    max_papers: int = MAX_PAPERS
    first_fetch: timedelta = FIRST_FETCH
    overlap: timedelta = OVERLAP


def _fetch_dir(library: Path, source: Source) -> Path:
    return state_dir(library) / "fetch" / source.slug


class _State:
    """A fetch of one source under way: when it started, its cutoff, the pages in."""

    def __init__(self, folder: Path, query: str, started: datetime, cutoff: datetime) -> None:
        self.folder = folder
        self.query = query
        self.started = started
        self.cutoff = cutoff
        self.pages = 0
        self.total: int | None = None
        self.complete = False

    @property
    def path(self) -> Path:
        return self.folder / "state.json"

    def page_path(self, number: int) -> Path:
        return self.folder / f"page-{number:05d}.xml"

    def save(self) -> None:
        data = {
            "query": self.query,
            "started": self.started.isoformat(),
            "cutoff": self.cutoff.isoformat(),
            "pages": self.pages,
            "total": self.total,
            "complete": self.complete,
        }
        write_text_atomically(self.path, json.dumps(data) + "\n")

    @classmethod
    def load(cls, folder: Path, query: str) -> _State | None:
        """The saved state of an unfinished fetch of `query`, or None."""
        try:
            data = json.loads((folder / "state.json").read_text(encoding="utf-8"))
            if data["query"] != query:
                return None
            state = cls(
                folder,
                query,
                datetime.fromisoformat(data["started"]),
                datetime.fromisoformat(data["cutoff"]),
            )
            state.pages = int(data["pages"])
            state.total = data["total"] if isinstance(data["total"], int) else None
            state.complete = bool(data["complete"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return state


class Fetcher:
    """Fetches the followed sources into `library`, with `client` (one request each 3 s)."""

    def __init__(
        self,
        library: Path,
        settings: Settings,
        client: Client,
        *,
        progress: Callable[[Progress], None] | None = None,
    ) -> None:
        self.library = library
        self.settings = settings
        self.client = client
        self.clock: Clock = client.clock
        self.progress = progress
        #: Each source's result so far (also when `fetch` raises).
        self.results: list[SourceResult] = []

    def fetch(self, sources: Sequence[Source]) -> list[SourceResult]:
        """Fetch every source in turn. Stops at the first `Unreachable` or `Cancelled`
        (raised; what was stored before stays, listed in `results`); another error ends
        only its source."""
        for number, source in enumerate(sources, 1):
            try:
                self.results.append(self._fetch_one(source, number, len(sources)))
            except (Unreachable, Cancelled):
                raise
            except (FetchError, atom.ApiError, OSError) as e:
                self.results.append(SourceResult(source, error=str(e)))
        return self.results

    def _start(self, source: Source) -> _State:
        folder = _fetch_dir(self.library, source)
        state = _State.load(folder, source.query)
        if state is not None:
            return state
        shutil.rmtree(folder, ignore_errors=True)  # a fetch of another query, or broken
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        now = self.clock.now()
        last = read_index(self.library).fetched.get(source.text)
        cutoff = now - self.settings.first_fetch if last is None else last - self.settings.overlap
        state = _State(folder, source.query, now, cutoff)
        state.save()
        return state

    def _fetch_one(self, source: Source, number: int, count: int) -> SourceResult:
        state = self._start(source)
        size = self.settings.page_size
        papers = 0
        # The pages read in this run (those of an earlier, interrupted one are on disk).
        read: dict[int, tuple[atom.Entry, ...]] = {}
        while not state.complete:
            start = state.pages * size
            wanted = min(size, self.settings.max_papers - start)
            url = query_url(self.settings.api_url, source.query, start, wanted)
            page = self.client.get_page(url)
            if not page.entries and start < page.total:
                # The API is known to answer an empty page now and then: ask once more.
                page = self.client.get_page(url)
            # The page's entries are saved as they came: resuming reads them back.
            _write_bytes(state.page_path(state.pages), _page_feed(page, state.started))
            read[state.pages] = page.entries
            state.pages += 1
            state.total = page.total
            papers += len(page.entries)
            reached = start + len(page.entries)
            older = any(
                e.published is not None and e.published < state.cutoff for e in page.entries
            )
            state.complete = (
                not page.entries
                or older
                or reached >= page.total
                or reached >= self.settings.max_papers
            )
            state.save()
            if self.progress is not None:
                limit = min(page.total, self.settings.max_papers)
                expected = max(state.pages, -(-limit // size))
                self.progress(Progress(source, number, count, state.pages, expected, papers))
        return self._finish(source, state, read)

    def _finish(
        self, source: Source, state: _State, read: dict[int, tuple[atom.Entry, ...]]
    ) -> SourceResult:
        """Store the fetched papers not stored before, update the index, drop the state."""
        best: dict[str, atom.Entry] = {}
        for number in range(state.pages):
            entries = read.get(number)
            if entries is None:
                try:
                    entries = atom.parse_page(state.page_path(number).read_bytes()).entries
                except (OSError, atom.PageError, atom.ApiError) as e:
                    shutil.rmtree(state.folder, ignore_errors=True)
                    raise FetchError(
                        f"a page saved by the interrupted fetch cannot be read ({e}); "
                        "the next fetch starts over"
                    ) from e
            for entry in entries:
                if entry.published is not None and entry.published < state.cutoff:
                    continue
                kept = best.get(entry.arxiv)
                if kept is None or entry.version > kept.version:
                    best[entry.arxiv] = entry
        with locked(self.library):
            index = read_index(self.library)
            fresh = [
                e
                for e in best.values()
                if e.arxiv not in index.papers or e.version > index.papers[e.arxiv].version
            ]
            path = self.library / source.slug / f"{state.started.strftime(_STAMP)}.xml"
            if fresh:
                path.parent.mkdir(parents=True, exist_ok=True)
                _write_bytes(path, _library_feed(source, state.started, [e.element for e in fresh]))
            _record(index, fresh, state.started)
            index.fetched[source.text] = state.started
            write_index(self.library, index)
        shutil.rmtree(state.folder, ignore_errors=True)
        return SourceResult(source, len(fresh), path if fresh else None)


def _record(index: Index, entries: list[atom.Entry], when: datetime) -> None:
    for entry in entries:
        known = index.papers.get(entry.arxiv)
        arrived = known.arrived if known is not None else when
        index.papers[entry.arxiv] = Arrival(arrived, entry.version)


def _write_bytes(path: Path, data: bytes) -> None:
    from tui.fileio import atomic_write

    with atomic_write(path, binary=True) as f:
        f.write(data)


def _page_feed(page: atom.Page, when: datetime) -> bytes:
    elements = [e.element for e in page.entries]
    return atom.feed_bytes("page", "page", when, elements, indent=False)


def _library_feed(source: Source, when: datetime, entries: list[Element]) -> bytes:
    from urllib.parse import quote

    feed_id = f"https://export.arxiv.org/api/query?search_query={quote(source.query)}"
    return atom.feed_bytes(f"arXiv: {source.text}", feed_id, when, entries)
