"""The corpus rows: what the command line prints of each abstract, kept with the parsed files.

A command on unchanged files should answer without reading, parsing and merging
every file, nor holding every text: `abstracts search` prints ten rows of a
hundred thousand. So next to the parsed files (`tui.corpus.readcache`, the same
SQLite file) this keeps one row per abstract of the loaded corpus, in corpus
order: its id, collection, first source, headline, rendered text when it differs
from the source (most abstracts have no LaTeX), paper (as JSON), where its
source text is, and the line a command prints of it whole (its JSON: encoding
100,000 texts again was most of `abstracts list --json`). With the rows come the corpus's fingerprint, the digest of its
ids and its load problems, and what they were made from: the files the arguments
named (each with its size, modification and change times, inode, device and
mode) and the problems of naming them. `open_fresh` checks those by `stat()`
alone; any difference (a file added, removed, touched, replaced) means the rows
are not used, and whatever is wrong with them (missing, damaged, a different
program version) means the same.

They are written by a command that had to load the corpus, and by the app's cache
child (`tui.caches`) after its other caches, so a command run after the app answers
from them too. `save` writes them a block at a time, each block in a short
transaction (the app reads abstracts' texts from the same file meanwhile), and the
meta row that makes them fresh last: rows cut short are never used.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui import __version__
from tui.corpus.jsonrow import json_row
from tui.corpus.load import expand_paths
from tui.corpus.model import (
    Abstract,
    Collection,
    Corpus,
    LoadProblem,
    SourceRef,
    ids_digest,
    texts_held,
)
from tui.corpus.paper import Paper
from tui.corpus.readcache import cache_path, connect, name_of, transaction
from tui.sanitize import json_line

ROWS_VERSION = 1
_META = "rows"
_WRITING = "rows-writing"  # the token of the process writing rows now (see `save`)
#: Rows made and written at once, in one transaction each: the app reads abstracts' texts
#: from the same file meanwhile (it waits at most the busy timeout, 2 s, for a writer).
WRITE_ROWS = 2_000
_CHUNK = 500  # rows asked for at once (SQLite allows 32,766 parameters)


class RowsError(Exception):
    """The rows on disk are not what they claim (damaged or altered): load instead."""


def _render_version() -> int:
    from tui.corpus import latex

    return int(getattr(latex, "RENDER_VERSION", 0))


def _problems_json(problems: Iterable[LoadProblem]) -> list[list[Any]]:
    return [[os.fspath(p.path), p.message, p.fatal] for p in problems]


def _problems_from(data: Any) -> list[LoadProblem]:
    return [LoadProblem(Path(str(p)), str(m), bool(f)) for p, m, f in data]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the arguments named, before loading: the files with their stat, and the
    problems of naming them. Taken before the files are read, so a file changed while
    it was being read makes the rows stale rather than wrong."""

    names: list[str]
    keys: list[list[int] | None]
    problems: list[list[Any]]

    @classmethod
    def take(cls, args: Sequence[str | os.PathLike[str]]) -> Snapshot:
        files, problems = expand_paths(args)
        keys: list[list[int] | None] = []
        for path in files:
            try:
                st = os.stat(path)
            except OSError:
                keys.append(None)
                continue
            keys.append(
                [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, st.st_mode]
            )
        return cls([os.fsdecode(p) for p in files], keys, _problems_json(problems))

    def as_json(self) -> dict[str, Any]:
        return {"names": self.names, "keys": self.keys, "problems": self.problems}


def _expected_meta() -> dict[str, Any]:
    """What rows must have been written by to be read: this format, program and rendering."""
    return {"format": ROWS_VERSION, "program": __version__, "render": _render_version()}


