"""Loading abstract files into a `Corpus`.

Arguments may be files, directories (every `*.txt` below, sorted) or glob
patterns. Bad input never stops the rest from loading: every problem becomes a
`LoadProblem` naming the path. Loading does no LaTeX rendering (that is lazy,
see `Abstract.plain`), so thousands of abstracts load in tens of milliseconds.
"""

from __future__ import annotations

import glob
import hashlib
import os
import stat
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path

from tui.corpus.model import Abstract, Corpus, FileInfo, LoadProblem, SourceRef, abstract_id
from tui.corpus.parse import ParsedFile, parse_text

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


def _txt_files_below(directory: Path) -> list[tuple[Path, os.stat_result]]:
    """Every `*.txt` file below `directory` with its stat, sorted by path.

    Symbolic links to directories are not followed (no loops); unreadable
    subdirectories are skipped. FIFOs, devices and sockets named `*.txt` are
    listed too, so that loading names them (and never opens them).
    """
    found: list[tuple[Path, os.stat_result]] = []
    stack = [os.fspath(directory)]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.name.lower().endswith(".txt"):
                    st = entry.stat()
                    if not stat.S_ISDIR(st.st_mode):
                        found.append((Path(entry.path), st))
            except OSError:
                continue
    found.sort(key=lambda item: item[0])
    return found


def expand_paths(args: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[LoadProblem]]:
    """The files named by `args` (files, directories, globs), in order, each once.

    Directories give every `*.txt` below them, sorted; globs are expanded and
    sorted. A file reached twice (also through a link) is kept at its first
    place. Paths that do not exist, globs that match nothing and directories
    with no `.txt` file become fatal `LoadProblem`s.
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
            below = _txt_files_below(path)
            if not below:
                problems.append(LoadProblem(path, "directory has no .txt files"))
            for p, pst in below:
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


def _parse_file(
    path: Path, text: str, problems: list[LoadProblem]
) -> tuple[ParsedFile | None, list[LoadProblem]]:
    """Parse one file's text: (parsed, or None when nothing can be loaded; problems)."""
    parsed = parse_text(text, path)
    problems.extend(LoadProblem(path, w, fatal=False) for w in parsed.warnings)
    if not parsed.paragraphs:
        if parsed.has_header:
            message = f"header only ({parsed.collection.label!r}): no abstracts"
        else:
            message = "empty file (only whitespace)"
        problems.append(LoadProblem(path, message))
        return None, problems
    return parsed, problems


def _fast_id(text: str) -> str:
    """`abstract_id(text)` for text that parse already collapsed.

    Collapsed NFC text is its own normal form, so hashing it directly gives
    the same id without normalise()'s regex pass over every abstract.
    """
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()
    return abstract_id(text)


def load_corpus(paths: Sequence[str | os.PathLike[str]]) -> Corpus:
    """Load every abstract from `paths` (files, directories, globs). Never raises for bad input.

    The same abstract (same normalised text) in several places becomes one
    `Abstract` carrying every `SourceRef`, in load order; each file's `FileInfo`
    counts its paragraphs merged that way as `repeated`.
    """
    files, problems = expand_paths(paths)
    abstracts: list[Abstract] = []
    by_id: dict[str, Abstract] = {}
    infos: list[FileInfo] = []
    for path in files:
        data, digest, read_problem = _read_file(path)
        if data is None:
            if read_problem is not None:
                problems.append(read_problem)
            continue
        text, file_problems = _decode_file(path, data)
        del data  # not needed once decoded: a big file is not held twice while parsing
        parsed = None
        if text is not None:
            parsed, file_problems = _parse_file(path, text, file_problems)
            del text
        problems.extend(file_problems)
        if parsed is None:
            continue
        collection = parsed.collection
        repeated = 0
        for position, paragraph in enumerate(parsed.paragraphs, start=1):
            aid = _fast_id(paragraph)
            ref = SourceRef(path, position)
            existing = by_id.get(aid)
            if existing is None:
                abstract = Abstract(aid, paragraph, collection, [ref])
                by_id[aid] = abstract
                abstracts.append(abstract)
            else:
                existing.sources.append(ref)
                repeated += 1
        infos.append(FileInfo(path, collection, len(parsed.paragraphs), digest, repeated))
    return Corpus(abstracts, infos, problems)
