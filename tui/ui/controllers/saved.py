"""Saved searches in the UI: `S` saves the filter under a name, `@` lists them with
their counts, Enter applies one; the palette lists each one too.

Counts are computed off the event loop, in an exclusive worker: for a large corpus
it hands the counting to a child process (`search/countproc.py`), as GIL-bound
counting in a thread would make every key press wait; a small one is counted in
the worker over an index of its own (sharing the filter's data, not its caches, so
one cache is never used from two threads). Each count run has a number; a result
is shown only if no newer run was asked for since (the data changed meanwhile), so
a stale count never paints over a newer one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import SystemCommand

from tui.sanitize import visible_line
from tui.session.events import MarksChanged, SearchAgain
from tui.ui.view import literal

if TYPE_CHECKING:
    from tui.search.countproc import CountProcess
    from tui.search.counts import SearchCounts
    from tui.search.filters import TopicNumbers
    from tui.search.index import SearchIndex
    from tui.session import Session
    from tui.store.records import SavedSearch
    from tui.store.userdata import UserData
    from tui.ui.host import Host
    from tui.ui.screens.saved import NameCheck, SavedSearchesScreen


class SavedSearchController:
    """Saving the filter, the saved-searches view and its counts, applying one."""

    def __init__(self, session: Session, app: Host) -> None:
        self.session = session
        self.app = app
        session.bus.subscribe(MarksChanged, lambda _: self.view_changed())
        self.screen: SavedSearchesScreen | None = None
        #: The number of the newest count run; older runs' results are dropped.
        self.generation = 0
        #: The counts last shown, by name key.
        self.counts: dict[str, SearchCounts] = {}
        self._counter: SearchIndex | None = None
        self._process: CountProcess | None = None

    # -- saving ----------------------------------------------------------------

    def save_current(self) -> None:
        """`S`: name the filter (query and order) and save it."""
        app, state = self.app, self.session.filter
        query, order = state.query_text, state.order
        if not query.strip():
            app.notify(
                "Nothing to save: the filter is empty. Type a search after /, then S saves it.",
                timeout=4,
            )
            return
        self.session.user.when_open(lambda data: self._ask_name(data, query, order))

    def _ask_name(self, data: UserData, query: str, order: str) -> None:
        from tui.ui.screens.saved import NameScreen

        about = Text.assemble(("Save the filter ", "dim"), visible_line(query))
        if order == "file":
            about.append("  (file order)", style="dim italic")
        self.app.push_screen(
            NameScreen(
                "Save search", about, lambda typed: self._check_new(data, typed, query, order)
            ),
            lambda name: self._save(data, name, query, order),
        )

    def _check_new(self, data: UserData, typed: str, query: str, order: str) -> NameCheck:
        from tui.store.names import NameProblem, normalise_name
        from tui.ui.screens.saved import NameCheck

        try:
            name = normalise_name(typed)
        except NameProblem as problem:
            return NameCheck(None, f"⚠ {problem}")
        existing = data.saved_search(name)
        if existing is not None and (existing.query, existing.sort) != (query, order):
            shown = visible_line(existing.name)
            return NameCheck(
                name,
                f"“{shown}” exists ({visible_line(existing.query)}). "
                "Enter again replaces it; Esc cancels.",
                confirm=True,
            )
        return NameCheck(name)

    def _save(self, data: UserData, name: str | None, query: str, order: str) -> None:
        if name is None:
            return
        saved = data.save_search(name, query, order)
        shown = visible_line(saved.name)
        self.app.notify(f"Saved “{shown}” (@ lists saved searches).", timeout=4, markup=False)
        self.view_changed()

    # -- the view --------------------------------------------------------------

    def show(self) -> None:
        """`@`: the saved-searches view."""
        self.session.user.when_open(self._show)

    def _show(self, data: UserData) -> None:
        from tui.ui.screens.saved import SavedSearchesScreen

        screen = SavedSearchesScreen(
            data.saved_searches(), on_rename=self._ask_rename, on_delete=self._ask_delete
        )
        self.screen = screen
        self.app.push_screen(screen, self._closed)
        self.recount()

    def _closed(self, name: str | None) -> None:
        self.screen = None
        self.generation += 1  # a count still running is of no use now
        if name is not None:
            self.apply(name)

    def view_changed(self) -> None:
        """Bookmarks, read marks, tags or the searches changed: count again, if shown."""
        if self.screen is not None:
            self.recount()

    def recount(self) -> None:
        """List the searches now and count them in a worker; the counts shown meanwhile
        are dimmed as out of date."""
        data, screen = self.session.user.userdata, self.screen
        if data is None or screen is None:
            return
        self.generation += 1
        generation, searches = self.generation, data.saved_searches()
        screen.show(searches, self.counts, counting=bool(searches))
        if searches:
            self.app.run_worker(
                lambda: self._count(generation, searches, data),
                thread=True,
                exclusive=True,
                group="saved-counts",
            )

    def _count(self, generation: int, searches: list[SavedSearch], data: UserData) -> None:
        from tui.search.counts import count_searches, needs_the_corpus
        from tui.store.names import name_key

        app, loaders = self.app, self.session.loaders
        index = loaders.ensure_index()
        if index is None or generation != self.generation:
            return
        queries = [s.query for s in searches]
        topics, pending = loaders.topic_numbers, loaders.topics_pending
        # The child holds only the index: what reads the corpus or the inbox is counted here.
        here = [needs_the_corpus(q) for q in queries]
        elsewhere = [q for q, local in zip(queries, here, strict=True) if not local]
        counted = self._count_elsewhere(elsewhere, data, topics, pending) if elsewhere else []
        if counted is None:
            counted, here = [], [True] * len(queries)
        local_queries = [q for q, local in zip(queries, here, strict=True) if local]
        local_counts: list[SearchCounts] | None = []
        if local_queries:
            if self._counter is None or self._counter.data is not index.data:
                from tui.search.index import SearchIndex

                self._counter = SearchIndex(index.data)
            local_counts = count_searches(
                self._counter,
                local_queries,
                data,
                stop=lambda: generation != self.generation or app.closing,
                topics=topics,
                topics_pending=pending,
                corpus=self.session.corpus,
            )
        if local_counts is None:
            return
        from_child, from_here = iter(counted), iter(local_counts)
        counts = [next(from_here) if local else next(from_child) for local in here]
        found = {name_key(s.name): c for s, c in zip(searches, counts, strict=True)}
        app.post(lambda: self._show_counts(generation, searches, found))

    def _count_elsewhere(
        self,
        queries: list[str],
        data: UserData,
        topics: TopicNumbers | None,
        topics_pending: bool,
    ) -> list[SearchCounts] | None:
        """Counts from the child process (large corpora), or None: count here instead."""
        from tui import caches, locations
        from tui.search import cache as search_cache
        from tui.search.countproc import CountProcess

        session = self.session
        if len(session.corpus) < caches.SUBPROCESS_THRESHOLD or session.closing:
            return None
        if self._process is None:
            path, head = search_cache.locate(session.corpus, locations.cache_dir(session.data_dir))
            if not path.is_file():
                return None
            try:
                self._process = CountProcess(path, head)
            except OSError:
                return None
        counts = self._process.count(queries, data, topics, topics_pending)
        if counts is None:
            self._process.close()
        return counts

    def stop(self) -> None:
        """Quitting: end the counting child (it would end on its own with the app)."""
        if self._process is not None:
            self._process.close()

    def _show_counts(
        self, generation: int, searches: list[SavedSearch], counts: dict[str, SearchCounts]
    ) -> None:
        if generation != self.generation or self.screen is None:
            return  # the data changed (or the view closed) since this run started
        self.counts = counts
        self.screen.show(searches, counts, counting=False)

    # -- rename and delete -------------------------------------------------------

    def _ask_rename(self, old: str) -> None:
        from tui.ui.screens.saved import NameScreen

        data = self.session.user.userdata
        search = data.saved_search(old) if data is not None else None
        if data is None or search is None:
            return
        about = Text.assemble(("Rename ", "dim"), visible_line(search.name), ("  ", ""))
        about.append(visible_line(search.query), style="dim")
        self.app.push_screen(
            NameScreen("Rename saved search", about, self._check_rename(data, old), old),
            lambda new: self._rename(data, old, new),
        )

    def _check_rename(self, data: UserData, old: str) -> Callable[[str], NameCheck]:
        from tui.store.names import NameProblem, name_key, normalise_name
        from tui.ui.screens.saved import NameCheck

        def check(typed: str) -> NameCheck:
            try:
                name = normalise_name(typed)
            except NameProblem as problem:
                return NameCheck(None, f"⚠ {problem}")
            if name_key(name) != name_key(old) and data.saved_search(name) is not None:
                return NameCheck(None, f"⚠ there is already a saved search named “{name}”")
            return NameCheck(name)

        return check

    def _rename(self, data: UserData, old: str, new: str | None) -> None:
        from tui.store.names import NameProblem

        if new is None or new == old:
            return
        try:
            data.rename_search(old, new)
        except (NameProblem, KeyError) as problem:
            self.app.notify(visible_line(str(problem)), severity="warning", markup=False)
        self.view_changed()

    def _ask_delete(self, name: str) -> None:
        from tui.ui.screens.saved import ConfirmScreen

        data = self.session.user.userdata
        search = data.saved_search(name) if data is not None else None
        if data is None or search is None:
            return
        question = Text.assemble(
            "Delete the saved search “",
            (visible_line(search.name), "bold"),
            "”?\n",
            (visible_line(search.query), "dim"),
        )
        self.app.push_screen(
            ConfirmScreen("Delete saved search", question),
            lambda yes: self._delete(data, name, bool(yes)),
        )

    def _delete(self, data: UserData, name: str, yes: bool) -> None:
        if yes and data.delete_search(name):
            self.app.notify(f"Deleted the saved search “{visible_line(name)}”.", markup=False)
            self.view_changed()

    # -- applying ----------------------------------------------------------------

    def apply(self, name: str) -> None:
        """Set the filter and order to a saved search's (the list shows its results)."""
        from tui.store.names import sort_of

        app, state = self.app, self.session.filter
        data = self.session.user.userdata
        search = data.saved_search(name) if data is not None else None
        if search is None:
            app.notify(f"No saved search named “{visible_line(name)}”.", markup=False)
            return
        if not state.filtered and (current := app.abstract_list.current) is not None:
            state.saved_selection = current.id  # Esc comes back here
        state.order = "file" if sort_of(search.sort) == "file" else "relevance"
        if app.filter_input.value == search.query:
            # Same text: no Changed event, but the order may differ.
            self.session.bus.emit(SearchAgain())
        else:
            app.filter_input.value = search.query
        app.abstract_list.focus()

    def commands(self) -> Iterable[SystemCommand]:
        """The palette: the view, saving, and each saved search by name."""
        yield SystemCommand("Saved searches", "Every saved search with its counts (@)", self.show)
        yield SystemCommand("Save search", "Save the filter under a name (S)", self.save_current)
        data = self.session.user.userdata
        for search in data.saved_searches() if data is not None else ():
            name = search.name
            yield SystemCommand(
                f"Saved search: {literal(name)}",
                literal(search.query),
                lambda name=name: self.apply(name),
            )