class Rows:
    """The fresh rows of one corpus (see `open_fresh`); close when done."""

    def __init__(self, conn: sqlite3.Connection, meta: dict[str, Any]) -> None:
        self._conn = conn
        self.count: int = meta["count"]
        self.fingerprint: str = meta["fingerprint"]
        self.ids_digest: str = meta["ids"]
        self.problems = _problems_from(meta["problems"])

    def close(self) -> None:
        self._conn.close()

    def ids(self) -> list[str]:
        """Every abstract's id in corpus order; raises RowsError unless they are the
        ones the rows were written with (their digest)."""
        try:
            ids = [row[0] for row in self._conn.execute("SELECT id FROM rows ORDER BY idx")]
        except sqlite3.Error as err:
            raise RowsError(str(err)) from err
        if len(ids) != self.count or ids_digest(ids) != self.ids_digest:
            raise RowsError("the ids are not those the rows were written with")
        return ids

    def lines(self) -> Iterator[tuple[str, str]]:
        """Every abstract's id and its line (see `save`), in corpus order; raises RowsError
        on a row that is missing or ill-formed."""
        count = 0
        try:
            for idx, aid, line in self._conn.execute("SELECT idx, id, line FROM rows ORDER BY idx"):
                if idx != count or type(aid) is not str or type(line) is not str:
                    raise RowsError(f"row {count} is ill-formed")
                yield aid, line
                count += 1
        except sqlite3.Error as err:
            raise RowsError(str(err)) from err
        if count != self.count:
            raise RowsError("rows are missing")

    def abstracts(self, indices: Iterable[int] | None, text: bool) -> Iterator[Abstract]:
        """The abstracts at `indices` (None: all, in order) as far as printing needs them:
        id, collection, first source, headline and paper; with `text`, the source text and
        its rendering too (else `text` is empty: use only what was asked for).
        Raises RowsError on a row that is missing or ill-formed."""
        columns = "r.idx, r.id, r.label, r.venue, r.year, r.path, r.position, r.headline, r.paper"
        if text:
            columns += ", COALESCE(r.text, e.text), r.plain"
            source = "rows r LEFT JOIN entries e ON e.file = r.file AND e.position = r.position"
        else:
            source = "rows r"
        shared = _Shared()
        try:
            if indices is None:
                query = f"SELECT {columns} FROM {source} ORDER BY r.idx"
                count = 0
                for row in self._conn.execute(query):
                    yield _abstract(row, count, text, shared)
                    count += 1
                if count != self.count:
                    raise RowsError("rows are missing")
                return
            wanted = list(indices)
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT {columns} FROM {source} WHERE r.idx IN ({marks})"
                found = {row[0]: row for row in self._conn.execute(query, chunk)}
                for i in chunk:
                    if i not in found:
                        raise RowsError(f"row {i} is missing")
                    yield _abstract(found[i], i, text, shared)
        except sqlite3.Error as err:
            raise RowsError(str(err)) from err


class _Shared:
    """The few distinct collections and paths the rows name, made once each."""

    def __init__(self) -> None:
        self.collections: dict[tuple[str, str | None, int | None], Collection] = {}
        self.paths: dict[bytes, Path] = {}

    def collection(self, label: str, venue: str | None, year: int | None) -> Collection:
        key = (label, venue, year)
        made = self.collections.get(key)
        if made is None:
            made = self.collections[key] = Collection(label, venue, year)
        return made

    def path(self, name: bytes) -> Path:
        made = self.paths.get(name)
        if made is None:
            made = self.paths[name] = Path(os.fsdecode(name))
        return made


_OPTIONAL_TEXT = (str, type(None))
_OPTIONAL_INT = (int, type(None))


def _abstract(row: tuple[Any, ...], expected: int, text: bool, shared: _Shared) -> Abstract:
    idx, aid, label, venue, year, path, position, headline, paper = row[:9]
    if (
        idx != expected
        or type(aid) is not str
        or type(label) is not str
        or type(headline) is not str
        or type(path) is not bytes
        or type(position) is not int
        or not isinstance(venue, _OPTIONAL_TEXT)
        or not isinstance(year, _OPTIONAL_INT)
        or not isinstance(paper, _OPTIONAL_TEXT)
    ):
        raise RowsError(f"row {expected} is ill-formed")
    source_text, plain = (row[9], row[10]) if text else ("", None)
    if type(source_text) is not str or not isinstance(plain, _OPTIONAL_TEXT):
        raise RowsError(f"row {expected} has no text")
    try:
        parsed = None if paper is None else Paper.from_json(json.loads(paper))
    except (ValueError, TypeError, AttributeError) as err:
        raise RowsError(f"row {expected}'s paper is ill-formed") from err
    return Abstract(
        aid,
        source_text,
        shared.collection(label, venue, year),
        [SourceRef(shared.path(path), position)],
        idx,
        _plain=(source_text if plain is None else plain) if text else None,
        _headline=headline,
        paper=parsed,
    )


def open_fresh(cache_dir: Path, args: Sequence[str | os.PathLike[str]]) -> Rows | None:
    """The rows of the corpus `args` load, when they were written by this program from
    exactly the files on disk now (checked by stat); else None. Never raises."""
    conn = connect(cache_path(cache_dir, args), create=False)
    if conn is None:
        return None
    try:
        found = conn.execute("SELECT value FROM meta WHERE key = ?", (_META,)).fetchone()
        meta = json.loads(found[0]) if found is not None else None
        if (
            isinstance(meta, dict)
            and all(meta.get(k) == v for k, v in _expected_meta().items())
            and meta.get("made_from") == Snapshot.take(args).as_json()
            and isinstance(meta.get("count"), int)
            and isinstance(meta.get("fingerprint"), str)
            and isinstance(meta.get("ids"), str)
        ):
            rows = Rows(conn, meta)
            return rows
    except (sqlite3.Error, ValueError, TypeError, KeyError):
        pass
    conn.close()
    return None


