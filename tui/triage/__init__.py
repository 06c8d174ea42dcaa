"""Triage helpers the UI calls: next unread, undo/redo, progress text and the overview.

Pure functions and small classes over indices and id sets; nothing here reads
the disk or imports Textual (enforced by tests/test_import_hygiene.py).
"""

from tui.triage.navigation import next_unread, progress
from tui.triage.overview import (
    CountRow,
    bar,
    collection_rows,
    distinctive_terms,
    file_rows,
)
from tui.triage.undo import (
    Action,
    Compound,
    CorpusTarget,
    SetBookmarks,
    SetRead,
    Target,
    UndoStack,
    redo_notice,
    undo_notice,
)

__all__ = [
    "Action",
    "Compound",
    "CorpusTarget",
    "CountRow",
    "SetBookmarks",
    "SetRead",
    "Target",
    "UndoStack",
    "bar",
    "collection_rows",
    "distinctive_terms",
    "file_rows",
    "next_unread",
    "progress",
    "redo_notice",
    "undo_notice",
]
