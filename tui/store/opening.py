"""Opening `abstracts.db`: creating it, setting damaged files aside, refusing newer schemas.

Opening never destroys anything: a corrupt file is renamed aside with its bytes
untouched, and a file from a newer schema is opened read-only and left unchanged.
A database abstracts did not make (tables or columns no version of the schema has)
is never modified either: opened for writing, it is renamed aside untouched like a
corrupt one (`abstracts.db.not-abstracts-<timestamp>`) and the user told; opened
read-only (export), it is refused with a message naming it. A database that cannot
be read in place (a WAL file in a directory SQLite cannot write its -shm file to)
is read from a private copy. `db.Store.open` calls `open_database` and wraps the
connection it returns.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from tui.locations import database_path
from tui.store import schema
from tui.store.strict import replaced_notice

BUSY_TIMEOUT_MS = 15_000
_MAGIC = b"SQLite format 3\x00"
_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26


class StoreError(Exception):
    """A problem with the store, with a message ready to show the user."""


class StoreUnavailable(StoreError):
    """The database cannot be opened for writing (directory unwritable, permission denied...)."""


class StoreReadOnly(StoreError):
    """The database is open read-only (a newer schema); writes are refused."""


@dataclass(frozen=True, slots=True)
class Opened:
    """An open connection and what the user should be told about opening it."""

    conn: sqlite3.Connection
    path: Path
    notices: list[str]
    #: Why writes are refused, or None when the database is writable.
    read_only: str | None
    #: A private copy read instead of the database (removed on close), or None.
    copy_dir: Path | None = None


class _Foreign(Exception):
    """The database was not made by abstracts; the message says why."""


def is_corruption(error: sqlite3.Error) -> bool:
    """Whether an sqlite error means the file is damaged (as opposed to locked or unwritable)."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return True
    text = str(error).lower()
    return "malformed" in text or "not a database" in text


def _is_busy(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    return (code is not None and code & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED)) or (
        "locked" in str(error)
    )


def _refuse_special(path: Path) -> None:
    """Raise OSError when `path` is there and is not a regular file.

    Checked before anything opens it: opening a FIFO for reading waits for a writer
    that never comes, and the app would hang at start. Nothing is set aside: a folder,
    FIFO, socket or device is not a damaged database, and not the user's data.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISREG(mode):
        return
    kind = (
        "a folder"
        if stat.S_ISDIR(mode)
        else "a FIFO (named pipe)"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
    )
    raise OSError(f"it is {kind}, not a regular file")


def _header(path: Path) -> tuple[bool, int]:
    """(looks like SQLite, user_version from the header) without opening the database."""
    with path.open("rb") as f:
        head = f.read(100)
    if not head:
        return True, 0  # an empty file is a new database to SQLite; nothing to keep
    if len(head) < 100 or not head.startswith(_MAGIC):
        return False, 0
    return True, int.from_bytes(head[60:64], "big", signed=True)


def set_aside(path: Path, label: str = "corrupt") -> Path:
    """Rename a damaged database (and its -wal/-shm) to `<name>.<label>-<timestamp>`."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{label}-{stamp}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.{label}-{stamp}-{n}")
        n += 1
    os.replace(path, target)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.replace(side, target.with_name(target.name + suffix))
    return target


def _connect(path: Path, read_only: bool) -> sqlite3.Connection:
    if read_only:
        uri = f"file:{quote(str(path))}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    else:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def _quick_check(conn: sqlite3.Connection) -> str:
    return str(conn.execute("PRAGMA quick_check").fetchone()[0])


def open_database(directory: Path, *, read_only: bool = False) -> Opened:
    """Open (creating if needed) `abstracts.db` in `directory`.

    A damaged file is set aside and a fresh database started (see `notices`); a
    newer schema opens read-only. Raises `StoreUnavailable` when the database
    cannot be opened at all.
    """
    notices: list[str] = []
    path = database_path(directory)
    if read_only:
        return _open_read_only(path, notices, "it was opened read-only")
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as e:
        raise StoreUnavailable(
            f"Cannot create the data directory {directory}: {e.strerror or e}"
        ) from e
    corrupt_seen = foreign_seen = False
    # Where a file was set aside, said again if opening then fails: the notice saying it
    # is lost with the store that could not be opened.
    moved = ""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            return _open_writable(path, notices)
        except sqlite3.DatabaseError as e:
            # Switching to WAL, or reading while another process recovers the WAL,
            # can report "locked" without consulting the busy timeout: wait and retry.
            if _is_busy(e) and time.monotonic() < deadline:
                time.sleep(0.02)
                continue
            if not is_corruption(e) or corrupt_seen:
                raise StoreUnavailable(f"Cannot open {path}: {e}{moved}") from e
            corrupt_seen = True
            aside = set_aside(path)
            notices.append(
                f"The database {path.name} was damaged ({e}). It was renamed to "
                f"{aside.name}, unchanged, and a new empty store was started."
            )
            moved = f" (the damaged file was first renamed to {aside.name}, unchanged)"
        except _Foreign as e:
            if foreign_seen:
                raise StoreUnavailable(f"Cannot open {path}: {e}{moved}") from e
            foreign_seen = True
            aside = set_aside(path, "not-abstracts")
            notices.append(
                f"The file {path} is not an abstracts database ({e}). It was renamed to "
                f"{aside.name}, unchanged, and a new empty store was started."
            )
            moved = f" (the file, not an abstracts database, was first renamed to {aside.name}, unchanged)"
        except OSError as e:
            raise StoreUnavailable(f"Cannot open {path}: {e.strerror or e}{moved}") from e


