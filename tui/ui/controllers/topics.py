"""The topic map: topics computed in the background, the topic view (T), `topic:N`.

Topics need the similarity model, so they are started once it is ready
(`warm`, called by the triage controller) and computed off the UI thread: from
the cache, else in a thread for small corpora, else by the cache-building child
process (`tui.caches`), which computes them after the similarity model, so
key presses never wait on the GIL-bound parts. Until they are ready the view
says they are being computed and a `topic:` filter waits for them (the search
controller asks `pending`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui import locations

if TYPE_CHECKING:
    from tui.caches import CacheBuild
    from tui.search.filters import TopicNumbers
    from tui.similar.topics import Topics
    from tui.triage.overview import CountRow
    from tui.ui.app import AbstractsApp
    from tui.ui.screens.topics import TopicsScreen


class TopicsController:
    """The corpus's topics once computed, and the topic view while it is open."""

    def __init__(self, app: AbstractsApp) -> None:
        self.app = app
        self.model: Topics | None = None
        #: Why topics could not be computed (then `topic:` matches nothing and says so).
        self.failure: str | None = None
        self._started = False
        self._build: CacheBuild | None = None
        self._screen: TopicsScreen | None = None

    @property
    def numbers(self) -> TopicNumbers | None:
        """Each abstract's topic number (1 the largest, 0 none), or None until computed."""
        return self.model.number if self.model is not None else None

    @property
    def pending(self) -> bool:
        """True until the topics are ready (or have failed)."""
        return self.model is None and self.failure is None

    def warm(self) -> None:
        """The similarity model is ready: compute the topics (once) in a worker."""
        if self._started or self.app.closing:
            return
        self._started = True
        self.app.run_worker(self._warm, thread=True, exclusive=True, group="topics")

    def _warm(self) -> None:
        from tui import caches
        from tui.similar import topic_cache

        app = self.app
        cache_dir = locations.cache_dir(app.data_dir)
        topics = topic_cache.load(app.corpus, cache_dir)
        if topics is None and len(app.corpus) >= caches.SUBPROCESS_THRESHOLD:
            # The child started for the index computes topics after similarity (its
            # report may be waiting in the pipe); when both of those were cached, a new
            # child loads them and computes only the topics.
            build = app.search.cache_build
            if build is None:
                build = self._build = caches.CacheBuild(
                    app.corpus,
                    cache_dir,
                    on_report=lambda: app.deliver_later(app.refresh_header),
                    read_args=app.loading.read_args,
                )
            if not app.closing and build.wait_for("topics"):
                topics = topic_cache.load(app.corpus, cache_dir)
        if topics is None and not app.closing:
            model = app.triage.ensure_similarity()
            if model is not None:
                try:
                    topics = topic_cache.load_or_build(app.corpus, cache_dir, model)
                except Exception as error:  # never take the reader down over the topics
                    app.deliver(self._failed, str(error) or type(error).__name__)
                    return
        if topics is not None:
            app.deliver(self._ready, topics)

    def _ready(self, topics: Topics) -> None:
        self.model = topics
        self.app.search.rerun()
        self.app.view_changed()

    def _failed(self, message: str) -> None:
        self.failure = message
        self.app.search.rerun()
        self.app.view_changed()

    def progress_text(self) -> str:
        """`topics…` while a child started for them alone computes them, else ""."""
        build = self._build
        text = build.progress_text() if build is not None else ""
        return text + "…" if text else ""

    def stop(self) -> None:
        """Quitting: stop a child computing topics (a half-built cache is rebuilt next time)."""
        if self._build is not None:
            self._build.stop()

    # -- the view --------------------------------------------------------------

    def rows(self) -> list[CountRow]:
        """One row per topic: its labels, size, read and bookmarked counts."""
        from tui.triage.overview import topic_rows

        if self.model is None:
            return []
        data = self.app.personal.userdata
        read = data.read_ids() if data is not None else set()
        marked = data.bookmarked_ids() if data is not None else set()
        return topic_rows(self.model, self.app.corpus, read, marked)

    def status(self) -> str | None:
        """What the view says instead of rows: computing, or why there are none."""
        if self.failure is not None:
            return f"Topics could not be computed: {self.failure}"
        if self.model is None:
            return f"Computing topics for {len(self.app.corpus):,} abstracts…"
        if not self.model.count:
            return "No topics: no abstract shares a word with another."
        return None

    def show(self) -> None:
        """`T`: the topic view (it fills in once the topics are ready)."""
        from tui.ui.screens.topics import TopicsScreen

        self._screen = TopicsScreen(self.rows(), self.status(), len(self.app.corpus))
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
