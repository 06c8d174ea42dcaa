"""The data model shared by every part of the program.

An `Abstract` is one paragraph of an abstracts file, identified by a stable id
derived from its normalised text, so it keeps its id when files are renamed or
reordered. The same abstract found in two files is one `Abstract` with two
`SourceRef`s.
"""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tui.corpus._record import Record
from tui.corpus.spaces import collapse

if TYPE_CHECKING:
    import hashlib

    from tui.corpus.paper import Paper

# Several times the longest headline (tui.corpus.headline's limit), so the first
# sentence and the text after its end are always inside it.
_HEADLINE_SOURCE_CHARS = 400
_HUGE_CHARS = 20_000


def normalise(text: str) -> str:
    """The canonical form ids and near-duplicate checks are computed from.

    NFC Unicode and every run of whitespace collapsed to one space, trimmed.
    """
    return collapse(unicodedata.normalize("NFC", text))


def abstract_id(text: str) -> str:
    """A stable 16-hex-digit id for an abstract's text (blake2b of the normalised text)."""
    digest = _blake2b(normalise(text).encode("utf-8"), digest_size=8)
    return digest.hexdigest()


def _blake2b(data: bytes = b"", *, digest_size: int) -> hashlib.blake2b:
    # hashlib (and its OpenSSL module) costs ~1 ms to import and no id is
    # needed before the first file is loaded, so it is imported on first use.
    import hashlib

    return hashlib.blake2b(data, digest_size=digest_size)


def ids_digest(ids: Iterable[str]) -> str:
    """A digest of abstract ids in order: a cache's row numbers must be the corpus's."""
    h = _blake2b(digest_size=16)
    h.update("\n".join(ids).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def venue_year(label: str, venue: str | None, year: int | None) -> str:
    """`ICLR 2023`, or `label` (a collection's header) when venue or year is unknown."""
    if venue and year:
        return f"{venue} {year}"
    return label


# The value classes below are `Record`s rather than frozen dataclasses: same
# behaviour, without the dataclass cost when the module is imported at start-up.


class Collection(Record):
    """What a file's header says: `ICLR 2023 Papers` is venue ICLR, year 2023."""

    __match_args__ = ("label", "venue", "year")
    __slots__ = __match_args__
    label: str
    venue: str | None
    year: int | None

    def __init__(self, label: str, venue: str | None = None, year: int | None = None) -> None:
        _set = object.__setattr__
        _set(self, "label", label)
        _set(self, "venue", venue)
        _set(self, "year", year)

    @property
    def short(self) -> str:
        """`ICLR 2023`, or the label when the header did not parse."""
        return venue_year(self.label, self.venue, self.year)


class SourceRef(Record):
    """Where an abstract was found: a file and its 1-based position among that file's abstracts."""

    __match_args__ = ("path", "position")
    __slots__ = __match_args__
    path: Path
    position: int

    def __init__(self, path: Path, position: int) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "position", position)

    @property
    def name(self) -> str:
        return self.path.name


class StoredTexts(Protocol):
    """Where the paragraphs of one file are kept when the corpus does not hold them
    (`tui.corpus.readcache.FileTexts`: the read cache's entries of that file)."""

    def text_at(self, position: int, aid: str) -> str:
        """The paragraph at `position` (1-based), whose id is `aid`."""
        ...

    def texts_at(self, positions: Sequence[int], aids: Sequence[str]) -> list[str]:
        """The paragraphs at `positions` (ascending), whose ids are `aids`, read at once."""
        ...

    @property
    def mean_length(self) -> int | None:
        """The paragraphs' mean length (None when not known)."""
        ...


@contextlib.contextmanager
def texts_held(abstracts: Sequence[Abstract]) -> Iterator[None]:
    """The texts of `abstracts` kept elsewhere (`StoredTexts`), held while in the block
    (read at once from each store) and let go after, with what was made of them: for
    work that reads every text of a block of abstracts (indexing, counting terms), which
    would otherwise read each one from its store alone, and more than once."""
    groups: dict[int, tuple[StoredTexts, list[Abstract]]] = {}
    for abstract in abstracts:
        text = abstract._text
        if not isinstance(text, str):
            groups.setdefault(id(text), (text, []))[1].append(abstract)
    taken: list[tuple[Abstract, StoredTexts, str | None]] = []
    try:
        for store, group in groups.values():
            group.sort(key=lambda a: a.sources[0].position)
            texts = store.texts_at([a.sources[0].position for a in group], [a.id for a in group])
            for abstract, text in zip(group, texts, strict=True):
                taken.append((abstract, store, abstract._headline))
                abstract._text = text
        yield
    finally:
        for abstract, store, headline in taken:
            abstract._text = store
            abstract._plain = None
            abstract._headline = headline


