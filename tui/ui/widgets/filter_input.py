"""The filter's text box: typing in it redraws the box, never lays out the screen, and
the search runs with the key that changed the text."""

from __future__ import annotations

from collections.abc import Callable

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class FilterInput(Input):
    """An `Input` whose text changes ask for no layout of the screen, and whose new text
    is handed to `on_value` at once.

    Textual's Input sets its `virtual_size` (the text's width, for scrolling sideways)
    on every change of its value, and a new `virtual_size` asks for a layout: every
    widget reflowed and each one it touches repainted, on every key typed in the
    filter. The box's own size never depends on its text (the TCSS sets it) and it
    shows no scrollbar, so here the virtual size is kept without a layout; scrolling
    to the cursor reads it as before.

    `on_value` runs in the key's own handler, where a `Changed` message would reach
    the app only after hopping through each container's queue: the screen went idle
    in between and painted the box alone, and the list's answer waited for the next
    frame (up to 1/60 s later). Now one frame shows the text and its answer.
    """

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(
        self,
        *,
        on_value: Callable[[str], None],
        placeholder: str = "",
        id: str | None = None,
    ) -> None:
        super().__init__(placeholder=placeholder, id=id)
        self._on_value = on_value

    def watch_value(self, value: str) -> None:
        self._on_value(value)
