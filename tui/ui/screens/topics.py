"""The topic view (T): one row per topic with its number, labels, size, read and
bookmarked counts and a bar; Enter filters the list to `topic:N`."""

from __future__ import annotations

from collections.abc import Sequence
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
from tui.triage.overview import TOPIC_SEPARATOR, CountRow
from tui.ui.widgets.option_list import KeyedOptionList

# The screen's frame: the box is 90% of the screen, at most 110 wide, with a border,
# padding, the options' padding and the list's scrollbar inside it (styles/app.tcss).
_FRAME = 9


def _bar(row: CountRow, largest: int, width: int) -> Text:
    """The topic's size against the largest topic's, read abstracts in green first."""
    cells = max(1, round(width * row.total / largest)) if largest and row.total else 0
    read = round(cells * row.read_fraction)
    return Text.assemble(
        ("█" * read, "green"), ("█" * (cells - read), "blue"), ("░" * (width - cells), "dim")
    )


def _labels(label: str, width: int) -> str:
    """As many whole labels as fit in `width` (the first one cut if it alone does not)."""
    shown = ""
    for term in visible_line(label).split(TOPIC_SEPARATOR):
        longer = f"{shown}{TOPIC_SEPARATOR}{term}" if shown else term
        if len(longer) > width:
            break
        shown = longer
    if not shown:
        first = visible_line(label).split(TOPIC_SEPARATOR)[0]
        shown = first[: max(width - 1, 0)] + "…"
    return shown.ljust(width)


def topic_line(number: int, row: CountRow, largest: int, width: int) -> Text:
    """`12 graph · node · gnns  347 ████░░░░  41 read ★ 3`, fitted to `width` cells."""
    bar_width = 8 if width < 90 else 14
    digits = len(f"{largest:,}")
    counts = Text.assemble(
        f"{row.total:>{digits},} ",
        _bar(row, largest, bar_width),
        (f" {row.read:>{digits},} read", "green"),
        (f" ★ {row.bookmarked:>{digits},}", "yellow"),
    )
    label_width = max(width - 4 - len(counts.plain) - 1, 8)
    line = Text.assemble((f"{number:>3} ", "bold"), _labels(row.label, label_width), " ", counts)
    line.no_wrap = True
    return line


class TopicsScreen(ModalScreen[int | None]):
    """Dismisses with the topic chosen (its number), or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,T", "dismiss(None)", "Back", id="topics.back")
    ]

    def __init__(self, rows: Sequence[CountRow], status: str | None, total: int) -> None:
        super().__init__()
        self.rows = list(rows)
        self.status = status
        self.total = total

    def compose(self) -> ComposeResult:
        with Vertical(id="topics-box") as box:
            box.border_title = self._title()
            box.border_subtitle = "Enter filters to the topic · Esc returns"
            yield KeyedOptionList(*self._options(), id="topics-list")

    def _title(self) -> str:
        if not self.rows:
            return "Topics"
        return f"Topics ({len(self.rows)} of {self.total:,} abstracts)"

    def _width(self) -> int:
        screen = self.app.size.width
        return max(min(int(screen * 0.9), 110) - _FRAME, 30)

    def _options(self) -> list[Option]:
        if self.status is not None or not self.rows:
            return [Option(Text(self.status or "No topics.", style="italic"), disabled=True)]
        width = self._width()
        largest = max(row.total for row in self.rows)
        return [
            Option(topic_line(number, row, largest, width), id=str(number))
            for number, row in enumerate(self.rows, start=1)
        ]

    def update(self, rows: Sequence[CountRow], status: str | None) -> None:
        """New counts or newly computed topics; the highlighted row stays where it was."""
        self.rows, self.status = list(rows), status
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        options.add_options(self._options())
        if options.option_count and not options.get_option_at_index(0).disabled:
            # Where it was; the first topic when they have just been computed.
            options.highlighted = min(highlighted or 0, options.option_count - 1)
        self.query_one("#topics-box", Vertical).border_title = self._title()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.dismiss(int(event.option.id))