class Abstract:
    """One abstract. `text` is the source as in the file (joined, whitespace collapsed).

    `plain` (LaTeX rendered for reading) and `headline` are computed lazily and
    cached, so loading a large corpus never pays for rendering rows nobody sees.
    The text itself may be kept elsewhere (`StoredTexts`, the read cache: a paragraph of
    a conference file, at its first source's position) and read when asked for, so
    100,000 abstracts do not hold their texts in memory for the few hundred shown;
    then `plain` is rendered when asked for too, and not kept.
    Compared by identity (two objects are two abstracts).
    """

    __match_args__ = (
        "id",
        "text",
        "collection",
        "sources",
        "index",
        "_plain",
        "_headline",
        "paper",
    )
    __slots__ = ("_headline", "_plain", "_text", "collection", "id", "index", "paper", "sources")

    def __init__(
        self,
        id: str,
        text: str | StoredTexts,
        collection: Collection,
        sources: list[SourceRef],
        index: int = 0,
        _plain: str | None = None,
        _headline: str | None = None,
        paper: Paper | None = None,
    ) -> None:
        self.id = id
        self._text = text
        self.collection = collection
        self.sources = sources
        self.index = index
        self._plain = _plain
        self._headline = _headline
        # What the source says beyond the text (title, authors, ids, links): None
        # for a conference text file's paragraph.
        self.paper = paper

    def __repr__(self) -> str:
        extra = f", paper={self.paper!r}" if self.paper is not None else ""
        return (
            f"Abstract(id={self.id!r}, text={self.text!r}, collection={self.collection!r}, "
            f"sources={self.sources!r}, index={self.index!r}{extra})"
        )

    @property
    def text(self) -> str:
        """The abstract's source text ("" for a library entry without one)."""
        text = self._text
        if isinstance(text, str):
            return text
        return text.text_at(self.sources[0].position, self.id)

    @text.setter
    def text(self, value: str) -> None:
        self._text = value

    def store_text(self, stored: StoredTexts) -> None:
        """Read the text from `stored` from now on (which holds this same text): the
        abstract lets go of it, and of its rendering."""
        if isinstance(self._text, str):
            self._text = stored
            self._plain = None

    @property
    def title(self) -> str | None:
        """The paper's title as readable text (LaTeX rendered), or None when the source has none."""
        paper = self.paper
        if paper is None or not paper.title:
            return None
        from tui.corpus.latex import needs_rendering, to_plain

        return to_plain(paper.title) if needs_rendering(paper.title) else paper.title

    @property
    def has_abstract(self) -> bool:
        """False for a library entry that gives a title but no abstract."""
        text = self._text
        # A stored text is a conference file's paragraph: never empty (and not read here).
        return bool(text) if isinstance(text, str) else True

    @property
    def similarity_text(self) -> str:
        """What "more like this" and topics compare: a paper's title, then its abstract
        (so a library entry without an abstract still has words)."""
        paper = self.paper
        if paper is None or not paper.title:
            return self.text
        text = self.text
        return f"{paper.title}. {text}" if text else paper.title

    @property
    def source_chars(self) -> int:
        """The length of what `searchable` is made from, before LaTeX rendering; for a
        text kept elsewhere, its file's paragraphs' mean length when the store knows it
        (reading each of 100,000 texts to count them took 2 s; the index only sizes its
        token array by these, and it is grown should that prove short)."""
        paper = self.paper
        if paper is None:
            text = self._text
            if not isinstance(text, str) and (mean := text.mean_length) is not None:
                return mean
            return len(self.text)
        names = sum(len(a.family) + len(a.given) + 2 for a in paper.authors)
        return len(self.text) + len(paper.title or "") + names + 2

    @property
    def searchable(self) -> str:
        """What the search index reads: the title and authors' names, then the abstract."""
        paper = self.paper
        if paper is None:
            return self.plain
        head = [self.title or ""]
        if paper.authors:
            head.append(", ".join(a.name for a in paper.named_authors))
        return "\n".join([*head, self.plain]).strip()

    @property
    def plain(self) -> str:
        """The abstract as readable text (LaTeX converted; see tui.corpus.latex)."""
        plain = self._plain
        if plain is None:
            from tui.corpus.latex import to_plain

            text = self._text  # once: another thread may hold or let go of it meanwhile
            if not isinstance(text, str):
                # Kept, the rendering would hold the text the corpus does not.
                return to_plain(self.text)
            plain = self._plain = to_plain(text)
        return plain

    @property
    def headline(self) -> str:
        """A one-line title derived from the first sentence (see tui.corpus.headline)."""
        if self._headline is None:
            title = self.title
            if title is not None:
                self._headline = title
                return title
            from tui.corpus.headline import make_headline
            from tui.corpus.latex import needs_rendering

            # A headline needs only the first sentence: when the start of the source
            # has no LaTeX, it is its own plain text and the whole abstract need not
            # be rendered (this keeps the list's first paint fast).
            text = self.text  # read once (it may be stored elsewhere)
            start = text[:_HEADLINE_SOURCE_CHARS]
            if self._plain is None and not needs_rendering(start):
                self._headline = make_headline(start)
            elif self._plain is None and len(text) > _HUGE_CHARS:
                # Several abstracts run together: render a generous start, not megabytes.
                from tui.corpus.latex import to_plain

                cut = text.rfind(" ", 0, _HUGE_CHARS)
                self._headline = make_headline(to_plain(text[: max(cut, 1)]))
            else:
                self._headline = make_headline(self.plain)
        return self._headline

    @property
    def source(self) -> SourceRef:
        """The first place this abstract was found."""
        return self.sources[0]

    @property
    def word_count(self) -> int:
        return len(self.plain.split())


