"""A ranked list of similar abstracts; Enter jumps to one, b/x/r mark it, Esc returns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.corpus.model import Abstract
from tui.sanitize import visible_line
from tui.triage.marks import RowMarks
from tui.ui.screens.abstracts_view import ACT_KEYS, AbstractsView
from tui.ui.widgets.option_list import KeyedOptionList

Row = tuple[Abstract, float, Sequence[str]]


class SimilarScreen(ModalScreen[str | None], AbstractsView):
    """Top matches with their similarity scores; dismisses with the chosen abstract's id."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss(None)", "Back", id="similar.back")
    ]

    def __init__(
        self, title: str, subtitle: str, rows: Sequence[Row], marks: RowMarks | None
    ) -> None:
        super().__init__()
        if marks is not None:
            self.marks = marks
        self.title_text = title
        self.subtitle = subtitle
        self.rows = list(rows)
        self._width = 20

    def compose(self) -> ComposeResult:
        with Vertical(id="similar-box") as box:
            box.border_title = self.title_text
            box.border_subtitle = "Enter jumps · Esc returns"
            yield Static(Text(self.subtitle, style="dim"), id="similar-subtitle")
            if not self.rows:
                yield Static("Nothing similar found: no other abstract shares its content words.")
            # The box is 90% of the screen, at most 110 wide, less border, padding, the
            # list's own padding and its scrollbar.
            self._width = max(20, min(self.app.size.width * 9 // 10, 110) - 10)
            yield KeyedOptionList(*(self._option(row) for row in self.rows), id="similar-list")
            yield Static(Text(ACT_KEYS), classes="view-keys")

    def _option(self, row: Row) -> Option:
        """Two lines, each cut to the box: score, marks and headline; where it is from and
        the words it shares."""
        abstract, score, shared = row
        source = abstract.source
        marks = self.marks
        first = Text.assemble(
            (f"{score:4.0%} ", "bold"),
            (marks.cells(abstract.id), "bold"),
            " ",
            (visible_line(abstract.headline), "dim" if abstract.id in marks.read else ""),
        )
        where = f"{abstract.collection.short} · {source.name} #{source.position}"
        second = Text.assemble(
            "        ",
            (visible_line(where), "dim"),
            (f" · shares: {', '.join(shared)}" if shared else "", "dim italic"),
        )
        for line in (first, second):
            line.truncate(self._width, overflow="ellipsis")
        return Option(Text("\n").join([first, second]), id=abstract.id)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @property
    def highlighted(self) -> Abstract | None:
        position = self.query_one(OptionList).highlighted
        return self.rows[position][0] if position is not None and self.rows else None

    def repaint_marks(self, before: RowMarks) -> None:
        options = self.query_one(OptionList)
        for position, row in enumerate(self.rows):
            if before.cells(row[0].id) != self.marks.cells(row[0].id):
                options.replace_option_prompt_at_index(position, self._option(row).prompt)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
