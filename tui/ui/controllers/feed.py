"""Taste in the UI: `x` (not interested) and the feed view `F`.

The feed ranks the unread abstracts by the bookmarks (liked) and the dismissals
(not interested) with `tui.triage.feed.rank_feed`, in an exclusive thread worker so
the interface never waits on it. Every ranking asked for gets a generation number;
a result is shown only if it is the newest asked for and the feed is still open,
so a ranking for bookmarks that have changed since is never painted.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from tui.session.events import MarksChanged

if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Set as AbstractSet

    from tui.session import Session
    from tui.store.userdata import UserData
    from tui.triage.feed import FeedItem, Sort
    from tui.ui.host import Host
    from tui.ui.screens.feed import FeedScreen

NO_BOOKMARKS = "Bookmark a few abstracts with b; the feed ranks the rest by them."
NOTHING_UNREAD = "Nothing left to rank: every other abstract is read, bookmarked or dismissed."


class FeedController:
    """Dismissing abstracts, and the feed view ranked by the user's taste."""

    def __init__(self, session: Session, app: Host) -> None:
        self.session = session
        self.app = app
        session.bus.subscribe(MarksChanged, lambda _: self.view_changed())
        self.sort: Sort = "score"
        self.screen: FeedScreen | None = None
        #: The newest ranking asked for, and what it was asked for (likes, unlikes).
        self.generation = 0
        self._asked: tuple[frozenset[str], frozenset[str]] | None = None
        #: How long the last ranking took (seconds), for the curious and the tests.
        self.last_seconds: float | None = None

    # -- F: the feed view ----------------------------------------------------

    def open(self) -> None:
        """Open the feed (once the user's data is open: it ranks by the bookmarks)."""
        self.session.user.when_open(self._open)

    def _open(self, data: UserData) -> None:
        from tui.ui.screens.feed import FeedScreen

        if self.screen is not None:
            return
        self.screen = FeedScreen(self.session.user.marks(), self.sort)
        self.app.push_screen(self.screen, self._closed)
        self._asked = None
        self.view_changed()

    def _closed(self, abstract_id: str | None) -> None:
        self.screen = None
        self.generation += 1  # a ranking still running is for a view that is gone
        self.app.jump_to(abstract_id)

    def view_changed(self) -> None:
        """The user's data changed: a new ranking when the bookmarks or dismissals are not
        those of the last one asked for (the open feed's marks repaint themselves)."""
        screen, data = self.screen, self.session.user.userdata
        if screen is None or data is None:
            return
        # Only the loaded abstracts count (bookmarks of files not opened now are kept).
        loaded = self.session.corpus.by_id
        asked = (
            frozenset(i for i in data.bookmarked_ids() if i in loaded),
            frozenset(i for i in data.dismissed_ids() if i in loaded),
        )
        if asked != self._asked:
            self._rank(asked, data.read_ids())

    def _rank(self, asked: tuple[frozenset[str], frozenset[str]], read: AbstractSet[str]) -> None:
        from tui.ui.screens.feed import FeedState

        screen = self.screen
        assert screen is not None
        self._asked = asked
        self.generation += 1
        likes, unlikes = asked
        if not likes:
            screen.show(FeedState(unlikes=len(unlikes), empty=NO_BOOKMARKS))
            return
        # The rows shown stay until the new ranking replaces them, marked as updating.
        previous = screen.state
        screen.show(
            FeedState(previous.items, len(likes), len(unlikes), pending=True, empty="Ranking…")
        )
        generation = self.generation
        self.app.run_worker(
            lambda: self._ranked(generation, likes, unlikes, read),
            thread=True,
            exclusive=True,
            group="feed",
        )

    def _ranked(
        self,
        generation: int,
        likes: frozenset[str],
        unlikes: frozenset[str],
        read: AbstractSet[str],
    ) -> None:
        """In a worker thread: rank, then hand the result to the event loop."""
        from tui.search.inbox import current_inbox
        from tui.triage.feed import rank_feed

        session = self.session
        if generation != self.generation:
            return  # asked again already
        model = session.loaders.ensure_similarity()
        if model is None:
            return
        started = time.perf_counter()
        inbox = current_inbox()
        new = inbox.new_ids() if inbox is not None else set()
        items = rank_feed(model, session.corpus, likes, unlikes, skip=read, first=new)
        seconds = time.perf_counter() - started
        self.app.post(lambda: self._show(generation, items, len(likes), len(unlikes), seconds))

    def _show(
        self, generation: int, items: list[FeedItem], likes: int, unlikes: int, seconds: float
    ) -> None:
        from tui.ui.screens.feed import FeedState

        if generation != self.generation or self.screen is None:
            return  # stale: the bookmarks or dismissals changed, or the feed was closed
        self.last_seconds = seconds
        self.screen.show(
            FeedState(tuple(items), likes, unlikes, empty=NOTHING_UNREAD, seconds=seconds)
        )

    def sorted(self, sort: Sort) -> None:
        self.sort = sort

    def commands(self) -> Iterable[SystemCommand]:
        app = self.app
        yield SystemCommand("Feed", "Unread abstracts ranked by your bookmarks (F)", self.open)
        yield SystemCommand(
            "Not interested",
            "Dismiss the selected abstract; it and ones like it sink in the feed (x)",
            app.action_command("dismiss"),
        )
