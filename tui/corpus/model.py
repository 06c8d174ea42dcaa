"""The data model shared by every part of the program.

An `Abstract` is one paragraph of an abstracts file, identified by a stable id
derived from its normalised text, so it keeps its id when files are renamed or
reordered. The same abstract found in two files is one `Abstract` with two
`SourceRef`s.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

_WS = re.compile(r"\s+")
# Several times the longest headline (tui.corpus.headline's limit), so the first
# sentence and the text after its end are always inside it.
_HEADLINE_SOURCE_CHARS = 400


def normalise(text: str) -> str:
    """The canonical form ids and near-duplicate checks are computed from.

    NFC Unicode and every run of whitespace collapsed to one space, trimmed.
    """
    return _WS.sub(" ", unicodedata.normalize("NFC", text)).strip()


def abstract_id(text: str) -> str:
    """A stable 16-hex-digit id for an abstract's text (blake2b of the normalised text)."""
    digest = hashlib.blake2b(normalise(text).encode("utf-8"), digest_size=8)
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class Collection:
    """What a file's header says: `ICLR 2023 Papers` is venue ICLR, year 2023."""

    label: str
    venue: str | None = None
    year: int | None = None

    @property
    def short(self) -> str:
        """`ICLR 2023`, or the label when the header did not parse."""
        if self.venue and self.year:
            return f"{self.venue} {self.year}"
        return self.label


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where an abstract was found: a file and its 1-based position among that file's abstracts."""

    path: Path
    position: int

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(eq=False, slots=True)
class Abstract:
    """One abstract. `text` is the source as in the file (joined, whitespace collapsed).

    `plain` (LaTeX rendered for reading) and `headline` are computed lazily and
    cached, so loading a large corpus never pays for rendering rows nobody sees.
    """

    id: str
    text: str
    collection: Collection
    sources: list[SourceRef]
    index: int = 0
    _plain: str | None = field(default=None, repr=False)
    _headline: str | None = field(default=None, repr=False)

    @property
    def plain(self) -> str:
        """The abstract as readable text (LaTeX converted; see tui.corpus.latex)."""
        if self._plain is None:
            from tui.corpus.latex import to_plain

            self._plain = to_plain(self.text)
        return self._plain

    @property
    def headline(self) -> str:
        """A one-line title derived from the first sentence (see tui.corpus.headline)."""
        if self._headline is None:
            from tui.corpus.headline import make_headline
            from tui.corpus.latex import needs_rendering

            # A headline needs only the first sentence: when the start of the source
            # has no LaTeX, it is its own plain text and the whole abstract need not
            # be rendered (this keeps the list's first paint fast).
            start = self.text[:_HEADLINE_SOURCE_CHARS]
            if self._plain is None and not needs_rendering(start):
                self._headline = make_headline(start)
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


@dataclass(frozen=True, slots=True)
class LoadProblem:
    """Something wrong with one input path. `fatal` means nothing was loaded from it."""

    path: Path
    message: str
    fatal: bool = True

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True, slots=True)
class FileInfo:
    """One loaded file: its header and how many abstracts came from it."""

    path: Path
    collection: Collection
    count: int
    digest: str


@dataclass(slots=True)
class Corpus:
    """Everything loaded: abstracts in file order (first occurrence), files and problems."""

    abstracts: list[Abstract]
    files: list[FileInfo]
    problems: list[LoadProblem]
    by_id: dict[str, Abstract] = field(default_factory=dict)
    _ids: list[str] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        for i, abstract in enumerate(self.abstracts):
            abstract.index = i
        self.by_id = {a.id: a for a in self.abstracts}

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
        h = hashlib.blake2b(digest_size=16)
        for info in sorted(self.files, key=lambda f: f.digest):
            h.update(info.digest.encode("ascii"))
        return h.hexdigest()

    @property
    def summary(self) -> str:
        """`76 abstracts · 4 files`."""
        n, f = len(self.abstracts), len(self.files)
        return f"{n:,} abstract{'s' * (n != 1)} · {f:,} file{'s' * (f != 1)}"
