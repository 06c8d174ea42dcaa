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
from tui.store.records import (
    DeleteNote,
    DeleteSearch,
    DismissConflict,
    Operation,
    Reattach,
    RenameSearch,
    SaveNote,
    SaveSearch,
    SetBookmark,
    SetDismissed,
    SetRead,
    SetState,
    SetTag,
    Snapshot,
)
from tui.store.schema import SCHEMA_VERSION

PREFIX = "abstracts-unsaved-"
# A mark kept with a snapshot: the export section it goes to, and its removal's kind.
_MARKS: dict[type, tuple[str, str]] = {
    SetBookmark: ("bookmarks", "bookmark"),
    SetDismissed: ("dismissals", "dismissal"),
}


def rescue_document(
    ops: Iterable[Operation],
    snapshots: Mapping[str, Snapshot],
    base_version: Callable[[str], int],
    reason: str,
) -> dict[str, Any]:
    """The pending `ops` as a JSON export document.

    `base_version(id)` is the database version a pending note text was based on;
    it is written as `base_version`, so importing the file into the same store
    replaces the note when nobody changed it since (otherwise both are kept).
    """
    records: dict[str, Snapshot] = {}
    doc: dict[str, Any] = {
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
        "state": {},
        "tags": [],
        "saved_searches": [],
        "unsaved_removals": [],
    }
    removals: list[dict[str, Any]] = doc["unsaved_removals"]

    def keep(abstract_id: str, snap: Snapshot | None) -> None:
        snap = snap or snapshots.get(abstract_id)
        if snap is not None:
            records[abstract_id] = snap

    for op in ops:
        if isinstance(op, SetBookmark | SetDismissed):
            section, kind = _MARKS[type(op)]
            if op.on:
                keep(op.abstract_id, op.snapshot)
                doc[section].append({"id": op.abstract_id, "created": op.at})
            else:
                removals.append({"kind": kind, "id": op.abstract_id})
        elif isinstance(op, SetTag):
            if op.on:
                keep(op.abstract_id, op.snapshot)
                doc["tags"].append({"id": op.abstract_id, "tag": op.tag, "created": op.at})
            else:
                removals.append({"kind": "tag", "id": op.abstract_id, "tag": op.tag})
        elif isinstance(op, SetRead):
            if op.on:
                doc["reads"].append({"id": op.abstract_id, "read_at": op.at})
            else:
                removals.append({"kind": "read", "id": op.abstract_id})
        elif isinstance(op, SaveNote):
            keep(op.abstract_id, op.snapshot)
            base = base_version(op.abstract_id)
            doc["notes"].append(
                {
                    "id": op.abstract_id,
                    "text": op.text,
                    "version": base,
                    "base_version": base,
                    "updated": op.at,
                }
            )
        elif isinstance(op, DeleteNote):
            removals.append({"kind": "note", "id": op.abstract_id})
        elif isinstance(op, DismissConflict):
            removals.append({"kind": "conflict_copy", "copy_id": op.copy_id})
        elif isinstance(op, SetState):
            doc["state"][op.key] = op.value
        elif isinstance(op, Reattach):
            keep(op.new_id, op.snapshot)
            doc["aliases"].append({"old_id": op.old_id, "new_id": op.new_id})
        elif isinstance(op, SaveSearch | RenameSearch):
            name = op.name if isinstance(op, SaveSearch) else op.new
            search = {"name": name, "query": op.query, "sort": op.sort, "updated": op.at}
            doc["saved_searches"].append(search)
            if isinstance(op, RenameSearch):
                removals.append({"kind": "saved_search", "name": op.old})
        elif isinstance(op, DeleteSearch):
            removals.append({"kind": "saved_search", "name": op.name})
    doc["records"] = [{"id": i, **snapshot_fields(s)} for i, s in sorted(records.items())]
    return doc


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