def _files(conn: sqlite3.Connection) -> dict[str, tuple[int, list[int]]]:
    """Each parsed file's row id and stat key, by path."""
    return {
        os.fsdecode(name): (row_id, json.loads(key))
        for row_id, name, key in conn.execute("SELECT id, name, stat FROM files")
    }


def save(
    cache_dir: Path, args: Sequence[str | os.PathLike[str]], corpus: Corpus, before: Snapshot
) -> bool:
    """Write the rows of `corpus`, loaded from `args` (with the parsed-files cache in
    `cache_dir`) after `before` was taken, each with the line a command prints of it
    whole (`json_line(json_row(abstract))`). Nothing is written when the rows there are
    already these. False when they could not be written (no cache, the parsed files
    changed meanwhile, another process took over the writing); never raises.

    The rows are made and written a block at a time (`WRITE_ROWS`), each block's texts
    held only while it is made (see `texts_held`: the cache child's corpus leaves them in
    the parsed-files cache), each block in its own short transaction: the app reads texts
    from this file meanwhile. The meta row that makes the rows fresh is written last, so
    rows cut short (a process killed between blocks) are never taken as fresh."""
    conn = connect(cache_path(cache_dir, args), create=False)
    if conn is None:
        return False
    try:
        # A block's pages stay in memory until its commit, so readers are locked out only
        # while it commits (SQLite's 2 MB cache would write them out, and lock, mid-block);
        # the cache goes back to its size after.
        conn.execute("PRAGMA cache_spill = OFF")
        return _write(conn, corpus, before)
    except (sqlite3.Error, ValueError, TypeError, KeyError, OSError):
        return False
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.close()


def _write(conn: sqlite3.Connection, corpus: Corpus, before: Snapshot) -> bool:
    files = _files(conn)
    stats = dict(zip(before.names, before.keys, strict=True))
    for info in corpus.files:
        kept = files.get(os.fspath(info.path))
        now = stats.get(os.fspath(info.path))
        # The parsed files must be the ones read after the snapshot.
        if kept is None or now is None or kept[1] != [now[0], now[1], now[3], now[4]]:
            return False
    meta = {
        **_expected_meta(),
        "made_from": before.as_json(),
        "count": len(corpus.abstracts),
        "fingerprint": corpus.fingerprint,
        "ids": ids_digest(corpus.ids),
        "problems": _problems_json(corpus.problems),
    }
    found = conn.execute("SELECT value FROM meta WHERE key = ?", (_META,)).fetchone()
    if found is not None and json.loads(found[0]) == meta:
        return True  # another process wrote these very rows meanwhile
    # Whoever starts writing rows later (or saves other parsed files, which drops the
    # rows) replaces this token: then this writer stops.
    token = secrets.token_hex(8)
    with transaction(conn):
        if _files(conn) != files:
            return False  # another process saved other files meanwhile
        conn.execute("DELETE FROM meta WHERE key = ?", (_META,))
        conn.execute("DELETE FROM rows")
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (_WRITING, token))
    abstracts = corpus.abstracts
    for start in range(0, len(abstracts), WRITE_ROWS):
        block = abstracts[start : start + WRITE_ROWS]
        with texts_held(block):
            made = [_row(a, files[os.fspath(a.source.path)][0]) for a in block]
        if not _write_block(conn, token, made):
            return False
    with transaction(conn):
        if not _still_writing(conn, token):
            return False
        conn.execute("DELETE FROM meta WHERE key = ?", (_WRITING,))
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (_META, json.dumps(meta))
        )
    return True


def _row(a: Abstract, file_id: int) -> tuple[Any, ...]:
    """One abstract's row (its text held: see `texts_held`); `file_id`: its first file's."""
    first = a.source
    plain = a.plain
    return (
        a.index,
        a.id,
        a.collection.label,
        a.collection.venue,
        a.collection.year,
        name_of(first.path),
        first.position,
        a.headline,
        None if plain == a.text else plain,
        None if a.paper is None else json.dumps(a.paper.to_json()),
        file_id,
        # Merged abstracts may carry another source's text (a longer copy).
        a.text if len(a.sources) > 1 else None,
        json_line(json_row(a)),
    )


def _still_writing(conn: sqlite3.Connection, token: str) -> bool:
    found = conn.execute("SELECT value FROM meta WHERE key = ?", (_WRITING,)).fetchone()
    return found is not None and found[0] == token


def _write_block(conn: sqlite3.Connection, token: str, rows: list[tuple[Any, ...]]) -> bool:
    """One block of rows in one transaction; False when another writer took over."""
    with transaction(conn):
        if not _still_writing(conn, token):
            return False
        conn.executemany("INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return True
