"""An OptionList that also moves with the keys the main list uses (j/k, g/G)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import OptionList


class KeyedOptionList(OptionList):
    """The lists in modal screens (similar, notes, overview), navigable like the main list."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="list.down"),
        Binding("k", "cursor_up", "Up", show=False, id="list.up"),
        Binding("g", "first", "First", show=False, id="list.first"),
        Binding("G", "last", "Last", show=False, id="list.last"),
    ]
