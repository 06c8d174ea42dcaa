"""The filter: searching as the user types, and the caches search needs.

A mixin of AbstractsApp (its @on handlers stay in app.py and call in here).
Searching runs in an exclusive thread worker; a result is applied only if the
filter text and order still match, so a stale result never paints over a newer one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from rich.text import Text
from textual import work
from textual.widgets import Static

from tui import locations
from tui.ui.widgets.abstract_list import Spans

if TYPE_CHECKING:
    from tui.search.index import SearchIndex


class FilterMixin:
    """Filter box, search worker, index and similarity caches."""

    @work(thread=True, exclusive=True, group="index")
    def _warm_index(self) -> None:
        """Load the search index and similarity model, building large ones in a child process.

        Both locks are held while the child builds, so a search typed or an `m`
        pressed meanwhile waits for its result instead of starting a second build
        in this process (whose GIL-bound work would make every key press lag).
        """
        app: Any = self
        from tui import caches
        from tui.search import cache as search_cache
        from tui.similar import cache as similar_cache

        cache_dir = locations.cache_dir(app.data_dir)
        if len(app.corpus) >= caches.SUBPROCESS_THRESHOLD:
            with app._similarity_lock:
                with app._index_lock:
                    app.index = search_cache.load(app.corpus, cache_dir)
                    app.similarity = similar_cache.load(app.corpus, cache_dir)
                    build = None
                    if app.index is None or app.similarity is None:
                        build = app._cache_build = caches.CacheBuild(app.corpus, cache_dir)
                        app.indexing = True
                        app.call_from_thread(app.refresh_header)
                        if build.wait_for("index"):
                            app.index = search_cache.load(app.corpus, cache_dir)
                        app.indexing = False
                # Searching works from here on; similarity may still be building.
                app.call_from_thread(app.refresh_header)
                if build is not None and build.wait_for("similar"):
                    app.similarity = similar_cache.load(app.corpus, cache_dir)
        # Either may still be None (small corpus, or the child failed): built in a thread.
        if app._ensure_index() is None:
            return  # quitting
        app.call_from_thread(app.refresh_header)
        app.call_from_thread(app.warm_similarity)

    def _ensure_index(self) -> SearchIndex | None:
        """The index, loaded or built here; None once the app is quitting (never build then:
        the interpreter would wait for the build before it could exit)."""
        app: Any = self
        with app._index_lock:
            if app.index is None and not app.quitting:
                from tui.search.cache import load_or_build

                app.index = load_or_build(app.corpus, locations.cache_dir(app.data_dir))
            index: SearchIndex | None = app.index
            return index

    def filter_changed(self, value: str) -> None:
        """The filter text changed: show everything, or search in a worker."""
        app: Any = self
        app.query_text = value
        if not value.strip():
            app._set_query_error(None)
            app.match_counts = None
            app._apply_rows(list(range(len(app.corpus))), None, keep=app._saved_selection)
            return
        app._search(value, app.order)
        if app.index is None:
            # The list still shows what it showed; the header says the filter waits.
            app.refresh_header()
        if app.index is None and app.indexing:
            line = app.query_one("#query-error", Static)
            line.update(
                Text(
                    f"Building the search index for {len(app.corpus):,} abstracts; "
                    "the filter runs as soon as it is ready.",
                    style="italic",
                )
            )
            line.display = True

    @work(thread=True, exclusive=True, group="search")
    def _search(self, text: str, order: Literal["relevance", "file"]) -> None:
        app: Any = self
        from tui.search.query import QueryError, parse_query

        try:
            query = parse_query(text)
        except QueryError as error:
            app.call_from_thread(app._show_query_error, text, str(error))
            return
        index = app._ensure_index()
        if index is None:
            return
        result = index.search(query, app.corpus, personal=app.personal_data, order=order)
        highlighter = index.highlighter(query)
        app.call_from_thread(
            app._apply_search,
            text,
            order,
            list(result.indices),
            highlighter.spans,
            (result.matched, result.close),
        )

    def _apply_search(
        self, text: str, order: str, rows: list[int], spans: Spans, counts: tuple[int, int]
    ) -> None:
        # A slower, older search must never paint over a newer one.
        app: Any = self
        if text != app.query_text or order != app.order:
            return
        app._set_query_error(None)
        current = app.abstract_list.current
        app.abstract_list.empty_text = (
            f"No abstract shares a word with “{text.strip()}”. Esc clears the filter."
        )
        app.match_counts = counts
        matched, close = counts
        app._apply_rows(
            rows, spans, keep=current.id if current else None, divider=matched if close else None
        )
        app.apply_resume_selection()

    def _show_query_error(self, text: str, message: str) -> None:
        app: Any = self
        if text == app.query_text:
            app._set_query_error(message)

    def _set_query_error(self, message: str | None) -> None:
        """A query that does not parse (often half-typed, like `year:`) is explained on a
        line under the filter, which turns red; the last good results stay. No toast: it
        would fire on every keystroke while a field is being typed."""
        app: Any = self
        app.query_error = message
        app.filter_input.set_class(message is not None, "-error")
        app.filter_input.tooltip = message
        line = app.query_one("#query-error", Static)
        line.set_class(message is not None, "-error")
        line.update(Text("⚠ " + message) if message else "")
        line.display = message is not None

    def _apply_rows(
        self,
        rows: Sequence[int],
        spans: Spans | None,
        keep: str | None,
        divider: int | None = None,
    ) -> None:
        app: Any = self
        app._spans = spans
        app.abstract_list.set_highlighter(spans)
        app.abstract_list.set_rows(rows, keep=keep, divider=divider)
        app.refresh_header()

    def apply_resume_selection(self) -> None:
        """Once the restored filter has produced its rows, put the cursor back where it was."""
        app: Any = self
        if app.resume_selection is None:
            return
        selected, app.resume_selection = app.resume_selection, None
        if app.abstract_list.select_abstract(selected):
            app.abstract_list.scroll_to(y=app.resume_scroll, animate=False, immediate=True)
            app.abstract_list.refresh()

    def rerun_filter(self) -> None:
        """Run the current filter again (personal data changed, or the order did)."""
        app: Any = self
        if app.query_text.strip():
            app._search(app.query_text, app.order)

    # -- actions -------------------------------------------------------------

    def action_focus_filter(self) -> None:
        app: Any = self
        if not app.query_text.strip() and (current := app.abstract_list.current):
            app._saved_selection = current.id
        # Focus now, not on the next loop turn as Widget.focus would.
        app.screen.set_focus(app.filter_input)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        app: Any = self
        if action == "focus_filter":
            # The priority `/` stands aside where it is text: in the filter itself, and on
            # every other screen (the note editor, the help).
            return len(app.screen_stack) == 1 and app.focused is not app.filter_input
        if action == "to_results":
            # The priority Enter only means "to the results" in the filter box.
            return len(app.screen_stack) == 1 and app.focused is app.filter_input
        return True

    def action_to_results(self) -> None:
        """Enter in the filter: to the first result, focused at once."""
        app: Any = self
        app.screen.set_focus(app.abstract_list)
        app.abstract_list.cursor = 0

    def action_toggle_order(self) -> None:
        app: Any = self
        app.order = "file" if app.order == "relevance" else "relevance"
        scope = (
            ""
            if app.query_text.strip()
            else " (for filtered results; the full list is in file order)"
        )
        app.notify(f"Order: {app.order}{scope}", timeout=3)
        app.rerun_filter()
        app.refresh_header()
