"""The fetch's progress: one line above the footer while `abstracts fetch` runs in the app."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static


class FetchPanel(Horizontal):
    """What is being fetched, a bar, and how to cancel; the app sets them."""

    DEFAULT_CSS: ClassVar[str] = """
    FetchPanel {
        dock: bottom;
        height: 1;
        background: $panel;
    }
    FetchPanel #fetch-label {
        width: 1fr;
        height: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    FetchPanel ProgressBar {
        width: auto;
        height: 1;
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text("Fetching new papers…  (Esc cancels)"), id="fetch-label")
        yield ProgressBar(total=1.0, show_eta=False, id="fetch-bar")

    def show_progress(self, label: str, fraction: float) -> None:
        """What is being fetched (data: shown as text, never markup) and how far along."""
        self.query_one("#fetch-label", Static).update(Text(f"{label}  (Esc cancels)"))
        self.query_one("#fetch-bar", ProgressBar).update(progress=fraction)
