"""The detail pane: one abstract, rendered for reading, with its note.

The pane draws its own lines (a `ScrollView`), block by block: the paper's block (papers
only), the meta lines, the abstract and the note box. Each block is drawn as a widget of
its TCSS component class (`DetailPane > .detail-pane--meta`…) would be, with its padding,
border, margin and maximum width. Another abstract, of another length, changes the
pane's height without a layout of the screen (a reflow of every widget, then a repaint
of every one it moved), and a new mark redraws the lines it changes.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import replace
from typing import ClassVar

from rich.style import Style as RichStyle
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.color import Color
from textual.content import Content
from textual.css.styles import RenderStyles
from textual.events import Resize
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import visualize

from tui.sanitize import visible
from tui.ui.widgets.detail_text import (
    DetailView,
    meta_text,
    note_preview,
    reading_text,
    rendered_text,
)
from tui.ui.widgets.paper_detail import paper_text
from tui.ui.widgets.virtual import ThumbView, set_virtual_height
from tui.ui.widgets.wrapped import BlockLines, WrappedLines

__all__ = ["BLOCKS", "DetailPane", "DetailView"]

#: The blocks, top to bottom; each has the TCSS component class `detail-pane--<name>`.
BLOCKS = ("paper", "meta", "body", "note")
NOTE_TITLE = "✎ Note"


class DetailPane(ThumbView, can_focus=True):
    """Scrollable reading view of the selected abstract."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "detail-pane--match",
        *(f"detail-pane--{name}" for name in BLOCKS),
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "scroll_down", "Scroll down", show=False, id="detail.down"),
        Binding("k,up", "scroll_up", "Scroll up", show=False, id="detail.up"),
        Binding("g,home", "scroll_home", "Top", show=False, id="detail.top"),
        Binding("G,end", "scroll_end", "Bottom", show=False, id="detail.bottom"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view: DetailView | None = None
        # What each block shows (absent: the block is not shown), and the highlight's
        # style it was built with (a new theme changes it).
        self._texts: dict[str, Text] = {}
        self._match: RichStyle | None = None
        # Each block's lines as drawn for the pane's width and styles; a block whose
        # text changed is drawn again, the others are kept.
        self._drawn: dict[str, tuple[int, list[Strip]]] = {}
        self._lines: list[Strip] = []
        # Each line of text as wrapped and drawn, and each block's lines inside its
        # padding and border (Textual's own box renderer, as a Static's; the pictures
        # are pinned by tests/ui/test_snapshots.py): a new highlight on the abstract
        # shown draws again only the lines it changes.
        self._wrapped = WrappedLines()
        self._boxes: dict[str, BlockLines] = {}
        # Blocks drawn ahead (`prepare`), by what they show and where: the abstract a
        # cursor move will likely show next, drawn while the app waits for keys. Drawn
        # in boxes of their own, so that the shown blocks' boxes still redraw only the
        # lines a new highlight changes.
        self._ahead: LRUCache[tuple[object, ...], list[Strip]] = LRUCache(16)
        self._ahead_boxes: dict[str, BlockLines] = {}

    def text_of(self, block: str) -> Text | None:
        """What a block (one of `BLOCKS`) shows, or None when it is not shown."""
        return self._texts.get(block)

    def show(self, view: DetailView | None) -> None:
        """Show an abstract (or an empty state) and scroll back to the top when it changed.

        Only the blocks whose text changed are drawn again, and only the lines that then
        differ are repainted: a new mark or a new highlight on the same abstract redraws
        those lines in place."""
        match = self.get_component_rich_style("detail-pane--match")
        if view is not None and view == self.view and match == self._match:
            return
        self._show(view)

    def prepare(self, view: DetailView) -> None:
        """Draw ahead the blocks `view` shows (the abstract a next cursor move will likely
        show, while the app waits for keys): `show` then takes them as drawn. Drawn as
        `show` would draw them, for the pane's width and styles as they are now."""
        width = self._content_width()
        if not width or self.text_selection is not None:
            return
        first_line = 0
        for name, text in self._block_texts(view).items():
            key = _ahead_key(name, text, width, first_line)
            if key not in self._ahead:
                box = self._ahead_boxes.get(name)
                if box is None:
                    box = self._ahead_boxes[name] = BlockLines()
                self._ahead[key] = self._draw_block(name, text, width, first_line, box)
            first_line += text.plain.count("\n") + 1

    def forget(self) -> None:
        """The abstract shown may have changed in place (a paper read from a later file
        merged into one shown while the files were read: its title, authors, final id):
        the next `show` draws whatever it is given, equal view or not."""
        self.view = None

    def show_marks(
        self,
        *,
        bookmarked: bool | None = None,
        read: bool | None = None,
        dismissed: bool | None = None,
        tags: AbstractSet[str] | None = None,
        note: str | None = None,
    ) -> None:
        """The abstract shown has new marks (a key such as `b` or `m`): only what they
        change is drawn again (the meta lines; the note box for a new note) and the rest
        of the view is kept, without building a whole `DetailView`. Arguments left out
        keep their value; `note=""` removes the note."""
        view = self.view
        if view is None:
            return
        self.show(
            replace(
                view,
                bookmarked=view.bookmarked if bookmarked is None else bookmarked,
                read=view.read if read is None else read,
                dismissed=view.dismissed if dismissed is None else dismissed,
                tags=view.tags if tags is None else tags,
                note=view.note if note is None else note or None,
            )
        )

    def _show(self, view: DetailView | None) -> None:
        old_view = self.view
        changed = view is None or old_view is None or view.abstract is not old_view.abstract
        self.view = view
        if (
            view is not None
            and old_view is not None
            and _marks_alone_differ(old_view, view)
            # (A new theme's highlight is drawn anew with the rest.)
            and self.get_component_rich_style("detail-pane--match") == self._match
        ):
            # A mark (`b`, `m`, a tag, a note): the meta lines and the note box alone
            # can change; the abstract and its title are not laid out again.
            texts = {name: text for name, text in self._texts.items() if name != "note"}
            texts["meta"] = meta_text(view)
            if view.note:
                texts["note"] = Text(visible(note_preview(view.note)))
        else:
            texts = self._block_texts(view)
        for name in BLOCKS:
            old, new = self._texts.get(name), texts.get(name)
            if old is None or new is None or not _same_text(old, new):
                self._drawn.pop(name, None)
        self._texts = texts
        self._draw()
        if changed:
            self.scroll_home(animate=False)

    def _block_texts(self, view: DetailView | None) -> dict[str, Text]:
        """The text of each block shown for `view`."""
        if view is None:
            return {"meta": Text("Nothing selected.", style="dim"), "body": Text()}
        # The full style: a partial one drops the alpha of `$accent 35%` (a full accent).
        match = self._match = self.get_component_rich_style("detail-pane--match")
        abstract = view.abstract
        texts: dict[str, Text] = {}
        if abstract.paper is not None:
            title = abstract.paper.title or abstract.headline
            texts["paper"] = paper_text(
                abstract,
                # How many authors fit on their line depends on the block's width.
                self._block_width("paper", self._content_width()),
                Text(visible(title)) if view.raw else rendered_text(title),
                spans=view.spans,
                match_style=match,
            )
        texts["meta"] = meta_text(view)
        texts["body"] = reading_text(abstract, raw=view.raw, spans=view.spans, match_style=match)
        if view.note:
            texts["note"] = Text(visible(note_preview(view.note)))
        return texts

    # -- drawing -------------------------------------------------------------------

    def _content_width(self) -> int:
        return self.scrollable_content_region.width

    def _draw(self) -> None:
        """Draw the blocks not drawn yet, set the pane's height, and repaint the lines
        that changed (every line when the blocks above moved)."""
        width = self._content_width()
        if not width:
            return  # not laid out yet: drawn on the first resize
        old = self._lines
        lines: list[Strip] = []
        # Where each block's text starts in the pane's whole text (its lines before):
        # a selection with the mouse is made in that text.
        first_line = 0
        for name in BLOCKS:
            text = self._texts.get(name)
            if text is None:
                continue
            drawn = self._drawn.get(name)
            if drawn is None or drawn[0] != first_line:
                ahead = self._ahead.get(_ahead_key(name, text, width, first_line))
                drawn = self._drawn[name] = (
                    first_line,
                    ahead if ahead is not None else self._draw_block(name, text, width, first_line),
                )
            lines.extend(drawn[1])
            first_line += text.plain.count("\n") + 1
        self._lines = lines
        set_virtual_height(self, len(lines))
        if len(old) != len(lines):
            self.refresh()
            return
        top = int(self.scroll_y)
        for y in range(top, min(len(lines), top + self.scrollable_content_region.height)):
            if lines[y] != old[y]:
                self.refresh_line(y)

    def _block_width(self, name: str, width: int) -> int:
        """The cells a block takes in a pane `width` cells wide (its max-width)."""
        styles = self.get_component_styles(f"detail-pane--{name}")
        if styles.max_width is None:
            return width
        return min(width, int(styles.max_width.resolve(Size(width, 0), self.app.size)))

    def _draw_block(
        self,
        name: str,
        text: Text,
        pane_width: int,
        first_line: int,
        box: BlockLines | None = None,
    ) -> list[Strip]:
        """A block's lines: its text in its style, inside its padding and border, then
        its bottom margin, as Textual draws a widget with the same styles. The text is
        drawn as lines `first_line` on of the pane's whole text, so that a selection with
        the mouse finds where it is and is highlighted where it is. `box`: where it is
        drawn (the block's own by default)."""
        component = f"detail-pane--{name}"
        styles = self.get_component_styles(component)
        width = self._block_width(name, pane_width)
        gutter = styles.gutter
        inner = max(1, width - gutter.width)
        content: Content = visualize(self, text, markup=False)  # type: ignore[assignment]
        if styles.text_wrap == "nowrap":
            # One line per fact, cut where it ends with an ellipsis (the pane's own
            # rules, which the drawing follows, wrap).
            ellipsis = styles.text_overflow == "ellipsis"
            content = Content("\n").join(
                line.truncate(inner, ellipsis=ellipsis)
                for line in content.split("\n", allow_blank=True)
            )
        if first_line:
            # Blank lines before it, each drawn as one line, dropped.
            content = Content("\n" * first_line) + content
        strips = self._wrapped.to_strips(self, content, inner, self.get_visual_style(component))
        strips = strips[first_line:]
        # The block is drawn over the pane, as a transparent child of it would be.
        base = self.background_colors[1]
        background = base + styles.background
        title = None
        if name == "note":
            title = (Content(NOTE_TITLE), *_title_style(styles, base))
        if box is None:
            box = self._boxes.get(name)
            if box is None:
                box = self._boxes[name] = BlockLines()
        lines = box.render(self, styles, width, base, background, strips, inner, title)
        return lines + [Strip([])] * styles.margin.bottom

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text selected with the mouse, from the blocks' text (as a Static's)."""
        shown = [text.plain for name in BLOCKS if (text := self._texts.get(name)) is not None]
        return (selection.extract("\n".join(shown)), "\n") if shown else None

    def selection_updated(self, selection: Selection | None) -> None:
        # Drawn again with the selection highlighted (or no longer).
        self._forget_drawn()
        self._draw()

    def render_line(self, y: int) -> Strip:
        line = int(self.scroll_y) + y
        if line < len(self._lines):
            return self._lines[line]
        return Strip([])

    def notify_style_update(self) -> None:
        # A theme, a focus or the narrow layout: the blocks carry the old styles. Drawn
        # again once the blocks' own styles are updated too (Textual updates the
        # component classes' styles after calling this).
        super().notify_style_update()
        self.call_later(self._restyle)

    def _restyle(self) -> None:
        self._forget_drawn()
        self._draw()

    def _forget_drawn(self) -> None:
        """Draw every block again from its text (new styles or a selection)."""
        self._drawn.clear()
        self._wrapped.clear()
        self._ahead.clear()
        for box in (*self._boxes.values(), *self._ahead_boxes.values()):
            box.clear()

    def on_resize(self, event: Resize) -> None:
        self._redraw_for_width()

    def watch_show_vertical_scrollbar(self) -> None:
        # The scrollbar takes a cell of the blocks' width (a narrow pane).
        self._redraw_for_width()

    def _redraw_for_width(self) -> None:
        self._drawn.clear()
        if self._texts:
            # A paper's block is built for its width (how many authors fit).
            self._texts = self._block_texts(self.view)
            self._draw()

    @property
    def at_bottom(self) -> bool:
        return self.scroll_y >= self.max_scroll_y


def _title_style(styles: RenderStyles, background: Color) -> tuple[Color, Color, Style]:
    """The border title's colour, background and style, as Textual gives a widget's."""
    if styles.auto_border_title_color:
        color = background.get_contrast_text(styles.border_title_color.a)
    else:
        color = styles.border_title_color
    return color, styles.border_title_background, Style.from_rich_style(styles.border_title_style)


def _marks_alone_differ(old: DetailView, new: DetailView) -> bool:
    """Whether `new` shows the same abstract as `old` with other marks only (the rest
    equal: the highlights, the raw source, the near-duplicates)."""
    return old.abstract is new.abstract and new == replace(
        old,
        bookmarked=new.bookmarked,
        read=new.read,
        dismissed=new.dismissed,
        tags=new.tags,
        note=new.note,
    )


def _ahead_key(name: str, text: Text, width: int, first_line: int) -> tuple[object, ...]:
    """What a block drawn ahead is found by: its name, what its text draws, where."""
    return (name, width, first_line, text.plain, text.style, tuple(text.spans))


def _same_text(a: Text, b: Text) -> bool:
    """Whether two Texts draw the same (`Text.__eq__` ignores the Text's own style)."""
    return a.plain == b.plain and a.style == b.style and a.spans == b.spans
