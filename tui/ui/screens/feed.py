"""The feed view (`F`): unread abstracts ranked by taste, each with why.

The feed controller (`ui/controllers/feed.py`) ranks off the event loop and sets
what this screen shows (`show`; the app sets the marks, `set_marks`); the screen posts
what the user does (`AbstractsView.Acted` for Space, b, x and r, `Sorted`) and dismisses
with the id of the abstract to open, or None.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static

from tui.corpus.model import Abstract
from tui.triage.feed import SORTS, FeedItem, Sort, sort_feed
from tui.triage.marks import RowMarks
from tui.ui.screens.abstracts_view import ACT_KEYS, AbstractsView
from tui.ui.widgets.feed_list import FeedList


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


class FeedScreen(AbstractsView):
    """The feed: Space marks read and moves on, b bookmarks, x dismisses, r toggles read,
    s sorts, Enter opens."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,F", "dismiss(None)", "Back", id="feed.back"),
        Binding("space", "read_next", "Read, next", id="feed.read_next"),
        Binding("s", "toggle_sort", "Sort", id="feed.sort"),
    ]

    @dataclass
    class Sorted(Message):
        """The user chose another order (kept for the next time the feed opens)."""

        sort: Sort

    def __init__(self, marks: RowMarks | None, sort: Sort = "score") -> None:
        super().__init__()
        if marks is not None:
            self.marks = marks
        self.sort: Sort = sort
        self.state = FeedState(pending=True, empty="Ranking…")
        self._mounted = False

    def compose(self) -> ComposeResult:
        yield Static(id="feed-title")
        yield Static(id="feed-empty")
        yield FeedList(id="feed-list")
        yield Static(
            Text(f"Space read, next · {ACT_KEYS} · s sort · Enter opens · Esc back", style="dim"),
            id="feed-keys",
        )

    def on_mount(self) -> None:
        self._mounted = True
        self._redraw()
        self.query_one(FeedList).focus()

    # -- what the controller sets -------------------------------------------

    def show(self, state: FeedState) -> None:
        """Show a ranking (or that one is coming, or why there is none)."""
        same_items = state.items is self.state.items
        self.state = state
        if same_items and self._mounted:
            self._redraw_title()  # e.g. "updating…": the rows stay as they are
        else:
            self._redraw()

    def repaint_marks(self, before: RowMarks) -> None:
        self.query_one(FeedList).set_marks(self.marks)  # redraws only the rows on screen

    @property
    def highlighted(self) -> Abstract | None:
        """The abstract under the cursor, if any."""
        return self.query_one(FeedList).current if self._mounted else None

    @property
    def shown(self) -> list[FeedItem]:
        """The items in the order shown."""
        return self.query_one(FeedList).items if self._mounted else []

    # -- drawing -----------------------------------------------------------------

    def _redraw_title(self) -> None:
        self.query_one("#feed-title", Static).update(self._title())

    def _redraw(self) -> None:
        if not self._mounted:
            return  # drawn on mount
        state = self.state
        self._redraw_title()
        empty = self.query_one("#feed-empty", Static)
        listing = self.query_one(FeedList)
        empty.update(Text(state.empty))
        empty.display = not state.items
        listing.display = bool(state.items)
        listing.set_marks(self.marks)
        listing.set_items(sort_feed(state.items, self.sort))

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

    # -- keys ---------------------------------------------------------------------

    def action_read_next(self) -> None:
        """Mark the abstract read and go to the next unread one below it."""
        listing = self.query_one(FeedList)
        abstract, position, items = listing.current, listing.cursor, listing.items
        if abstract is None:
            return
        self.post_message(self.Acted("mark_read", abstract))
        read = self.marks.read
        for later in range(position + 1, len(items)):
            if items[later].abstract.id not in read:
                listing.cursor = later
                return
        self.notify("No unread abstracts below in the feed.", timeout=3)

    def action_toggle_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self.post_message(self.Sorted(self.sort))
        self._redraw()

    @on(FeedList.Chosen)
    def _chosen(self, event: FeedList.Chosen) -> None:
        self.dismiss(event.abstract.id)
