"""The feed's list: two lines per ranked abstract, drawn with Textual's line API.

Only the rows on screen are rendered, so a new ranking or a changed mark costs the
same whatever the feed's length (an OptionList lays out every option first: tens of
milliseconds on the event loop for a hundred two-line rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.corpus.model import Abstract
from tui.sanitize import visible_line
from tui.triage.feed import FeedItem
from tui.triage.marks import RowMarks
from tui.ui.widgets.cursor import CURSOR_BINDINGS, CursorMoves

LINES_PER_ROW = 2
# Left of each row: the score and the marks; the reason's line is indented as far.
_INDENT = "      "


def row_text(item: FeedItem, marks: RowMarks, width: int) -> Text:
    """Two lines: score, marks, headline, venue and year; then why it is here
    ("because ★" the liked abstract it is closest to, and the words they share)."""
    abstract = item.abstract
    meta = visible_line(abstract.collection.short)
    first = Text.assemble(
        (f"{item.score:4.2f} ", "bold"),
        (marks.cells(abstract.id), "bold"),
        " ",
        (visible_line(abstract.headline), "dim" if abstract.id in marks.read else ""),
    )
    first.truncate(max(10, width - len(meta) - 1), overflow="ellipsis", pad=True)
    first.append(" " + meta, style="dim")
    because = Text(visible_line(item.because.headline))
    because.truncate(max(16, (width - 20) // 2), overflow="ellipsis")
    second = Text.assemble(_INDENT, ("because ★ ", "dim"), because)
    if item.shared:
        second.append(" · " + ", ".join(item.shared), style="dim italic")
    second.truncate(width, overflow="ellipsis")
    return Text("\n").join([first, second])


class FeedList(CursorMoves, ScrollView, can_focus=True):
    """The ranked abstracts of the feed; Enter (or a double click) chooses one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *CURSOR_BINDINGS,
        Binding("enter", "choose", "Open", show=False, id="list.choose"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {"feed-list--cursor"}

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    @dataclass
    class Chosen(Message):
        """The user pressed Enter on a row (or double-clicked it)."""

        abstract: Abstract

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[FeedItem] = []
        self.marks = RowMarks()
        self._lines: dict[tuple[int, int, bool, bool, int], list[Strip]] = {}

    # -- what the screen sets ----------------------------------------------

    def set_items(self, items: Sequence[FeedItem]) -> None:
        """Show `items`; the cursor stays on its abstract if it is still there, else on the
        row that took its place."""
        current, position = self.current, self.cursor
        self.items = list(items)
        ids = [item.abstract.id for item in self.items]
        self._changed()
        self.virtual_size = Size(self.size.width, len(self.items) * LINES_PER_ROW)
        if current is not None and current.id in ids:
            self.cursor = ids.index(current.id)
        else:
            self.cursor = position

    def set_marks(self, marks: RowMarks) -> None:
        self.marks = marks
        self._changed()

    @property
    def current(self) -> Abstract | None:
        if 0 <= self.cursor < len(self.items):
            return self.items[self.cursor].abstract
        return None

    def _changed(self) -> None:
        self._lines.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        self._lines.clear()
        super().notify_style_update()

    # -- cursor ------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.items) - 1)) if self.items else 0

    def watch_cursor(self) -> None:
        height = max(1, self.scrollable_content_region.height)
        top, line = int(self.scroll_y), self.cursor * LINES_PER_ROW
        if line < top:
            self.scroll_to(y=line, animate=False, immediate=True)
        elif line + LINES_PER_ROW > top + height:
            self.scroll_to(y=line + LINES_PER_ROW - height, animate=False, immediate=True)
        self.refresh()

    @property
    def row_count(self) -> int:
        return len(self.items)

    def page_rows(self) -> int:
        return max(1, self.scrollable_content_region.height // LINES_PER_ROW - 1)

    def action_choose(self) -> None:
        if (current := self.current) is not None:
            self.post_message(self.Chosen(current))

    async def _on_click(self, event: events.Click) -> None:
        row = event.style.meta.get("row")
        if isinstance(row, int):
            self.cursor = row
            if event.chain > 1:
                self.action_choose()

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self.items) * LINES_PER_ROW)
        self._lines.clear()

    # -- drawing -----------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        line = int(self.scroll_y) + y
        row, part = divmod(line, LINES_PER_ROW)
        if row >= len(self.items):
            return Strip.blank(width, base)
        is_cursor = row == self.cursor
        key = (row, width, is_cursor, self.has_focus, id(self.items[row]))
        if (strips := self._lines.get(key)) is None:
            text = row_text(self.items[row], self.marks, width)
            # The widget's own colours under every span (a light theme would otherwise
            # show the terminal's default background behind the text).
            text.style = base
            under = base
            if is_cursor:
                under = base + self._cursor_style()
                text.stylize(self._cursor_style())
            strips = [
                Strip(list(piece.render(self.app.console)))
                .crop_extend(0, width, under)
                .apply_meta({"row": row})
                for piece in text.split("\n", allow_blank=True)
            ]
            self._lines[key] = strips
        return strips[part] if part < len(strips) else Strip.blank(width, base)

    def _cursor_style(self) -> Style:
        style = self.get_component_rich_style("feed-list--cursor")
        return style if self.has_focus else Style(bgcolor=style.bgcolor)
