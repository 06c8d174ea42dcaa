"""The Export dialog: format, scope and path, checked before it closes.

The screen writes nothing: it returns an `ExportRequest` to the app, and asks
the `check` callback it was given (the exporting controller's) whether a path
can be used, so an existing file is refused here with a message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static

from tui.sanitize import visible_line

#: Format name (as `abstracts export --format` takes it), label, file extension.
FORMATS: tuple[tuple[str, str, str], ...] = (
    ("md", "Markdown", "md"),
    ("json", "JSON (lossless, for import)", "json"),
    ("bibtex", "BibTeX", "bib"),
    ("csv", "CSV", "csv"),
    ("ris", "RIS (Zotero, EndNote)", "ris"),
    ("csljson", "CSL-JSON (Zotero, pandoc)", "json"),
)
#: Scope name and label.
SCOPES: tuple[tuple[str, str], ...] = (
    ("bookmarked", "Bookmarked"),
    ("notes", "With notes"),
    ("list", "The current list"),
    ("all", "All bookmarks and notes"),
)


@dataclass(frozen=True)
class ExportRequest:
    """What the user asked for."""

    fmt: str
    scope: str
    path: Path


def extension(fmt: str) -> str:
    return next(ext for name, _, ext in FORMATS if name == fmt)


class ExportScreen(ModalScreen[ExportRequest | None]):
    """Pick a format, a scope and a path; Enter or Export exports, Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="export.cancel")
    ]

    def __init__(
        self,
        default_path: Path,
        *,
        check: Callable[[ExportRequest], str | None],
        list_size: int,
    ) -> None:
        super().__init__()
        self.default_path = default_path
        self.check = check
        self.list_size = list_size

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box") as box:
            box.border_title = "Export"
            with Horizontal(id="export-choices"):
                with RadioSet(id="export-format"):
                    for i, (name, label, _) in enumerate(FORMATS):
                        yield RadioButton(label, value=i == 0, name=name)
                with RadioSet(id="export-scope"):
                    for name, label in SCOPES:
                        if name == "list":
                            label = f"{label} ({self.list_size:,})"
                        yield RadioButton(label, value=name == "all", name=name)
            yield Label("Write to (an existing file is never replaced):")
            yield Input(str(self.default_path), id="export-path")
            yield Static(id="export-problem")
            with Horizontal(id="export-buttons"):
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")

    def on_mount(self) -> None:
        self.query_one("#export-format", RadioSet).focus()

    def _chosen(self, selector: str) -> str:
        pressed = self.query_one(selector, RadioSet).pressed_button
        return pressed.name if pressed is not None and pressed.name else ""

    @property
    def request(self) -> ExportRequest:
        path = Path(self.query_one("#export-path", Input).value.strip()).expanduser()
        return ExportRequest(self._chosen("#export-format"), self._chosen("#export-scope"), path)

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self) -> None:
        """The file name follows the format (`.bib` for BibTeX)."""
        field = self.query_one("#export-path", Input)
        path = Path(field.value.strip())
        if path.name:
            field.value = str(path.with_suffix("." + extension(self._chosen("#export-format"))))

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#export-go")
    def _go(self) -> None:
        request = self.request
        problem = self.check(request)
        if problem is not None:
            # The message quotes the path typed: text, never markup (`/x[/]/y.md`).
            self.query_one("#export-problem", Static).update(Text(visible_line(problem)))
            return
        self.dismiss(request)

    @on(Button.Pressed, "#export-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
