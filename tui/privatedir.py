"""Folders only this user can use: where caches are written and read from.

A cache is trusted as it is read (it says what was parsed or built), so it is read
only from a folder this user owns and nobody else can write; kept apart from
`tui.cachefile` so the start-up path (the parsed-files cache) need not import NumPy.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


def is_private(folder: Path) -> bool:
    """True when `folder` is a folder only its owner (this user) can use, made so if ours."""
    try:
        st = os.stat(folder)
        if not stat.S_ISDIR(st.st_mode):
            return False
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            return False
        if st.st_mode & 0o077:
            os.chmod(folder, 0o700)
        return True
    except OSError:
        return False


def ensure_dir(folder: Path) -> None:
    """Create `folder` (and missing parents) with mode 0700; tighten an existing one.

    Raises OSError when it cannot be made a private folder of this user.
    """
    missing = []
    current = folder
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for new in reversed(missing):
        with contextlib.suppress(FileExistsError):
            new.mkdir(mode=0o700)
    if not is_private(folder):
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(f"{folder} is not a folder")
        raise PermissionError(f"{folder} is not a private folder of this user")
