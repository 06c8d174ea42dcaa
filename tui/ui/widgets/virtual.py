"""A line-drawn view's height, set without a layout of the screen where none is needed, and
its lines finished once per strip drawn."""

from __future__ import annotations

from math import ceil

from rich.segment import Segment, Segments
from rich.style import Style as RichStyle
from textual.cache import LRUCache
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.style import Style
from textual.visual import RichVisual, Visual
from textual.widget import Widget


def set_virtual_height(view: ScrollView, height: int) -> None:
    """Give `view` (which draws its own lines) a virtual height of `height` lines.

    Setting `virtual_size` asks for a reflow of the whole screen (and a repaint of every
    widget whose geometry it touches). A line-drawn view's own size never depends on its
    lines; only a scrollbar appearing or going changes the width its lines have, so only
    then is the layout asked for. The scrollbar repaints only the cells its thumb changes.
    """
    size = Size(view.size.width, height)
    if size == view.virtual_size:
        return
    overflow = view.styles.overflow_y
    needs_bar = overflow == "scroll" or (
        overflow == "auto" and size.height > view.container_size.height
    )
    if not view.is_mounted or needs_bar != view.show_vertical_scrollbar:
        view.virtual_size = size
        return
    view.set_reactive(ScrollView.virtual_size, size)
    if view.show_vertical_scrollbar:
        move_thumb(view.vertical_scrollbar, virtual_height=size.height)
    view.scroll_y = view.validate_scroll_y(view.scroll_y)


