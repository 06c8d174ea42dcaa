"""The filter's text box: typing in it redraws the box, never lays out the screen."""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class FilterInput(Input):
    """An `Input` whose text changes ask for no layout of the screen.

    Textual's Input sets its `virtual_size` (the text's width, for scrolling sideways)
    on every change of its value, and a new `virtual_size` asks for a layout: every
    widget reflowed and each one it touches repainted, on every key typed in the
    filter. The box's own size never depends on its text (the TCSS sets it) and it
    shows no scrollbar, so here the virtual size is kept without a layout; scrolling
    to the cursor reads it as before.
    """

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)
