"""The user's data in the UI: opening it, bookmarks, reading state and auto-read.

The data itself, its undo history and the changes queued before it opened are the
session's (`session.user`, tui/session/user.py); this controller opens it off the UI's
thread, says what happened in toasts, and runs auto-read's dwell timer. The store's own
thread does the disk work, so no key press ever waits on SQLite.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from tui.config import Settings
from tui.corpus.model import Abstract
from tui.sanitize import visible
from tui.session.events import DataOpened, KeyQueued, StoreReported
from tui.triage.marks import RowMarks
from tui.triage.navigation import ProgressCounts
from tui.ui.clock import Deadline

if TYPE_CHECKING:
    from tui.session import Session
    from tui.store.attach import Ambiguity, AttachReport
    from tui.store.records import StoreEvent
    from tui.store.userdata import UserData
    from tui.ui.host import Host
    from tui.ui.screens.abstracts_view import Act

READ_AFTER_SECONDS = 3.0
THEME_KEY = "theme"
AUTO_READ_KEY = "auto_read"


class PersonalController:
    """Bookmark and read-state actions, auto-read, and the store they go through."""

    def __init__(self, session: Session, app: Host) -> None:
        self.session = session
        self.app = app
        # Auto-read's dwell time: one deadline moved on by each cursor move.
        self._read_deadline: Deadline | None = None
        #: The abstract whose dwell time runs; a key or click seen; the user has moved.
        self._read_for: Abstract | None = None
        self._user_acted = self._moved = False
        self._ambiguous: list[Ambiguity] = []
        self.rescue_path: Path | None = None
        self.rescue_text: str | None = None
        # The header's read and bookmarked counts, kept from one redraw to the next.
        self._counts = ProgressCounts()
        #: Auto-read as switched in the palette this session (None: not switched).
        self._auto_read_switched: bool | None = None
        bus = session.bus
        bus.subscribe(DataOpened, self._opened)
        bus.subscribe(KeyQueued, self._queued)
        bus.subscribe(StoreReported, lambda event: self._on_store_event(event.event))

    @property
    def userdata(self) -> UserData | None:
        """The user's data (None until it opens): the session's."""
        return self.session.user.userdata

    @property
    def settings(self) -> Settings:
        """config.toml's settings (`ui/settings.apply_settings`): what it sets wins over
        what the user's data remembers from the palette."""
        return self.session.settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self.session.settings = settings

    @property
    def saving_problem(self) -> str:
        """Shown in the header while the store cannot save."""
        return self.session.user.saving_problem

    # -- opening -------------------------------------------------------------

    def open(self) -> None:
        """Open the user's data off the UI thread (after the first paint)."""
        self.app.run_worker(self._open, thread=True, exclusive=True, group="userdata")

    def _open(self) -> None:
        from tui.store.userdata import UserData

        app, session = self.app, self.session
        userdata = UserData.open(session.data_dir)
        report = userdata.attach(session.corpus)
        try:
            # Waits for the loop: the data is open there before the worker ends.
            opened = not app.closing and app.call_from_thread(self._ready, userdata, report)
        except RuntimeError:  # the app ended before its loop could take it
            opened = False
        if not opened:
            userdata.close()  # quit while it opened: nothing was changed, nothing to show

    def _ready(self, userdata: UserData, report: AttachReport) -> bool:
        if self.app.closing:
            return False
        self.session.user.opened(userdata, report)  # announces DataOpened
        return True

    def _opened(self, event: DataOpened) -> None:
        app, userdata = self.app, self.userdata
        assert userdata is not None
        if event.replayed:
            app.notify(
                f"Applied {event.replayed} key(s) pressed while your data opened (u undoes).",
                timeout=4,
            )
        for notice in userdata.notices:
            app.notify(
                visible(notice), title="Your data", severity="warning", timeout=10, markup=False
            )
        self._announce_attach(event.report)
        theme = userdata.get_state(THEME_KEY)
        if (
            self.settings.theme is None
            and theme
            and theme != app.theme
            and theme in app.available_themes
        ):
            app.theme = theme
        if (current := app.abstract_list.current) is not None:
            self._arm_read_timer(current)  # counts once the user has moved (see auto-read)

    def when_open(self, step: Callable[[UserData], object]) -> None:
        """Run `step` on the user's data now, or, while it is still opening, queue it to
        run when it opens: a key pressed in the first second is applied, never refused."""
        self.session.user.when_open(step)

    def _queued(self, event: KeyQueued) -> None:
        if event.waiting == 1:
            self.app.notify(
                "Your data is still opening; what you press is applied when it opens.", timeout=3
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
        app.push_screen(ResolveScreen(self._ambiguous.pop(0), self.session.corpus), self._resolved)

    def _resolved(self, choice: tuple[str, str] | None) -> None:
        if choice is not None and self.userdata is not None:
            self.userdata.resolve(*choice)
            self.session.user.changed()
        self._ask_next_ambiguity()

    def _on_store_event(self, event: StoreEvent) -> None:
        from tui.store.records import ConflictDetected, SaveFailed, SavingRecovered

        app, user = self.app, self.session.user
        message = event.message or str(event)
        if isinstance(event, SaveFailed):
            user.saving_problem = "saving unavailable, retrying"
            app.notify(
                visible(message),  # the store's sentence says the changes are kept and retried
                title="Saving unavailable",
                severity="error",
                timeout=8,
                markup=False,
            )
        elif isinstance(event, SavingRecovered):
            user.saving_problem = ""
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
        user.changed()  # a conflict copy, a bulk step committed: marks and header again

    # -- what widgets are shown ---------------------------------------------

    def marks(self) -> RowMarks | None:
        """What the list marks (None until the data is open)."""
        return self.session.user.marks()

    def progress_text(self, rows: Sequence[int]) -> str:
        """`212 / 1,574 read · 31 ★` for the rows shown (empty until the data is open)."""
        data = self.userdata
        if data is None:
            return ""
        corpus = self.session.corpus
        return self._counts.text(
            rows, data.read_ids(), data.bookmarked_ids(), corpus.by_id, corpus.ids
        )

    # -- actions -------------------------------------------------------------

    # A key pressed before the data opened acts on the abstract it was pressed on, and
    # toggles from the state found when the data opens (as it would have a second later).

    def act(self, act: Act, abstract: Abstract | None) -> None:
        """`b`, `x`, `r` (and the feed's Space) on one abstract: the main list's highlighted
        one from the main screen, a view's own from a view that lists abstracts (its
        `AbstractsView.Acted`). The one path: each is one undo step, and `view_changed`
        repaints the marks wherever they show."""
        if abstract is None:
            return
        user = self.session.user
        if act == "dismiss":
            user.when_open(lambda data: self._toggle_dismissed(abstract, data))
        elif act == "bookmark":
            user.when_open(
                lambda data: user.set_bookmarks([abstract.id], not data.is_bookmarked(abstract.id))
            )
        else:
            if self._read_for is abstract:
                self._read_timer.stop()  # an explicit choice, not to be overridden by dwell time
            on = act == "mark_read"
            user.when_open(
                lambda data: user.set_read([abstract.id], on or not data.is_read(abstract.id))
            )

    def _toggle_dismissed(self, abstract: Abstract, data: UserData) -> None:
        """x: "not interested" on, or off again; the feed and "more like my bookmarks" rank
        what is like it lower."""
        on = not data.is_dismissed(abstract.id)
        if self.session.user.set_dismissed([abstract.id], on):
            self.app.notify(
                "Not interested: it and abstracts like it sink in the feed (F) and M. "
                "x again or u takes it back."
                if on
                else "Taken back: no longer dismissed.",
                timeout=3,
            )

    # -- auto-read -------------------------------------------------------------
    # An abstract on screen for READ_AFTER_SECONDS is marked read, except: while the filter
    # has focus or a modal screen is open (the user is not reading it), the abstract shown
    # at launch until the user moves (else every start spoils is:unread), and never when
    # the user turned it off (palette: Auto-read, kept in the store's state; or config.toml's
    # `auto_read = false`, which the palette switches for the session only).

    @property
    def auto_read(self) -> bool:
        """Whether dwell time marks abstracts read (on unless the user turned it off)."""
        if self._auto_read_switched is not None:
            return self._auto_read_switched
        if self.settings.auto_read is not None:
            return self.settings.auto_read
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

    @property
    def _read_timer(self) -> Deadline:
        if self._read_deadline is None:
            self._read_deadline = Deadline(self.app.clock, self.app, READ_AFTER_SECONDS)
        return self._read_deadline

    def _stop_read_timer(self) -> None:
        self._read_timer.stop()
        self._read_for = None

    def _arm_read_timer(self, abstract: Abstract) -> None:
        self._stop_read_timer()
        if not self._moved or self._auto_read_held():
            return
        self._read_for = abstract
        self._read_timer.restart(lambda: self._read_elapsed(abstract))

    def _read_elapsed(self, abstract: Abstract) -> None:
        self._read_for = None
        data = self.userdata
        if data is None or self._auto_read_held():
            return
        if self.app.abstract_list.current is not abstract or data.is_read(abstract.id):
            return
        # A glance is not a decision: no undo step, but announced as any change.
        data.set_read([abstract], True)
        self.session.user.changed([abstract.id])

    def toggle_auto_read(self) -> None:
        """The palette's Auto-read switch, remembered for the next start."""
        self.when_open(self._toggle_auto_read)

    def _toggle_auto_read(self, data: UserData) -> None:
        on = self._auto_read_switched = not self.auto_read
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

    def remember_theme(self, theme: str) -> None:
        if self.userdata is not None and self.userdata.get_state(THEME_KEY) != theme:
            self.userdata.set_state(THEME_KEY, theme)

    def refresh_data(self, *, quiet: bool) -> None:
        """Read what another instance saved (Ctrl+L, or the terminal regaining focus)."""
        data = self.userdata
        if data is None:
            return
        app = self.app
        copies_before = {c.copy_id for c in data.conflict_copies()}
        if not data.refresh():
            if data.refresh_problem:  # never "up to date" when nothing could be read
                app.notify(visible(data.refresh_problem), severity="error", markup=False)
            elif not quiet:
                app.notify(
                    "Bookmarks, notes, tags and read marks are up to date. "
                    "(Abstract files are read when the app starts.)",
                    timeout=3,
                )
            return
        self.session.user.changed(rerun_filter=True)
        new_copies = [c for c in data.conflict_copies() if c.copy_id not in copies_before]
        if new_copies:
            app.notify(
                f"{len(new_copies)} note(s) were edited in another instance at the same time; "
                "both versions are kept (N shows them, d drops a copy).",
                title="Notes edited twice",
                severity="warning",
                timeout=10,
            )
        elif not quiet:
            app.notify("Refreshed with changes saved by another instance.", timeout=3)

    def open_for_quit(self) -> None:
        """On quit before the data opened: the keys pressed meanwhile (`b`, `x`, `r`, tags,
        notes) would be dropped with the queue, and where the user was would not be
        remembered, so the data is opened here: the queue is applied in order, the quit
        saves where the user is, and `close` writes it all. (The opening worker, if still
        running, sees the app closing and closes its own copy without changing anything.)"""
        user = self.session.user
        if user.userdata is not None:
            return
        from tui.store.userdata import UserData

        try:
            userdata = UserData.open(self.session.data_dir)
        except Exception:  # the quit goes on; notes typed meanwhile go to a rescue file
            return
        user.take_at_quit(userdata)

    def close(self) -> None:
        """On quit: everything pending is written before the process ends (notes typed
        before the data opened are the quit sequence's: `NotesController.rescue_early_notes`)."""
        if self.userdata is not None:
            # close() writes anything it could not save to a rescue file and returns its path.
            self.rescue_path = self.userdata.close()
            if self.rescue_path is None and self.userdata.pending_count:
                self.rescue_text = self.userdata.rescue_text()
            self.session.user.userdata = None

    def auto_read_commands(self) -> Iterable[SystemCommand]:
        """The palette's Auto-read switch, saying what it is now."""
        auto_read = "on" if self.auto_read else "off"
        yield SystemCommand(
            f"Auto-read: {auto_read}",
            f"Mark an abstract read after {READ_AFTER_SECONDS:g} s on screen; select to switch "
            + ("off" if auto_read == "on" else "on"),
            self.toggle_auto_read,
        )

    def commands(self) -> Iterable[SystemCommand]:
        run = self.app.action_command
        yield SystemCommand(
            "Toggle bookmark", "Bookmark the selected abstract (b)", run("toggle_bookmark")
        )
        yield SystemCommand(
            "Edit note", "Write a note on the selected abstract (n)", run("edit_note")
        )
        yield SystemCommand(
            "Edit note in $EDITOR",
            "Write the selected abstract's note in $VISUAL or $EDITOR (e)",
            run("edit_note_externally"),
        )
        yield SystemCommand(
            "Toggle read", "Mark the selected abstract read or unread (r)", run("toggle_read")
        )
        yield SystemCommand("Notes", "Every note, including orphaned ones (N)", run("notes"))
        yield SystemCommand(
            "Refresh from disk",
            "See changes made by another instance",
            lambda: self.refresh_data(quiet=False),
        )
