"""Notes in the UI: the note editor, the external editor ($VISUAL/$EDITOR), the notes
view with its orphans and conflict copies, and notes typed before the data opened.

Notes are saved through the session's user data (`session.user`); each editing session
becomes one undo step, and every save is announced as a change of that abstract.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tui.corpus.model import Abstract
from tui.sanitize import visible
from tui.session.events import DataOpened
from tui.ui.screens.prepared import PreparedScreen

if TYPE_CHECKING:
    from tui.session import Session
    from tui.store.userdata import UserData
    from tui.ui.host import Host
    from tui.ui.screens.note_editor import NoteEditorScreen
    from tui.ui.screens.notes import NotesScreen

NOTE_DEBOUNCE_SECONDS = 1.0


class NotesController:
    """Opening, saving and rescuing notes; the notes view."""

    def __init__(self, session: Session, app: Host) -> None:
        self.session = session
        self.app = app
        #: What an editor opened before the data did has saved so far, by abstract id.
        self._early_notes: dict[str, tuple[Abstract, str]] = {}
        #: The abstract whose note is in $EDITOR now (the app is suspended meanwhile).
        self._external: Abstract | None = None
        #: The note as it was when its editor opened, by abstract id: closing the editor
        #: records the whole session as one undo step.
        self._note_before: dict[str, str | None] = {}
        #: The note editor and the notes view, built once the data has opened and shown
        #: again at each `n` and `N` (ui/screens/prepared.py): opened, they answer at once.
        self._editor = PreparedScreen("note-editor", self._new_editor)
        self._view = PreparedScreen("notes", self._new_view)
        session.bus.subscribe(DataOpened, lambda _: app.call_after_refresh(self.prepare))

    def prepare(self) -> None:
        """Build the note editor and the notes view off the screen stack (after the first
        paint, once the data has opened: while the user reads)."""
        if not self.app.closing:
            self._editor.prepare(self.app)
            self._view.prepare(self.app)

    def _new_editor(self) -> NoteEditorScreen:
        from tui.ui.screens.note_editor import NoteEditorScreen

        return NoteEditorScreen(debounce=NOTE_DEBOUNCE_SECONDS)

    def _new_view(self) -> NotesScreen:
        from tui.ui.screens.notes import NotesScreen

        return NotesScreen(self.session.corpus)

    def edit_note(self) -> None:
        if (abstract := self.app.abstract_list.current) is None:
            return
        if (data := self.session.user.userdata) is not None:
            from tui.ui.screens.note_editor import MAX_NOTE_CHARS

            note = data.note(abstract.id) or ""
            if len(note) > MAX_NOTE_CHARS:
                # Saved before the limit (an import, an old $EDITOR): too long to edit here.
                self.app.notify(
                    f"This note has {len(note):,} characters, more than the note editor "
                    f"takes ({MAX_NOTE_CHARS:,}); e opens it in your $EDITOR to shorten it.",
                    severity="warning",
                    timeout=8,
                )
                return
            self._note_before[abstract.id] = data.note(abstract.id)
            self._open_editor(abstract, note)
            return
        # Still opening: the editor opens at once all the same, so what is typed next is
        # the note and not keys for the list; the note saved before (if any) is put above
        # it when the data opens, and only then is anything saved.
        self._open_editor(abstract, "")
        self.session.user.when_open(lambda data: self._settle_early_note(abstract, data))

    def _settle_early_note(self, abstract: Abstract, data: UserData) -> None:
        existing = data.note(abstract.id)
        _, typed = self._early_notes.pop(abstract.id, (abstract, ""))
        editor = self._editor_on(abstract)
        if editor is not None:
            # Still editing: the session starts from the saved note, which goes above.
            self._note_before[abstract.id] = existing
            if existing:
                editor.put_above(existing)
            else:
                self.save_note(abstract, editor.text)
            return
        if typed.strip():
            merged = f"{existing.rstrip()}\n{typed}" if existing else typed
            self._record_note_change(abstract, existing, merged)

    def _editor_on(self, abstract: Abstract) -> NoteEditorScreen | None:
        from tui.ui.screens.note_editor import NoteEditorScreen

        for screen in self.app.screen_stack:
            if not isinstance(screen, NoteEditorScreen) or screen.abstract is None:
                continue
            if screen.abstract.id == abstract.id:
                return screen
        return None

    def _open_editor(self, abstract: Abstract, text: str, *, orphaned: bool = False) -> None:
        editor = self._editor.ready(self.app) or self._new_editor()
        editor.open_on(abstract, text, orphaned=orphaned)
        self._editor.push(self.app, editor, lambda final: self._editor_closed(abstract, final))

    def _editor_closed(self, abstract: Abstract, final: str | None) -> None:
        """The editor closed: its last text is saved (its message may arrive after this)
        and the whole session becomes one undo step."""
        if final is not None:
            self.save_note(abstract, final)
        data = self.session.user.userdata
        if data is not None and abstract.id in self._note_before:
            self._record(abstract.id, self._note_before.pop(abstract.id), data.note(abstract.id))
        self.session.user.changed([abstract.id])

    def _record(self, abstract_id: str, before: str | None, after: str | None) -> None:
        from tui.triage.undo import SetNote

        self.session.user.record(SetNote(abstract_id, before, after))

    def _record_note_change(self, abstract: Abstract, before: str | None, text: str) -> None:
        """Save `text` as the note (empty deletes it) as one undoable step."""
        data = self.session.user.userdata
        if data is None:
            return
        self.save_note(abstract, text)
        self._record(abstract.id, before, data.note(abstract.id))

    def edit_externally(self) -> None:
        """`e`: the note in $VISUAL or $EDITOR, saved like any edit when the editor exits."""
        if (abstract := self.app.abstract_list.current) is not None:
            self.session.user.when_open(lambda data: self._edit_externally(abstract, data))

    def _edit_externally(self, abstract: Abstract, data: UserData) -> None:
        import os

        from textual.app import SuspendNotSupported

        from tui.ui import external_editor
        from tui.ui.screens.note_editor import MAX_NOTE_CHARS

        app = self.app
        command = external_editor.editor_command(os.environ)
        if command is None:
            app.notify(
                "Set $VISUAL or $EDITOR to write notes in your own editor; n opens the "
                "note editor here.",
                title="No editor",
                severity="warning",
                timeout=6,
            )
            return
        before = data.note(abstract.id)
        self._external = abstract
        try:
            # Nothing in the block may raise: the terminal is given back after it.
            with app.suspend():
                result = external_editor.edit_text(before or "", command, MAX_NOTE_CHARS)
        except SuspendNotSupported:
            self._external = None
            app.notify(
                "This terminal cannot be handed to another program; n opens the note editor here.",
                severity="warning",
                timeout=6,
            )
            return
        self._external = None
        if result.text is None:
            app.notify(visible(result.problem), severity="warning", timeout=8, markup=False)
            return
        self._record_note_change(abstract, before, result.text)

    def take_external_edit(self) -> None:
        """The app must end while $EDITOR runs (the terminal closed: the app's loop waits
        for the editor): end the editor and save what it wrote (from the quit's thread)."""
        from tui.ui import external_editor
        from tui.ui.screens.note_editor import MAX_NOTE_CHARS

        abstract = self._external
        if abstract is None:
            return
        text, _kept = external_editor.take_running_edit(MAX_NOTE_CHARS)
        if text is not None:
            self.save_note(abstract, text)

    def save_note(self, abstract: Abstract, text: str) -> None:
        """The note editor's save: while typing (debounced) and when it closes."""
        data = self.session.user.userdata
        if data is None:
            # An editor opened before the data did: kept until it opens (see edit_note).
            self._early_notes[abstract.id] = (abstract, text)
            return
        current = data.note(abstract.id)
        if not text.strip():
            # Emptying a note is how the user deletes it; an empty note is no note.
            if current is None:
                return
            data.delete_note(abstract.id)
        elif current != text:
            data.save_note(abstract, text)
        else:
            return
        self.session.user.changed([abstract.id])  # the ✎ mark and the note under the abstract

    def edit_orphan(self, abstract_id: str) -> None:
        """An orphan's note opens in the editor over the stored copy of its abstract."""
        data = self.session.user.userdata
        snapshot = data.snapshot(abstract_id) if data is not None else None
        if data is None or snapshot is None:
            return
        from tui.corpus.model import Collection, SourceRef

        stored = Abstract(
            abstract_id,
            snapshot.text,
            Collection(snapshot.collection, snapshot.venue, snapshot.year),
            [SourceRef(Path(snapshot.source or "?"), snapshot.position)],
        )
        self._open_editor(stored, data.note(abstract_id) or "", orphaned=True)

    def show_notes(self) -> None:
        self.session.user.when_open(self._show_notes)

    def _show_notes(self, data: UserData) -> None:
        view = self._view.ready(self.app) or self._new_view()
        view.show(data.notes(), self.session.user.marks())
        self._view.push(self.app, view, self.app.jump_to)

    def dismiss_conflict(self, copy_id: int) -> None:
        """The user dropped a conflict copy in the notes view (the only way one goes away)."""
        data = self.session.user.userdata
        if data is not None and data.dismiss_conflict(copy_id):
            self.session.user.changed()

    def rescue_early_notes(self) -> tuple[Path | None, str] | None:
        """Notes typed before the data opened, and the app quit before it did: there is no
        store to save them to, so they go to a rescue file that `abstracts import` reads.
        Returns the file's path (None when it could not be written) and its text, or None
        when there was nothing to rescue."""
        import time

        from tui.store.export import document_text
        from tui.store.operations import SaveNote
        from tui.store.records import Snapshot
        from tui.store.rescue import rescue_dirs, rescue_document, write_rescue_file

        notes = [(a, t) for a, t in self._early_notes.values() if t.strip()]
        self._early_notes = {}
        if not notes:
            return None
        now = time.time()
        snapshots = {a.id: Snapshot.of(a) for a, _ in notes}
        ops = [SaveNote(a.id, t, snapshots[a.id], 0, now) for a, t in notes]
        doc = rescue_document(
            ops, snapshots, lambda _: 0, "the app quit before your data had opened"
        )
        text = document_text(doc)
        path, _ = write_rescue_file(text, rescue_dirs(self.session.data_dir))
        return path, text
