"""Text wrapped into lines as Textual draws it, each line drawn once for what it shows.

A key in the filter gives the abstract in the detail pane new highlights, most often on
a few of its lines (the cursor stays on the abstract). Textual wraps and draws every
line of the text again, and finishes each inside the block's padding again; here a line
whose text, styles and place are those of a line drawn before is that strip again, and
only the lines that changed are finished anew (`BlockLines`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from rich._wrap import divide_line
from textual._styles_cache import StylesCache
from textual.cache import LRUCache
from textual.color import Color
from textual.content import Content, _FormattedLine
from textual.css.styles import RenderStyles
from textual.css.types import TextAlign
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual
from textual.widget import Widget

#: Tabs as `Content.render_strips` expands them.
TAB_SIZE = 8


class WrappedLines:
    """`Visual.to_strips(widget, content, width, None, style)` for a widget's text that
    wraps (its rules: `text-wrap: wrap`, no `line-pad`, content aligned left and top),
    line for line the same: the same steps as Textual's `Content._wrap_and_format`,
    with where each paragraph breaks and each line's strip remembered. Anything else (a
    selection with the mouse shown, other rules) is drawn by Textual."""

    def __init__(self, lines: int = 2048) -> None:
        # (paragraph, width, fold) -> where it breaks
        self._breaks: LRUCache[tuple[str, int, bool], list[int]] = LRUCache(256)
        # (line's text and spans, width, place, alignment, style, links) -> its strip
        self._strips: LRUCache[tuple[object, ...], Strip] = LRUCache(lines)

    def clear(self) -> None:
        """Forget every line (the styles' variables, and so the spans' colours, changed)."""
        self._breaks.clear()
        self._strips.clear()

    def to_strips(self, widget: Widget, content: Content, width: int, style: Style) -> list[Strip]:
        rules = widget.styles
        if (
            not width
            or widget.text_selection is not None
            or rules.get("text_wrap", "wrap") == "nowrap"
            or rules.get("line_pad", 0)
            or rules.content_align != ("left", "top")
        ):
            return Visual.to_strips(widget, content, width, None, style)
        align = cast(TextAlign, rules.get("text_align", "left"))
        overflow = rules.get("text_overflow", "fold")
        fold, ellipsis = overflow == "fold", overflow == "ellipsis"
        link = (
            widget.link_style
            if widget.auto_links and not widget.is_container and not widget.screen._selecting
            else None
        )
        get_style = widget._get_style
        breaks, drawn = self._breaks, self._strips
        strips: list[Strip] = []
        for y, paragraph in enumerate(content.split(allow_blank=True)):
            paragraph = paragraph.expand_tabs(TAB_SIZE)
            plain = paragraph.plain
            offsets = breaks.get((plain, width, fold))
            if offsets is None:
                offsets = breaks[plain, width, fold] = divide_line(plain, width, fold=fold)
            pieces = paragraph.divide(offsets)
            last = len(pieces) - 1
            for index, (piece, x) in enumerate(zip(pieces, [0, *offsets], strict=False)):
                line_end = index == last
                piece = (piece if line_end else piece.rstrip()).truncate(width, ellipsis=ellipsis)
                piece = piece.rstrip_end(width)
                key = (piece.plain, tuple(piece.spans), width, x, y, align, line_end, style, link)
                strip = drawn.get(key)
                if strip is None:
                    line = _FormattedLine(get_style, piece, width, x, y, align=align)
                    line.line_end = line_end
                    strip = Strip(*line.to_strip(style))
                    if link is not None:
                        strip = strip._apply_link_style(link)
                    drawn[key] = strip
                strips.append(strip)
        return strips


class BlockLines:
    """A block's lines inside its padding and border, as Textual's `StylesCache` draws a
    widget's: kept from one drawing to the next, where only the lines whose content
    strip changed are drawn again (the others are the same strips)."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._cache = StylesCache()
        self._content: list[Strip] = []

    def clear(self) -> None:
        self._key = None

    def render(
        self,
        widget: Widget,
        styles: RenderStyles,
        width: int,
        base: Color,
        background: Color,
        content: list[Strip],
        inner: int,
        title: tuple[Content, Color, Color, Style] | None,
    ) -> list[Strip]:
        gutter = styles.gutter
        size = Size(width, len(content) + gutter.height)
        app = widget.app
        key = (
            size,
            inner,
            base,
            background,
            title,
            styles.padding,
            app.ansi_theme,
            app.native_ansi_color,
        )
        cache = self._cache
        if key != self._key:
            # A new one: Textual's keeps the blank line of the padding it last drew.
            cache = self._cache = StylesCache()
            self._key = key
        else:
            old = self._content
            top = gutter.top
            dirty = [
                Region(0, top + y, width, 1)
                for y, (was, now) in enumerate(zip(old, content, strict=True))
                if was is not now
            ]
            if dirty:  # (none given would clear every line)
                cache.set_dirty(*dirty)
        self._content = content
        line_of: Callable[[int], Strip] = content.__getitem__
        return cache.render(
            styles,
            size,
            base,
            background,
            line_of,
            [],  # the app's filters are applied to the pane's lines
            title,
            None,
            content_size=Size(inner, len(content)),
            padding=styles.padding,
            ansi_theme=app.ansi_theme,
            native_ansi=app.native_ansi_color,
        )
