"""The parsed-files cache: what each file's reader made of it, keyed by the file's stat.

Starting the app or a command on files that have not changed since the last time
need not read, decode and parse them again: for each file this keeps its size,
modification time (ns), inode and device, its digest, and its `ReadResult` (each
entry's text and paper, the warnings), in one SQLite file per set of arguments in
the data dir's cache folder. A file whose stat differs is read again. The same file
holds the corpus rows the command line prints from (`tui.corpus.rows`).

SQLite, not pickle: reading a cache can never run code. It is read only from a
private folder (see `tui.privatedir`), only when it is a regular file (a symbolic
link or a FIFO in its place is removed, never followed or opened), and only when it
carries this program's application id and version; anything else, or anything
SQLite finds damaged, is deleted and rebuilt. Every change is one transaction, so
a reader sees the cache before a save or after it, never half of one.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tui.corpus.model import Collection
from tui.corpus.paper import Paper
from tui.corpus.readers import ReadResult

# 3: a conference file's paragraph ids in its files row too (a start reads no entries);
# 2: SQLite (1 was one JSON document).
FORMAT = 3


def _code_version() -> int:
    """FORMAT joined with a digest of the code that makes what is cached (the readers,
    the paper record): files parsed by other code are parsed again, whether or not the
    program's version number changed with it."""
    here = Path(__file__).resolve().parent
    sources = [*sorted((here / "readers").glob("*.py")), here / "paper.py", here / "load.py"]
    digest = hashlib.blake2b(digest_size=4)
    try:
        for source in sources:
            digest.update(source.read_bytes())
    except OSError:
        return FORMAT << 20  # no sources to read (a frozen build): the format alone
    return (FORMAT << 20) | (int.from_bytes(digest.digest(), "big") & 0xFFFFF)


#: `PRAGMA user_version` of this code's caches (and part of their file names).
VERSION = _code_version()
#: "AbsT": marks a database as this program's parsed-files cache.
APPLICATION_ID = 0x41627354
_KEEP = 3  # cache files kept: the argument sets opened most recently
_PREFIX = "read-"
_SUFFIX = ".sqlite"
# Another process saving the same cache holds it for well under this.
_BUSY_SECONDS = 2.0

_SCHEMA = """
CREATE TABLE files(
    id INTEGER PRIMARY KEY, name BLOB NOT NULL UNIQUE, stat TEXT NOT NULL,
    digest TEXT NOT NULL, info TEXT NOT NULL);
CREATE TABLE entries(
    file INTEGER NOT NULL, position INTEGER NOT NULL, text TEXT NOT NULL,
    paper TEXT, aid TEXT, PRIMARY KEY (file, position));
CREATE TABLE rows(
    idx INTEGER PRIMARY KEY, id TEXT NOT NULL, label TEXT NOT NULL, venue TEXT,
    year INTEGER, path BLOB NOT NULL, position INTEGER NOT NULL, headline TEXT NOT NULL,
    plain TEXT, paper TEXT, file INTEGER NOT NULL, text TEXT, line TEXT NOT NULL);
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def _stat_key(st: os.stat_result) -> str:
    """`json.dumps([size, mtime_ns, inode, device])`, written out (one per file read)."""
    return f"[{st.st_size}, {st.st_mtime_ns}, {st.st_ino}, {st.st_dev}]"


def name_of(path: Path | str) -> bytes:
    """How a path is stored: its bytes (a file name need not be valid UTF-8)."""
    return os.fsencode(path)


def cache_path(cache_dir: Path, args: Sequence[str | os.PathLike[str]]) -> Path:
    """The cache file of one set of load arguments (absolute paths, in order)."""
    key = "\0".join(os.path.abspath(os.fspath(a)) for a in args)
    name = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
    return cache_dir / f"{_PREFIX}v{VERSION}-{name}{_SUFFIX}"


def _remove_foreign(path: Path) -> bool:
    """False when `path` cannot hold the cache; anything there that is not a regular file
    (a symbolic link, a FIFO, a socket) is removed rather than followed or opened."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if stat.S_ISREG(st.st_mode):
        return True
    if stat.S_ISDIR(st.st_mode):
        return False
    try:
        os.unlink(path)
    except OSError:
        return False
    return True


