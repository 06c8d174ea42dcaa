"""Writing a file atomically: readers see the old content or the new, never half.

The new content goes to a temporary file made with `mkstemp` in the target's own
directory (so the rename stays on one filesystem and the file is created 0600),
is flushed and fsynced, then renamed over the target with `os.replace`. On any
error the temporary file is removed and the target is left as it was.

An export (`write_export`) writes through a symlink to the file it points to and
refuses anything that is not a regular file (a device, a FIFO, a socket), which a
rename would otherwise silently replace.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import IO, Any, BinaryIO, Literal, TextIO, overload


@overload
def atomic_write(
    path: Path,
    *,
    binary: Literal[False] = False,
    prefix: str | None = None,
    suffix: str = "",
    mode: int | None = None,
) -> AbstractContextManager[TextIO]: ...


@overload
def atomic_write(
    path: Path,
    *,
    binary: Literal[True],
    prefix: str | None = None,
    suffix: str = "",
    mode: int | None = None,
) -> AbstractContextManager[BinaryIO]: ...


@contextlib.contextmanager
def atomic_write(
    path: Path,
    *,
    binary: bool = False,
    prefix: str | None = None,
    suffix: str = "",
    mode: int | None = None,
) -> Iterator[Any]:  # Any: the overloads above give callers TextIO or BinaryIO
    """Open a temporary file next to `path`; on a clean exit it replaces `path`.

    Text mode writes UTF-8 with `newline=""` (line endings exactly as given);
    `binary=True` yields a bytes file. The temporary file is named
    `prefix` + random + `suffix` (`prefix` defaults to `.<name>.`, hidden beside
    the target). If the block raises, or the flush, fsync or rename fails, the
    temporary file is removed, `path` is untouched and the error propagates.
    """
    if prefix is None:
        prefix = f".{path.name}."
    # mkstemp: 0600 (notes stay private even in a shared directory) and the same
    # filesystem as the target, so os.replace is an atomic rename.
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=path.parent)
    try:
        if binary:
            handle: IO[Any] = os.fdopen(fd, "wb")
        else:
            handle = os.fdopen(fd, "w", encoding="utf-8", newline="")
        with handle:
            yield handle
            handle.flush()
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text_atomically(path: Path, text: str) -> None:
    """Write `text` (UTF-8, line endings as given) to `path` atomically, as a 0600 file."""
    with atomic_write(path) as f:
        f.write(text)


#: What `stat` calls the files an export refuses, in words.
_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotARegularFile(OSError):
    """An export target that is not a regular file; `strerror` says what it is."""


def export_target(path: Path) -> Path:
    """The file an export to `path` writes: `path` with every symlink followed (a link
    stays a link, its target gets the new content). Raises `NotARegularFile` for a device,
    a FIFO or a socket: renaming over one would replace it, writing into one is no export."""
    real = Path(os.path.realpath(path))
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return real  # not there (yet): the write says what is wrong, if anything
    for is_kind, kind in _KINDS:
        if is_kind(mode):
            what = "it is" if real == path.absolute() else f"it leads to {real}, which is"
            raise NotARegularFile(errno.EINVAL, f"{what} {kind}, not a regular file")
    return real


def write_export(path: Path, text: str) -> Path:
    """Write an export to `path` atomically (see `export_target`) and return the file
    written. A file replaced keeps its permissions; a new one is private (0600)."""
    real = export_target(path)
    try:
        mode: int | None = stat.S_IMODE(os.stat(real).st_mode)
    except OSError:
        mode = None
    with atomic_write(real, mode=mode) as f:
        f.write(text)
    return real


def write_problem(target: Path, error: OSError) -> str:
    """Why `target` cannot be written, in words about `target` itself."""
    reason = error.strerror or str(error)
    if isinstance(error, NotARegularFile):
        return f"{reason}; nothing was written"
    parent = target.parent
    if target.is_dir():
        return "it is a directory"
    if not parent.is_dir():
        return f"the directory {parent} does not exist"
    if error.filename is not None and Path(error.filename) != target:
        # The file is written beside the target first, then renamed over it; a
        # directory that refuses new files (/proc, /sys, read-only mounts) fails there.
        return f"cannot create a file in {parent} ({reason})"
    return reason
