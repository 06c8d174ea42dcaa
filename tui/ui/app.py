"""The application: the session, its controllers, and the widgets they drive.

`app.session` (tui/session, no Textual) holds the shared state: the corpus, the
filter's state, the user's data with its undo history, the index, similarity model and
topics. The controllers (`app.search`, `app.personal`, `app.notes`, `app.triage`,
`app.tags`, …) are built with the session and the app as their `Host`
(tui/ui/host.py); they never import this module or each other. What changes is
announced on the session's bus, and each observer redraws only what the event names:
`MarksChanged` repaints those rows (and the detail pane if it shows one of them),
a search's answer goes through `show_results`, progress through `refresh_header`.
An event from another thread arrives as a `SessionMessage`. The keys are in
`ui/keys.py`, the help and palette entries in `ui/palette.py`, what the header and
detail pane show in `ui/view.py`. Timers run on `app.clock` (`ui/clock.py`), which
tests replace with a manual one.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

# rapidfuzz's package imports are circular: two workers importing it at once (a search
# and the user data's opening, say) can each meet the other's half-made module and fail
# with an ImportError. Imported here, on the main thread, before any worker starts: 7 ms.
import rapidfuzz  # noqa: F401
from textual import events, on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static

from tui import locations
from tui.corpus.model import Abstract, Corpus
from tui.sanitize import visible_line
from tui.session import Session
from tui.session.events import (
    CorpusGrew,
    CorpusLoaded,
    DataOpened,
    InboxOpened,
    IndexReady,
    MarksChanged,
    SessionEvent,
    SimilarityReady,
    StatusChanged,
    TopicsChanged,
)
from tui.ui import palette, view
from tui.ui.clock import Clock, TextualClock
from tui.ui.collector import AFTER_FRAME_SECONDS, CHECK_SECONDS, IdleCollector
from tui.ui.controllers.exporting import ExportController
from tui.ui.controllers.feed import FeedController
from tui.ui.controllers.fetching import FetchController
from tui.ui.controllers.loading import LoadingController
from tui.ui.controllers.notes import NotesController
from tui.ui.controllers.papers import CopyKind, OpenKind, PaperController
from tui.ui.controllers.personal import PersonalController
from tui.ui.controllers.saved import SavedSearchController
from tui.ui.controllers.search import FILTER_PLACEHOLDERS, SearchController
from tui.ui.controllers.tags import TagsController
from tui.ui.controllers.topics import TopicsController
from tui.ui.controllers.triage import TriageController
from tui.ui.host import Host
from tui.ui.key_router import KeyRouter
from tui.ui.keys import APP_BINDINGS
from tui.ui.palette import HelpSection
from tui.ui.quitting import QuitSequence
from tui.ui.screens.abstracts_view import AbstractsView
from tui.ui.widgets.abstract_list import AbstractList
from tui.ui.widgets.detail import DetailPane
from tui.ui.widgets.detail_text import DetailView
from tui.ui.widgets.filter_input import FilterInput
from tui.ui.widgets.footer import AppFooter
from tui.ui.widgets.header import AppHeader

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text
    from textual.driver import Driver

    from tui.corpus.load import Loading
    from tui.search.spans import Spans

    # Screens are imported when first opened (not needed for the first paint); their
    # messages are handled by name (`on_note_editor_screen_changed`).
    from tui.ui.screens.feed import FeedScreen
    from tui.ui.screens.note_editor import NoteEditorScreen
    from tui.ui.screens.notes import NotesScreen
    from tui.ui.screens.tags import TagsScreen

NARROW_WIDTH = 100
#: The app's keys that work over any screen. Every other key of `APP_BINDINGS` is about the
#: main screen (its list's abstract, its filter, the views opened from it), so it never
#: acts from under a full screen such as the feed (modal screens stop them anyway).
OVER_ANY_SCREEN = frozenset({"help", "quit", "back", "load_report", "refresh_data", "undo", "redo"})
MAIN_SCREEN_ONLY = (
    frozenset(binding.action for binding in APP_BINDINGS if isinstance(binding, Binding))
    - OVER_ANY_SCREEN
)
#: The actions on the highlighted paper (w, W, y, Y, c): main screen only, and listed in
#: the footer only for a paper (see `check_action`).
PAPER_ACTIONS = frozenset({"open_paper", "copy_paper"})
ANSI_THEMES = ("ansi-dark", "ansi-light")


class SessionMessage(Message):
    """A session event emitted on another thread, brought to the event loop."""

    def __init__(self, event: SessionEvent) -> None:
        super().__init__()
        self.event = event


class AbstractsApp(Host):
    """A two-pane reader over a corpus of abstracts."""

    TITLE = "abstracts"
    # Below 100 columns the screen gets -narrow and the panes stack (styles/app.tcss).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_WIDTH, "-wide")]  # noqa: RUF012 (App declares it)
    CSS_PATH: ClassVar = [locations.styles_dir() / "app.tcss"]

    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS

    def __init__(
        self,
        corpus: Corpus,
        *,
        data_dir: Path | None = None,
        clock: Clock | None = None,
        loading: Loading | None = None,
    ) -> None:
        super().__init__()
        # The ANSI themes paint with the terminal's own palette, whose contrast cannot be
        # known: only themes measured to pass WCAG AA are offered (tests/ui/test_contrast.py).
        for name in ANSI_THEMES:
            self.unregister_theme(name)
        self.corpus = corpus
        self._data_dir_override = data_dir
        #: The state the screens share (tui/session): controllers read and change it.
        self.session = session = Session(
            corpus, lambda: self.data_dir, closing=lambda: not self.is_running
        )
        session.bus.attach(self._from_thread)
        #: The files still to read after the first paint (a large corpus).
        self.loading = LoadingController(session, self, loading)
        # The header's title, computed again only when the files loaded change.
        self._title: tuple[int, Text] | None = None
        # The abstract the detail pane was built for since it last had to be rebuilt.
        self._shown_detail: Abstract | None = None
        # Whether the detail pane is to draw ahead the abstract after the cursor's, once
        # the frame of the cursor's move is shown (`_draw_ahead`).
        self._ahead_pending = False
        #: What the UI's timers run on (dwell, resume save, note debounce): tests pass a
        #: `ManualClock` and advance it instead of sleeping.
        self.clock: Clock = clock if clock is not None else TextualClock()
        #: Show the LaTeX source instead of the rendered text.
        self.raw = False
        #: Set by an unhandled exception (see `_handle_exception`).
        self.crashed = False
        #: Full garbage collections at idle moments, not during a key's answer.
        self.collector = IdleCollector()
        # What runs once the first frame is written (`_after_first_frame`).
        self._first_frame_shown = False
        self._first_frame_steps: list[Callable[[], object]] = []
        # The app's own observers first: a change is on screen before a controller
        # reacts to it (a resume restored over the redrawn list).
        bus = session.bus
        bus.subscribe(MarksChanged, self._marks_changed)
        bus.subscribe(DataOpened, lambda _: self._redraw())
        bus.subscribe(SimilarityReady, lambda _: self._redraw_detail())
        for kind in (StatusChanged, IndexReady, TopicsChanged, InboxOpened):
            bus.subscribe(kind, lambda _: self.refresh_header())
        bus.subscribe(CorpusGrew, lambda event: self.corpus_grew(finished=event.finished))
        bus.subscribe(CorpusLoaded, lambda _: self.corpus_loaded())
        self.search = SearchController(session, self)
        self.personal = PersonalController(session, self)
        self.notes = NotesController(session, self)
        self.triage = TriageController(session, self)
        self.exporting = ExportController(session, self)
        self.tags = TagsController(session, self)
        self.feed = FeedController(session, self)
        self.topics = TopicsController(session, self)
        self.saved = SavedSearchController(session, self)
        self.papers = PaperController(self)
        #: Whether the footer last showed a paper's keys (refreshed when that changes).
        self._paper_keys_shown: bool | None = None
        self.fetching = FetchController(session, self)
        #: Every key from the terminal, in order, once the screen it belongs to exists.
        self.keys = KeyRouter(self)
        #: The terminal's modes as the command found them, before it turned the echo off
        #: while starting (tui.cli); the driver puts them back when it leaves the screen.
        self.terminal_modes_at_launch: list[Any] | None = None
        #: Saving at quit, signals and the bound on quitting (the command line installs
        #: its guard; the tests do not).
        self.quit_sequence = QuitSequence(self, self.notes, self.personal, self.triage)

    @property
    def quitting(self) -> bool:
        """Set once quitting has begun: workers build nothing more, late results are dropped."""
        return self.session.quitting

    @quitting.setter
    def quitting(self, value: bool) -> None:
        self.session.quitting = value

    @property
    def data_dir(self) -> Path:
        """The user's data directory (resolved on first use: platformdirs is not needed to paint)."""
        return locations.data_dir(self._data_dir_override)

    # -- layout --------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield AppHeader(id="header")
        with Horizontal(id="main"):
            with Vertical(id="list-pane"):
                yield FilterInput(
                    on_value=lambda value: self.search.filter_changed(value),
                    placeholder=FILTER_PLACEHOLDERS[-1],
                    id="filter",
                )
                yield Static(id="query-error")
                yield AbstractList(self.corpus, on_cursor=self._cursor_moved, id="list")
            yield DetailPane(id="detail")
        yield AppFooter()

    @property
    def abstract_list(self) -> AbstractList:
        return self.query_one("#list", AbstractList)

    @property
    def detail(self) -> DetailPane:
        return self.query_one("#detail", DetailPane)

    @property
    def filter_input(self) -> Input:
        return self.query_one("#filter", Input)

    @property
    def query_error_line(self) -> Static:
        return self.query_one("#query-error", Static)

    def on_mount(self) -> None:
        self.call_after_refresh(self.search.fit_placeholder)
        self.abstract_list.empty_text = "No abstracts loaded."
        # Now, not on a later loop turn as `focus()` would: keys typed before the first
        # frame are routed as soon as the loop starts, and they are the list's.
        self.screen.set_focus(self.abstract_list)
        self._redraw()
        self.quit_sequence.attach()
        # A modal opening or closing holds off or restarts auto-read's dwell time.
        self.screen_change_signal.subscribe(self, lambda _: self.personal.focus_changed())
        if self.loading.active:
            self._after_first_frame(self.loading.start)
        else:
            self._report_problems()
            self._after_first_frame(self.start_background_work)

    def _after_first_frame(self, step: Callable[[], object]) -> None:
        """Run `step` as soon as the first frame is written (the files still to read and
        the search's imports, which the first answer waits for): not after the next
        refresh, which waits for the frames of keys typed meanwhile and the footer's
        first compose."""
        if self._first_frame_shown:
            self.call_next(step)
            return
        self._first_frame_steps.append(step)
        # `_display` below is Textual's own (private): should a Textual release rename it,
        # the steps still run, after the next refresh as they did before.
        self.call_after_refresh(self._first_frame_written)

    def _first_frame_written(self) -> None:
        """Run the steps waiting for the first frame (once; later calls find none)."""
        self._first_frame_shown = True
        steps, self._first_frame_steps = self._first_frame_steps, []
        for step in steps:
            self.call_next(step)

    def on_resize(self) -> None:
        self.call_after_refresh(self.search.fit_placeholder)

    def corpus_grew(self, *, finished: bool = False) -> None:
        """More abstracts were read: the unfiltered list shows them at its end (a filtered
        one waits for the index, built once every file is read); the header counts them."""
        if self.closing:
            return
        shown = self.abstract_list.rows
        if not self.search.filtered and len(shown) < len(self.corpus):
            self.abstract_list.extend_rows(range(len(shown), len(self.corpus)))
        self.refresh_header()

    def corpus_loaded(self) -> None:
        """The last file is read (and the read cache written): report what could not be
        loaded, start the rest."""
        self.abstract_list.refresh_rows()  # a paper may have been given its final id
        self.detail.forget()  # and the abstract shown, a paper's title and authors
        self._redraw()
        self._report_problems()
        self.start_background_work()

    def start_background_work(self) -> None:
        """After the first paint (and the last file read): build the index and open the
        user's data off the UI thread."""
        if not gc.isenabled():
            # The command line paused garbage collection for start-up: what exists now
            # lives for the whole session, so keep it out of future collections.
            gc.freeze()
            gc.enable()
        if not self.collector.running:
            self.collector.start()
            self.set_interval(CHECK_SECONDS, self.collector.check)
        self.search.warm_index()
        # A search typed meanwhile is answered first: it needs neither (ui/controllers/search.py).
        self.search.after_answer(self._open_user_data)

    def _open_user_data(self) -> None:
        """Open the user's data and the inbox (off the UI thread)."""
        if not self.closing:
            self.personal.open()
            self.fetching.open_inbox()

    async def action_quit(self) -> None:
        """Remember where the user is, write everything pending, then exit (status 0, or 1
        when something could only be written to a rescue file). See ui/quitting.py."""
        if not self.quit_sequence.finished:
            self.exit(self.quit_sequence.finish())

    def on_unmount(self) -> None:
        self.collector.stop()
        self.quit_sequence.after_unmount()

    def _handle_exception(self, error: Exception) -> None:
        """Any unhandled exception: keep the traceback in a log file in the data dir (its
        path is printed after the app), save the open note's text, and exit non-zero;
        the store is flushed (or rescued) as the app unmounts (`after_unmount`)."""
        if not self.crashed:
            self.crashed = True
            from rich.text import Text

            from tui.ui.crash import EXIT_CRASHED, write_crash_log

            path = write_crash_log(self.data_dir, error)
            self.quit_sequence.save_open_notes()
            where = visible_line(str(path)) if path else "not saved: the data dir is not writable"
            self._exit_renderables.append(
                # The path on a line of its own, never wrapped: it is to be copied.
                Text(
                    f"abstracts: an unexpected error ended the app; the traceback is in\n{where}",
                    no_wrap=True,
                    overflow="ignore",
                )
            )
            self._return_value = EXIT_CRASHED
        super()._handle_exception(error)

    def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
        # Textual's own: a frame goes to the terminal. Once it has, the garbage of the
        # input it answers may be collected (ui/collector.py), not before.
        super()._display(screen, renderable)
        if renderable is not None and not self._first_frame_shown:
            self._first_frame_written()
        if renderable is not None and self.collector.frame_shown():
            self.set_timer(AFTER_FRAME_SECONDS, self.collector.after_frame)

    def get_driver_class(self) -> type[Driver]:
        """Textual's Linux driver can hang for ever on a closed terminal; ours cannot."""
        from textual.drivers.linux_driver import LinuxDriver

        driver = super().get_driver_class()
        if driver is LinuxDriver:
            from tui.ui.driver import PromptEscapeDriver

            return PromptEscapeDriver
        return driver

    @property
    def closing(self) -> bool:
        """True once quitting has begun, or once Textual has begun taking the app down
        (`is_running` turns False before the screens go): a worker's result arriving now
        must not touch the widgets, which may already be gone (NoMatches)."""
        return self.session.closing

    def _from_thread(self, event: SessionEvent) -> None:
        """A session event from another thread: to the event loop, as a message."""
        if not self.closing:
            self.post_message(SessionMessage(event))

    def on_session_message(self, message: SessionMessage) -> None:
        if not self.closing:
            self.session.bus.dispatch(message.event)

    def stop_background(self) -> None:
        """Quitting must not wait for a cache build: stop the child, build nothing more.
        A half-built cache is simply rebuilt next time."""
        self.session.stop()
        self.saved.stop()

    def _report_problems(self) -> None:
        problems = self.corpus.problems
        if not problems:
            return
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        self.notify(
            visible_line(f"{first}{more}. Press L for the load report."),
            title="Some input could not be loaded",
            severity="warning" if not any(p.fatal for p in problems) else "error",
            timeout=8,
            markup=False,  # a file name is data: `[@click=app.quit]x.txt` must not be a link
        )

    # -- what is shown ---------------------------------------------------------

    def _redraw(self) -> None:
        """Everything shown from the session's state: the list's marks, the detail pane,
        the header (at start, when the data opens, after a change of any abstract)."""
        if self.closing:
            return  # a late report: the widgets may already be gone
        self._shown_detail = None
        self._repaint_marks(None)
        self._show_current()
        self.refresh_header()

    def _marks_changed(self, event: MarksChanged) -> None:
        """Abstracts' personal state changed: their rows, the detail pane if it shows one
        of them, the counts in the header."""
        if self.closing:
            return
        if event.ids is None:
            self._redraw()
            return
        self._repaint_marks(event.ids)
        current = self.abstract_list.current
        if current is not None and current.id in event.ids:
            shown = self.detail.view
            if shown is not None and shown.abstract is current and not self.closing:
                # Its marks alone: the meta lines (and a note's box) are drawn again,
                # without building the whole view (highlights, near-duplicates).
                marks = view.marks_of(self.session, current)
                self.detail.show_marks(
                    bookmarked=marks["bookmarked"],
                    read=marks["read"],
                    dismissed=marks["dismissed"],
                    tags=marks["tags"],
                    note=marks["note"] or "",  # "": no note (None would keep the old one)
                )
            else:
                self._redraw_detail()
        self.refresh_header()

    def _repaint_marks(self, ids: frozenset[str] | None) -> None:
        """The marks of these abstracts' rows (None: of every row), in the main list and
        in every view of abstracts open."""
        marks = self.session.user.marks()
        if marks is None:
            return
        self.abstract_list.set_marks(marks)
        for screen in self.screen_stack:
            if isinstance(screen, AbstractsView):
                screen.set_marks(marks)

    def _redraw_detail(self) -> None:
        if not self.closing:
            self._shown_detail = None
            self._show_current()

    def show_results(
        self,
        rows: Sequence[int],
        spans: Spans | None,
        *,
        keep: str | None,
        divider: int | None = None,
        searched: bool = False,
    ) -> None:
        listed = self.abstract_list
        listed.set_highlighter(spans)
        self._shown_detail = None  # the highlights changed
        listed.set_rows(rows, keep=keep, divider=divider)  # the cursor shows the detail
        self._show_current()
        self.refresh_header()
        if searched:
            self.triage.apply_resume_selection()

    def refresh_header(self) -> None:
        """The header alone (a progress report): the list and detail pane are as they were."""
        if self.closing:
            return
        header = self.query_one(AppHeader)
        files = len(self.corpus.files)
        if self._title is None or self._title[0] != files:
            self._title = (files, view.header_title(self.corpus))
            header.set_title(self._title[1])
        doing = self.loading.progress_text() or self.session.loaders.progress_text()
        progress = self.personal.progress_text(self.abstract_list.rows)
        new_count = self.fetching.new_count
        header.set_status(
            *(
                view.header_status(
                    self.session, doing=doing, progress=progress, new_count=new_count, short=short
                )
                for short in (False, True)
            )
        )

    def _cursor_moved(self, current: Abstract | None) -> None:
        # The detail in the same frame as the cursor (`Highlighted` does the rest).
        if not self.closing:
            self._show_current()
            if not self._ahead_pending:
                self._ahead_pending = True
                self.call_after_refresh(self._draw_ahead)

    def _draw_ahead(self) -> None:
        """After the frame of a cursor move: the detail pane draws ahead the abstract the
        next move the same way will show (a key held or pressed again finds it drawn)."""
        self._ahead_pending = False
        if self.closing:
            return
        listed = self.abstract_list
        ahead = listed.abstract_at(listed.cursor + listed.heading)
        if ahead is not None and listed.current is self._shown_detail:
            self.detail.prepare(self.detail_view(ahead))

    def _show_current(self) -> None:
        current = self.abstract_list.current
        # A search's new rows redraw the view and then move the cursor (Highlighted):
        # the detail pane is built once for both, unless the abstract or the view changed.
        if current is None or current is not self._shown_detail:
            self._shown_detail = current
            self.detail.show(self.detail_view(current) if current is not None else None)
        resume = self.triage.resume_detail
        if resume is not None and current is not None and current.id == resume[0]:
            # Restored at start-up: scroll once the abstract has been laid out.
            self.triage.resume_detail = None
            self.call_after_refresh(lambda: self.detail.scroll_to(y=resume[1], animate=False))

    def detail_view(self, abstract: Abstract) -> DetailView:
        """What the detail pane shows of `abstract`, from the session's state."""
        return view.detail_view(self.session, abstract, raw=self.raw)

    def jump_to(self, abstract_id: str | None) -> None:
        """Select an abstract (clearing the filter if it hides it); an orphan opens its note."""
        if abstract_id is None:
            return
        if abstract_id not in self.corpus.by_id:
            self.notes.edit_orphan(abstract_id)
            return
        listed = self.abstract_list
        if not listed.select_abstract(abstract_id):
            self.filter_input.value = ""
            self.call_after_refresh(lambda: listed.select_abstract(abstract_id))
        listed.focus()

    @on(AbstractList.Highlighted)
    def _on_highlighted(self, event: AbstractList.Highlighted) -> None:
        self._show_current()
        is_paper = event.abstract is not None and event.abstract.paper is not None
        if is_paper != self._paper_keys_shown:
            self._paper_keys_shown = is_paper
            self.refresh_bindings()
        if event.abstract is not None:
            self.personal.start_read_timer(event.abstract)
            self.triage.schedule_resume_save()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.InputEvent, events.Paste)):
            self.collector.input_seen()
        if isinstance(event, (events.Key, events.MouseDown, events.MouseScrollDown)):
            # What moves the cursor after this is the user's (auto-read's launch rule).
            self.personal.user_acted()
        if isinstance(event, events.Key) and not event.is_forwarded:
            self.app_focus = True  # as Textual's own key handling does
            await self.keys.route(event)  # in order, each once its screen exists
            return
        await super().on_event(event)
        if isinstance(event, events.Key):
            await self.keys.landed(event)  # bubbled up: its binding has run

    def takes_no_text(self, widget: Widget) -> bool:
        """The main screen's list and detail pane: a key there means only its binding."""
        return isinstance(widget, (AbstractList, DetailPane))

    def on_descendant_focus(self) -> None:
        """Auto-read holds off while the filter has focus or a modal is open."""
        if self.closing:
            # A screen built off the stack (ui/screens/prepared.py) took its focus as the
            # app was ending: its screens may be gone already.
            return
        if self.focused is self.filter_input:
            self.search.filter_focused()
        self.personal.focus_changed()

    @on(AbstractList.Chosen)
    def _on_chosen(self) -> None:
        self.screen.set_focus(self.detail)

    def on_note_editor_screen_changed(self, message: NoteEditorScreen.Changed) -> None:
        self.notes.save_note(message.abstract, message.text)  # announced: the ✎ mark

    def on_abstracts_view_acted(self, message: AbstractsView.Acted) -> None:
        """b, x, r or the feed's Space in a view that lists abstracts: on the view's own."""
        self.personal.act(message.act, message.abstract)

    def on_feed_screen_sorted(self, message: FeedScreen.Sorted) -> None:
        self.feed.sorted(message.sort)

    def on_notes_screen_conflict_dropped(self, message: NotesScreen.ConflictDropped) -> None:
        self.notes.dismiss_conflict(message.copy_id)

    def on_tags_screen_rename_asked(self, message: TagsScreen.RenameAsked) -> None:
        self.tags.rename(message.old, message.new)

    def on_tags_screen_delete_asked(self, message: TagsScreen.DeleteAsked) -> None:
        self.tags.delete(message.tag)

    def watch_theme(self, theme: str) -> None:
        """Remember the theme chosen (palette: Theme) for the next start."""
        self.personal.remember_theme(theme)

    def on_app_focus(self) -> None:
        """Pick up another instance's changes when the terminal regains focus."""
        self.personal.refresh_data(quiet=True)

    # -- actions ---------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "focus_filter":
            # The priority `/` stands aside where it is text: in the filter itself, and on
            # every other screen (the note editor, the help).
            return len(self.screen_stack) == 1 and self.focused is not self.filter_input
        if action == "back" and len(self.screen_stack) > 1:
            return False  # Esc over another screen is that screen's (it closes it)
        if action == "to_results":
            # The priority Enter only means "to the results" in the filter box.
            return len(self.screen_stack) == 1 and self.focused is self.filter_input
        if action in PAPER_ACTIONS:
            # The listed binding while a paper is highlighted, the unlisted one otherwise:
            # the footer names the keys only where they can open or copy something.
            lists = self.query("#list").results(AbstractList)  # none before compose, after unmount
            shown = next(lists, None) if len(self.screen_stack) == 1 else None
            current = shown.current if shown is not None else None
            is_paper = current is not None and current.paper is not None
            return current is not None and is_paper != bool(parameters[1:])
        if action in MAIN_SCREEN_ONLY:
            return len(self.screen_stack) == 1  # not from over another view or dialog
        return True

    def action_focus_filter(self) -> None:
        self.search.focus_filter()

    def action_to_results(self) -> None:
        self.search.to_results()

    def action_toggle_order(self) -> None:
        self.search.toggle_order()

    async def action_back(self) -> None:
        if not self.fetching.cancel():
            self.search.back()

    def action_toggle_raw(self) -> None:
        self.raw = not self.raw
        self._shown_detail = None
        self._show_current()
        self.notify("Showing LaTeX source" if self.raw else "Showing rendered text", timeout=2)

    def action_toggle_bookmark(self) -> None:
        self.personal.act("bookmark", self.abstract_list.current)

    def action_edit_note(self) -> None:
        self.notes.edit_note()

    def action_edit_note_externally(self) -> None:
        self.notes.edit_externally()

    def action_toggle_read(self) -> None:
        self.personal.act("read", self.abstract_list.current)

    def action_notes(self) -> None:
        self.notes.show_notes()

    def action_refresh_data(self) -> None:
        """Ctrl+L: read what another instance saved."""
        self.personal.refresh_data(quiet=False)

    def action_space(self) -> None:
        self.triage.space()

    def action_undo(self) -> None:
        self.triage.undo()

    def action_redo(self) -> None:
        self.triage.redo()

    def action_mark_all_read(self) -> None:
        self.triage.mark_all_read()

    def action_more_like_this(self) -> None:
        self.triage.more_like_this()

    def action_more_like_bookmarks(self) -> None:
        self.triage.more_like_bookmarks()

    def action_overview(self) -> None:
        self.triage.overview()

    def action_tag_abstract(self) -> None:
        self.tags.tag_current()

    def action_tags(self) -> None:
        self.tags.show_view()

    def action_dismiss(self) -> None:
        self.personal.act("dismiss", self.abstract_list.current)

    def action_feed(self) -> None:
        self.feed.open()

    def action_fetch(self) -> None:
        self.fetching.start()

    def action_topics(self) -> None:
        self.topics.show()

    def action_open_paper(self, kind: OpenKind, _unlisted: str = "") -> None:
        self.papers.open(self.abstract_list.current, kind)

    def action_copy_paper(self, kind: CopyKind, _unlisted: str = "") -> None:
        self.papers.copy(self.abstract_list.current, kind)

    def action_save_search(self) -> None:
        self.saved.save_current()

    def action_saved_searches(self) -> None:
        self.saved.show()

    # Screens are imported when first opened: they are not needed for the first paint.

    def action_help(self) -> None:
        from tui.ui.screens.help import HelpScreen

        self.push_screen(HelpScreen(self.help_sections()))

    def action_load_report(self) -> None:
        from tui.ui.screens.load_report import LoadReportScreen

        self.push_screen(LoadReportScreen(self.corpus))

    def help_sections(self) -> list[HelpSection]:
        """Every binding, grouped by where it applies, for the help screen."""
        return palette.help_sections(self)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        parts = (
            self.personal.auto_read_commands,
            self.exporting.commands,
            self.personal.commands,
            self.papers.commands,
            self.triage.commands,
            self.tags.commands,
            self.feed.commands,
            self.topics.commands,
            self.saved.commands,
        )
        yield from palette.commands_for(self, screen, parts)


def make_app(
    paths: Sequence[str | Path] | None = None,
    *,
    data_dir: str | Path | None = None,
    corpus: Corpus | None = None,
    clock: Clock | None = None,
    loading: Loading | None = None,
) -> AbstractsApp:
    """Build the app the same way for the CLI and the tests: from paths or a loaded corpus
    (`loading`: the files still to read after the first paint, `corpus` their first ones)."""
    if corpus is None:
        from tui.corpus.load import load_corpus

        corpus = load_corpus(list(paths) if paths else [locations.seeds_dir()])
    return AbstractsApp(
        corpus,
        data_dir=Path(data_dir) if data_dir is not None else None,
        clock=clock,
        loading=loading,
    )
