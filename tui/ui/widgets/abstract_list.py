"""The list pane: one line per abstract, drawn with Textual's line API.

Only the visible rows are ever rendered, over an array of corpus indices, so
the cost of showing, filtering or jumping does not grow with the corpus
(stock OptionList/DataTable take over a second to populate at 10,000 rows).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.color import Color
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from tui.corpus.model import Abstract, Corpus
from tui.sanitize import visible_line
from tui.search.spans import Spans
from tui.tagnames import format_tags
from tui.triage.marks import RowMarks
from tui.ui.widgets import paper_row
from tui.ui.widgets.cursor import CURSOR_BINDINGS, CursorMoves
from tui.ui.widgets.virtual import FinishedLines, ThumbView, set_virtual_height

#: What a row shows of its abstract's personal state: judgement cell, noted, read, tags.
RowMarkKey = tuple[str, bool, bool, frozenset[str] | None]


class AbstractList(CursorMoves, ThumbView, can_focus=True):
    """A virtual list of abstracts: headline, marks, venue and year.

    `on_cursor` runs with the abstract under the cursor in the handler of what moved it
    (a key), before `Highlighted` is posted: that message reaches the app only after
    hopping through each container's queue, and the screen painted the moved cursor
    alone in between, then the abstract's detail a frame (up to 1/60 s) later.
    """

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

    # Its watcher repaints the lines it changes (the whole list when it scrolls): not
    # every line of the list on each move, as a repainting reactive would.
    cursor: reactive[int] = reactive(0, always_update=True, init=False, repaint=False)

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
        on_cursor: Callable[[Abstract | None], None] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._corpus = corpus
        self._on_cursor = on_cursor
        self._rows: array[int] = array("i", range(len(corpus)))
        self.marks = RowMarks()
        self.highlight_spans: Spans | None = None
        self.empty_text = "No abstracts."
        # Rows from this position on are the closest matches of a search, not full
        # matches: a divider line is drawn above the first of them (None: no divider).
        self._divider: int | None = None
        self._styles: dict[str, Style] = {}
        self._frame_width: int | None = None
        # Rendered rows: a cursor move, a scroll or a new answer redraws from here. A
        # row's key holds its abstract, its marks, the matches in its headline, and
        # `_version`, which changes when what every row shows may have (styles, the
        # abstracts themselves): new rows, marks or queries need no clearing.
        self._strips: LRUCache[tuple[object, ...], Strip] = LRUCache(512)
        self._finished = FinishedLines()
        self._version = 0
        # The matches of the current search in each headline drawn (corpus index ->
        # spans), forgotten with the search.
        self._found: dict[int, tuple[tuple[int, int], ...]] = {}
        # The marks each row on screen was drawn with (row position -> marks key): a
        # marks change redraws the lines whose marks differ. The sets in `RowMarks` are
        # the store's own, changed in place, so old and new marks cannot be compared.
        self._drawn_marks: dict[int, RowMarkKey] = {}
        #: Which way the cursor last moved: 1 down the list, -1 up.
        self.heading = 1

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
        # Scrolled at once to where the kept row shows (the top, or the least scroll that
        # shows it): scrolling to the top first and back moved the scrollbar's thumb
        # twice, and redrew it, on most keys in the filter.
        height = self.scrollable_content_region.height or 1
        top = max(0, self._line_of(target) - height + 1)
        if top != int(self.scroll_y):
            self.scroll_to(y=top, animate=False, immediate=True)
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
        where it can be done without one (a key in the filter)."""
        set_virtual_height(self, self._line_count())

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
        """Highlight what `spans` finds in each headline (None: nothing).

        Rows drawn before are kept: a row's strip is found by the matches it shows, so
        an abstract whose headline matches the new query where it matched the old one
        (most of them, from one keystroke to the next) is not drawn again."""
        if spans is self.highlight_spans:
            return
        self.highlight_spans = spans
        self._found.clear()
        self._drawn_marks.clear()
        self.refresh()

    def _changed(self) -> None:
        """What every row shows may have changed: forget rendered rows and redraw."""
        self._forget()
        self.refresh()

    def _forget(self) -> None:
        # The styles too: looked up again when next drawn, once the component classes'
        # styles are updated as well (Textual updates them after `notify_style_update`).
        self._styles.clear()
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
        return self.abstract_at(self.cursor)

    def abstract_at(self, row: int) -> Abstract | None:
        """The abstract of row `row`, if there is one."""
        if 0 <= row < len(self._rows):
            return self._corpus.abstracts[self._rows[row]]
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
        if new != old:
            self.heading = 1 if new > old else -1
        top = int(self.scroll_y)
        self._scroll_cursor_into_view()
        if int(self.scroll_y) == top:
            # Only the two rows whose cursor state changed are drawn again.
            self.refresh_line(self._line_of(old))
            self.refresh_line(self._line_of(new))
        else:
            self.refresh()
        if self._on_cursor is not None and self.is_mounted:
            self._on_cursor(self.current)
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
        # The row under the pointer, from where it is (rows carry no meta: adding it
        # to every segment of every row cost more than drawing them).
        offset = event.get_content_offset(self)
        row = None if offset is None else self._row_at(int(self.scroll_y) + offset.y)
        if row is not None and row < len(self._rows):
            self.cursor = row
            if event.chain > 1 and (current := self.current) is not None:
                self.post_message(self.Chosen(self, current))

    def on_resize(self, event: events.Resize) -> None:
        self._frame_width = None
        self.virtual_size = Size(event.size.width, self._line_count())
        self._scroll_cursor_into_view()

    # -- drawing -----------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        # The rows' width is looked up once per frame, not once per row.
        self._frame_width = None
        # A row drawn before (most of them, from one key to the next) is not finished
        # by Textual again.
        lines = self._finished.render_lines(self, crop)
        return super().render_lines(crop) if lines is None else lines

    def render_line(self, y: int) -> Strip:
        width = self._frame_width
        if width is None:
            width = self._frame_width = self.scrollable_content_region.width
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
        matches = self._matches(abstract)
        key = (index, marked, matches, is_cursor, width, self.has_focus, self._version)
        if (strip := self._strips.get(key)) is None:
            strip = Strip(self._row_segments(abstract, width, is_cursor, matches)).crop_extend(
                0, width, base
            )
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

    def _matches(self, abstract: Abstract) -> tuple[tuple[int, int], ...]:
        """Where the headline matches the search, in order (none without a search);
        found once per search, as every frame that draws the row asks again."""
        spans = self.highlight_spans
        if spans is None:
            return ()
        found = self._found.get(abstract.index)
        if found is None:
            found = self._found[abstract.index] = tuple(sorted(spans(abstract.headline)))
        return found

    def _row_segments(
        self,
        abstract: Abstract,
        width: int,
        is_cursor: bool,
        matches: tuple[tuple[int, int], ...] | None = None,
    ) -> list[Segment]:
        """The row's segments, `width` cells: marks, headline (its matches highlighted),
        tags, then the collection or the paper's author and venue columns.

        Built as segments, not as a Rich `Text` rendered by Rich: a new answer draws
        every visible row, and Rich's span machinery cost several times the rest of a
        keystroke. Each segment's style is the list's own under the part's (and the
        cursor's over it), as `Text.assemble(..., style=base)` then `stylize(cursor)`
        would make it; Rich caches the sums.
        """
        marks = self.marks
        ident = abstract.id
        base = self._style("base")
        cursor = self._style("cursor") if is_cursor else None

        def styled(style: Style) -> Style:
            style = base + style
            return style if cursor is None else style + cursor

        plain = base if cursor is None else base + cursor
        mark = styled(self._style("mark"))
        segments = [
            Segment(marks.judged(ident), mark),
            Segment("✎" if ident in marks.noted else " ", mark),
            Segment(marks.unread(ident), mark),
            Segment(" ", plain),
        ]
        paper = abstract.paper
        tags = marks.tags.get(ident)
        tag = ""
        if tags and width >= 40:
            # Compact and cut first: at most a fifth of the row, after the headline.
            tag = visible_line(format_tags(tags))
            tag = _cut_cells(tag, min(_cells(tag), width // 5))
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
        tag_cells = _cells(tag) + 1 if tag else 0
        marker_cells = sum(_cells(segment.text) for segment in segments)
        headline_width = max(1, width - marker_cells - meta_width - tag_cells - 1)
        shown, pad = _fit_headline(abstract.headline, headline_width)
        headline_style = self._style("read" if ident in marks.read else "unread")
        own = styled(headline_style)
        if matches is None:
            matches = self._matches(abstract)
        if not matches:
            segments.append(Segment(shown + pad, own))
        else:
            # On the cursor row the accent background would hide accent-coloured matches.
            match = self._style("match-cursor" if is_cursor else "match")
            matched = styled(headline_style + match)
            # A match cut by the ellipsis ends at the text's end (the ellipsis with it).
            cut = len(shown)
            at = 0
            for start, end in matches:
                start, end = max(start, at), min(end, cut)
                if start >= end:
                    continue
                if start > at:
                    segments.append(Segment(shown[at:start], own))
                segments.append(Segment(shown[start:end], matched))
                at = end
            if pad or at < cut:
                segments.append(Segment(shown[at:] + pad, own))
        segments.append(Segment(" ", plain))
        if tag:
            segments.append(Segment(tag + " ", styled(self._style("meta"))))
        if meta_width:
            segments.append(Segment(meta[:meta_width], styled(self._style("meta"))))
        return segments


@lru_cache(maxsize=4096)
def _fit_headline(headline: str, width: int) -> tuple[str, str]:
    """The headline as shown in `width` cells, and the padding after it: remembered, as
    each key in the filter draws rows again with new matches in the same headlines (and
    measuring a headline that is not plain ASCII costs more than the rest of its row)."""
    # Shown as it is (never obeyed); one character for one, so the spans still fit.
    headline = visible_line(headline)
    cells = _cells(headline)
    # A cut headline fills its width exactly (Rich's `set_cell_size` pads a wide
    # character it splits); a short one is padded to it.
    shown = _cut_cells(headline, width) if cells > width else headline
    return shown, " " * max(0, width - cells)


def _cells(text: str) -> int:
    """How many cells `text` takes (a printable ASCII character: one)."""
    return len(text) if text.isascii() and text.isprintable() else cell_len(text)


def _cut_cells(text: str, width: int) -> str:
    """`text` in at most `width` cells, ending in `…` when cut (as Rich's ellipsis)."""
    if text.isascii() and text.isprintable():  # one cell a character
        return text if len(text) <= width else text[: max(0, width - 1)] + "…" * (width > 0)
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1) + "…" if width > 0 else ""
