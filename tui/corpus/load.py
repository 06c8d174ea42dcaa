"""Loading abstract files into a `Corpus`.

Arguments may be files, directories (every file of a known format below,
sorted) or glob patterns; each file is read by the reader its content calls for
(`tui.corpus.readers`). Bad input never stops the rest from loading: every problem becomes a
`LoadProblem` naming the path. Loading does no LaTeX rendering (that is lazy,
see `Abstract.plain`), so thousands of abstracts load in tens of milliseconds.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import stat
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tui.corpus.model import (
    Abstract,
    Collection,
    Corpus,
    FileInfo,
    LoadProblem,
    SourceRef,
    StoredTexts,
    abstract_id,
    normalise,
)
from tui.corpus.paper import Paper, id_from_ids, identity_keys
from tui.corpus.readers import EXTENSIONS, ReadResult, read, supported

if TYPE_CHECKING:
    from tui.corpus.readcache import ReadCache

_GLOB_CHARS = frozenset("*?[")
# Bytes that plain text files are made of: printable ASCII, whitespace controls, and
# everything >= 0x80 (UTF-8 or Latin-1). Deleting these leaves the suspicious bytes.
_TEXT_BYTES = bytes([7, 8, 9, 10, 11, 12, 13, 27, *range(0x20, 0x7F), *range(0x80, 0x100)])
_BINARY_CONTROL_RATIO = 0.05
# A Latin-1 fallback only makes sense for text that is mostly ASCII.
_BINARY_HIGH_RATIO = 0.30
_ASCII_BYTES = bytes(range(0x80))
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF8_BOM = b"\xef\xbb\xbf"
# A file over this size is named and skipped: loading holds its bytes and its
# text at once, a few times its size in memory.
MAX_FILE_BYTES = 64 * 1024 * 1024
# O_NONBLOCK: should a path become a FIFO between the stat and the open, the open
# returns at once instead of waiting for a writer (and fstat then refuses it).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def _is_glob(arg: str) -> bool:
    return any(c in _GLOB_CHARS for c in arg)


# Folders never read inside a folder given to load: tools' and environments' own files.
_SKIPPED_FOLDERS = frozenset(["node_modules", "__pycache__", "site-packages", "venv", ".venv"])


class _Walk:
    """What a folder walk found: loadable files (with their stat) and what it left."""

    def __init__(self) -> None:
        self.found: list[tuple[Path, os.stat_result]] = []
        self.skipped: list[Path] = []
        #: Files of a known kind that cannot be looked at (a broken link): why.
        self.failed: list[tuple[Path, str]] = []
        self.hidden = 0


def _files_below(directory: Path) -> _Walk:
    """Every file below `directory` that a reader knows (by extension), sorted by path.

    Symbolic links to directories are not followed (no loops); unreadable
    subdirectories are skipped, and so are hidden folders (`.git`, `.venv`) and
    virtual environments (a folder holding `pyvenv.cfg`). FIFOs, devices and
    sockets with a known extension are listed too, so that loading names them (and
    never opens them). Files of other kinds are counted in `skipped`.
    """
    walk = _Walk()
    stack = [os.fspath(directory)]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        if folder != os.fspath(directory) and any(e.name == "pyvenv.cfg" for e in entries):
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name.startswith(".") or entry.name in _SKIPPED_FOLDERS:
                        walk.hidden += 1
                    else:
                        stack.append(entry.path)
                elif entry.name.startswith("."):
                    walk.hidden += 1
                elif supported(Path(entry.name)):
                    try:
                        st = entry.stat()
                    except OSError as err:
                        walk.failed.append((Path(entry.path), _unstattable(entry, err)))
                        continue
                    if not stat.S_ISDIR(st.st_mode):
                        walk.found.append((Path(entry.path), st))
                else:
                    walk.skipped.append(Path(entry.path))
            except OSError:
                continue
    walk.found.sort(key=lambda item: item[0])
    walk.skipped.sort()
    walk.failed.sort()
    return walk


def _unstattable(entry: os.DirEntry[str], err: OSError) -> str:
    """Why a file of a known kind in a folder could not be looked at, in words."""
    if entry.is_symlink():
        return "broken symbolic link (its target is missing, or links back to itself)"
    return f"cannot be read: {err.strerror or err}"


def _skipped_message(walk: _Walk) -> str:
    """`skipped 3 files of other kinds (notes.pdf, a.docx, b.png)`, naming a few."""
    n = len(walk.skipped)
    names = ", ".join(p.name for p in walk.skipped[:5]) + (", …" if n > 5 else "")
    kinds = ", ".join(sorted({ext for ext in EXTENSIONS}))
    return f"skipped {n:,} file{'s' * (n != 1)} of other kinds ({names}); a folder loads {kinds}"


def expand_paths(args: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[LoadProblem]]:
    """The files named by `args` (files, directories, globs), in order, each once.

    Directories give every file of a known format below them (see
    `readers.EXTENSIONS`), sorted, and say how many others they skipped; globs
    are expanded and sorted. A file reached twice (also through a link) is kept
    at its first place. Paths that do not exist, globs that match nothing and
    directories with no file to load become fatal `LoadProblem`s.
    """
    files: list[Path] = []
    problems: list[LoadProblem] = []
    # Files are identified by device and inode, so links and `a/../a/x.txt` dedupe too.
    seen: set[tuple[int, int]] = set()

    def add(path: Path, st: os.stat_result | None) -> None:
        if st is not None:
            key = (st.st_dev, st.st_ino)
            if key in seen:
                return
            seen.add(key)
        files.append(path)

    def add_existing(path: Path) -> None:
        try:
            st = path.stat()
        except OSError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            walk = _files_below(path)
            if not walk.found:
                kinds = ", ".join(sorted(EXTENSIONS))
                problems.append(LoadProblem(path, f"directory has no files to load ({kinds})"))
            elif walk.skipped:
                problems.append(LoadProblem(path, _skipped_message(walk), fatal=False))
            for p, why in walk.failed:
                problems.append(LoadProblem(p, why, fatal=False))
            for p, pst in walk.found:
                add(p, pst)
        else:
            add(path, st)

    for arg in args:
        raw = os.fspath(arg)
        path = Path(raw).expanduser()
        if path.exists():
            add_existing(path)
        elif _is_glob(raw):
            matches = sorted(glob.glob(os.path.expanduser(raw), recursive=True))
            if not matches:
                problems.append(LoadProblem(path, "no files match this pattern"))
            for match in matches:
                add_existing(Path(match))
        elif path.is_symlink():
            problems.append(LoadProblem(path, "broken symbolic link"))
        else:
            problems.append(LoadProblem(path, "no such file or directory"))
    return files, problems


class _Skipped(Exception):
    """A path that is not read at all: why, in words for a `LoadProblem`."""


def _not_regular(st: os.stat_result) -> str | None:
    """Why a file with this stat is not read, or None for a regular file."""
    if stat.S_ISREG(st.st_mode):
        return None
    kind = next((k for test, k in _SPECIAL_KINDS if test(st.st_mode)), "a special file")
    if kind == "a directory":
        return "is a directory, not a file"
    return f"is {kind}, not a regular file: skipped without reading it"


def _too_large(size: int) -> str:
    mib = 1024 * 1024
    return (
        f"file is {size / mib:,.1f} MiB, over the {MAX_FILE_BYTES / mib:,.0f} MiB limit "
        "for one file: skipped (split it into smaller files)"
    )


def _check(st: os.stat_result) -> None:
    """Raise `_Skipped` unless `st` is a regular file within the size limit."""
    reason = _not_regular(st)
    if reason is None and st.st_size > MAX_FILE_BYTES:
        reason = _too_large(st.st_size)
    if reason is not None:
        raise _Skipped(reason)


def _read_bytes(path: Path) -> bytes:
    """The bytes of a regular file of at most `MAX_FILE_BYTES` (a seam for tests).

    Anything else raises `_Skipped` without being read: a FIFO or a device would
    block or never end. The path is checked before the open, and the open file
    again after it (the path may have been replaced in between).
    """
    _check(os.stat(path))
    fd = os.open(path, _OPEN_FLAGS)
    with os.fdopen(fd, "rb") as f:
        _check(os.fstat(fd))
        # One byte over the limit is enough to catch a file that grew since the stat.
        data = f.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise _Skipped(_too_large(max(len(data), os.fstat(fd).st_size)))
    return data


def _binary_reason(data: bytes) -> str | None:
    """Why `data` looks binary, or None when it looks like text."""
    if b"\x00" in data:
        return "binary file (contains NUL bytes), not text"
    sample = data[:65536]
    controls = len(sample.translate(None, _TEXT_BYTES))
    if controls > _BINARY_CONTROL_RATIO * len(sample):
        return "binary file (mostly non-text bytes), not text"
    return None


def decode(data: bytes, path: Path) -> tuple[str | None, list[LoadProblem]]:
    """Decode a file's bytes: UTF-8 (BOM allowed), else Latin-1 with a non-fatal problem.

    Returns (None, [fatal problem]) for binary data.
    """
    if data.startswith(_UTF16_BOMS):
        try:
            return data.decode("utf-16"), [
                LoadProblem(path, "file is UTF-16, not UTF-8; decoded as UTF-16", fatal=False)
            ]
        except UnicodeDecodeError:
            return None, [LoadProblem(path, "binary file (a UTF-16 mark, then invalid data)")]
    reason = _binary_reason(data)
    if reason is not None:
        return None, [LoadProblem(path, reason)]
    start = len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0
    try:
        return data[start:].decode("utf-8"), []
    except UnicodeDecodeError as err:
        offset = start + err.start
    sample = data[:65536]
    high = len(sample.translate(None, _ASCII_BYTES))
    if high > _BINARY_HIGH_RATIO * len(sample):
        return None, [
            LoadProblem(path, f"binary file (not UTF-8 from byte offset {offset}), not text")
        ]
    message = (
        f"{path.name} is not valid UTF-8 (first bad byte 0x{data[offset]:02x} at byte offset "
        f"{offset}); read as Latin-1, so some characters may be wrong"
    )
    return data.decode("latin-1"), [LoadProblem(path, message, fatal=False)]


def _read_file(path: Path) -> tuple[bytes | None, str, LoadProblem | None]:
    """(bytes, blake2b digest, None), or (None, "", problem) when the file cannot be read."""
    try:
        data = _read_bytes(path)
    except _Skipped as skipped:
        return None, "", LoadProblem(path, str(skipped))
    except PermissionError:
        return None, "", LoadProblem(path, "cannot read the file: permission denied")
    except IsADirectoryError:
        return None, "", LoadProblem(path, "is a directory, not a file")
    except OSError as err:
        return None, "", LoadProblem(path, f"cannot read the file: {err.strerror or err}")
    return data, hashlib.blake2b(data, digest_size=16).hexdigest(), None


def _decode_file(path: Path, data: bytes) -> tuple[str | None, list[LoadProblem]]:
    """One file's text (None when it is empty or not text) and its problems so far."""
    body = data[3:] if data.startswith(_UTF8_BOM) else data
    # isspace(), not strip(): no copy of a big file (the same ASCII whitespace).
    if not body or body.isspace():
        return None, [LoadProblem(path, "empty file")]
    return decode(data, path)


