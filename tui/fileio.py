"""Writing a file atomically: readers see the old content or the new, never half.

The new content goes to a temporary file made with `mkstemp` in the target's own
directory (so the rename stays on one filesystem and the file is created 0600),
is flushed and fsynced, then renamed over the target with `os.replace`. On any
error the temporary file is removed and the target is left as it was.
"""

from __future__ import annotations

import contextlib
import os
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
) -> AbstractContextManager[TextIO]: ...


@overload
def atomic_write(
    path: Path,
    *,
    binary: Literal[True],
    prefix: str | None = None,
    suffix: str = "",
) -> AbstractContextManager[BinaryIO]: ...


@contextlib.contextmanager
def atomic_write(
    path: Path,
    *,
    binary: bool = False,
    prefix: str | None = None,
    suffix: str = "",
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