def _discard(path: Path) -> None:
    """Delete a cache file that is damaged or not ours (and its journal)."""
    for victim in (path, path.with_name(path.name + "-journal")):
        with contextlib.suppress(OSError):
            os.unlink(victim)


_SCHEMA_QUERY = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"


def _schema_of(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    return conn.execute(_SCHEMA_QUERY).fetchall()


@functools.cache
def _expected_schema() -> list[tuple[Any, ...]]:
    """The tables (and their indexes) a cache of this version has, exactly."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(_SCHEMA)
        return _schema_of(conn)
    finally:
        conn.close()


def _open(path: Path, shared: bool = False) -> sqlite3.Connection:
    # Autocommit (isolation_level None): every change is an explicit transaction.
    # `shared`: used from several threads, one at a time (the caller holds a lock).
    return sqlite3.connect(
        path, timeout=_BUSY_SECONDS, isolation_level=None, check_same_thread=not shared
    )


def _made(path: Path) -> bool:
    """True when `path` exists, made empty (mode 0600, before SQLite would make it
    following the umask) if it did not."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    except OSError:
        return False
    return True


def connect(path: Path, create: bool, shared: bool = False) -> sqlite3.Connection | None:
    """The cache database at `path` in a private folder, checked to be ours; None when
    there is none (and `create` is False) or it cannot be made. A damaged or foreign
    file is deleted (and made anew when `create`). `shared`: the connection may be used
    from any thread (one at a time)."""
    from tui.privatedir import is_private

    if not is_private(path.parent) or not _remove_foreign(path):
        return None
    for _ in range(3):
        if not path.exists() and (not create or not _made(path)):
            return None
        conn = None
        try:
            conn = _open(path, shared)
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if app_id == APPLICATION_ID and version == VERSION:
                if _schema_of(conn) == _expected_schema():
                    return conn
                raise sqlite3.DatabaseError("not the schema of this version")
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if create and app_id == 0 and version == 0 and tables == 0:
                conn.executescript(
                    f"BEGIN IMMEDIATE;{_SCHEMA}PRAGMA application_id = {APPLICATION_ID};"
                    f"PRAGMA user_version = {VERSION};COMMIT;"
                )
                return conn
        except sqlite3.OperationalError as err:
            _closed(conn)
            conn = None
            if "locked" in str(err) or "busy" in str(err):
                return None  # another process is saving it: no cache this time
            if "already exists" in str(err):
                continue  # another process made it meanwhile: look again
        except sqlite3.DatabaseError:
            pass
        _closed(conn)
        _discard(path)
        if not create:
            return None
    return None


def _closed(conn: sqlite3.Connection | None) -> None:
    if conn is not None:
        conn.close()


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction (taken at once, so two savers never interleave)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _info_json(result: ReadResult, problems: list[tuple[str, bool]], ids: list[str] | None) -> str:
    c = result.collection
    return json.dumps(
        {
            "format": result.format,
            "collection": [c.label, c.venue, c.year],
            "papers": result.papers is not None,
            "warnings": result.warnings,
            "error": result.error,
            "problems": [list(p) for p in problems],
            "ids": ids,
            # For the index's bound on its tokens, without reading every paragraph.
            "chars": sum(map(len, result.texts)),
        }
    )


def _mean_length(info: dict[str, Any], count: int) -> int | None:
    """The mean length of one file's `count` paragraphs (rounded up) from its info, None
    when it does not say."""
    chars = info.get("chars")
    return -(-chars // count) if isinstance(chars, int) and count > 0 else None


def _collection_of(info: dict[str, Any]) -> Collection:
    label, venue, year = info["collection"]
    if not isinstance(label, str) or not isinstance(venue, str | None):
        raise TypeError("collection")
    if not isinstance(year, int | None):
        raise TypeError("collection")
    return Collection(label, venue, year)


def _result_from(info: dict[str, Any], entries: list[tuple[Any, ...]]) -> Cached:
    """One file's `Cached` from its info and entries; raises on anything ill-formed."""
    texts: list[str] = []
    papers: list[Paper | None] = []
    aids: list[str] = []
    for expected, (position, text, paper, aid) in enumerate(entries, start=1):
        if position != expected or not isinstance(text, str):
            raise ValueError("entries out of order")
        texts.append(text)
        papers.append(None if paper is None else Paper.from_json(json.loads(paper)))
        if isinstance(aid, str):
            aids.append(aid)
    warnings = [str(w) for w in info["warnings"]]
    error = info["error"]
    result = ReadResult(
        str(info["format"]),
        _collection_of(info),
        texts,
        papers if info["papers"] else None,
        warnings,
        None if error is None else str(error),
    )
    problems = [(str(m), bool(f)) for m, f in info["problems"]]
    ids = aids if isinstance(info["ids"], list) and len(aids) == len(texts) else None
    return Cached(str(info["digest"]), result, problems, ids)


def _stored_from(info: dict[str, Any], texts: FileTexts) -> Cached:
    """A conference file's `Cached` without its texts (they stay in the cache: `texts`),
    from its info alone, which lists its paragraphs' ids; raises on anything ill-formed.
    (A paragraph its entries have lost is read from the file: `FileTexts.text_at`.)"""
    aids = info["ids"]
    if not all(isinstance(aid, str) for aid in aids):
        raise TypeError("ids")
    warnings = [str(w) for w in info["warnings"]]
    result = ReadResult(str(info["format"]), _collection_of(info), [], None, warnings)
    problems = [(str(m), bool(f)) for m, f in info["problems"]]
    return Cached(str(info["digest"]), result, problems, aids, texts)


class Cached:
    """One file's cached read: its digest, its reader's result, its decoding problems and,
    for conference text, each paragraph's id (hashing them again is a third of a load).
    With `stored`, the paragraphs were left in the cache (`result.texts` is empty and
    `ids` names them all)."""

    __slots__ = ("digest", "ids", "problems", "result", "stored")

    def __init__(
        self,
        digest: str,
        result: ReadResult,
        problems: list[tuple[str, bool]],
        ids: list[str] | None = None,
        stored: FileTexts | None = None,
    ) -> None:
        self.digest = digest
        self.result = result
        self.problems = problems
        self.ids = ids
        self.stored = stored


class TextReader:
    """The paragraphs kept in one cache file, read one at a time when an abstract's text
    is asked for, from any thread, and in a forked child (which opens its own connection:
    SQLite's must not cross a fork). The most recently read are kept (the detail pane
    asks for the same text several times)."""

    _RECENT = 64

    def __init__(self, path: Path) -> None:
        self.path = path
        self._reset()

    def _reset(self) -> None:
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._opened = False
        self._recent: dict[tuple[bytes, int], str] = {}

    def open(self) -> None:
        """Open the file now (from then on it is read even if it is deleted or replaced:
        each paragraph is read only from the file's entry with the digest it had)."""
        with self._lock:
            self._connection()

    def _connection(self) -> sqlite3.Connection | None:
        if not self._opened:
            self._opened = True
            self._conn = connect(self.path, create=False, shared=True)
        return self._conn

    def read(self, name: bytes, digest: str, position: int) -> str | None:
        """The paragraph at `position` of the file `name` as read with `digest`; None
        when the cache no longer holds it (or cannot be read)."""
        if os.getpid() != self._pid:
            # A forked child: the parent's lock and connection are not its own.
            self._reset()
        key = (name, position)
        with self._lock:
            found = self._recent.pop(key, None)
            if found is None:
                conn = self._connection()
                if conn is None:
                    return None
                try:
                    row = conn.execute(
                        "SELECT e.text FROM files f JOIN entries e ON e.file = f.id "
                        "WHERE f.name = ? AND f.digest = ? AND e.position = ?",
                        (name, digest, position),
                    ).fetchone()
                except sqlite3.Error:
                    return None
                if row is None or not isinstance(row[0], str):
                    return None
                found = row[0]
                if len(self._recent) >= self._RECENT:
                    del self._recent[next(iter(self._recent))]
            self._recent[key] = found
            return found

    def read_many(self, name: bytes, digest: str, positions: Sequence[int]) -> dict[int, str]:
        """The paragraphs at `positions` (ascending) of the file `name` as read with
        `digest`, by position, in one query; those the cache no longer holds are missing."""
        if os.getpid() != self._pid:
            self._reset()
        if not positions:
            return {}
        with self._lock:
            conn = self._connection()
            if conn is None:
                return {}
            try:
                rows = conn.execute(
                    "SELECT e.position, e.text FROM files f JOIN entries e ON e.file = f.id "
                    "WHERE f.name = ? AND f.digest = ? AND e.position BETWEEN ? AND ?",
                    (name, digest, positions[0], positions[-1]),
                ).fetchall()
            except sqlite3.Error:
                return {}
        wanted = set(positions)
        return {p: t for p, t in rows if p in wanted and isinstance(t, str)}


#: Reads one paragraph from a file again: (path, digest, position, id) -> text ("" if gone).
Reread = Callable[[Path, str, int, str], str]


class FileTexts:
    """The paragraphs of one conference file, left in the read cache (`StoredTexts`)."""

    __slots__ = ("_digest", "_name", "_path", "_reader", "_reread", "mean_length")

    def __init__(
        self,
        reader: TextReader,
        path: Path,
        digest: str,
        reread: Reread,
        mean_length: int | None = None,
    ) -> None:
        self._reader = reader
        self._path = path
        self._name = name_of(path)
        self._digest = digest
        self._reread = reread
        #: The paragraphs' mean length, rounded up (None: not known).
        self.mean_length = mean_length

    def text_at(self, position: int, aid: str) -> str:
        """The paragraph at `position`, whose id is `aid`: from the cache, else (the
        cache changed or went away meanwhile) from the file itself."""
        found = self._reader.read(self._name, self._digest, position)
        if found is None:
            found = self._reread(self._path, self._digest, position, aid)
        return found

    def texts_at(self, positions: Sequence[int], aids: Sequence[str]) -> list[str]:
        """The paragraphs at `positions` (ascending), whose ids are `aids`, in one read of
        the cache (each one it no longer holds as `text_at` reads it)."""
        found = self._reader.read_many(self._name, self._digest, positions)
        return [
            found[p] if p in found else self.text_at(p, aid)
            for p, aid in zip(positions, aids, strict=True)
        ]


class ReadCache:
    """The parsed files of one set of load arguments: look up by stat, store, save."""

    def __init__(
        self,
        path: Path,
        conn: sqlite3.Connection | None,
        files: dict[bytes, tuple[int, str, str, str]],
    ) -> None:
        self.path = path
        self._conn = conn
        self._files = files  # name -> (row id, stat, digest, info)
        self._kept: set[bytes] = set()
        self._new: dict[bytes, tuple[str, str, str, list[tuple[str, str | None, str | None]]]] = {}
        self._texts: TextReader | None = None

    @classmethod
    def open(cls, cache_dir: Path, args: Sequence[str | os.PathLike[str]]) -> ReadCache:
        """The cache for `args` in `cache_dir` (empty when there is none or it is unusable)."""
        path = cache_path(cache_dir, args)
        # Shared: the app opens it to read the first files and reads the rest, and saves
        # it, in a worker (one thread at a time).
        conn = connect(path, create=False, shared=True)
        files: dict[bytes, tuple[int, str, str, str]] = {}
        if conn is not None:
            try:
                for row_id, name, key, digest, info in conn.execute(
                    "SELECT id, name, stat, digest, info FROM files"
                ):
                    if isinstance(name, bytes) and all(isinstance(v, str) for v in (key, digest)):
                        files[name] = (row_id, key, digest, info)
            except sqlite3.Error:
                conn.close()
                conn, files = None, {}
                _discard(path)
        return cls(path, conn, files)

    def lookup(
        self, path: Path, st: os.stat_result, *, texts: bool = True, reread: Reread | None = None
    ) -> Cached | None:
        """The cached read of `path` if its stat is unchanged, else None. Without `texts`,
        a conference file's paragraphs are left in the cache (`Cached.stored`), and read
        with `reread` (the loader's) from the file itself when the cache loses them."""
        name = name_of(path)
        found = self._files.get(name)
        if found is None or self._conn is None or found[1] != _stat_key(st):
            return None
        row_id, _, digest, info = found
        try:
            fields = {**json.loads(info), "digest": digest}
            if (
                not texts
                and reread is not None
                and isinstance(fields["ids"], list)
                and not fields["papers"]
                and fields["error"] is None
            ):
                mean = _mean_length(fields, len(fields["ids"]))
                kept = FileTexts(self._reader(), path, digest, reread, mean)
                cached = _stored_from(fields, kept)
            else:
                entries = self._conn.execute(
                    "SELECT position, text, paper, aid FROM entries WHERE file = ? "
                    "ORDER BY position",
                    (row_id,),
                ).fetchall()
                cached = _result_from(fields, entries)
        except (sqlite3.Error, KeyError, TypeError, ValueError, AttributeError):
            return None
        self._kept.add(name)
        return cached

    def _reader(self) -> TextReader:
        """The one reader of the paragraphs left in this cache, opened before it is used."""
        if self._texts is None:
            self._texts = TextReader(self.path)
            self._texts.open()
        return self._texts

    def store(
        self,
        path: Path,
        st: os.stat_result,
        digest: str,
        result: ReadResult,
        problems: list[tuple[str, bool]],
        ids: list[str] | None = None,
    ) -> None:
        """Remember what `path` (with stat `st`, before it was read) gave."""
        papers = result.papers or [None] * len(result.texts)
        entries = [
            (
                text,
                None if paper is None else json.dumps(paper.to_json()),
                None if ids is None else ids[i],
            )
            for i, (text, paper) in enumerate(zip(result.texts, papers, strict=True))
        ]
        self._new[name_of(path)] = (
            _stat_key(st),
            digest,
            _info_json(result, problems, ids),
            entries,
        )

    def save(self) -> bool:
        """Write what changed in one transaction; never raises (a cache is optional).
        True when the cache holds what was stored (written now, or nothing to write).

        Files no longer loaded are dropped, and with any change the corpus rows
        (which point into these files' entries) are dropped too.
        """
        gone = [n for n in self._files if n not in self._kept]
        if not self._new and not gone:
            self._close()
            return True
        from tui.privatedir import ensure_dir

        try:
            ensure_dir(self.path.parent)
            conn = self._conn or connect(self.path, create=True)
            if conn is None:
                return False
            self._conn = conn
            with transaction(conn):
                # By name, inside the transaction: another process may have saved since.
                _delete_files(conn, [*gone, *self._new])
                for name, (key, digest, info, entries) in self._new.items():
                    row_id = conn.execute(
                        "INSERT INTO files(name, stat, digest, info) VALUES (?, ?, ?, ?)",
                        (name, key, digest, info),
                    ).lastrowid
                    conn.executemany(
                        "INSERT INTO entries(file, position, text, paper, aid) "
                        "VALUES (?, ?, ?, ?, ?)",
                        ((row_id, i, *entry) for i, entry in enumerate(entries, start=1)),
                    )
                conn.execute("DELETE FROM rows")
                conn.execute("DELETE FROM meta")
        except (OSError, ValueError, sqlite3.Error):
            return False
        finally:
            self._close()
        _prune(self.path)
        return True

    def stored(self, path: Path, digest: str, reread: Reread) -> FileTexts:
        """The paragraphs of `path` (read with `digest`) as kept in this cache once saved,
        read when asked for like those `lookup` leaves in it."""
        new = self._new.get(name_of(path))
        mean = None
        if new is not None and new[3]:  # saved from this object: its entries are at hand
            entries = new[3]
            mean = -(-sum(len(text) for text, _, _ in entries) // len(entries))
        return FileTexts(self._reader(), path, digest, reread, mean)

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _delete_files(conn: sqlite3.Connection, names: list[bytes]) -> None:
    for name in names:
        found = conn.execute("SELECT id FROM files WHERE name = ?", (name,)).fetchone()
        if found is not None:
            conn.execute("DELETE FROM entries WHERE file = ?", found)
            conn.execute("DELETE FROM files WHERE id = ?", found)


def _prune(keep: Path) -> None:
    """Only the `_KEEP` most recently written parsed-files caches stay (older formats go)."""
    with contextlib.suppress(OSError):
        found = []
        for entry in os.scandir(keep.parent):
            if not entry.name.startswith(_PREFIX):
                continue
            if entry.name.endswith(".json"):  # the format before SQLite: never read
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
            elif entry.name.endswith(_SUFFIX):
                found.append((entry.stat().st_mtime_ns, entry.path))
        found.sort(reverse=True)
        for _, old in found[_KEEP:]:
            if old != os.fspath(keep):
                _discard(Path(old))
