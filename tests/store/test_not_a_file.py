"""A database path that is not a regular file: a folder, a FIFO, a socket, a device.

Each is refused before anything opens it (reading a FIFO waits for a writer that never
comes: the app hung at start) and left where it is: it is not a damaged database, and
not the user's data. Saving is unavailable, and the notice says what the path is.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.store.test_opening import _unavailable
from tui.store.db import Store, StoreUnavailable
from tui.store.userdata import UserData


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (Path.mkdir, "a folder"),
        (os.mkfifo, "a FIFO (named pipe)"),
        (_socket, "a socket"),
        (lambda path: path.symlink_to(os.devnull), "a device"),
    ],
    ids=["folder", "fifo", "socket", "device"],
)
def test_a_database_path_that_is_not_a_file_says_what_it_is(
    tmp_path: Path, make: Callable[[Path], None], kind: str
) -> None:
    """Refused before anything opens it (reading a FIFO waits for ever), and left there."""
    make(tmp_path / "abstracts.db")
    why = f"it is {kind}, not a regular file"
    data = UserData.open(tmp_path)
    try:
        assert data.notices == [_unavailable(f"Cannot open {tmp_path / 'abstracts.db'}: {why}")]
        with pytest.raises(StoreUnavailable, match=f"Cannot read .*: {re.escape(why)}$"):
            Store.open(tmp_path, read_only=True)
    finally:
        data.close(timeout=0.2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["abstracts.db"]
