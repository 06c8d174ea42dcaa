"""A ranked list of similar abstracts; Enter jumps to one, Esc returns."""

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
from tui.ui.widgets.option_list import KeyedOptionList


class SimilarScreen(ModalScreen[str | None]):
    """Top matches with their similarity scores; dismisses with the chosen abstract's id."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "dismiss(None)", "Back")]

    def __init__(
        self, title: str, subtitle: str, rows: Sequence[tuple[Abstract, float, Sequence[str]]]
    ) -> None:
        super().__init__()
        self.title_text = title
        self.subtitle = subtitle
        self.rows = list(rows)

    def compose(self) -> ComposeResult:
        with Vertical(id="similar-box") as box:
            box.border_title = self.title_text
            box.border_subtitle = "Enter jumps · Esc returns"
            yield Static(Text(self.subtitle, style="dim"), id="similar-subtitle")
            if not self.rows:
                yield Static("Nothing similar found: no other abstract shares its content words.")
            # The box is 90% of the screen, at most 110 wide, less border, padding, the
            # list's own padding and its scrollbar.
            width = max(20, min(self.app.size.width * 9 // 10, 110) - 10)
            yield KeyedOptionList(
                *(self._option(*row, width=width) for row in self.rows), id="similar-list"
            )

    @staticmethod
    def _option(abstract: Abstract, score: float, shared: Sequence[str], width: int) -> Option:
        """Two lines, each cut to the box: score and headline; where it is from and shared words."""
        source = abstract.source
        first = Text.assemble((f"{score:4.0%}  ", "bold"), visible_line(abstract.headline))
        where = f"{abstract.collection.short} · {source.name} #{source.position}"
        second = Text.assemble(
            "      ",
            (visible_line(where), "dim"),
            (f" · shares: {', '.join(shared)}" if shared else "", "dim italic"),
        )
        for line in (first, second):
            line.truncate(width, overflow="ellipsis")
        return Option(Text("\n").join([first, second]), id=abstract.id)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
