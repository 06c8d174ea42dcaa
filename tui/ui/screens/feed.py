"""The feed view (`F`): unread abstracts ranked by taste, each with why.

The feed controller (`ui/controllers/feed.py`) ranks off the event loop and sets
what this screen shows (`show`, `set_marks`); the screen posts what the user does
(`Acted`, `Sorted`) and dismisses with the id of the abstract to open, or None.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.corpus.model import Abstract
from tui.sanitize import visible_line
from tui.triage.feed import SORTS, FeedItem, Sort, sort_feed
from tui.ui.widgets.abstract_list import RowMarks
from tui.ui.widgets.option_list import KeyedOptionList

Act = Literal["read", "bookmark", "dismiss"]
# Left of each row: the score and the marks; the reason's line is indented as far.
_INDENT = "      "


@dataclass(frozen=True)
class FeedState:
    """What the feed shows: the ranked items (best first) and how they were ranked."""

    items: tuple[FeedItem, ...] = ()
    likes: int = 0
    unlikes: int = 0
    #: A newer ranking is being computed (the items shown are the previous one's).
    pending: bool = False
    #: Shown instead of the list when there are no items.
    empty: str = ""
    seconds: float | None = field(default=None, compare=False)


class FeedScreen(Screen[str | None]):
    """The feed: Space marks read and moves on, b bookmarks, x dismisses, s sorts, Enter opens."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,F", "dismiss(None)", "Back"),
        Binding("space", "read_next", "Read, next"),
        Binding("b", "act('bookmark')", "★ Bookmark"),
        Binding("x", "act('dismiss')", "Not interested"),
        Binding("s", "toggle_sort", "Sort"),
    ]

    @dataclass
    class Acted(Message):
        """The user marked an abstract of the feed (read, bookmark or dismiss toggled)."""

        action: Act
        abstract: Abstract

    @dataclass
    class Sorted(Message):
        """The user chose another order (kept for the next time the feed opens)."""

        sort: Sort

    def __init__(self, sort: Sort = "score") -> None:
        super().__init__()
        self.sort: Sort = sort
        self.state = FeedState(pending=True, empty="Ranking…")
        self.marks = RowMarks()
        self._shown: list[FeedItem] = []
        self._mounted = False

    def compose(self) -> ComposeResult:
        yield Static(id="feed-title")
        yield Static(id="feed-empty")
        yield KeyedOptionList(id="feed-list")
        yield Static(
            Text(
                "Space read, next · b ★ · x not interested · s sort · Enter opens · Esc back",
                style="dim",
            ),
            id="feed-keys",
        )

    def on_mount(self) -> None:
        self._mounted = True
        self._redraw()
        self.query_one(OptionList).focus()

    def on_resize(self) -> None:
        self._redraw()

    # -- what the controller sets -------------------------------------------

    def show(self, state: FeedState) -> None:
        """Show a ranking (or that one is coming, or why there is none)."""
        self.state = state
        self._redraw()

    def set_marks(self, marks: RowMarks) -> None:
        """The user's marks changed (read, bookmarked, dismissed): redraw the rows."""
        self.marks = marks
        self._redraw()

    @property
    def current(self) -> Abstract | None:
        """The abstract under the cursor, if any."""
        index = self.query_one(OptionList).highlighted
        if index is None or not 0 <= index < len(self._shown):
            return None
        return self._shown[index].abstract

    # -- drawing -----------------------------------------------------------------

    def _redraw(self) -> None:
        if not self._mounted:
            return  # drawn on mount
        state = self.state
        self.query_one("#feed-title", Static).update(self._title())
        empty = self.query_one("#feed-empty", Static)
        listing = self.query_one(OptionList)
        empty.update(Text(state.empty))
        empty.display = not state.items
        listing.display = bool(state.items)
        current, position = self.current, listing.highlighted
        self._shown = sort_feed(state.items, self.sort)
        # Inside the list's padding and scrollbar (before the first layout: the screen's less those).
        width = max(30, listing.scrollable_content_region.width or self.app.size.width - 4)
        listing.set_options(self._option(item, width) for item in self._shown)
        if not self._shown:
            return
        ids = [item.abstract.id for item in self._shown]
        if current is not None and current.id in ids:
            listing.highlighted = ids.index(current.id)
        else:
            # What was here went away (bookmarked, dismissed): the next one takes its place.
            listing.highlighted = min(position or 0, len(ids) - 1)

    def _title(self) -> Text:
        state = self.state
        title = Text.assemble(("Feed", "bold"), "  ")
        basis = (
            f"{len(state.items):,} unread, ranked by {state.likes:,} ★"
            if state.likes
            else "unread abstracts ranked by your bookmarks (none yet)"
        )
        if state.unlikes:
            basis += f" and {state.unlikes:,} not interested"
        other = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        title.append(f"{basis} · by {self.sort} (s: by {other})", style="dim")
        if state.pending:
            title.append(" · updating…", style="italic")
        return title

    def _option(self, item: FeedItem, width: int) -> Option:
        """Two lines: score, marks, headline, venue and year; then why it is here."""
        abstract, marks = item.abstract, self.marks
        is_read = abstract.id in marks.read
        star = "★" if abstract.id in marks.bookmarked else " "
        mark = "✗" if abstract.id in marks.dismissed else star
        meta = visible_line(abstract.collection.short)
        first = Text.assemble(
            (f"{item.score:4.2f} ", "bold"),
            (mark, "bold"),
            (" " if is_read else "•", "bold"),
            " ",
            (visible_line(abstract.headline), "dim" if is_read else ""),
        )
        first.truncate(max(10, width - len(meta) - 1), overflow="ellipsis", pad=True)
        first.append(" " + meta, style="dim")
        because = Text(visible_line(item.because.headline))
        because.truncate(max(16, (width - 20) // 2), overflow="ellipsis")
        second = Text.assemble(_INDENT, ("because ★ ", "dim"), because)
        if item.shared:
            second.append(" · " + ", ".join(item.shared), style="dim italic")
        second.truncate(width, overflow="ellipsis")
        return Option(Text("\n").join([first, second]), id=abstract.id)

    # -- keys ---------------------------------------------------------------------

    def action_act(self, action: Act) -> None:
        if (abstract := self.current) is not None:
            self.post_message(self.Acted(action, abstract))

    def action_read_next(self) -> None:
        """Mark the abstract read and go to the next unread one below it."""
        listing = self.query_one(OptionList)
        abstract, position = self.current, listing.highlighted
        if abstract is None or position is None:
            return
        self.post_message(self.Acted("read", abstract))
        read = self.marks.read
        for later in range(position + 1, len(self._shown)):
            if self._shown[later].abstract.id not in read:
                listing.highlighted = later
                return
        self.notify("No unread abstracts below in the feed.", timeout=3)

    def action_toggle_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self.post_message(self.Sorted(self.sort))
        self._redraw()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