class LoadProblem(Record):
    """Something wrong with one input path. `fatal` means nothing was loaded from it."""

    __match_args__ = ("path", "message", "fatal")
    __slots__ = __match_args__
    path: Path
    message: str
    fatal: bool

    def __init__(self, path: Path, message: str, fatal: bool = True) -> None:
        _set = object.__setattr__
        _set(self, "path", path)
        _set(self, "message", message)
        _set(self, "fatal", fatal)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class FileInfo(Record):
    """One loaded file: its header, how many abstracts (paragraphs or entries) it holds,
    and how many of those were `repeated`: the same abstract or paper as one loaded
    before it (from an earlier file, or earlier in this one), merged into that one."""

    __match_args__ = (
        "path",
        "collection",
        "count",
        "digest",
        "repeated",
        "format",
        "without_abstract",
    )
    __slots__ = __match_args__
    path: Path
    collection: Collection
    count: int
    digest: str
    repeated: int
    format: str
    without_abstract: int

    def __init__(
        self,
        path: Path,
        collection: Collection,
        count: int,
        digest: str,
        repeated: int = 0,
        format: str = "text",
        without_abstract: int = 0,
    ) -> None:
        _set = object.__setattr__
        _set(self, "path", path)
        _set(self, "collection", collection)
        _set(self, "count", count)
        _set(self, "digest", digest)
        _set(self, "repeated", repeated)
        # Which reader read it (`text`, `bibtex`, `ris`, `feed`, `json`, `csv`, ...).
        _set(self, "format", format)
        # Entries that give a title but no abstract (a library has many): loaded, counted.
        _set(self, "without_abstract", without_abstract)

    @property
    def added(self) -> int:
        """The abstracts first found in this file: over all files, these add up to the corpus."""
        return self.count - self.repeated


class Repeats(Record):
    """The repeated paragraphs of one file, and where each abstract was found first.

    `first_in` pairs each earlier file (possibly this one) with how many of this
    file's repeated paragraphs were first found there, most first.
    """

    __match_args__ = ("path", "count", "first_in")
    __slots__ = __match_args__
    path: Path
    count: int
    first_in: tuple[tuple[Path, int], ...]

    def __init__(self, path: Path, count: int, first_in: tuple[tuple[Path, int], ...]) -> None:
        _set = object.__setattr__
        _set(self, "path", path)
        _set(self, "count", count)
        _set(self, "first_in", first_in)


