"""The user's data in the UI: bookmarks, notes and reading state.

The UI reads the in-memory `UserData` and writes through it; the store's own
thread does the disk work, so no key press ever waits on SQLite.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from tui.corpus.model import Abstract
from tui.sanitize import visible
from tui.ui.clock import TimerHandle
from tui.ui.widgets.abstract_list import RowMarks

if TYPE_CHECKING:
    from tui.store.attach import Ambiguity, AttachReport
    from tui.store.records import StoreEvent
    from tui.store.userdata import UserData
    from tui.ui.app import AbstractsApp
    from tui.ui.screens.note_editor import NoteEditorScreen

READ_AFTER_SECONDS = 3.0
NOTE_DEBOUNCE_SECONDS = 1.0
THEME_KEY = "theme"
AUTO_READ_KEY = "auto_read"


class PersonalController:
    """Bookmark, note and read-state actions, and the store they go through."""

    def __init__(self, app: AbstractsApp) -> None:
        self.app = app
        self.userdata: UserData | None = None
        self._read_timer: TimerHandle | None = None
        #: The abstract whose dwell time runs; a key or click seen; the user has moved.
        self._read_for: Abstract | None = None
        self._user_acted = self._moved = False
        #: Shown in the header while the store cannot save.
        self.saving_problem = ""
        self._ambiguous: list[Ambiguity] = []
        self.rescue_path: Path | None = None
        self.rescue_text: str | None = None
        #: Keys pressed before the data opened, applied in order when it opens.
        self._queued: list[Callable[[UserData], object]] = []
        #: What an editor opened before the data did has saved so far, by abstract id.
        self._early_notes: dict[str, tuple[Abstract, str]] = {}
        #: The note as it was when its editor opened, by abstract id: closing the editor
        #: records the whole session as one undo step.
        self._note_before: dict[str, str | None] = {}

    # -- opening -------------------------------------------------------------

    def open(self) -> None:
        """Open the user's data off the UI thread (after the first paint)."""
        self.app.run_worker(self._open, thread=True, exclusive=True, group="userdata")

    def _open(self) -> None:
        from tui.store.userdata import UserData

        app = self.app
        userdata = UserData.open(app.data_dir)
        report = userdata.attach(app.corpus)
        if app.quitting:
            userdata.close()  # quit while it opened: nothing was changed, nothing to show
            return
        app.call_from_thread(self._ready, userdata, report)

    def _ready(self, userdata: UserData, report: AttachReport) -> None:
        app = self.app
        if app.quitting:  # quit since the worker looked: the widgets may be gone
            userdata.close()
            return
        self.userdata = userdata
        app.triage.start_undo(userdata)
        userdata.listener = lambda event: app.call_from_thread(self._on_store_event, event)
        self._replay(userdata)
        for notice in userdata.notices:
            app.notify(
                visible(notice), title="Your data", severity="warning", timeout=10, markup=False
            )
        self._announce_attach(report)
        app.view_changed()
        app.triage.restore_resume()
        theme = userdata.get_state(THEME_KEY)
        if theme and theme != app.theme and theme in app.available_themes:
            app.theme = theme
        if (current := app.abstract_list.current) is not None:
            self._arm_read_timer(current)  # counts once the user has moved (see auto-read)

    def when_open(self, step: Callable[[UserData], object]) -> None:
        """Run `step` on the user's data now, or, while it is still opening, queue it to
        run when it opens: a key pressed in the first second is applied, never refused."""
        if self.userdata is not None:
            step(self.userdata)
            return
        self._queued.append(step)
        if len(self._queued) == 1:
            self.app.notify(
                "Your data is still opening; what you press is applied when it opens.", timeout=3
            )

    def _replay(self, userdata: UserData) -> None:
        queued, self._queued = self._queued, []
        for step in queued:
            step(userdata)
        if queued:
            self.app.notify(
                f"Applied {len(queued)} key(s) pressed while your data opened (u undoes).",
                timeout=4,
            )

    def _announce_attach(self, report: AttachReport) -> None:
        app = self.app
        reattached, orphaned = len(report.reattached), len(report.orphans)
        self._ambiguous = list(report.ambiguous)
        if reattached:
            app.notify(
                f"{reattached} note(s) or bookmark(s) re-attached to edited abstracts.", timeout=6
            )
        if orphaned:
            app.notify(
                f"{orphaned} bookmark(s) or note(s) belong to abstracts not loaded now; they are "
                "kept and come back when those files are opened (orphaned notes: N).",
                timeout=6,
            )
        self._ask_next_ambiguity()

    def _ask_next_ambiguity(self) -> None:
        """Ask about competing re-attachments one at a time."""
        if not self._ambiguous:
            return
        from tui.ui.screens.notes import ResolveScreen

        app = self.app
        app.push_screen(ResolveScreen(self._ambiguous.pop(0), app.corpus), self._resolved)

    def _resolved(self, choice: tuple[str, str] | None) -> None:
        if choice is not None and self.userdata is not None:
            self.userdata.resolve(*choice)
            self.app.view_changed()
        self._ask_next_ambiguity()

    def _on_store_event(self, event: StoreEvent) -> None:
        from tui.store.records import ConflictDetected, SaveFailed, SavingRecovered

        app = self.app
        message = event.message or str(event)
        if isinstance(event, SaveFailed):
            self.saving_problem = "saving unavailable, retrying"
            app.notify(
                visible(f"{message}. Your changes are kept in memory and retried."),
                title="Saving unavailable",
                severity="error",
                timeout=8,
                markup=False,
            )
        elif isinstance(event, SavingRecovered):
            self.saving_problem = ""
            app.notify(
                "Saving works again; everything pending was saved.", title="Saved", timeout=4
            )
        elif isinstance(event, ConflictDetected):
            app.notify(
                visible(message),
                title="Note edited elsewhere: both versions kept",
                severity="warning",
                timeout=10,
                markup=False,
            )
        else:
            app.notify(visible(message), timeout=6, markup=False)
        app.view_changed()

    # -- what widgets are shown ---------------------------------------------

    def marks(self) -> RowMarks | None:
        """What the list marks (None until the data is open)."""
        data = self.userdata
        if data is None:
            return None
        return RowMarks(
            bookmarked=data.bookmarked_ids(),
            noted=data.noted_ids(),
            read=data.read_ids(),
            tags=data.tags_by_id(),
            dismissed=data.dismissed_ids(),
        )

    def view_of(self, abstract: Abstract) -> tuple[bool, bool, str | None]:
        """(bookmarked, read, note) of an abstract for the detail pane."""
        data = self.userdata
        if data is None:
            return False, False, None
        return data.is_bookmarked(abstract.id), data.is_read(abstract.id), data.note(abstract.id)

    def progress_text(self, rows: Sequence[int]) -> str:
        """`212 / 1,574 read · 31 ★` for the rows shown (empty until the data is open)."""
        data = self.userdata
        if data is None:
            return ""
        from tui.triage.navigation import progress

        return progress(rows, data.read_ids(), data.bookmarked_ids(), self.app.corpus.ids)

    # -- actions -------------------------------------------------------------

    # A key pressed before the data opened acts on the abstract it was pressed on, and
    # toggles from the state found when the data opens (as it would have a second later).

    def toggle_bookmark(self) -> None:
        if (abstract := self.app.abstract_list.current) is None:
            return
        triage = self.app.triage
        self.when_open(
            lambda data: triage.set_bookmarks([abstract.id], not data.is_bookmarked(abstract.id))
        )

    def toggle_read(self) -> None:
        if (abstract := self.app.abstract_list.current) is None:
            return
        if self._read_timer is not None:
            self._read_timer.stop()  # an explicit choice, not to be overridden by dwell time
        triage = self.app.triage
        self.when_open(lambda data: triage.set_read([abstract.id], not data.is_read(abstract.id)))

    # -- auto-read -------------------------------------------------------------
    # An abstract on screen for READ_AFTER_SECONDS is marked read, except: while the filter
    # has focus or a modal screen is open (the user is not reading it), the abstract shown
    # at launch until the user moves (else every start spoils is:unread), and never when
    # the user turned it off (palette: Auto-read, kept in the store's state).

    @property
    def auto_read(self) -> bool:
        """Whether dwell time marks abstracts read (on unless the user turned it off)."""
        return self.userdata is None or self.userdata.get_state(AUTO_READ_KEY) != "off"

    def user_acted(self) -> None:
        """A key press or a click: from now on a new abstract under the cursor is the user's move."""
        self._user_acted = True

    def start_read_timer(self, abstract: Abstract) -> None:
        """The cursor moved to `abstract`: start its dwell time."""
        if self._user_acted:
            self._moved = True
        self._arm_read_timer(abstract)

    def focus_changed(self) -> None:
        """Focus moved (into or out of the filter, a modal opened or closed): dwell time
        stops while auto-read is held off, and starts again for the abstract shown after."""
        current = self.app.abstract_list.current if len(self.app.screen_stack) == 1 else None
        if self._auto_read_held():
            self._stop_read_timer()
        elif current is not None and self._read_for is not current:
            self._arm_read_timer(current)

    def _auto_read_held(self) -> bool:
        app = self.app
        return not self.auto_read or len(app.screen_stack) > 1 or app.focused is app.filter_input

    def _stop_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.stop()
        self._read_timer = self._read_for = None

    def _arm_read_timer(self, abstract: Abstract) -> None:
        self._stop_read_timer()
        if not self._moved or self._auto_read_held():
            return
        self._read_for = abstract
        self._read_timer = self.app.clock.set_timer(
            self.app, READ_AFTER_SECONDS, lambda: self._read_elapsed(abstract)
        )

    def _read_elapsed(self, abstract: Abstract) -> None:
        self._read_timer = self._read_for = None
        data = self.userdata
        if data is None or self._auto_read_held():
            return
        if self.app.abstract_list.current is not abstract or data.is_read(abstract.id):
            return
        data.set_read([abstract], True)
        self.app.view_changed()

    def toggle_auto_read(self) -> None:
        """The palette's Auto-read switch, remembered for the next start."""
        self.when_open(self._toggle_auto_read)

    def _toggle_auto_read(self, data: UserData) -> None:
        on = not self.auto_read
        data.set_state(AUTO_READ_KEY, "on" if on else "off")
        if on:
            self.focus_changed()
        else:
            self._stop_read_timer()
        self.app.notify(
            f"Auto-read is {'on' if on else 'off'}: "
            + (
                f"an abstract shown for {READ_AFTER_SECONDS:g} s is marked read."
                if on
                else "only r marks an abstract read."
            ),
            timeout=4,
        )

    def edit_note(self) -> None:
        if (abstract := self.app.abstract_list.current) is None:
            return
        if (data := self.userdata) is not None:
            self._note_before[abstract.id] = data.note(abstract.id)
            self._open_editor(abstract, data.note(abstract.id) or "")
            return
        # Still opening: the editor opens at once all the same, so what is typed next is
        # the note and not keys for the list; the note saved before (if any) is put above
        # it when the data opens, and only then is anything saved.
        self._open_editor(abstract, "")
        self.when_open(lambda data: self._settle_early_note(abstract, data))

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
            if isinstance(screen, NoteEditorScreen) and screen.abstract.id == abstract.id:
                return screen
        return None

    def _open_editor(self, abstract: Abstract, text: str, *, orphaned: bool = False) -> None:
        from tui.ui.screens.note_editor import NoteEditorScreen

        self.app.push_screen(
            NoteEditorScreen(
                abstract,
                text,
                debounce=NOTE_DEBOUNCE_SECONDS,
                orphaned=orphaned,
            ),
            lambda final: self._editor_closed(abstract, final),
        )

    def _editor_closed(self, abstract: Abstract, final: str | None) -> None:
        """The editor closed: its last text is saved (its message may arrive after this)
        and the whole session becomes one undo step."""
        if final is not None:
            self.save_note(abstract, final)
        data = self.userdata
        if data is not None and abstract.id in self._note_before:
            self._record(abstract.id, self._note_before.pop(abstract.id), data.note(abstract.id))
        self.app.view_changed()

    def _record(self, abstract_id: str, before: str | None, after: str | None) -> None:
        from tui.triage.undo import SetNote

        self.app.triage.record(SetNote(abstract_id, before, after))

    def _record_note_change(self, abstract: Abstract, before: str | None, text: str) -> None:
        """Save `text` as the note (empty deletes it) as one undoable step."""
        data = self.userdata
        if data is None:
            return
        self.save_note(abstract, text)
        self._record(abstract.id, before, data.note(abstract.id))
        self.app.view_changed()

    def edit_externally(self) -> None:
        """`e`: the note in $VISUAL or $EDITOR, saved like any edit when the editor exits."""
        if (abstract := self.app.abstract_list.current) is not None:
            self.when_open(lambda data: self._edit_externally(abstract, data))

    def _edit_externally(self, abstract: Abstract, data: UserData) -> None:
        import os

        from textual.app import SuspendNotSupported

        from tui.ui import external_editor

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
        try:
            # Nothing in the block may raise: the terminal is given back after it.
            with app.suspend():
                result = external_editor.edit_text(before or "", command)
        except SuspendNotSupported:
            app.notify(
                "This terminal cannot be handed to another program; n opens the note editor here.",
                severity="warning",
                timeout=6,
            )
            return
        if result.text is None:
            app.notify(visible(result.problem), severity="warning", timeout=6, markup=False)
            return
        self._record_note_change(abstract, before, result.text)

    def save_note(self, abstract: Abstract, text: str) -> None:
        """The note editor's save: while typing (debounced) and when it closes."""
        data = self.userdata
        if data is None:
            # An editor opened before the data did: kept until it opens (see edit_note).
            self._early_notes[abstract.id] = (abstract, text)
            return
        current = data.note(abstract.id)
        if not text.strip():
            # Emptying a note is how the user deletes it; an empty note is no note.
            if current is not None:
                data.delete_note(abstract.id)
        elif current != text:
            data.save_note(abstract, text)

    def _edit_orphan(self, abstract_id: str) -> None:
        """An orphan's note opens in the editor over the stored copy of its abstract."""
        data = self.userdata
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
        self.when_open(self._show_notes)

    def _show_notes(self, data: UserData) -> None:
        from tui.ui.screens.notes import NotesScreen

        app = self.app
        app.push_screen(NotesScreen(data.notes(), app.corpus), self.jump_to)

    def remember_theme(self, theme: str) -> None:
        if self.userdata is not None and self.userdata.get_state(THEME_KEY) != theme:
            self.userdata.set_state(THEME_KEY, theme)

    def dismiss_conflict(self, copy_id: int) -> None:
        """The user dropped a conflict copy in the notes view (the only way one goes away)."""
        if self.userdata is not None and self.userdata.dismiss_conflict(copy_id):
            self.app.view_changed()

    def jump_to(self, abstract_id: str | None) -> None:
        """Select an abstract (clearing the filter if it hides it); an orphan opens its note."""
        if abstract_id is None:
            return
        app = self.app
        if abstract_id not in app.corpus.by_id:
            self._edit_orphan(abstract_id)
            return
        if not app.abstract_list.select_abstract(abstract_id):
            app.filter_input.value = ""
            app.call_after_refresh(lambda: app.abstract_list.select_abstract(abstract_id))
        app.abstract_list.focus()

    def refresh_data(self, *, quiet: bool) -> None:
        """Read what another instance saved (Ctrl+L, or the terminal regaining focus)."""
        data = self.userdata
        if data is None:
            return
        app = self.app
        copies_before = {c.copy_id for c in data.conflict_copies()}
        if not data.refresh():
            if not quiet:
                app.notify(
                    "Bookmarks, notes, tags and read marks are up to date. "
                    "(Abstract files are read when the app starts.)",
                    timeout=3,
                )
            return
        app.view_changed()
        app.search.rerun()
        new_copies = [c for c in data.conflict_copies() if c.copy_id not in copies_before]
        if new_copies:
            app.notify(
                f"{len(new_copies)} note(s) were edited in another instance at the same time; "
                "both versions are kept (N shows them, x drops a copy).",
                title="Notes edited twice",
                severity="warning",
                timeout=10,
            )
        elif not quiet:
            app.notify("Refreshed with changes saved by another instance.", timeout=3)

    def close(self) -> None:
        """On quit: everything pending is written before the process ends."""
        if self.userdata is not None:
            # close() writes anything it could not save to a rescue file and returns its path.
            self.rescue_path = self.userdata.close()
            if self.rescue_path is None and self.userdata.pending_count:
                self.rescue_text = self.userdata.rescue_text()
            self.userdata = None
        elif self._early_notes:
            self._rescue_early_notes()

    def _rescue_early_notes(self) -> None:
        """Notes typed before the data opened, and the app quit before it did: there is no
        store to save them to, so they go to a rescue file that `abstracts import` reads."""
        import time

        from tui.store.records import SaveNote, Snapshot
        from tui.store.rescue import rescue_dirs, rescue_document, to_text, write_rescue_file

        notes = [(a, t) for a, t in self._early_notes.values() if t.strip()]
        self._early_notes = {}
        if not notes:
            return
        now = time.time()
        snapshots = {a.id: Snapshot.of(a) for a, _ in notes}
        ops = [SaveNote(a.id, t, snapshots[a.id], 0, now) for a, t in notes]
        doc = rescue_document(
            ops, snapshots, lambda _: 0, "the app quit before your data had opened"
        )
        text = to_text(doc)
        self.rescue_path, _ = write_rescue_file(text, rescue_dirs(self.app.data_dir))
        if self.rescue_path is None:
            self.rescue_text = text

    def commands(self) -> Iterable[SystemCommand]:
        app = self.app
        yield SystemCommand(
            "Toggle bookmark", "Bookmark the selected abstract (b)", app.action_toggle_bookmark
        )
        yield SystemCommand(
            "Edit note", "Write a note on the selected abstract (n)", app.action_edit_note
        )
        yield SystemCommand(
            "Edit note in $EDITOR",
            "Write the selected abstract's note in $VISUAL or $EDITOR (e)",
            app.action_edit_note_externally,
        )
        yield SystemCommand(
            "Toggle read", "Mark the selected abstract read or unread (r)", app.action_toggle_read
        )
        yield SystemCommand("Notes", "Every note, including orphaned ones (N)", app.action_notes)
        yield SystemCommand(
            "Refresh from disk", "See changes made by another instance", app.action_refresh_data
        )
