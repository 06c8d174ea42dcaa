"""The filter: searching as the user types, and the search index it needs.

Searching runs in an exclusive thread worker; a result is applied only if the
filter text and order still match, so a stale result never paints over a newer one.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from rich.text import Text

from tui import locations
from tui.search.spans import Spans

if TYPE_CHECKING:
    from tui.caches import CacheBuild
    from tui.corpus.model import Corpus
    from tui.search.index import SearchIndex
    from tui.ui.app import AbstractsApp

Order = Literal["relevance", "file"]
#: While the child builds the index, the filter searches the first this many abstracts,
#: indexed in the app (as many as a small corpus, whose whole index is built here).
PARTIAL_INDEX_SIZE = 2_000


# The filter's placeholder, longest first: the longest that fits the box is shown.
FILTER_PLACEHOLDERS = (
    '/ filter: words, "phrase", -word, year:2023, is:bookmarked',
    '/ filter: words "phrase" -word year:2023 is:bookmarked',
    "/ filter: words -word year:2023 is:bookmarked",
    "/ filter: words -word year:2023",
    "/ filter",
)


class SearchController:
    """The filter's state: the text typed, the order, the index and the results shown."""

    def __init__(self, app: AbstractsApp) -> None:
        self.app = app
        self.index: SearchIndex | None = None
        self._index_lock = threading.Lock()
        # Set once the start-up load (or the child's build) of the index has settled: a
        # search typed earlier waits for it rather than building a second index here.
        self._index_settled = threading.Event()
        #: The first abstracts' index and their corpus, while the child builds the whole's.
        self.partial: tuple[SearchIndex, Corpus] | None = None
        self._partial_lock = threading.Lock()
        #: How many abstracts the results shown searched, when not all of them (None).
        self.searched_partially: int | None = None
        self.query_text = ""
        self.order: Order = "relevance"
        #: Highlight spans of the search shown (None when unfiltered).
        self.spans: Spans | None = None
        #: (full matches, closest matches) of the search shown; None when unfiltered.
        self.match_counts: tuple[int, int] | None = None
        self.query_error: str | None = None
        #: True while a child process builds the index.
        self.indexing = False
        self.cache_build: CacheBuild | None = None
        #: The abstract to come back to when the filter is cleared.
        self.saved_selection: str | None = None
        #: True while the filter shown has `topic:` and the topics are still being computed.
        self.waits_for_topics = False
        #: Set once the user has gone to the filter: the filter restored from last time
        #: then never replaces or mixes with what they type (`restore_filter`).
        self.user_filtered = False

    @property
    def filtered(self) -> bool:
        return bool(self.query_text.strip())

    # -- the index -----------------------------------------------------------

    def warm_index(self) -> None:
        """After the first paint: load or build the index (and the similarity model)."""
        self.app.run_worker(self._warm_index, thread=True, exclusive=True, group="index")

    def _warm_index(self) -> None:
        """Load the search index and similarity model, building large ones in a child process.

        Both locks are held while the child builds, so a search typed or an `m`
        pressed meanwhile waits for its result instead of starting a second build
        in this process (whose GIL-bound work would make every key press lag). While
        they are held nothing waits for the event loop (`deliver_later`, never
        `deliver`): a loop that wanted either lock would otherwise wait for ever.
        """
        from tui import caches
        from tui.search import cache as search_cache
        from tui.similar import cache as similar_cache

        app, triage = self.app, self.app.triage
        cache_dir = locations.cache_dir(app.data_dir)
        had_index = False
        try:
            if len(app.corpus) >= caches.SUBPROCESS_THRESHOLD:
                with triage.similarity_lock:
                    with self._index_lock:
                        if app.closing:  # never start a build for an app that is ending
                            return
                        self.index = search_cache.load(app.corpus, cache_dir)
                        if self.index is not None:
                            # A search waiting for it runs now, not after the model loads.
                            self._index_settled.set()
                        triage.similarity = similar_cache.load(app.corpus, cache_dir)
                        build = None
                        if self.index is None or triage.similarity is None:
                            build = self.cache_build = caches.CacheBuild(
                                app.corpus,
                                cache_dir,
                                on_report=lambda: app.deliver_later(app.refresh_header),
                                read_args=app.loading.read_args,
                            )
                            self.indexing = self.index is None
                            app.deliver_later(app.view_changed)
                            if build.wait_for("index") and self.index is None:
                                self.index = search_cache.load(app.corpus, cache_dir)
                            self.indexing = False
                    # Searching works from here on; similarity may still be building.
                    self._index_settled.set()
                    had_index = self.index is not None
                    app.deliver_later(self._whole_index_ready)
                    if build is not None and build.wait_for("similar"):
                        triage.similarity = similar_cache.load(app.corpus, cache_dir)
        finally:
            self._index_settled.set()
        # Either may still be None (small corpus, or the child failed): built in a thread.
        if self.ensure_index() is None:
            return  # quitting
        if not had_index:  # built here: search the filter again over it
            app.deliver(self._whole_index_ready)
        app.deliver(app.view_changed)
        app.deliver(triage.warm_similarity)

    def _ensure_partial(self) -> tuple[SearchIndex, Corpus] | None:
        """For a search typed while the files are read (and no index is cached, it seems)
        or while the child indexes them: the first abstracts indexed here, once; the filter
        answers from them meanwhile, saying so. None when there is no call for one yet."""
        app = self.app
        with self._partial_lock:
            if self.partial is not None or len(app.corpus) < PARTIAL_INDEX_SIZE:
                return self.partial
            if not (self.indexing or (app.loading.active and not self._index_cached())):
                return None
            from tui.corpus.model import Corpus
            from tui.search.index import SearchIndex

            first = Corpus(app.corpus.abstracts[:PARTIAL_INDEX_SIZE], [], [])
            self.partial = (SearchIndex.build(first), first)
            return self.partial

    def _index_cached(self) -> bool:
        """Whether an index cache is there, probably this corpus's (a warm start): then
        the files are read and the index loaded sooner than a partial one is built."""
        cache_dir = locations.cache_dir(self.app.data_dir)
        try:
            return any(cache_dir.glob("search-*.npz"))
        except OSError:
            return False

    def _whole_index_ready(self) -> None:
        """The filter is searched again over every abstract (its results may be from the
        first ones only, or dropped as the index arrived)."""
        self.partial = None
        self.rerun()
        self.app.view_changed()

    def _index_for_search(self) -> tuple[SearchIndex | None, Corpus | None]:
        """The whole index (waiting for the start-up load or build), or meanwhile the
        partial one with its corpus."""
        while not self._index_settled.wait(0.05):
            if self.app.closing:
                return None, None
            if (partial := self._ensure_partial()) is not None:
                return partial
        return self.ensure_index(), None

    def wait_for_start(self) -> bool:
        """Wait (off the UI thread) until every file is read and the start-up load of the
        index has settled: by then the start-up worker holds the similarity lock while
        the child builds the model, so a caller taking that lock next waits for the child
        rather than building in the app. False once the app is closing."""
        while not self._index_settled.wait(0.05):
            if self.app.closing:
                return False
        return True

    def ensure_index(self) -> SearchIndex | None:
        """The index, loaded or built here; None once the app is closing (never build then:
        the interpreter would wait for the build before it could exit). Waits for the
        start-up load first, which may be the child's build (`warm_index`)."""
        if not self.wait_for_start():
            return None
        if self.index is not None:
            return self.index  # without the lock, which the start-up may hold a while more
        with self._index_lock:
            if self.index is None and not self.app.closing:
                from tui.search.cache import load_or_build

                app = self.app
                self.index = load_or_build(app.corpus, locations.cache_dir(app.data_dir))
            return self.index

    def progress_text(self) -> str:
        """What the cache-building child is doing (`indexing: files 40 / 369…`), else ""."""
        build = self.cache_build
        text = build.progress_text() if build is not None else ""
        return text + "…" if text else ""

    def stop(self) -> None:
        """Quitting: stop a cache build in progress (a half-built cache is rebuilt next time)."""
        if self.cache_build is not None:
            self.cache_build.stop()

    # -- searching -----------------------------------------------------------

    def filter_changed(self, value: str) -> None:
        """The filter text changed: show everything, or search in a worker."""
        app = self.app
        self.query_text = value
        if not value.strip():
            self._set_query_error(None)
            self.waits_for_topics = False
            self.match_counts = None
            self.searched_partially = None
            self._apply_rows(list(range(len(app.corpus))), None, keep=self.saved_selection)
            return
        self._start_search(value, self.order)
        if self.index is None:
            # The list still shows what it showed; the header says the filter waits.
            app.view_changed()
            if self.indexing and self.partial is None:
                self._show_line(
                    Text(
                        f"Building the search index for {len(app.corpus):,} abstracts; "
                        "the filter runs as soon as it is ready.",
                        style="italic",
                    ),
                    error=False,
                )

    def rerun(self) -> None:
        """Run the current filter again (personal data changed, or the order did)."""
        if self.filtered:
            self._start_search(self.query_text, self.order)

    def _start_search(self, text: str, order: Order) -> None:
        self.app.run_worker(
            lambda: self._search(text, order), thread=True, exclusive=True, group="search"
        )

    def _search(self, text: str, order: Order) -> None:
        from tui.search.query import QueryError, parse_query

        app = self.app
        try:
            query = parse_query(text)
        except QueryError as error:
            app.deliver(self._show_query_error, text, str(error))
            return
        topics = app.topics.numbers
        if topics is None and app.topics.pending and any(f.name == "topic" for f in query.fields):
            app.deliver(self._wait_for_topics, text)
            return  # searched again once they are ready
        index, partial = self._index_for_search()
        if index is None:
            return
        corpus = app.corpus if partial is None else partial
        result = index.search(
            query, corpus, personal=app.personal.userdata, order=order, topics=topics
        )
        highlighter = index.highlighter(query)
        counts = (result.matched, result.close)
        app.deliver(
            self.apply_search,
            text,
            order,
            list(result.indices),
            highlighter.spans,
            counts,
            None if partial is None else len(partial),
        )

    def apply_search(
        self,
        text: str,
        order: Order,
        rows: list[int],
        spans: Spans,
        counts: tuple[int, int],
        searched: int | None = None,
    ) -> None:
        """Show a search's result, unless the filter or order has changed since it started:
        a slower, older search must never paint over a newer one. `searched`: how many
        abstracts were searched, when only the first ones were (a partial index)."""
        if text != self.query_text or order != self.order:
            return
        if searched is not None and (self.partial is None or self.index is not None):
            return  # the whole index is ready: its own answer is on its way
        app = self.app
        was_partial = self.searched_partially is not None
        self.searched_partially = searched
        self.waits_for_topics = False
        self._set_query_error(None)
        current = app.abstract_list.current
        if was_partial and searched is None and app.abstract_list.cursor == 0:
            # The whole index's answer replaces the first abstracts' answer: a cursor
            # still on its first row goes to the new best match, not after the abstract
            # that happened to head the partial answer.
            current = None
        app.abstract_list.empty_text = (
            f"No abstract shares a word with “{text.strip()}”. Esc clears the filter."
        )
        self.match_counts = counts
        matched, close = counts
        self._apply_rows(
            rows, spans, keep=current.id if current else None, divider=matched if close else None
        )
        app.triage.apply_resume_selection()

    def _wait_for_topics(self, text: str) -> None:
        """`topic:` before the topics are ready: say so rather than match nothing."""
        if text != self.query_text:
            return
        self.waits_for_topics = True
        self._set_query_error(None)
        self._show_line(
            Text(
                f"Computing topics for {len(self.app.corpus):,} abstracts; "
                "topic: filters as soon as they are ready.",
                style="italic",
            ),
            error=False,
        )
        self.app.view_changed()

    def _show_query_error(self, text: str, message: str) -> None:
        if text == self.query_text:
            self._set_query_error(message)

    def _set_query_error(self, message: str | None) -> None:
        """A query that does not parse (often half-typed, like `year:`) is explained on a
        line under the filter, which turns red; the last good results stay. No toast: it
        would fire on every keystroke while a field is being typed."""
        self.query_error = message
        field = self.app.filter_input
        field.set_class(message is not None, "-error")
        field.tooltip = message
        self._show_line(Text("⚠ " + message) if message else None, error=message is not None)

    def _show_line(self, text: Text | None, *, error: bool) -> None:
        line = self.app.query_error_line
        if text is None and not line.display:
            return  # hidden already: no redraw (and no new layout) at every search
        line.set_class(error, "-error")
        line.update(text or "")
        line.display = text is not None

    def _apply_rows(
        self,
        rows: Sequence[int],
        spans: Spans | None,
        keep: str | None,
        divider: int | None = None,
    ) -> None:
        app = self.app
        self.spans = spans
        app.abstract_list.set_highlighter(spans)
        app.abstract_list.set_rows(rows, keep=keep, divider=divider)
        app.view_changed()

    # -- user actions --------------------------------------------------------

    def restore_filter(self, text: str) -> bool:
        """The filter from last time, once the user's data has opened: shown unless the
        user has gone to the filter already, whose typing then wins (it is never mixed
        into the restored text). Returns whether it was restored."""
        if self.user_filtered:
            return False
        self.app.filter_input.value = text
        return True

    def filter_focused(self) -> None:
        """The filter took the focus (`/`, a click, Tab): what is typed next is the user's."""
        self.user_filtered = True

    def focus_filter(self) -> None:
        app = self.app
        self.user_filtered = True
        if not self.filtered and (current := app.abstract_list.current):
            self.saved_selection = current.id
        # Focus now, not on the next loop turn as Widget.focus would.
        app.screen.set_focus(app.filter_input)

    def fit_placeholder(self) -> None:
        """The longest placeholder that fits the filter box, never one cut mid-word."""
        field = self.app.filter_input
        width = field.content_region.width
        fitting = (text for text in FILTER_PLACEHOLDERS if len(text) < width)
        field.placeholder = next(fitting, FILTER_PLACEHOLDERS[-1])

    def back(self) -> None:
        """Esc: out of the filter or the detail pane to the list; in the list, out of the
        results."""
        app = self.app
        focused = app.focused
        # The focus moves now, not on the next loop turn: the keys after Esc are the list's.
        if focused is app.filter_input:
            if app.filter_input.value:
                app.filter_input.value = ""
            app.screen.set_focus(app.abstract_list)
        elif focused is app.detail:
            app.screen.set_focus(app.abstract_list)
        elif self.query_text:
            # Leaving results the user moved around in keeps the abstract they are on
            # (Esc in the filter box instead goes back to where they were before it).
            self.clear(keep_current=True)

    def to_results(self) -> None:
        """Enter in the filter: to the first result, focused at once."""
        app = self.app
        app.screen.set_focus(app.abstract_list)
        app.abstract_list.cursor = 0

    def set_order(self, order: Order) -> None:
        self.order = order

    def toggle_order(self) -> None:
        self.order = "file" if self.order == "relevance" else "relevance"
        scope = "" if self.filtered else " (for filtered results; the full list is in file order)"
        self.app.notify(f"Order: {self.order}{scope}", timeout=3)
        self.rerun()
        self.app.view_changed()

    def clear(self, *, keep_current: bool) -> None:
        """Empty the filter; `keep_current` comes back to the abstract under the cursor."""
        app = self.app
        if keep_current and (current := app.abstract_list.current) is not None:
            self.saved_selection = current.id
        app.filter_input.value = ""
