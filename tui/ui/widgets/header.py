"""The top bar: what is loaded on the left, counts and status on the right."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static


class AppHeader(Horizontal):
    """A one-line bar; the app sets its two halves."""

    def compose(self) -> ComposeResult:
        yield Static(id="header-title")
        yield Static(id="header-status")

    def set_title(self, text: Text | str) -> None:
        self.query_one("#header-title", Static).update(text)

    def set_status(self, text: Text | str) -> None:
        self.query_one("#header-status", Static).update(text)
