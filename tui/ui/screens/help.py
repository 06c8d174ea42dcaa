"""The help screen: every key binding, grouped by where it applies."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

Sections = list[tuple[str, list[tuple[str, str]]]]


class HelpScreen(ModalScreen[None]):
    """A scrollable list of bindings; any of Esc, q or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "Close", id="help.close"),
    ]

    def __init__(self, sections: Sections) -> None:
        super().__init__()
        self.sections = sections

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys"
            box.border_subtitle = "Esc closes"
            yield Static(self._table())

    def _table(self) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", style="bold", no_wrap=True)
        table.add_column()
        for title, rows in self.sections:
            table.add_row("", Text(title, style="bold underline"))
            for keys, description in rows:
                table.add_row(Text(keys), Text(description))
            table.add_row("", "")
        return table
