"""Moving a row cursor with the keys every list in the reader uses (j/k, g/G, PgUp/PgDn)."""

from __future__ import annotations

from textual.binding import Binding

#: The bindings of `CursorMoves`, for a widget's BINDINGS.
CURSOR_BINDINGS = [
    Binding("j,down", "cursor_down", "Down", show=False, id="list.down"),
    Binding("k,up", "cursor_up", "Up", show=False, id="list.up"),
    Binding("g,home", "first", "First", show=False, id="list.first"),
    Binding("G,end", "last", "Last", show=False, id="list.last"),
    Binding("pageup", "page_up", "Page up", show=False, id="list.page_up"),
    Binding("pagedown", "page_down", "Page down", show=False, id="list.page_down"),
]


class CursorMoves:
    """Actions moving `cursor` (a reactive the widget declares and validates) over
    `row_count` rows, `page_rows()` at a time."""

    cursor: int

    @property
    def row_count(self) -> int:
        raise NotImplementedError

    def page_rows(self) -> int:
        raise NotImplementedError

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = self.row_count - 1

    def action_page_down(self) -> None:
        self.cursor += self.page_rows()

    def action_page_up(self) -> None:
        self.cursor -= self.page_rows()
