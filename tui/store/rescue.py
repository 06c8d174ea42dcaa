"""Rescue files: unsaved changes written as an importable JSON export when saving fails.

When `UserData` closes with changes it could not commit (read-only directory, disk
full, a locked or newer database), nothing may be lost: the pending changes are
written in the format `abstracts import` reads, to the first place that accepts
the file: the data directory, then the system temp directory, then the home
directory. Removals (un-bookmark, un-dismiss, mark unread, untag, delete a note or a
conflict copy) cannot be expressed by an import, which only adds; they are listed for
the user under `unsaved_removals` and otherwise ignored.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from tui.fileio import write_text_atomically
from tui.store.export import FORMAT, FORMAT_VERSION, snapshot_fields
from tui.store.operations import Operation
from tui.store.records import Snapshot
from tui.store.schema import SCHEMA_VERSION

PREFIX = "abstracts-unsaved-"


class RescueDoc:
    """A JSON export document being filled with pending operations (see `Operation.rescue`).

    `base_version(id)` is the database version a pending note text was based on; it is
    written as `base_version`, so importing the file into the same store replaces the
    note when nobody changed it since (otherwise both are kept).
    """

    def __init__(
        self, snapshots: Mapping[str, Snapshot], base_version: Callable[[str], int], reason: str
    ) -> None:
        self._snapshots = snapshots
        self.base_version = base_version
        self.records: dict[str, Snapshot] = {}
        self.state: dict[str, str] = {}
        self.doc: dict[str, Any] = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "schema": SCHEMA_VERSION,
            "exported": time.time(),
            "rescue": reason,
            "records": [],
            "bookmarks": [],
            "dismissals": [],
            "reads": [],
            "notes": [],
            "aliases": [],
            "state": self.state,
            "tags": [],
            "saved_searches": [],
            "unsaved_removals": [],
        }

    def keep(self, abstract_id: str, snap: Snapshot | None) -> None:
        """Keep the record of `abstract_id`: `snap`, else the one memory holds."""
        snap = snap or self._snapshots.get(abstract_id)
        if snap is not None:
            self.records[abstract_id] = snap

    def add(self, section: str, entry: dict[str, Any]) -> None:
        """Add an entry to a section of the export (`bookmarks`, `notes`...)."""
        self.doc[section].append(entry)

    def removal(self, entry: dict[str, Any]) -> None:
        """List a removal, which an import cannot express, under `unsaved_removals`."""
        self.doc["unsaved_removals"].append(entry)


def rescue_document(
    ops: Iterable[Operation],
    snapshots: Mapping[str, Snapshot],
    base_version: Callable[[str], int],
    reason: str,
) -> dict[str, Any]:
    """The pending `ops` as a JSON export document (see `RescueDoc`)."""
    doc = RescueDoc(snapshots, base_version, reason)
    for op in ops:
        op.rescue(doc)
    doc.doc["records"] = [{"id": i, **snapshot_fields(s)} for i, s in sorted(doc.records.items())]
    return doc.doc


def rescue_dirs(data_dir: Path) -> list[Path]:
    """Where a rescue file may go, most expected first: data dir, temp dir, home."""
    out = [data_dir]
    finders: list[Callable[[], str | Path]] = [tempfile.gettempdir, Path.home]
    for find in finders:
        with contextlib.suppress(Exception):  # no home, no temp dir: skip that place
            path = Path(find())
            if path not in out:
                out.append(path)
    return out


def write_rescue_file(
    text: str, directories: Iterable[Path], previous: Path | None = None
) -> tuple[Path | None, list[str]]:
    """Write `text` to a new private file (0600) in the first directory that takes it.

    A `previous` rescue file of this session is replaced in place first, so writing
    again on a later failure does not multiply files. Returns the path (None if no
    place worked) and the errors met on the way.
    """
    errors: list[str] = []
    name = f"{PREFIX}{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.json"
    targets = [previous] if previous is not None else []
    targets += [d / name for d in directories]
    for target in targets:
        try:
            # The file is created 0600: notes are private even in a shared temp directory.
            write_text_atomically(target, text)
        except OSError as e:
            errors.append(f"{target.parent}: {e.strerror or e}")
            continue
        return target, errors
    return None, errors
