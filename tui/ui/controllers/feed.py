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

if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Set as AbstractSet

    from tui.corpus.model import Abstract
    from tui.store.userdata import UserData
    from tui.triage.feed import FeedItem, Sort
    from tui.ui.app import AbstractsApp
    from tui.ui.screens.feed import FeedScreen

NO_BOOKMARKS = "Bookmark a few abstracts with b; the feed ranks the rest by them."
NOTHING_UNREAD = "Nothing left to rank: every other abstract is read, bookmarked or dismissed."


class FeedController:
    """Dismissing abstracts, and the feed view ranked by the user's taste."""

    def __init__(self, app: AbstractsApp) -> None:
        self.app = app
        self.sort: Sort = "score"
        self.screen: FeedScreen | None = None
        #: The newest ranking asked for, and what it was asked for (likes, unlikes).
        self.generation = 0
        self._asked: tuple[frozenset[str], frozenset[str]] | None = None
        #: How long the last ranking took (seconds), for the curious and the tests.
        self.last_seconds: float | None = None

    # -- x: not interested ---------------------------------------------------

    def toggle_dismissed(self, abstract: Abstract) -> None:
        """Dismiss the abstract, or take it back (`x`: `PersonalController.act`)."""
        self.app.personal.when_open(lambda data: self._toggle(abstract, data))

    def _toggle(self, abstract: Abstract, data: UserData) -> None:
        from tui.triage.undo import SetDismissed

        on = not data.is_dismissed(abstract.id)
        if self.app.triage.perform(SetDismissed.capture([abstract.id], on, data.is_dismissed)):
            self.app.notify(
                "Not interested: it and abstracts like it sink in the feed (F) and M. "
                "x again or u takes it back."
                if on
                else "Taken back: no longer dismissed.",
                timeout=3,
            )

    # -- F: the feed view ----------------------------------------------------

    def open(self) -> None:
        """Open the feed (once the user's data is open: it ranks by the bookmarks)."""
        self.app.personal.when_open(self._open)

    def _open(self, data: UserData) -> None:
        from tui.ui.screens.feed import FeedScreen

        if self.screen is not None:
            return
        self.screen = FeedScreen(self.app.personal.marks(), self.sort)
        self.app.push_screen(self.screen, self._closed)
        self._asked = None
        self.view_changed()

    def _closed(self, abstract_id: str | None) -> None:
        self.screen = None
        self.generation += 1  # a ranking still running is for a view that is gone
        self.app.personal.jump_to(abstract_id)

    def view_changed(self) -> None:
        """The user's data changed (the app's `view_changed`, which also repaints the marks):
        a new ranking when the bookmarks or dismissals are not those of the last one asked for."""
        screen, data = self.screen, self.app.personal.userdata
        if screen is None or data is None:
            return
        # Only the loaded abstracts count (bookmarks of files not opened now are kept).
        loaded = self.app.corpus.by_id
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
        from tui.triage.feed import rank_feed

        app = self.app
        if generation != self.generation:
            return  # asked again already
        model = app.triage.ensure_similarity()
        if model is None:
            return
        started = time.perf_counter()
        new = app.fetching.new_ids()
        items = rank_feed(model, app.corpus, likes, unlikes, skip=read, first=new)
        seconds = time.perf_counter() - started
        app.deliver(self._show, generation, items, len(likes), len(unlikes), seconds)

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
        yield SystemCommand(
            "Feed", "Unread abstracts ranked by your bookmarks (F)", app.action_feed
        )
        yield SystemCommand(
            "Not interested",
            "Dismiss the selected abstract; it and ones like it sink in the feed (x)",
            app.action_dismiss,
        )