def _open_writable(path: Path, notices: list[str]) -> Opened:
    _refuse_special(path)
    if path.exists():
        looks_ok, version = _header(path)
        if not looks_ok:
            raise sqlite3.DatabaseError("file is not a database")
        if version > schema.SCHEMA_VERSION:
            return _open_newer(path, notices, version)
    else:
        # Created here, 0600, before SQLite sees it; another instance may win the race.
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    # Probe read-only first: a writable connection may reset a -wal it finds invalid,
    # and a damaged database is to be set aside exactly as it was.
    probe = _connect(path, read_only=True)
    try:
        # One read transaction: the version and the tables come from the same moment. Read
        # apart, another instance's migration committed in between made a new store look
        # like a stranger's file, and it was set aside under that instance's feet.
        probe.execute("BEGIN")
        version = int(probe.execute("PRAGMA user_version").fetchone()[0])
        if version > schema.SCHEMA_VERSION:
            return _open_newer(path, notices, version)
        check = _quick_check(probe)
        if check != "ok":
            raise sqlite3.DatabaseError(f"database disk image is malformed: {check}")
        # Before anything writes (even the switch to WAL): never modify a stranger's file.
        foreign = schema.foreign_reason(probe, version)
        if foreign is not None:
            raise _Foreign(foreign)
    finally:
        probe.close()
    conn = _connect(path, read_only=False)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        # 32 MB of page cache rather than 2: tagging 100,000 abstracts writes three
        # B-trees of that size, and a small cache re-reads their pages all the time.
        conn.execute("PRAGMA cache_size = -32768")
        _migrate(conn, notices)
    except BaseException:
        conn.close()
        raise
    return Opened(conn, path, notices, None)


def _migrate(conn: sqlite3.Connection, notices: list[str]) -> None:
    replaced: list[str] = []
    schema.migrate(conn, replaced)
    notice = replaced_notice(replaced)
    if notice is not None:
        notices.append(notice)


def _open_newer(path: Path, notices: list[str], version: int) -> Opened:
    reason = (
        f"{path} was written by a newer version of abstracts (schema {version}; this "
        f"version understands {schema.SCHEMA_VERSION}). It is left unchanged and open "
        "read-only: changes made now are not saved. Update abstracts to save again."
    )
    notices.append(reason)
    return _open_read_only(path, notices, reason)


def _open_read_only(path: Path, notices: list[str], reason: str) -> Opened:
    try:
        _refuse_special(path)
    except OSError as e:
        raise StoreUnavailable(f"Cannot read {path}: {e.strerror or e}") from e
    try:
        conn = _connect(path, read_only=True)
    except sqlite3.Error as e:
        raise StoreUnavailable(f"Cannot read {path}: {e}") from e
    try:
        if _check_readable(conn, path) < schema.SCHEMA_VERSION:
            return Opened(_migrated_copy(conn, notices), path, notices, reason)
        return Opened(conn, path, notices, reason)
    except sqlite3.Error as e:
        conn.close()
        if is_corruption(e):
            raise StoreUnavailable(f"Cannot read {path}: {e}") from e
        problem = e
    except BaseException:
        conn.close()
        raise
    # A WAL database is read through its -shm file, which a read-only connection
    # cannot create in a directory it cannot write to: read a private copy instead.
    try:
        conn, copy_dir, version = _open_copy(path)
    except (OSError, sqlite3.Error) as e:
        raise StoreUnavailable(f"Cannot read {path}: {problem}") from e
    try:
        if version < schema.SCHEMA_VERSION:
            conn = _migrated_copy(conn, notices)
    except sqlite3.Error as e:
        shutil.rmtree(copy_dir, ignore_errors=True)
        raise StoreUnavailable(f"Cannot read {path}: {e}") from e
    return Opened(conn, path, notices, reason, copy_dir)


def _migrated_copy(conn: sqlite3.Connection, notices: list[str]) -> sqlite3.Connection:
    """A store of an older schema, opened read-only, read as this version reads it: copied
    into memory and migrated there (`conn` is closed; the file is never written)."""
    copy = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    try:
        conn.backup(copy)
        _migrate(copy, notices)
    except BaseException:
        copy.close()
        raise
    finally:
        conn.close()
    return copy


def _check_readable(conn: sqlite3.Connection, path: Path) -> int:
    """Read the schema (the first read that needs the -shm file); refuse a stranger's file.

    The version and the tables are read in one read transaction, as `_open_writable`'s
    probe does: read apart, another instance's migration committed in between made a new
    store look like a stranger's file. Returns the schema version.
    """
    conn.execute("BEGIN")
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        foreign: str | None = None
        if version <= schema.SCHEMA_VERSION:
            foreign = schema.foreign_reason(conn, version)
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    if foreign is not None:
        raise StoreUnavailable(
            f"{path} is not an abstracts database ({foreign}); it was left unchanged."
        )
    return version


def _open_copy(path: Path) -> tuple[sqlite3.Connection, Path, int]:
    """Copy the database and its -wal (what a reader needs) into a private temp folder."""
    copy_dir = Path(tempfile.mkdtemp(prefix="abstracts-readonly-"))
    try:
        for suffix in ("", "-wal"):
            source = path.with_name(path.name + suffix)
            if source.is_file():
                shutil.copyfile(source, copy_dir / source.name)
        conn = _connect(copy_dir / path.name, read_only=False)
        try:
            version = _check_readable(conn, path)
        except BaseException:
            conn.close()
            raise
    except BaseException:
        shutil.rmtree(copy_dir, ignore_errors=True)
        raise
    return conn, copy_dir, version