class Corpus:
    """Everything loaded: abstracts in file order (first occurrence), files and problems."""

    __match_args__ = ("abstracts", "files", "problems", "by_id", "_ids")
    __slots__ = __match_args__
    # Mutable, so unhashable (as a dataclass with eq and without frozen is).
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        abstracts: list[Abstract],
        files: list[FileInfo],
        problems: list[LoadProblem],
        by_id: dict[str, Abstract] | None = None,
        _ids: list[str] | None = None,
    ) -> None:
        self.abstracts = abstracts
        self.files = files
        self.problems = problems
        self._ids: list[str] = [] if _ids is None else _ids
        for i, abstract in enumerate(self.abstracts):
            abstract.index = i
        # (A `by_id` argument is replaced, as the dataclass's __post_init__ did.)
        self.by_id: dict[str, Abstract] = {a.id: a for a in self.abstracts}

    def extend(
        self, abstracts: list[Abstract], files: list[FileInfo], problems: list[LoadProblem]
    ) -> None:
        """Abstracts read after these (a load in steps: `load.Loading.publish`)."""
        for i, abstract in enumerate(abstracts, start=len(self.abstracts)):
            abstract.index = i
        self.abstracts.extend(abstracts)
        self.files.extend(files)
        self.problems.extend(problems)
        self.by_id.update((a.id, a) for a in abstracts)

    def ids_changed(self) -> None:
        """Some abstracts were given other ids (a paper's final one): look them up anew."""
        self._ids = []
        self.by_id = {a.id: a for a in self.abstracts}

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Corpus)
        mine = (self.abstracts, self.files, self.problems, self.by_id, self._ids)
        return mine == (other.abstracts, other.files, other.problems, other.by_id, other._ids)

    def __repr__(self) -> str:
        return (
            f"Corpus(abstracts={self.abstracts!r}, files={self.files!r}, "
            f"problems={self.problems!r}, by_id={self.by_id!r})"
        )

    def __len__(self) -> int:
        return len(self.abstracts)

    @property
    def ids(self) -> list[str]:
        """`ids[i]` is the id of `abstracts[i]`."""
        if len(self._ids) != len(self.abstracts):
            self._ids = [a.id for a in self.abstracts]
        return self._ids

    @property
    def fingerprint(self) -> str:
        """A key for caches: changes whenever the content of any loaded file changes."""
        h = _blake2b(digest_size=16)
        for info in sorted(self.files, key=lambda f: f.digest):
            h.update(info.digest.encode("ascii"))
        return h.hexdigest()

    @property
    def summary(self) -> str:
        """`76 abstracts · 4 files`: distinct abstracts (short, for the status line)."""
        n, f = len(self.abstracts), len(self.files)
        return f"{n:,} abstract{'s' * (n != 1)} · {f:,} file{'s' * (f != 1)}"

    @property
    def repeated(self) -> int:
        """Paragraphs merged into an abstract loaded before them (the same text, found
        again): the files hold `len(self) + self.repeated` paragraphs in all."""
        return sum(info.repeated for info in self.files)

    @property
    def without_abstract(self) -> int:
        """Entries loaded with a title but no abstract (`has:abstract` leaves them out)."""
        return sum(info.without_abstract for info in self.files)

    @property
    def repeated_summary(self) -> str:
        """`437 repeated paragraphs merged (the same abstract in two places)`, or ""."""
        n = self.repeated
        if not n:
            return ""
        return (
            f"{n:,} repeated paragraph{'s' * (n != 1)} merged "
            "(the same abstract in two places, counted once)"
        )

    def repeats(self) -> list[Repeats]:
        """Per file with repeated paragraphs (in load order): how many, and first found where."""
        first_in: dict[Path, dict[Path, int]] = {}
        for abstract in self.abstracts:
            first = abstract.sources[0].path
            for ref in abstract.sources[1:]:
                counts = first_in.setdefault(ref.path, {})
                counts[first] = counts.get(first, 0) + 1
        order = {info.path: i for i, info in enumerate(self.files)}
        return [
            Repeats(
                path,
                sum(counts.values()),
                tuple(sorted(counts.items(), key=lambda item: (-item[1], order.get(item[0], 0)))),
            )
            for path, counts in sorted(first_in.items(), key=lambda item: order.get(item[0], 0))
        ]
