"""The load report: every file loaded and every problem found, reopenable with L."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.corpus.model import Corpus
from tui.sanitize import visible_line


class LoadReportScreen(ModalScreen[None]):
    """Problems first (they need the user's attention), then the files loaded."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,L", "dismiss", "Close")]

    def __init__(self, corpus: Corpus) -> None:
        super().__init__()
        self.corpus = corpus

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="report-box") as box:
            box.border_title = "Load report"
            box.border_subtitle = "Esc closes"
            yield Static(self._problems(), id="report-problems")
            yield Static(self._files(), id="report-files")

    def _problems(self) -> Text:
        problems = self.corpus.problems
        if not problems:
            return Text("No problems: every file loaded cleanly.\n", style="bold")
        text = Text(f"{len(problems)} problem{'s' * (len(problems) != 1)}\n", style="bold")
        for problem in problems:
            mark = "✗" if problem.fatal else "!"
            text.append(f" {mark} ", style="bold red" if problem.fatal else "bold yellow")
            # Names and messages quote file names: shown, never obeyed by the terminal.
            text.append(visible_line(str(problem.path)), style="bold")
            text.append(f": {visible_line(problem.message)}\n")
        return text

    def _files(self) -> Table:
        table = Table(title=self.corpus.summary, expand=True, box=None, title_justify="left")
        table.add_column("File", overflow="fold")
        table.add_column("Collection")
        table.add_column("Abstracts", justify="right")
        for info in self.corpus.files:
            table.add_row(
                Text(visible_line(str(info.path))),
                Text(visible_line(info.collection.short)),
                f"{info.count:,}",
            )
        return table