def _fast_id(text: str) -> str:
    """`abstract_id(text)` for text that parse already collapsed.

    Collapsed NFC text is its own normal form, so hashing it directly gives
    the same id without normalise()'s regex pass over every abstract.
    """
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()
    return abstract_id(text)


def _entry_key(paper: Paper) -> str:
    """A key for an entry with neither abstract nor identifier: its title, authors and year."""
    families = " ".join(a.family.lower() for a in paper.authors)
    title = normalise(paper.title or "").lower()
    return (
        "entry:"
        + hashlib.blake2b(f"{title}|{families}|{paper.year}".encode(), digest_size=8).hexdigest()
    )


class _Collections:
    """One `Collection` per distinct label, venue and year (papers share them)."""

    def __init__(self) -> None:
        self._made: dict[tuple[str, str | None, int | None], Collection] = {}

    def of(self, paper: Paper, file_collection: Collection) -> Collection:
        if paper.venue is None and paper.year is None:
            return file_collection
        venue, year = paper.venue, paper.year
        if venue and year:
            label = f"{venue} {year}"
        else:
            label = f"{file_collection.label} {year}" if year else venue or file_collection.label
        key = (label, venue, year)
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = Collection(label, venue, year)
        return made


class _Merger:
    """Abstracts by every key that makes two entries one: the same text, or a shared
    DOI, arXiv id or OpenReview id. Papers' final ids are chosen at the end (a paper
    may learn its DOI from a source read after the first)."""

    def __init__(self) -> None:
        self.abstracts: list[Abstract] = []
        self.by_key: dict[str, Abstract] = {}
        self.collections = _Collections()

    def add_paragraph(
        self,
        text: str | StoredTexts,
        collection: Collection,
        ref: SourceRef,
        aid: str | None = None,
    ) -> bool:
        """Add a conference paragraph (`aid`: its id, when known; it must be for a text
        left in the read cache); True when it merged into one loaded before."""
        if aid is None:
            assert isinstance(text, str)
            aid = _fast_id(text)
        key = "text:" + aid
        existing = self.by_key.get(key)
        if existing is not None:
            existing.sources.append(ref)
            return True
        abstract = Abstract(aid, text, collection, [ref])
        self.by_key[key] = abstract
        self.abstracts.append(abstract)
        return False

    def add_stored(
        self, stored: StoredTexts, collection: Collection, path: Path, ids: list[str]
    ) -> int:
        """Add a conference file's paragraphs left in the read cache (`ids`: theirs, in
        order), as `add_paragraph` adds each; how many merged into ones loaded before."""
        by_key, abstracts = self.by_key, self.abstracts
        repeated = 0
        for position, aid in enumerate(ids, start=1):
            ref = SourceRef(path, position)
            key = "text:" + aid
            existing = by_key.get(key)
            if existing is not None:
                existing.sources.append(ref)
                repeated += 1
                continue
            abstract = Abstract(aid, stored, collection, [ref])
            by_key[key] = abstract
            abstracts.append(abstract)
        return repeated

    def add_paper(
        self, text: str, paper: Paper | None, file_collection: Collection, ref: SourceRef
    ) -> bool:
        """Add an entry with what its source says; True when it merged into a loaded paper."""
        if paper is None:
            return self.add_paragraph(text, file_collection, ref)
        keys = identity_keys(paper.ids)
        if text:
            keys.append("text:" + _fast_id(text))
        if not keys:
            keys.append(_entry_key(paper))
        existing = next((self.by_key[k] for k in keys if k in self.by_key), None)
        if existing is None:
            abstract = Abstract(
                "", text, self.collections.of(paper, file_collection), [ref], paper=paper
            )
            self.abstracts.append(abstract)
            existing = abstract
            merged = False
        else:
            existing.sources.append(ref)
            old, new = existing.paper, paper
            versions = (old.version, new.version) if old is not None else (None, None)
            if versions[0] is not None and versions[1] is not None:
                # Two arXiv versions of one paper: the newer one's text and fields win.
                newer = versions[1] > versions[0]
                longer = newer and bool(text)
            else:
                newer = False
                # The fuller abstract wins (a library's truncated copy, a feed's whole one).
                longer = len(text) > len(existing.text)
            if old is None:
                existing.paper = new
            else:
                existing.paper = new.merged(old) if newer else old.merged(new)
            if longer:
                existing.text = text
                existing._plain = existing._headline = None
            elif existing.paper.title != (old.title if old is not None else None):
                # A paper's title is its headline: one made already (the first files
                # are shown while the rest are read) from a conference paragraph's
                # first sentence gives way to the title this source brings.
                existing._headline = None
            if existing.collection is file_collection or existing.collection.venue is None:
                existing.collection = self.collections.of(existing.paper, file_collection)
            merged = True
        for key in keys:
            self.by_key.setdefault(key, existing)
        return merged

    def finish(self) -> list[Abstract]:
        """Every abstract with its final id: from its best identifier, else its text.
        Nothing more is merged: the keys (one string per abstract) are let go."""
        self.by_key = {}
        assign_ids(self.abstracts, set())
        return self.abstracts