class ThumbView(ScrollView):
    """A line-drawn view whose scrollbar repaints only the cells its thumb changes, and
    draws only those (`BarLines`)."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        made = self._vertical_scrollbar is None
        bar = super().vertical_scrollbar
        if made:
            BarLines(bar)
        return bar

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        # As ScrollView's own, but the bar is not drawn whole for every new position.
        if self.show_vertical_scrollbar:
            move_thumb(self.vertical_scrollbar, position=new_value)
        if round(old_value) != round(new_value):
            self.refresh(self.size.region)


def move_thumb(
    bar: ScrollBar, *, position: float | None = None, virtual_height: int | None = None
) -> None:
    """Give `bar` a new position or virtual height, repainting only its cells that change.

    Setting either redraws the whole bar, every cell of it through the styles and the
    compositor, on each key that scrolls the list or shows an abstract of another length;
    the thumb moves a few cells, and the cells between where it was and where it is (a
    click there scrolls up or down) are all that differ.
    """
    before = _bar_cells(bar)
    if position is not None:
        bar.set_reactive(ScrollBar.position, bar.validate_position(position))
    if virtual_height is not None:
        bar.set_reactive(ScrollBar.window_virtual_size, virtual_height)
    after = _bar_cells(bar)
    changed = [y for y, (old, new) in enumerate(zip(before, after, strict=False)) if old != new]
    if len(before) != len(after):
        changed.append(min(len(before), len(after)))
        changed.append(max(len(before), len(after)) - 1)
    if changed:
        first, last = min(changed), max(changed)
        bar.refresh(Region(0, first, bar.size.width, last - first + 1))


class BarLines:
    """A vertical scrollbar drawn a line at a time, each line as Textual draws it.

    Textual draws every cell of a scrollbar again (a Rich renderable rendered whole)
    whenever any of its cells is to be repainted: on each key that changes how many
    rows the list has. Here the bar's `render_line` draws the line asked for alone, as
    the same renderable would draw it, and keeps each line drawn; a bar that draws
    anything else than Textual's own renderable is drawn by Textual. Its lines are
    finished as the list's are (`FinishedLines`): a line drawn before, once.
    """

    def __init__(self, bar: ScrollBar) -> None:
        self._bar = bar
        # The bar's lines as last drawn (None: Textual draws the bar).
        self._drawn: list[Strip] | None = None
        # (cell, width, the bar's style) -> the line drawn
        self._lines: LRUCache[tuple[object, ...], Strip] = LRUCache(64)
        self._finished = FinishedLines(64)
        bar.render_line = self.render_line  # type: ignore[method-assign]
        bar.render_lines = self.render_lines  # type: ignore[method-assign]

    def render_lines(self, crop: Region) -> list[Strip]:
        lines = self._finished.render_lines(self._bar, crop)
        return Widget.render_lines(self._bar, crop) if lines is None else lines

    def render_line(self, y: int) -> Strip:
        bar = self._bar
        if bar._dirty_regions:
            renderable = bar.render()
            self._drawn = None
            if isinstance(renderable, ScrollBarRender) and renderable.vertical:
                self._drawn = self._draw(renderable)
                bar._dirty_regions.clear()
        drawn = self._drawn
        if drawn is None:
            return Widget.render_line(bar, y)
        if not 0 <= y < len(drawn):
            return Strip.blank(bar.size.width, bar.visual_style.rich_style)
        return drawn[y]

    def _draw(self, renderable: ScrollBarRender) -> list[Strip]:
        """Each line of the bar, drawn alone as `renderable` draws it, or as kept."""
        bar, kept = self._bar, self._lines
        width, style, links = bar.size.width, bar.visual_style, bar.auto_links
        lines = []
        for cell in _rendered_cells(bar, renderable):
            key = (cell, width, style, links)
            line = kept.get(key)
            if line is None:
                one = RichVisual(bar, Segments([cell], new_lines=True))
                line = kept[key] = Visual.to_strips(bar, one, width, 1, style)[0]
            lines.append(line)
        return lines


def _rendered_cells(bar: ScrollBar, renderable: ScrollBarRender) -> list[Segment]:
    """The cells `renderable` draws in `bar`, top to bottom, with their styles."""
    app = bar.app
    width, height = bar.size
    options = app.console_options.update(highlight=False, width=width, height=height)
    rendered = renderable.__rich_console__(app.console, options.update_width(width))
    return [cell for part in rendered if isinstance(part, Segments) for cell in part.segments]


def _bar_cells(bar: ScrollBar) -> list[Segment]:
    """The cells `bar` draws top to bottom (as `ScrollBar` renders itself, colours aside,
    which neither a position nor a height changes)."""
    virtual_height = bar.window_virtual_size
    window = bar.window_size if bar.window_size < virtual_height else 0
    return list(
        bar.renderer.render_bar(
            size=bar.size.height,
            virtual_size=ceil(virtual_height),
            window_size=ceil(window),
            position=bar.position,
            thickness=bar.thickness,
        ).segments
    )


class FinishedLines:
    """A line-drawn widget's lines as Textual's `StylesCache` finishes them, remembered
    by the strip the widget drew.

    Textual builds a new strip for every line it repaints, even one whose content is the
    very strip drawn the frame before, and then runs the app's line filters over it
    anew (a new strip has no filter cache): for a list whose rows are kept drawn, that
    was more than half of a frame. For a widget with nothing around or over its content
    (no border, padding, outline, tint, hatch or opacity) the finished line is the
    content's strip at the widget's width with the filters applied; it is made once per
    strip and background here. Any other widget, or a frame whose styles add any of
    these, is rendered by Textual as before.

    A line not marked for repaint since it was finished is the line finished then,
    without asking the widget again, as Textual's own cache does (its record of the
    widget's dirty lines, which every `refresh` adds to, and its cache of lines, which
    it clears to have every line drawn again, hold the finished lines): a frame draws
    every line of each widget the changed region crosses, and a `b` or a cursor move
    changes a line or two of the list.
    """

    def __init__(self, size: int = 512) -> None:
        # id(strip drawn) -> (that strip, background, width, filters, finished line): the
        # strip is held so that its id is not reused while it is a key.
        self._done: LRUCache[int, tuple[Strip, Color, int, tuple[LineFilter, ...], Strip]]
        self._done = LRUCache(size)
        # The width, background and filters of the lines finished into Textual's cache
        # (None: none are there).
        self._shown_for: tuple[int, Color, tuple[LineFilter, ...]] | None = None

    def render_lines(self, widget: Widget, crop: Region) -> list[Strip] | None:
        """The lines of `crop`, or None when Textual must draw them (see the class)."""
        styles = widget.styles
        size = widget.region.size
        if (
            widget.opacity != 1.0
            or styles.gutter
            or styles.outline.spacing
            or styles.text_opacity != 1.0
            or styles.tint.a
            or (styles.has_rule("hatch") and styles.hatch != "none")
            or widget.content_region.size != size
        ):
            if self._shown_for is not None:
                # Textual draws it: its cache must not hold lines finished here.
                self._shown_for = None
                widget._styles_cache.clear()
                widget._styles_cache.set_dirty(widget.size.region)
            return None
        width = size.width
        background = widget.background_colors[1]
        filters = tuple(widget.get_line_filters())
        # Textual's own record of the lines to repaint (every `refresh` adds to it) and
        # its cache of lines (cleared to have every line drawn again).
        cache = widget._styles_cache
        dirty, shown = cache._dirty_lines, cache._cache
        if self._shown_for != (width, background, filters):
            shown.clear()
            self._shown_for = (width, background, filters)
        done = self._done
        render_line = widget.render_line
        lines: list[Strip] = []
        inner: RichStyle | None = None  # looked up at the first line not finished yet
        for y in crop.line_range:
            if y not in dirty and (kept := shown.get(y)) is not None:
                lines.append(kept)
                continue
            drawn = render_line(y)
            found = done.get(id(drawn))
            if (
                found is not None
                and found[0] is drawn
                and found[1] == background
                and found[2] == width
                and found[3] == filters
            ):
                shown[y] = found[4]
                lines.append(found[4])
                continue
            if inner is None:
                inner = _inner(widget)
            line = Strip(drawn.adjust_cell_length(width, inner), width)
            for line_filter in filters:
                line = line.apply_filter(line_filter, background)
            done[id(drawn)] = (drawn, background, width, filters, line)
            shown[y] = line
            lines.append(line)
        dirty.difference_update(crop.line_range)
        if crop.column_span != (0, width):
            x1, x2 = crop.column_span
            lines = [line.crop(x1, x2) for line in lines]
        return lines


def _inner(widget: Widget) -> RichStyle:
    """The style of the cells after a short line (as `StylesCache` pads it)."""
    base, background = widget.background_colors
    return Style(background=base + background).rich_style
