"""The tags view (`#`): every tag with how many abstracts have it.

Enter filters the list by the tag; `r` renames it (onto a tag in use: merges them);
`d` deletes it from every abstract. The screen asks, the app does: it posts
`RenameAsked` and `DeleteAsked`, and the app (which makes each one undoable) sends
the new counts back with `set_rows`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.sanitize import visible_line
from tui.tagnames import TagError, normalise_tag
from tui.triage.overview import bar
from tui.ui.widgets.option_list import KeyedOptionList

BAR_WIDTH = 20


def tag_line(tag: str, count: int, most: int, name_width: int, bar_width: int) -> Text:
    """`#to-cite        ████▌       12`: a tag, a bar against the most used tag, its count."""
    name = visible_line(f"#{tag}")
    if len(name) > name_width:
        name = name[: name_width - 1] + "…"
    filled = bar(count / most if most else 0.0, bar_width).rstrip()
    line = Text.assemble(
        (name.ljust(name_width), "bold"),
        "  ",
        (filled, "green"),
        ("░" * (bar_width - len(filled)), "dim"),
        f" {count:>6,}",
    )
    line.no_wrap = True
    return line


class TagsScreen(ModalScreen[str | None]):
    """Dismisses with the tag to filter by, or None."""

    @dataclass
    class RenameAsked(Message):
        """Rename `old` to `new` (normalised) on every abstract; merges when `new` is in use."""

        old: str
        new: str

    @dataclass
    class DeleteAsked(Message):
        """Take `tag` off every abstract."""

        tag: str

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="tags.back"),
        Binding("q,number_sign", "dismiss(None)", "Back", show=False, id="tags.close"),
        Binding("r", "rename", "Rename", show=False, id="tags.rename"),
        Binding("d", "delete", "Delete", show=False, id="tags.delete"),
        # A modal screen holds back the app's keys: undo and redo are passed on here.
        Binding("u", "app.undo", "Undo", show=False, id="abstracts.undo"),
        Binding("ctrl+r", "app.redo", "Redo", show=False, id="abstracts.redo"),
    ]

    def __init__(self, rows: Sequence[tuple[str, int]]) -> None:
        super().__init__()
        self.rows = list(rows)
        self._renaming: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="tags-box") as box:
            box.border_title = "Tags"
            box.border_subtitle = "Enter filters · r rename/merge · d delete · u undo · Esc"
            yield KeyedOptionList(id="tags-list")
            yield Static(id="tags-error")
            rename = Input(id="tags-rename")
            rename.display = False
            yield rename

    def on_mount(self) -> None:
        self._fill(None)
        self.query_one(OptionList).focus()

    def set_rows(self, rows: Sequence[tuple[str, int]]) -> None:
        """New counts (after a change here, an undo or a refresh); the cursor stays on its tag."""
        self.rows = list(rows)
        self._fill(self.highlighted)

    @property
    def highlighted(self) -> str | None:
        """The tag under the cursor, or None."""
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is None or not self.rows:
            return None
        return options.get_option_at_index(index).id

    def _fill(self, keep: str | None) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        if not self.rows:
            options.add_option(
                Option(Text("No tags yet: t on an abstract adds some.", "dim"), disabled=True)
            )
            return
        narrow = self.app.size.width < 100
        most = max(count for _, count in self.rows)
        width = min(max(len(tag) + 1 for tag, _ in self.rows), 24 if narrow else 36)
        bar_width = 10 if narrow else BAR_WIDTH
        options.add_options(
            Option(tag_line(tag, count, most, width, bar_width), id=tag) for tag, count in self.rows
        )
        tags = [tag for tag, _ in self.rows]
        options.highlighted = tags.index(keep) if keep in tags else 0

    @on(OptionList.OptionSelected, "#tags-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.dismiss(event.option.id)

    def action_rename(self) -> None:
        tag = self.highlighted
        if tag is None:
            return
        self._renaming = tag
        line = self.query_one("#tags-rename", Input)
        line.border_title = Text(f"Rename #{visible_line(tag)} to (a tag in use: merge)")
        line.value = tag
        line.display = True
        line.focus()

    @on(Input.Submitted, "#tags-rename")
    def _renamed(self, event: Input.Submitted) -> None:
        old = self._renaming
        try:
            new = normalise_tag(event.value)
        except TagError as e:
            self.query_one("#tags-error", Static).update(Text(visible_line(str(e)), "bold red"))
            return
        self._close_rename()
        if old is not None and new != old:
            self.post_message(self.RenameAsked(old, new))

    def _close_rename(self) -> None:
        self._renaming = None
        self.query_one("#tags-error", Static).update("")
        self.query_one("#tags-rename", Input).display = False
        self.query_one(OptionList).focus()

    def action_delete(self) -> None:
        tag = self.highlighted
        if tag is not None:
            self.post_message(self.DeleteAsked(tag))

    def action_back(self) -> None:
        """Esc closes the rename line first, then the view."""
        if self._renaming is not None:
            self._close_rename()
        else:
            self.dismiss(None)
