"""The application: owns the corpus, the search index and the user's data.

Widgets receive what they show through attributes and post messages up;
only the app talks to the core (search, store, similarity).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from tui import locations
from tui.corpus.model import Abstract, Corpus
from tui.sanitize import visible_line
from tui.ui.filtering import FilterMixin
from tui.ui.personal import PersonalMixin
from tui.ui.quitting import QuitSequence
from tui.ui.triage import TriageMixin
from tui.ui.widgets.abstract_list import AbstractList, Spans
from tui.ui.widgets.detail import DetailPane, DetailView
from tui.ui.widgets.header import AppHeader

if TYPE_CHECKING:
    from textual.driver import Driver

    # Search pulls in rapidfuzz and numpy: imported when first needed, after the first paint.
    from tui.caches import CacheBuild
    from tui.search.index import SearchIndex

NARROW_WIDTH = 100


class AbstractsApp(FilterMixin, PersonalMixin, TriageMixin, App[int]):
    """A two-pane reader over a corpus of abstracts."""

    TITLE = "abstracts"
    # Below 100 columns the screen gets -narrow and the panes stack (styles/app.tcss).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_WIDTH, "-wide")]  # noqa: RUF012 (App declares it)
    CSS_PATH: ClassVar = [locations.styles_dir() / "app.tcss"]

    BINDINGS: ClassVar[list[BindingType]] = [
        # A priority binding runs as the App receives the key, before the keys behind it
        # are passed to the focused widget: a burst like `/quantum` (a paste, a fast
        # typist over SSH) then lands in the filter instead of running `q` and `n`.
        Binding("slash", "focus_filter", "Filter", priority=True),
        # Enter in the filter, for the same reason: `/graph⏎m` must run `m` on the results.
        Binding("enter", "to_results", "Results", show=False, priority=True),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
        Binding("escape", "back", "Back", show=False),
        Binding("v", "toggle_raw", "LaTeX source", show=False),
        Binding("o", "toggle_order", "Order", show=False),
        Binding("L", "load_report", "Load report", show=False),
        *PersonalMixin.PERSONAL_BINDINGS,
        *TriageMixin.TRIAGE_BINDINGS,
    ]

    def __init__(self, corpus: Corpus, *, data_dir: Path | None = None) -> None:
        super().__init__()
        self.corpus = corpus
        self._data_dir_override = data_dir
        self.index: SearchIndex | None = None
        self._index_lock = threading.Lock()
        self.query_text = ""
        self.order: Literal["relevance", "file"] = "relevance"
        self.raw = False
        self._spans: Spans | None = None
        # (full matches, closest matches) of the search shown; None when unfiltered.
        self.match_counts: tuple[int, int] | None = None
        self.query_error: str | None = None
        self.indexing = False
        #: Saving at quit, signals and the bound on quitting (the command line installs
        #: its guard; the tests do not).
        self.quit_sequence = QuitSequence(self)
        self.quitting = False
        self._cache_build: CacheBuild | None = None
        self._saved_selection: str | None = None
        self.resume_selection: str | None = None
        self.resume_scroll = 0
        self.resume_detail: tuple[str, int] | None = None
        self.init_personal()
        self.init_triage()

    @property
    def data_dir(self) -> Path:
        """The user's data directory (resolved on first use: platformdirs is not needed to paint)."""
        return locations.data_dir(self._data_dir_override)

    # -- layout --------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield AppHeader(id="header")
        with Horizontal(id="main"):
            with Vertical(id="list-pane"):
                yield Input(
                    placeholder='/ filter: words, "phrase", -word, year:2023, is:bookmarked',
                    id="filter",
                )
                yield Static(id="query-error")
                yield AbstractList(self.corpus, id="list")
            yield DetailPane(id="detail")
        yield Footer()

    @property
    def abstract_list(self) -> AbstractList:
        return self.query_one("#list", AbstractList)

    @property
    def detail(self) -> DetailPane:
        return self.query_one("#detail", DetailPane)

    @property
    def filter_input(self) -> Input:
        return self.query_one("#filter", Input)

    def on_mount(self) -> None:
        self.abstract_list.empty_text = "No abstracts loaded."
        self.abstract_list.focus()
        self._show_current()
        self.refresh_header()
        self._report_problems()
        self.quit_sequence.attach()
        self.call_after_refresh(self.start_background_work)

    def start_background_work(self) -> None:
        """After the first paint: build the index and open the user's data off the UI thread."""
        if not gc.isenabled():
            # The command line paused garbage collection for start-up: what exists now
            # lives for the whole session, so keep it out of future collections.
            gc.freeze()
            gc.enable()
        self._warm_index()
        self.open_personal()

    async def action_quit(self) -> None:
        """Remember where the user is, write everything pending, then exit (status 0, or 1
        when something could only be written to a rescue file). See ui/quitting.py."""
        if not self.quit_sequence.finished:
            self.exit(self.quit_sequence.finish())

    def on_unmount(self) -> None:
        self.quit_sequence.after_unmount()

    def get_driver_class(self) -> type[Driver]:
        """Textual's Linux driver can hang for ever on a closed terminal; ours cannot."""
        from textual.drivers.linux_driver import LinuxDriver

        driver = super().get_driver_class()
        if driver is LinuxDriver:
            from tui.ui.terminal import SafeLinuxDriver

            return SafeLinuxDriver
        return driver

    def stop_background(self) -> None:
        """Quitting must not wait for a cache build: stop the child, build nothing more.
        A half-built cache is simply rebuilt next time."""
        self.quitting = True
        if self._cache_build is not None:
            self._cache_build.stop()

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

    # -- header and detail ---------------------------------------------------

    def refresh_header(self) -> None:
        if self.quitting:  # a worker's late report: the widgets may be gone already
            return
        header = self.query_one(AppHeader)
        labels = sorted({visible_line(info.collection.short) for info in self.corpus.files})
        title = Text.assemble(("abstracts", "bold"), "  ", ", ".join(labels[:3]))
        if len(labels) > 3:
            title.append(f" +{len(labels) - 3}")
        header.set_title(title)
        status = Text()
        if self.query_text.strip() and self.index is None:
            # Never the unfiltered list as if it were the result.
            status.append("filter waits for the search index…", style="italic")
        elif self.query_text.strip():
            # Filtered: the counts that matter now, short enough for 80 columns.
            matched, close = self.match_counts or (len(self.abstract_list.rows), 0)
            status.append(f"{matched:,} match{'es' if matched != 1 else ''}", style="bold")
            if close:
                status.append(f" · {close:,} close")
            status.append(f" · of {len(self.corpus):,}")
            if self.order == "file":
                status.append(" (file order)")
        else:
            status.append(self.corpus.summary)
        progress = self.progress_text(self.abstract_list.rows)
        if progress:
            status.append("  ·  " + progress)
        if self.indexing:
            status = Text.assemble(("indexing…", "italic"), "  ·  ", status)
        if self.saving_problem:
            status.append("  ·  ⚠ " + self.saving_problem, style="bold")
        header.set_status(status)

    def _show_current(self) -> None:
        current = self.abstract_list.current
        self.detail.show(self.detail_view(current) if current is not None else None)
        if self.resume_detail is not None and current is not None:
            abstract_id, y = self.resume_detail
            if current.id == abstract_id:
                # Restored at start-up: scroll once the abstract has been laid out.
                self.resume_detail = None
                self.call_after_refresh(lambda: self.detail.scroll_to(y=y, animate=False))

    def detail_view(self, abstract: Abstract) -> DetailView:
        return DetailView(
            abstract=abstract,
            raw=self.raw,
            spans=self._spans,
            near_duplicates=self.near_duplicates(abstract.index),
            **self.personal_view(abstract),
        )

    @on(AbstractList.Highlighted)
    def _on_highlighted(self, event: AbstractList.Highlighted) -> None:
        self._show_current()
        if event.abstract is not None:
            self.start_read_timer(event.abstract)
            self.schedule_resume_save()

    @on(AbstractList.Chosen)
    def _on_chosen(self) -> None:
        self.detail.focus()

    # -- filtering (the logic is in FilterMixin) -------------------------------

    @on(Input.Changed, "#filter")
    def _on_filter_changed(self, event: Input.Changed) -> None:
        self.filter_changed(event.value)

    @on(Input.Submitted, "#filter")
    def _on_filter_submitted(self) -> None:
        self.action_to_results()

    async def action_back(self) -> None:
        focused = self.focused
        if focused is self.filter_input:
            if self.filter_input.value:
                self.filter_input.value = ""
            self.abstract_list.focus()
        elif focused is self.detail:
            self.abstract_list.focus()
        elif self.query_text:
            # Leaving results the user moved around in keeps the abstract they are on
            # (Esc in the filter box instead goes back to where they were before it).
            if (current := self.abstract_list.current) is not None:
                self._saved_selection = current.id
            self.filter_input.value = ""

    def watch_theme(self, theme: str) -> None:
        """Remember the theme chosen (palette: Theme) for the next start."""
        self.remember_theme(theme)

    def action_toggle_raw(self) -> None:
        self.raw = not self.raw
        self._show_current()
        self.notify("Showing LaTeX source" if self.raw else "Showing rendered text", timeout=2)

    # Screens are imported when first opened: they are not needed for the first paint.

    def action_help(self) -> None:
        from tui.ui.screens.help import HelpScreen

        self.push_screen(HelpScreen(self.help_sections()))

    def action_load_report(self) -> None:
        from tui.ui.screens.load_report import LoadReportScreen

        self.push_screen(LoadReportScreen(self.corpus))

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """Every binding, grouped by where it applies, for the help screen."""
        sections: list[tuple[str, list[tuple[str, str]]]] = []
        for title, bindings in (
            ("Everywhere", self.BINDINGS),
            ("List", AbstractList.BINDINGS),
            ("Detail", DetailPane.BINDINGS),
        ):
            rows = []
            for binding in bindings:
                if isinstance(binding, Binding):
                    keys = ", ".join(
                        self.get_key_display(Binding(k.strip(), "")) for k in binding.key.split(",")
                    )
                    rows.append((keys, binding.description))
            sections.append((title, rows))
        sections.append(
            (
                "More",
                [
                    ("Enter, Tab", "Read the selected abstract in the detail pane"),
                    ("Esc", "Back to the list; clears the filter"),
                    ("Ctrl+P", "Command palette"),
                    ("Mouse", "Click selects, the wheel scrolls"),
                ],
            )
        )
        return sections

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Filter", "Focus the filter box", self.action_focus_filter)
        yield SystemCommand("Help", "Every key binding", self.action_help)
        yield SystemCommand(
            "Load report", "Files loaded and problems found", self.action_load_report
        )
        yield SystemCommand(
            "Toggle LaTeX source", "Rendered text or the source", self.action_toggle_raw
        )
        yield SystemCommand(
            "Toggle order", "Relevance or file order for filtered results", self.action_toggle_order
        )
        yield from self.personal_commands()
        yield from self.triage_commands()


def make_app(
    paths: Sequence[str | Path] | None = None,
    *,
    data_dir: str | Path | None = None,
    corpus: Corpus | None = None,
) -> AbstractsApp:
    """Build the app the same way for the CLI and the tests: from paths or a loaded corpus."""
    if corpus is None:
        from tui.corpus.load import load_corpus

        corpus = load_corpus(list(paths) if paths else [locations.seeds_dir()])
    return AbstractsApp(corpus, data_dir=Path(data_dir) if data_dir is not None else None)
