"""Export from the reader: the dialog's defaults and checks, and the writing.

The text is made by `tui.store.exporting` from the store as saved (the store is
flushed first), as `abstracts export` makes it, and written atomically by a thread
worker. An existing file is never replaced; nothing to export writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from tui import locations

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from tui.corpus.model import Abstract
    from tui.session import Session
    from tui.ui.host import Host
    from tui.ui.screens.export import ExportRequest

#: What "nothing to export" means, per scope.
NOTHING = {
    "bookmarked": "no abstract is bookmarked",
    "notes": "no abstract has a note",
    "list": "the list is empty",
    "all": "no bookmarks or notes yet",
}


class ExportController:
    """The palette's Export…: opens the dialog and writes what it asks for."""

    def __init__(self, session: Session, app: Host) -> None:
        self.session = session
        self.app = app

    def default_path(self) -> Path:
        """A new file name in the documents folder (or the data directory)."""
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        return locations.export_dir(self.session.data_dir) / f"abstracts-{stamp}.md"

    def problem(self, request: ExportRequest) -> str | None:
        """Why the dialog cannot export to `request.path` (None: it can)."""
        path = request.path
        if not path.name:
            return "Give a file name."
        if path.exists():
            return f"{path} exists: choose another name (an existing file is never replaced)."
        if not path.parent.is_dir():
            return f"The folder {path.parent} does not exist."
        return None

    def commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Export…",
            "Bookmarks, notes or the current list as Markdown, JSON, BibTeX or CSV",
            self.open_dialog,
        )

    def open_dialog(self) -> None:
        app = self.app
        if self.session.user.userdata is None:
            app.notify("Your data is still opening; try again in a moment.", timeout=3)
            return
        from tui.ui.screens.export import ExportScreen

        app.push_screen(
            ExportScreen(
                self.default_path(), check=self.problem, list_size=len(app.abstract_list.rows)
            ),
            self._chosen,
        )

    def _chosen(self, request: ExportRequest | None) -> None:
        if request is None:
            return
        app = self.app
        # Read on the UI thread: the list may change while the worker runs.
        shown = [self.session.corpus.abstracts[i] for i in app.abstract_list.rows]
        app.run_worker(
            lambda: self._write(request, shown), thread=True, exclusive=True, group="export"
        )

    def _write(self, request: ExportRequest, shown: list[Abstract]) -> None:
        import sqlite3  # here, not at the top: nothing of the store is needed to paint

        from tui.fileio import write_export, write_problem
        from tui.store.db import StoreError
        from tui.store.exporting import NoStore, read_saved, render
        from tui.store.records import Snapshot

        if (data := self.session.user.userdata) is not None:
            data.flush(timeout=5)
        scope = request.scope
        try:
            stored, notices = read_saved(self.session.data_dir)
        except NoStore:
            stored, notices = None, []
        except (StoreError, sqlite3.Error) as e:
            self._tell(f"Export failed: {e}", severity="error")
            return
        for notice in notices:  # a notification: stderr is the terminal the app draws on
            self._tell(notice, severity="warning")
        text = None
        if stored is not None or scope == "list":
            from tui.store.records import StoreData

            stored = stored if stored is not None else StoreData()
            ids = None
            if scope == "list":
                ids = [a.id for a in shown]
                for abstract in shown:  # rows never marked have no record yet
                    stored.records.setdefault(abstract.id, Snapshot.of(abstract))
            text = render(
                stored,
                request.fmt,
                bookmarked=scope == "bookmarked",
                with_notes=scope == "notes",
                ids=ids,
            )
        if text is None:
            self._tell(f"Nothing to export: {NOTHING[scope]}. No file was written.")
            return
        path = request.path
        if path.exists():  # created since the dialog checked: still never replaced
            self._tell(f"{path} exists: nothing was written.", severity="warning")
            return
        try:
            write_export(path, text)
        except OSError as e:
            self._tell(f"Cannot write {path}: {write_problem(path, e)}", severity="error")
            return
        self._tell(str(path), title="Exported")

    def _tell(
        self, message: str, *, title: str = "Export", severity: SeverityLevel = "information"
    ) -> None:
        from tui.sanitize import visible_line

        app = self.app
        text = visible_line(message)
        app.post(lambda: app.notify(text, title=title, severity=severity, timeout=8, markup=False))
