"""What every view that lists abstracts shares (similar `m`/`M`, notes `N`, the feed `F`).

`b`, `x` and `r` act on the abstract highlighted in the view, never on the main list's:
the view posts `AbstractsView.Acted` and the app hands it to the one path every key that
marks an abstract takes (`PersonalController.act`). The app sets the marks the rows show
(`set_marks`, from `view_changed`), so a row is repainted as soon as it is marked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen

from tui.corpus.model import Abstract
from tui.triage.marks import RowMarks

#: bookmark, dismiss and read toggle; mark_read only marks read (the feed's Space).
Act = Literal["bookmark", "dismiss", "read", "mark_read"]

#: The keys as each view's key line names them.
ACT_KEYS = "b ★ · x not interested · r read/unread"


class AbstractsView(Screen[str | None]):
    """A view listing abstracts; dismisses with the id of the abstract to open, or None.

    A modal view names `ModalScreen` first (`class V(ModalScreen[str | None], AbstractsView)`):
    Textual inherits CSS along the first base only, and the modal look comes from there.
    """

    #: What the rows show of the user's marks (set by the app; none until the data opens).
    marks: RowMarks = RowMarks()

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "act('bookmark')", "★ Bookmark", id="abstracts.bookmark"),
        Binding("x", "act('dismiss')", "Not interested", id="abstracts.dismiss"),
        Binding("r", "act('read')", "Read/unread", id="abstracts.read"),
    ]

    @dataclass
    class Acted(Message):
        """Act on this abstract (one of the view's): the app marks it as the list's keys do."""

        act: Act
        abstract: Abstract

    @property
    def highlighted(self) -> Abstract | None:
        """The loaded abstract under the view's cursor, if any."""
        raise NotImplementedError

    def set_marks(self, marks: RowMarks) -> None:
        """The user's marks changed: repaint the rows."""
        before, self.marks = self.marks, marks
        if self.is_mounted:
            self.repaint_marks(before)

    def repaint_marks(self, before: RowMarks) -> None:
        """Draw again the rows whose marks differ from `before` (called once mounted)."""
        raise NotImplementedError

    def action_act(self, act: Act) -> None:
        if (abstract := self.highlighted) is not None:
            self.post_message(self.Acted(act, abstract))
        else:
            self.cannot_act()

    def cannot_act(self) -> None:
        """A key pressed on a row with no loaded abstract (an orphan's note)."""
