"""The top bar: what is loaded on the left, counts and status on the right."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style as RichStyle
from rich.text import Text
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual, visualize
from textual.widget import Widget

#: The status's share of the bar at most (the title keeps the rest).
STATUS_MAX_SHARE = 0.8
#: The cells the title keeps at least when the status is in its short form: the app's
#: name (the collections loaded give way first).
TITLE_MIN_CELLS = 12


class AppHeader(Widget):
    """A one-line bar; the app sets its two halves.

    One widget draws both: the status changes width with the counts as the filter is
    typed, and two widgets side by side would then need a layout of the whole screen
    (every widget reflowed, every one it moves repainted) per key. Here a change redraws
    this line. Each half has one cell of padding; the status is as wide as its text, up
    to `STATUS_MAX_SHARE` of the bar, and the title (`app-header--title`) gets the rest;
    text too long for its half ends in an ellipsis. The status may come with a shorter
    form, drawn where the bar is too narrow for the whole (80 columns during a long
    start: `index 41%` rather than `building the search index 41%` cut to `build…`); it
    may then take all but `TITLE_MIN_CELLS` of the bar.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"app-header--title", "app-header--status"}

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._title = Text()
        self._status = Text()
        self._short: Text | None = None
        # Each half as last drawn (component -> its text, width, style and strip): a key
        # in the filter or a bookmark changes the status, and the title is not drawn again.
        self._drawn: dict[str, tuple[Text, int, Style, Strip]] = {}

    @property
    def title_text(self) -> Text:
        """The left half as last set."""
        return self._title

    @property
    def status_text(self) -> Text:
        """The right half as last set."""
        return self._status

    def set_title(self, text: Text | str) -> None:
        """The left half; unchanged text is not drawn again."""
        text = Text(text) if isinstance(text, str) else text
        if not _same_text(text, self._title):
            self._title = text
            self.refresh()

    def set_status(self, text: Text | str, short: Text | str | None = None) -> None:
        """The right half, and `short`, what it says instead where `text` does not fit;
        unchanged text is not drawn again (the filter sets it per key)."""
        text = Text(text) if isinstance(text, str) else text
        short = Text(short) if isinstance(short, str) else short
        if short is not None and _same_text(short, text):
            short = None
        old_short = self._short
        same_short = short is old_short or (
            short is not None and old_short is not None and _same_text(short, old_short)
        )
        if not (same_short and _same_text(text, self._status)):
            self._status, self._short = text, short
            self.refresh()

    def shown_status(self, width: int) -> Text:
        """The status as drawn in a bar `width` cells wide: the whole where it fits in its
        share of the bar, else the short form (when there is one)."""
        short = self._short
        if short is None or self._status.cell_len + 2 <= int(width * STATUS_MAX_SHARE):
            return self._status
        return short

    def half_widths(self, width: int) -> tuple[int, int]:
        """The cells of the title's and the status's halves (padding included) in a bar
        `width` cells wide."""
        shown = self.shown_status(width)
        most = int(width * STATUS_MAX_SHARE)
        if shown is not self._status:  # the short form: the title's collections give way
            most = max(most, width - TITLE_MIN_CELLS)
        status = min(shown.cell_len + 2, most)
        return width - status, status

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        title_width, status_width = self.half_widths(width)
        return Strip.join(
            [
                self._half(self._title, title_width, "app-header--title"),
                self._half(self.shown_status(width), status_width, "app-header--status"),
            ]
        ).crop_extend(0, width, self.rich_style)

    def _half(self, text: Text, width: int, component: str) -> Strip:
        """One half: its text cut to fit (nowrap, ellipsis: see styles/app.tcss), between
        two cells of padding."""
        if width <= 0:
            return Strip([])
        style = self.get_visual_style(component)
        drawn = self._drawn.get(component)
        # The Text itself, not its content: set_title and set_status replace it when it
        # changes, and the app's texts are never changed in place.
        if drawn is not None and drawn[0] is text and drawn[1] == width and drawn[2] == style:
            return drawn[3]
        # Padding and the cells after the text carry the background alone, as a
        # Static's padding does.
        blank = RichStyle(bgcolor=style.background.rich_color) if style.background else None
        inner = max(0, width - 2)
        line = Strip([])
        if inner:
            visual = visualize(self, text, markup=False)
            strips = Visual.to_strips(self, visual, inner, 1, style)
            line = strips[0] if strips else line
        line = line.adjust_cell_length(inner, blank)
        pad = Strip.blank(1, blank)
        strip = Strip.join([pad, line, pad]).crop(0, width)
        self._drawn[component] = (text, width, style, strip)
        return strip


def _same_text(a: Text, b: Text) -> bool:
    """Whether two Texts draw the same (`Text.__eq__` ignores the Text's own style)."""
    return a.plain == b.plain and a.style == b.style and a.spans == b.spans