def assign_ids(abstracts: Iterable[Abstract], seen: set[str]) -> None:
    """Give each paper of `abstracts` its id from its best identifier (else its text), none
    already in `seen`; every id given or found is added to `seen`."""
    for abstract in abstracts:
        paper = abstract.paper
        if paper is not None:
            aid = id_from_ids(paper.ids)
            if aid is None:
                aid = _fast_id(abstract.text) if abstract.text else _entry_key(paper)[6:]
            if aid in seen:
                # Two papers the sources keep apart but whose best ids agree cannot
                # happen unless a source gives one id to two papers: keep both.
                aid = _fast_id(f"{aid} {len(seen)}")
            abstract.id = aid
        seen.add(abstract.id)


def _read_one(path: Path) -> tuple[str, ReadResult | None, list[LoadProblem]]:
    """(digest, what the reader made of the file or None, problems) for one file."""
    data, digest, read_problem = _read_file(path)
    if data is None:
        return "", None, [read_problem] if read_problem is not None else []
    text, file_problems = _decode_file(path, data)
    del data  # not needed once decoded: a big file is not held twice while parsing
    if text is None:
        return digest, None, file_problems
    return digest, read(text, path), file_problems


def paragraph_text(path: Path, digest: str, position: int, aid: str) -> str:
    """A conference file's paragraph read from the file again (the read cache no longer
    holds it): the one at `position` when the file is as it was (`digest`), else the one
    whose id is `aid`; "" when the file no longer has it."""
    found, result, _ = _read_one(path)
    if result is None or result.papers is not None or result.error is not None:
        return ""
    if found == digest and 0 < position <= len(result.texts):
        return result.texts[position - 1]
    return next((text for text in result.texts if _fast_id(text) == aid), "")


