"""The top bar: what is loaded on the left, counts and status on the right."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static


class AppHeader(Horizontal):
    """A one-line bar; the app sets its two halves."""

    _status: Text | str = ""

    def compose(self) -> ComposeResult:
        yield Static(id="header-title")
        yield Static(id="header-status")

    def set_title(self, text: Text | str) -> None:
        self.query_one("#header-title", Static).update(text)

    def set_status(self, text: Text | str) -> None:
        """The right half; unchanged text is not drawn again, and text of the same width
        is drawn without a new layout of the screen (the filter redraws it per key)."""
        if text == self._status:
            return
        same_width = _width(text) == _width(self._status)
        self._status = text
        self.query_one("#header-status", Static).update(text, layout=not same_width)


def _width(text: Text | str) -> int:
    return text.cell_len if isinstance(text, Text) else cell_len(text)
