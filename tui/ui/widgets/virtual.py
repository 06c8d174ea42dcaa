"""A line-drawn view's height, set without a layout of the screen where none is needed, and
its lines finished once per strip drawn."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.cache import LRUCache
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget


def set_virtual_height(view: ScrollView, height: int) -> None:
    """Give `view` (which draws its own lines) a virtual height of `height` lines.

    Setting `virtual_size` asks for a reflow of the whole screen (and a repaint of every
    widget whose geometry it touches). A line-drawn view's own size never depends on its
    lines; only a scrollbar appearing or going changes the width its lines have, so only
    then is the layout asked for. The scrollbar is redrawn only when its thumb moves.
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
        bar = view.vertical_scrollbar
        if _thumb(bar, bar.window_virtual_size) == _thumb(bar, size.height):
            # The thumb stays where it is (a thousand rows or two thousand, at the top
            # of the list, draw the same one-cell thumb): redrawing the bar's every cell
            # per key in the filter cost more than any other widget.
            bar.set_reactive(ScrollBar.window_virtual_size, size.height)
        else:
            bar.window_virtual_size = size.height
    view.scroll_y = view.validate_scroll_y(view.scroll_y)


def _thumb(bar: ScrollBar, virtual_height: int) -> list[Segment]:
    """The cells `bar` draws for a view `virtual_height` lines high (as `ScrollBar`
    renders itself; colours aside, which do not depend on the height)."""
    window = bar.window_size if bar.window_size < virtual_height else 0
    return bar.renderer.render_bar(
        size=bar.size.height,
        virtual_size=virtual_height,
        window_size=window,
        position=bar.position,
        thickness=bar.thickness,
    ).segments


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
    """

    def __init__(self, size: int = 512) -> None:
        # id(strip drawn) -> (that strip, background, width, filters, finished line): the
        # strip is held so that its id is not reused while it is a key.
        self._done: LRUCache[int, tuple[Strip, Color, int, tuple[LineFilter, ...], Strip]]
        self._done = LRUCache(size)

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
            return None
        width = size.width
        background = widget.background_colors[1]
        filters = tuple(widget.get_line_filters())
        done = self._done
        render_line = widget.render_line
        lines: list[Strip] = []
        for y in crop.line_range:
            drawn = render_line(y)
            found = done.get(id(drawn))
            if (
                found is not None
                and found[0] is drawn
                and found[1] == background
                and found[2] == width
                and found[3] == filters
            ):
                lines.append(found[4])
                continue
            line = Strip(drawn.adjust_cell_length(width, _inner(widget)), width)
            for line_filter in filters:
                line = line.apply_filter(line_filter, background)
            done[id(drawn)] = (drawn, background, width, filters, line)
            lines.append(line)
        if crop.column_span != (0, width):
            x1, x2 = crop.column_span
            lines = [line.crop(x1, x2) for line in lines]
        return lines


def _inner(widget: Widget) -> RichStyle:
    """The style of the cells after a short line (as `StylesCache` pads it)."""
    base, background = widget.background_colors
    return Style(background=base + background).rich_style