def load_corpus(paths: Sequence[str | os.PathLike[str]], cache_dir: Path | None = None) -> Corpus:
    """Load every abstract from `paths` (files, directories, globs). Never raises for bad input.

    Each file is read by the reader its content calls for (`tui.corpus.readers`).
    The same abstract (same normalised text), or the same paper (a shared DOI,
    arXiv id or OpenReview id), in several places becomes one `Abstract` carrying
    every `SourceRef`, in load order; each file's `FileInfo` counts its entries
    merged that way as `repeated`. With `cache_dir`, files unchanged since the last
    load with the same `paths` are not read again (`tui.corpus.readcache`).
    """
    loading = Loading(paths, cache_dir)
    while not loading.finished:
        loading.read_next()
    return loading.finish()


class Loading:
    """A load of `paths` one file at a time (`load_corpus` reads them all at once): the app
    paints the first files' abstracts, then reads the rest, handing them over as they come
    (`publish`). However it is read, `finish` gives the corpus `load_corpus` gives."""

    def __init__(
        self,
        paths: Sequence[str | os.PathLike[str]],
        cache_dir: Path | None,
        *,
        cache_args: Sequence[str | os.PathLike[str]] | None = None,
        defer_cache: bool = False,
        keep_texts: bool = True,
    ) -> None:
        """`cache_args`: the arguments whose read cache to use (default `paths`: the cache
        child gets the files the app read, and uses the app's cache). `defer_cache`: the
        first files are read without the cache (opening it reads every file's entry)
        until `open_cache`, then stored in it. Without `keep_texts`, the paragraphs of
        conference files read from the cache stay there, each read when its abstract's
        text is asked for (the app: it shows a few hundred of 100,000 texts)."""
        self.paths, self.problems = expand_paths(paths)
        #: Where the read cache is, and under which arguments (None: no cache).
        self.cache_dir = cache_dir
        #: Whether a read cache is used (its arguments: `cache_args`).
        self.uses_cache = cache_dir is not None
        self.cache_args = [os.fspath(a) for a in (paths if cache_args is None else cache_args)]
        self.cache: ReadCache | None = None
        self._keep_texts = keep_texts
        # Conference files parsed in this load (their paragraphs held): (path, digest).
        self._parsed: list[tuple[Path, str]] = []
        # Files read before the cache opened: (path, stat, digest, result, problems, ids).
        self._uncached: list[
            tuple[Path, os.stat_result, str, ReadResult, list[tuple[str, bool]], list[str] | None]
        ] = []
        if cache_dir is not None and not defer_cache:
            self.open_cache()
        self._merger = _Merger()
        self._infos: list[FileInfo] = []
        #: Files read so far (of `len(self.paths)`).
        self.read = 0
        # What `publish` has handed over: abstracts, files, problems, and the ids given.
        self._published = (0, 0, 0)
        self._seen: set[str] = set()

    @property
    def finished(self) -> bool:
        return self.read == len(self.paths)

    @property
    def count(self) -> int:
        """Abstracts read so far."""
        return len(self._merger.abstracts)

    def read_next(self) -> None:
        """Read the next file (a cached parse when it is unchanged)."""
        path = self.paths[self.read]
        self.read += 1
        cache, problems, merger = self.cache, self.problems, self._merger
        cached = st = None
        if self.cache_dir is not None:
            with contextlib.suppress(OSError):
                st = os.stat(path)
                regular = stat.S_ISREG(st.st_mode)
                if cache is not None and regular:
                    cached = cache.lookup(path, st, texts=self._keep_texts, reread=paragraph_text)
        result: ReadResult | None
        ids: list[str] | None = None
        stored: StoredTexts | None = None
        if cached is not None:
            digest, result, ids, stored = cached.digest, cached.result, cached.ids, cached.stored
            file_problems = [LoadProblem(path, m, fatal=f) for m, f in cached.problems]
        else:
            digest, result, file_problems = _read_one(path)
            if self.cache_dir is not None and st is not None and result is not None:
                if result.papers is None and result.error is None:
                    ids = [_fast_id(t) for t in result.texts]
                    self._parsed.append((path, digest))
                kept = [(p.message, p.fatal) for p in file_problems]
                if cache is not None:
                    cache.store(path, st, digest, result, kept, ids)
                else:
                    self._uncached.append((path, st, digest, result, kept, ids))
        problems.extend(file_problems)
        if result is None:
            return
        problems.extend(LoadProblem(path, w, fatal=False) for w in result.warnings)
        if result.error is not None:
            problems.append(LoadProblem(path, result.error))
            return
        collection = result.collection
        repeated = 0
        count = len(result.texts)
        if stored is not None:
            assert ids is not None
            count = len(ids)
            repeated = merger.add_stored(stored, collection, path, ids)
        elif result.papers is None:
            for position, paragraph in enumerate(result.texts, start=1):
                aid = ids[position - 1] if ids is not None else None
                ref = SourceRef(path, position)
                repeated += merger.add_paragraph(paragraph, collection, ref, aid)
        else:
            for position, (body, paper) in enumerate(
                zip(result.texts, result.papers, strict=True), start=1
            ):
                repeated += merger.add_paper(body, paper, collection, SourceRef(path, position))
        missing = 0 if result.papers is None else sum(1 for t in result.texts if not t)
        self._infos.append(
            FileInfo(path, collection, count, digest, repeated, result.format, missing)
        )

    def publish(self, corpus: Corpus | None = None) -> Corpus:
        """The abstracts, files and problems read since the last call, added to `corpus`
        (a new corpus when None). A paper's id is provisional until `finish`: a file read
        later may give it a better identifier."""
        abstracts, files, problems = self._published
        new = self._merger.abstracts[abstracts:]
        assign_ids(new, self._seen)
        self._published = (self.count, len(self._infos), len(self.problems))
        if corpus is None:
            return Corpus(new, self._infos[files:], self.problems[problems:])
        corpus.extend(new, self._infos[files:], self.problems[problems:])
        return corpus

    def open_cache(self) -> None:
        """Read the rest through the read cache; the files read so far are stored in it."""
        if self.cache is not None or self.cache_dir is None:
            return
        from tui.corpus.readcache import ReadCache

        cache = ReadCache.open(self.cache_dir, self.cache_args)
        for path, st, digest, result, kept, ids in self._uncached:
            if cache.lookup(path, st) is None:
                cache.store(path, st, digest, result, kept, ids)
        self._uncached = []
        self.cache = cache

    def save_cache(self) -> None:
        """Write what was parsed to the read cache (once; `finish` does it if not done)."""
        if self.cache_dir is None:
            return
        self.open_cache()
        cache = self.cache
        assert cache is not None
        if cache.save() and not self._keep_texts:
            self._leave_texts(cache)
        self._parsed = []
        self.cache = None
        self.cache_dir = None

    def _leave_texts(self, cache: ReadCache) -> None:
        """The paragraphs parsed in this load, now saved in the read cache, are read from
        it from now on, as those of files found in it are: at 100,000 abstracts a cold
        start would otherwise hold 150 MB of texts a warm one does not."""
        stored = {path: cache.stored(path, digest, paragraph_text) for path, digest in self._parsed}
        for abstract in self._merger.abstracts:
            texts = stored.get(abstract.sources[0].path)
            if texts is not None and abstract.paper is None:
                abstract.store_text(texts)

    def finish(self, corpus: Corpus | None = None, *, save_cache: bool = True) -> Corpus:
        """Every file read: the whole corpus (`corpus`, published into so far, completed),
        every paper with its final id. The read cache is saved first unless `save_cache`
        is False (the caller saves it after, with `save_cache()`)."""
        if save_cache:
            self.save_cache()
        if corpus is None:
            return Corpus(self._merger.finish(), self._infos, self.problems)
        corpus = self.publish(corpus)
        self._seen = set()  # the ids `publish` gave: no more to give
        before = corpus.ids[:]
        self._merger.finish()
        if any(a.id != was for a, was in zip(corpus.abstracts, before, strict=True)):
            corpus.ids_changed()
        return corpus
