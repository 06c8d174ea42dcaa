"""The list pane: one line per abstract, drawn with Textual's line API.

Only the visible rows are ever rendered, over an array of corpus indices, so
the cost of showing, filtering or jumping does not grow with the corpus
(stock OptionList/DataTable take over a second to populate at 10,000 rows).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.color import Color
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.corpus.model import Abstract, Corpus
from tui.sanitize import visible_line
from tui.search.spans import Spans
from tui.tagnames import format_tags
from tui.triage.marks import RowMarks
from tui.ui.widgets import paper_row
from tui.ui.widgets.cursor import CURSOR_BINDINGS, CursorMoves

#: What a row shows of its abstract's personal state: judgement cell, noted, read, tags.
RowMarkKey = tuple[str, bool, bool, frozenset[str] | None]


class AbstractList(CursorMoves, ScrollView, can_focus=True):
    """A virtual list of abstracts: headline, marks, venue and year."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *CURSOR_BINDINGS,
        Binding("enter", "choose", "Read", show=False, id="list.choose"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "abstract-list--cursor",
        "abstract-list--unread",
        "abstract-list--read",
        "abstract-list--meta",
        "abstract-list--mark",
        "abstract-list--match",
        "abstract-list--match-cursor",
        "abstract-list--divider",
    }

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    @dataclass
    class Highlighted(Message):
        """The cursor moved to another abstract."""

        abstract_list: AbstractList
        abstract: Abstract | None

        @property
        def control(self) -> AbstractList:
            return self.abstract_list

    @dataclass
    class Chosen(Message):
        """The user clicked a row or pressed Enter on it."""

        abstract_list: AbstractList
        abstract: Abstract

        @property
        def control(self) -> AbstractList:
            return self.abstract_list

    def __init__(
        self,
        corpus: Corpus,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._corpus = corpus
        self._rows: array[int] = array("i", range(len(corpus)))
        self.marks = RowMarks()
        self.highlight_spans: Spans | None = None
        self.empty_text = "No abstracts."
        # Rows from this position on are the closest matches of a search, not full
        # matches: a divider line is drawn above the first of them (None: no divider).
        self._divider: int | None = None
        self._styles: dict[str, Style] = {}
        # Rendered rows: a cursor move, a scroll or a new answer redraws from here, not
        # from Rich. A row's key holds its position and abstract, its marks, and
        # `_version`, which changes when what every row shows may have (matches, styles,
        # the abstracts themselves): new rows or marks need no clearing.
        self._strips: LRUCache[tuple[object, ...], Strip] = LRUCache(512)
        self._version = 0
        # The marks each row on screen was drawn with (row position -> marks key): a
        # marks change redraws the lines whose marks differ. The sets in `RowMarks` are
        # the store's own, changed in place, so old and new marks cannot be compared.
        self._drawn_marks: dict[int, RowMarkKey] = {}

    # -- what the app sets ------------------------------------------------

    @property
    def rows(self) -> Sequence[int]:
        """The corpus indices shown, in order."""
        return self._rows

    @property
    def divider(self) -> int | None:
        """The row position where the closest matches start, when a divider is shown."""
        return self._divider

    def set_rows(
        self, rows: Sequence[int], keep: str | None = None, divider: int | None = None
    ) -> None:
        """Show `rows` (corpus indices); keep the cursor on abstract `keep` if it is among them.

        `divider`: the position of the first row that only closely matches the
        search; a "closest matches" line is drawn above it.
        """
        self._rows = array("i", rows)
        self._divider = divider if divider is not None and 0 <= divider < len(rows) else None
        self._drawn_marks.clear()
        target = 0
        if keep is not None and (kept := self._corpus.by_id.get(keep)) is not None:
            try:
                target = self._rows.index(kept.index)
            except ValueError:
                target = 0
        self._set_line_count()
        if self.scroll_y:
            self.scroll_to(y=0, animate=False, immediate=True)
        self.cursor = target
        self.refresh()

    def extend_rows(self, rows: Sequence[int]) -> None:
        """Add `rows` at the end (abstracts read after the first paint); the cursor and
        the scroll stay where they are."""
        was_empty, first_new = not self._rows, self._line_count()
        self._rows.extend(rows)
        self._set_line_count()
        if was_empty:
            self.refresh()  # "No abstracts." goes
        else:
            # Only the lines below the last row show something new.
            self.refresh_lines(first_new, len(rows))

    def refresh_rows(self) -> None:
        """What the rows' abstracts are changed (read to the end): draw them again."""
        self._changed()

    def _set_line_count(self) -> None:
        """The virtual height after the rows changed, without a layout of the screen
        where it can be done without one.

        Setting `virtual_size` asks for a reflow of the whole screen (and a repaint of
        every widget whose geometry it touches) on every keystroke in the filter. The
        list's own size never depends on its rows; only a scrollbar appearing or going
        changes the width its rows have, so only then is the layout asked for.
        """
        size = Size(self.size.width, self._line_count())
        if size == self.virtual_size:
            return
        needs_bar = self.styles.overflow_y == "scroll" or (
            self.styles.overflow_y == "auto" and size.height > self.container_size.height
        )
        if not self.is_mounted or needs_bar != self.show_vertical_scrollbar:
            self.virtual_size = size
            return
        self.set_reactive(AbstractList.virtual_size, size)
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.window_virtual_size = size.height
        self.scroll_y = self.validate_scroll_y(self.scroll_y)

    def _line_count(self) -> int:
        return len(self._rows) + (self._divider is not None)

    def _line_of(self, row: int) -> int:
        """The line (of the virtual height) a row is drawn on."""
        return row + (self._divider is not None and row >= self._divider)

    def _row_at(self, line: int) -> int | None:
        """The row drawn on `line`; None for the divider."""
        divider = self._divider
        if divider is None or line < divider:
            return line
        return None if line == divider else line - 1

    def set_marks(self, marks: RowMarks) -> None:
        """Show `marks`: only the lines on screen whose row's marks changed are drawn again
        (a bookmark redraws one line, not the list)."""
        self.marks = marks
        drawn = self._drawn_marks
        top = int(self.scroll_y)
        for y in range(self.scrollable_content_region.height):
            row = self._row_at(top + y)
            if row is None:
                continue  # the divider
            if row >= len(self._rows):
                break
            # A row with no record (the rows or the styles changed since it was drawn)
            # is drawn again too: its line may still show the old marks.
            abstract_id = self._corpus.abstracts[self._rows[row]].id
            if drawn.get(row) != self._mark_key(abstract_id):
                drawn.pop(row, None)
                self.refresh_line(top + y)

    def set_highlighter(self, spans: Spans | None) -> None:
        """Highlight what `spans` finds in each headline (None: nothing)."""
        if spans is self.highlight_spans:
            return
        self.highlight_spans = spans
        self._changed()

    def _changed(self) -> None:
        """What every row shows may have changed: forget rendered rows and redraw."""
        self._forget()
        self.refresh()

    def _forget(self) -> None:
        self._version += 1
        self._strips.clear()
        self._drawn_marks.clear()

    def notify_style_update(self) -> None:
        # A theme or CSS change: rendered rows carry the old colours.
        self._forget()
        super().notify_style_update()

    def _mark_key(self, abstract_id: str) -> RowMarkKey:
        """What the row of `abstract_id` shows of its marks (the tags copied: the store
        changes its sets in place)."""
        marks = self.marks
        tags = marks.tags.get(abstract_id)
        return (
            marks.judged(abstract_id),
            abstract_id in marks.noted,
            abstract_id in marks.read,
            frozenset(tags) if tags else None,
        )

    @property
    def current(self) -> Abstract | None:
        """The abstract under the cursor, if any."""
        if 0 <= self.cursor < len(self._rows):
            return self._corpus.abstracts[self._rows[self.cursor]]
        return None

    def select_abstract(self, abstract_id: str) -> bool:
        """Move the cursor to an abstract; False when it is not in the list."""
        found = self._corpus.by_id.get(abstract_id)
        if found is None:
            return False
        try:
            self.cursor = self._rows.index(found.index)
        except ValueError:
            return False
        return True

    # -- cursor ------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self._rows) - 1)) if self._rows else 0

    def watch_cursor(self, old: int, new: int) -> None:
        top = int(self.scroll_y)
        self._scroll_cursor_into_view()
        if int(self.scroll_y) == top:
            # Only the two rows whose cursor state changed are drawn again.
            self.refresh_line(self._line_of(old))
            self.refresh_line(self._line_of(new))
        else:
            self.refresh()
        self.post_message(self.Highlighted(self, self.current))

    def _scroll_cursor_into_view(self) -> None:
        height = self.scrollable_content_region.height or 1
        top = int(self.scroll_y)
        line = self._line_of(self.cursor)
        if self.cursor == self._divider and line - 1 < top:
            line -= 1  # the first close match brings its divider into view
        if line < top:
            self.scroll_to(y=line, animate=False, immediate=True)
        elif self._line_of(self.cursor) >= top + height:
            self.scroll_to(y=self._line_of(self.cursor) - height + 1, animate=False, immediate=True)

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def page_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def action_choose(self) -> None:
        if (current := self.current) is not None:
            self.post_message(self.Chosen(self, current))

    async def _on_click(self, event: events.Click) -> None:
        row = event.style.meta.get("row")
        if isinstance(row, int):
            self.cursor = row
            if event.chain > 1 and (current := self.current) is not None:
                self.post_message(self.Chosen(self, current))

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, self._line_count())
        self._scroll_cursor_into_view()

    # -- drawing -----------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        # Styles are looked up once per frame, not once per row and span.
        self._styles.clear()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self._style("base")
        if not self._rows and y == 1:
            message = Text(self.empty_text)
            message.align("center", width)
            # A span, not the Text's own style: Rich renders a Text without spans unstyled.
            message.stylize(self._style("meta"))
            return Strip(list(message.render(self.app.console))).crop_extend(0, width, base)
        row = self._row_at(int(self.scroll_y) + y)
        if row is None:
            return self._divider_strip(width)
        if row >= len(self._rows):
            return Strip.blank(width, base)
        index = self._rows[row]
        abstract = self._corpus.abstracts[index]
        is_cursor = row == self.cursor
        marked = self._mark_key(abstract.id)
        self._drawn_marks[row] = marked
        key = (row, index, marked, is_cursor, width, self.has_focus, self._version)
        if (strip := self._strips.get(key)) is None:
            text = self._row_text(abstract, width, is_cursor)
            segments = list(text.render(self.app.console))
            strip = Strip(segments).crop_extend(0, width, base).apply_meta({"row": row})
            self._strips[key] = strip
        return strip

    def _divider_strip(self, width: int) -> Strip:
        # Its label depends on whether any row fully matches (a divider at 0: none does).
        key = (-1, self._divider == 0, None, False, width, self.has_focus, self._version)
        if (strip := self._strips.get(key)) is None:
            label = (
                " closest matches (not every word) "
                if self._divider
                else " no abstract has every word · closest matches "
            )
            text = Text(label)
            text.align("center", width, character="─")
            # A span, not the Text's own style: Rich renders a Text without spans unstyled
            # (the terminal's own colours on a light theme).
            text.stylize(self._style("divider"))
            strip = Strip(list(text.render(self.app.console))).crop_extend(
                0, width, self._style("base")
            )
            self._strips[key] = strip
        return strip

    def _style(self, name: str) -> Style:
        if (style := self._styles.get(name)) is None:
            if name == "base":
                style = self.rich_style
            elif name in ("cursor", "match-cursor"):
                style = self._overlay_style(f"abstract-list--{name}")
            else:
                # Full styles (with the background) so translucent theme colours such as
                # $text-muted blend correctly.
                style = self.get_component_rich_style(f"abstract-list--{name}")
            self._styles[name] = style
        return style

    def _overlay_style(self, component: str) -> Style:
        """A style painted over a whole row (the cursor): only what the TCSS sets.

        Textual's partial styles drop a colour's alpha (`$accent 40%` would paint
        the full accent, under which text is unreadable), so translucent colours are
        blended here over the list's background, and `color: auto` is resolved
        against the background the row ends up with.
        """
        styles = self.get_component_styles(component)
        base = self.rich_style
        background = Color.from_rich_color(base.bgcolor) if base.bgcolor else Color(0, 0, 0)
        if styles.has_rule("background"):
            background += styles.background
        color: Color | None = None
        if styles.has_rule("auto_color") and styles.auto_color:
            color = background + background.get_contrast_text(styles.color.a)
        elif styles.has_rule("color"):
            color = background + styles.color
        return (
            Style(
                color=color.rich_color if color is not None else None,
                bgcolor=background.rich_color if styles.has_rule("background") else None,
            )
            + styles.text_style
        )

    def _row_text(self, abstract: Abstract, width: int, is_cursor: bool) -> Text:
        marks = self.marks
        is_read = abstract.id in marks.read
        mark_style = self._style("mark")
        marker = Text.assemble(
            (marks.judged(abstract.id), mark_style),
            ("✎" if abstract.id in marks.noted else " ", mark_style),
            (marks.unread(abstract.id), mark_style),
            " ",
        )
        paper = abstract.paper
        tags = marks.tags.get(abstract.id)
        tag_text = Text()
        if tags and width >= 40:
            # Compact and cut first: at most a fifth of the row, after the headline.
            tag_text = Text(visible_line(format_tags(tags)), style=self._style("meta"))
            tag_text.truncate(min(tag_text.cell_len, width // 5), overflow="ellipsis")
            tag_text.append(" ")
        if paper is None:
            meta = visible_line(abstract.collection.short)
            meta_width = min(len(meta), max(0, width // 4))
        else:
            # A paper: first author and venue with year in columns that line up.
            author_width, venue_width = paper_row.columns(width)
            author = paper_row.author_cell(paper, author_width)
            venue = paper_row.venue_year_cell(paper, venue_width)
            meta = (author.ljust(author_width) + " " if author_width else "") + venue.rjust(
                venue_width
            )
            meta_width = len(meta)
        headline_width = max(1, width - marker.cell_len - meta_width - tag_text.cell_len - 1)
        headline = Text(abstract.headline, style=self._style("read" if is_read else "unread"))
        if self.highlight_spans is not None:
            # On the cursor row the accent background would hide accent-coloured matches.
            match = self._style("match-cursor" if is_cursor else "match")
            for start, end in self.highlight_spans(abstract.headline):
                headline.stylize(match, start, end)
        headline.truncate(headline_width, overflow="ellipsis", pad=True)
        line = Text.assemble(
            marker,
            headline,
            " ",
            tag_text,
            (meta[:meta_width], self._style("meta")),
            # The widget's own colours under every span: without them a light theme
            # shows the terminal's default background behind the row.
            style=self._style("base"),
        )
        line.no_wrap = True
        if is_cursor:
            line.stylize(self._style("cursor"))
        return line
