"""The load report: every file loaded, every problem found and every repeated
paragraph merged, reopenable with L."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.corpus.model import Corpus
from tui.corpus.readers import format_name
from tui.sanitize import visible_line

# How many "first found in" files a repeated file's line names before "and N more".
_FIRST_IN_SHOWN = 3
_COUNTS_EXPLAINED = (
    "Abstracts counts each abstract once, in the first file it was found in; Repeated "
    "counts the paragraphs that were the same abstract again (the same text, whitespace "
    "aside) and were merged into it. Together they are the paragraphs of each file."
)
_MISSING_EXPLAINED = (
    " No abstract counts entries that give a title but no abstract: they are listed and "
    "searched by title and authors; has:abstract leaves them out."
)


class LoadReportScreen(ModalScreen[None]):
    """Problems first (they need the user's attention), then what was merged, then the files."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,L", "dismiss", "Close", id="load_report.close")
    ]

    def __init__(self, corpus: Corpus) -> None:
        super().__init__()
        self.corpus = corpus

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="report-box") as box:
            box.border_title = "Load report"
            box.border_subtitle = "Esc closes"
            yield Static(self._problems(), id="report-problems")
            yield Static(self._repeats(), id="report-repeats")
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

    def _repeats(self) -> Text:
        """How many paragraphs were merged, and per file where they were found first."""
        summary = self.corpus.repeated_summary
        if not summary:
            return Text("No repeated paragraphs: every abstract was found once.\n")
        text = Text(summary[0].upper() + summary[1:] + ":\n", style="bold")
        names = [info.path.name for info in self.corpus.files]
        # File names when they tell the files apart (the usual folder of files), else paths.
        short = len(set(names)) == len(names)

        def _name(path: Path) -> str:
            return visible_line(path.name if short else str(path))

        for repeats in self.corpus.repeats():
            text.append(f" {repeats.count:>6,} ", style="bold yellow")
            text.append(_name(repeats.path), style="bold")
            found = [
                f"{'this file' if first == repeats.path else _name(first)} ({n:,})"
                for first, n in repeats.first_in[:_FIRST_IN_SHOWN]
            ]
            more = len(repeats.first_in) - _FIRST_IN_SHOWN
            if more > 0:
                found.append(f"{more:,} more file{'s' * (more != 1)}")
            text.append(" · first found in " + ", ".join(found) + "\n")
        return text

    def _files(self) -> Group:
        corpus = self.corpus
        title = corpus.summary
        if corpus.repeated:
            paragraphs = len(corpus) + corpus.repeated
            title += f" (from {paragraphs:,} paragraphs: {corpus.repeated:,} repeated)"
        table = Table(title=title, expand=True, box=None, title_justify="left")
        # The path takes the room the counts leave (folded, never cut: it is what a user
        # looks for); the collection's name is cut with an ellipsis rather than folded.
        table.add_column("File", overflow="fold", ratio=1, min_width=16)
        table.add_column("Collection", overflow="ellipsis", no_wrap=True, max_width=10)
        table.add_column("Abstracts", justify="right", no_wrap=True)
        table.add_column("Repeated", justify="right", no_wrap=True)
        table.add_column("Format", max_width=8)
        # Library entries that give a title but no abstract: loaded, and counted here.
        missing = corpus.without_abstract
        if missing:
            table.add_column("No abstract", justify="right", max_width=8)
        for info in corpus.files:
            row: list[Text | str] = [
                Text(visible_line(str(info.path))),
                Text(visible_line(info.collection.short)),
                f"{info.added:,}",
                f"{info.repeated:,}" if info.repeated else "",
                format_name(info.format),
            ]
            if missing:
                row.append(f"{info.without_abstract:,}" if info.without_abstract else "")
            table.add_row(*row)
        if len(corpus.files) > 1:
            total_repeated = f"{corpus.repeated:,}" if corpus.repeated else ""
            total: list[Text | str] = [
                Text("Total", style="bold"),
                "",
                f"{len(corpus):,}",
                total_repeated,
                "",
            ]
            if missing:
                total.append(f"{missing:,}")
            table.add_row(*total)
        explained = _COUNTS_EXPLAINED
        if missing:
            explained += _MISSING_EXPLAINED
        return Group(table, Text("\n" + explained, style="dim"))
