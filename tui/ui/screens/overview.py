"""The overview: per collection and per file, abstracts read and bookmarked as
bars, and each collection's most distinctive terms, selectable as a filter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.sanitize import visible_line
from tui.triage.overview import CountRow, bar
from tui.ui.widgets.option_list import KeyedOptionList

BAR_WIDTH = 20


def _bar(fraction: float, width: int, style: str) -> Text:
    """A bar on a visible track, so an empty one still shows its length."""
    filled = bar(fraction, width).rstrip()
    return Text.assemble((filled, style), ("░" * (width - len(filled)), "dim"))


def count_line(row: CountRow, label_width: int, bar_width: int = BAR_WIDTH) -> Text:
    """`ICLR 2023  ███▌░░░░  12 / 57 read  █░░░ ★ 3`: read and bookmarked, as bars."""
    line = Text.assemble(
        (visible_line(row.label)[:label_width].ljust(label_width), "bold"),
        "  ",
        _bar(row.read_fraction, bar_width, "green"),
        f" {row.read:,}/{row.total:,} read  ",
        _bar(row.bookmarked_fraction, max(4, bar_width // 2), "yellow"),
        (f" ★ {row.bookmarked:,}", "yellow"),
    )
    line.no_wrap = True
    return line


def collection_query(label: str) -> str | None:
    """The filter for one collection: `venue:ICLR year:2023`, or None when the label has neither."""
    venue, _, year = label.rpartition(" ")
    if venue and year.isdigit() and " " not in venue:
        return f"venue:{venue} year:{year} "
    return None


class OverviewScreen(ModalScreen[str | None]):
    """Dismisses with a filter (a collection, a file or a distinctive term), or None.

    Filters end in a space so the last word is matched whole, not as a prefix being typed.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,O", "dismiss(None)", "Back", id="overview.back")
    ]

    def __init__(
        self,
        collections: Sequence[CountRow],
        files: Sequence[CountRow],
        terms: Mapping[str, Sequence[str]],
    ) -> None:
        super().__init__()
        self.collections = collections
        self.files = files
        self.terms = terms

    def compose(self) -> ComposeResult:
        with Vertical(id="overview-box") as box:
            box.border_title = "Overview"
            box.border_subtitle = "Enter filters by a collection, term or file · Esc returns"
            yield KeyedOptionList(*self._options(), id="overview-list")

    def _options(self) -> list[Option | None]:
        narrow = self.app.size.width < 100
        width = max((len(r.label) for r in [*self.collections, *self.files[:50]]), default=10)
        width = min(width, 16 if narrow else 28)
        bar_width = 8 if narrow else BAR_WIDTH
        options: list[Option | None] = []

        def add(prompt: Text, query: str | None) -> None:
            # Ids must be unique (a term can be distinctive of two collections): number them.
            ident = f"{len(options)}\0{query}" if query else None
            options.append(Option(prompt, id=ident, disabled=query is None))

        add(Text("Collections", style="bold underline"), None)
        for row in self.collections:
            add(count_line(row, width, bar_width), collection_query(row.label))
            for term in self.terms.get(row.label, ()):
                add(Text.assemble("    ", ("filter: ", "dim"), visible_line(term)), f"{term} ")
        options.append(None)
        add(Text(f"Files ({len(self.files):,})", style="bold underline"), None)
        for row in self.files:
            # The filter box shows the query: a file name in it is shown, never obeyed.
            add(count_line(row, width, bar_width), f"file:{visible_line(row.label)} ")
        return options

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.dismiss(event.option.id.split("\0", 1)[1])
