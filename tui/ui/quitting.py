"""Quitting the app: what is saved, in which order, and the bound on it.

The app owns one `QuitSequence` and calls it from `action_quit` and `on_unmount`.
Its `guard` (a `ShutdownGuard`, installed by the command line) turns SIGTERM,
SIGHUP and SIGINT into the same quit, and ends the process within a bound once
`finish` has flushed the store, whatever hangs after that.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from tui.ui.crash import EXIT_CRASHED
from tui.ui.shutdown import EXIT_OK, EXIT_UNSAVED, ShutdownGuard

if TYPE_CHECKING:
    from tui.ui.controllers.notes import NotesController
    from tui.ui.controllers.personal import PersonalController
    from tui.ui.controllers.triage import TriageController
    from tui.ui.host import Host


class QuitSequence:
    """The app's side of quitting."""

    def __init__(
        self,
        app: Host,
        notes: NotesController,
        personal: PersonalController,
        triage: TriageController,
    ) -> None:
        self._app = app
        self._notes, self._personal, self._triage = notes, personal, triage
        self.guard = ShutdownGuard()
        #: Set once saving for the quit has started: it happens once.
        self.finished = False

    def attach(self) -> None:
        """In the app's loop, once mounted: signals quit as `q` does, saving first."""
        if not self.guard.installed:
            return
        app, loop = self._app, asyncio.get_running_loop()
        self.guard.emergency = self._emergency_flush
        self.guard.request_quit = lambda: loop.call_soon_threadsafe(app.call_later, app.action_quit)
        if self.guard.pending_request():  # a signal came during start
            app.call_later(app.action_quit)

    def finish(self) -> int:
        """Everything that must reach the disk before the process ends, in order: a note
        still waiting for its debounced save, where the user is, then the store's queue.
        Returns the exit status (1 when something could only go to a rescue file)."""
        from tui.ui.screens.note_editor import NoteEditorScreen

        app = self._app
        self.finished = True
        self.guard.begin()
        app.stop_background()
        self._personal.open_for_quit()
        for screen in app.screen_stack:
            if isinstance(screen, NoteEditorScreen) and screen.abstract is not None:
                self._notes.save_note(screen.abstract, screen.text)
        self._triage.save_resume()
        return self._close_store()

    def after_unmount(self) -> None:
        """The app ended without `finish` (its widgets are gone): at least flush the store."""
        if not self.finished:
            self.finished = True
            self._app.stop_background()
            self._close_store()

    def _close_store(self) -> int:
        app, personal = self._app, self._personal
        personal.close()
        if personal.rescue_path is None and personal.rescue_text is None:
            # Notes typed before the data opened, and the app quit before it did.
            rescued = self._notes.rescue_early_notes()
            if rescued is not None:
                personal.rescue_path, text = rescued
                if personal.rescue_path is None:
                    personal.rescue_text = text
        status = EXIT_UNSAVED if personal.rescue_path or personal.rescue_text else EXIT_OK
        if app.crashed:
            status = EXIT_CRASHED  # whatever ends the process, it never says all went well
        self.guard.flushed(status)
        return status

    def save_open_notes(self) -> None:
        """Hand the text of every open note editor to the store (as at quit); a failure
        here must not stop the rest of the shutdown."""
        from tui.ui.screens.note_editor import NoteEditorScreen

        app = self._app
        for screen in list(app.screen_stack):
            if isinstance(screen, NoteEditorScreen) and screen.abstract is not None:
                with contextlib.suppress(Exception):
                    self._notes.save_note(screen.abstract, screen.text)

    def _emergency_flush(self) -> int:
        """From the guard's thread when the app's loop is stuck: save what can be saved
        without it (the note in an open editor, then the store's queue)."""
        with contextlib.suppress(Exception):
            self._notes.take_external_edit()  # the loop may be stuck waiting for $EDITOR
        self.save_open_notes()
        data = self._personal.userdata
        if data is None or data.flush(timeout=3.0, rescue=True):
            return EXIT_OK
        self._personal.rescue_path = data.rescue_path
        return EXIT_UNSAVED
