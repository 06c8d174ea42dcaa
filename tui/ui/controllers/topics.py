"""The topic map in the UI: the topic view (T) and its `topic:N` filter.

The topics need the similarity model, so the session's loaders compute them once it
is ready, off the UI thread (`Loaders.warm_topics`: from the cache, else in a thread
for small corpora, else by the cache-building child process). Until they are ready
the view says they are being computed and a `topic:` filter waits for them (the search
controller asks `pending`); `TopicsChanged` fills the open view in.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from tui.session.events import MarksChanged, TopicsChanged

if TYPE_CHECKING:
    from tui.search.filters import TopicNumbers
    from tui.session import Session
    from tui.similar.topics import Topics
    from tui.triage.overview import CountRow
    from tui.ui.host import Host
    from tui.ui.screens.topics import TopicsScreen


class TopicsController:
    """The topic view while it is open; the topics themselves are the session's
    (`session.loaders.topics`, computed after the similarity model)."""

    def __init__(self, session: Session, app: Host) -> None:
        self.session = session
        self.app = app
        self._screen: TopicsScreen | None = None
        session.bus.subscribe(TopicsChanged, lambda _: self.view_changed())
        session.bus.subscribe(MarksChanged, lambda _: self.view_changed())

    @property
    def model(self) -> Topics | None:
        """The corpus's topics once computed."""
        return self.session.loaders.topics

    @property
    def failure(self) -> str | None:
        """Why topics could not be computed (then `topic:` matches nothing and says so)."""
        return self.session.loaders.topics_failure

    @property
    def numbers(self) -> TopicNumbers | None:
        """Each abstract's topic number (1 the largest, 0 none), or None until computed."""
        return self.session.loaders.topic_numbers

    @property
    def pending(self) -> bool:
        """True until the topics are ready (or have failed)."""
        return self.session.loaders.topics_pending

    def warm(self) -> None:
        """Compute the topics now in a worker (they are computed after the similarity
        model at start-up; this is for a caller that cannot wait for that)."""
        if not self.session.closing:
            self.app.run_worker(
                self.session.loaders.warm_topics, thread=True, exclusive=True, group="topics"
            )

    # -- the view --------------------------------------------------------------

    def rows(self) -> list[CountRow]:
        """One row per topic: its labels, size, read and bookmarked counts."""
        from tui.triage.overview import topic_rows

        if self.model is None:
            return []
        data = self.session.user.userdata
        read = data.read_ids() if data is not None else set()
        marked = data.bookmarked_ids() if data is not None else set()
        return topic_rows(self.model, self.session.corpus, read, marked)

    def status(self) -> str | None:
        """What the view says instead of rows: computing, or why there are none."""
        if self.failure is not None:
            return f"Topics could not be computed: {self.failure}"
        if self.model is None:
            return f"Computing topics for {len(self.session.corpus):,} abstracts…"
        if not self.model.count:
            return "No topics: no abstract shares a word with another."
        return None

    def commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Topics", "The corpus's topics; choose one to filter (T)", self.show)

    def show(self) -> None:
        """`T`: the topic view (it fills in once the topics are ready)."""
        from tui.ui.screens.topics import TopicsScreen

        self._screen = TopicsScreen(self.rows(), self.status(), len(self.session.corpus))
        self.app.push_screen(self._screen, self._chosen)

    def view_changed(self) -> None:
        """Counts or topics changed: an open topic view shows the new ones."""
        screen = self._screen
        if screen is not None and screen.is_attached:
            screen.update(self.rows(), self.status())

    def _chosen(self, topic: int | None) -> None:
        self._screen = None
        if topic is not None:
            app = self.app
            app.filter_input.value = f"topic:{topic} "
            app.abstract_list.focus()
