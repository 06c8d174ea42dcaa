"""A line-drawn view's height, set without a layout of the screen where none is needed."""

from __future__ import annotations

from rich.segment import Segment
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar


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
