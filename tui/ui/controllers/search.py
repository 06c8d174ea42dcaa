"""The filter: searching as the user types.

The filter's state is the session's (`session.filter`) and so is the index
(`session.loaders`, loaded or built after the first paint). Searching runs in an
exclusive thread worker; a result is applied only if the filter text and order still
match, so a stale result never paints over a newer one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.worker import get_current_worker

from tui.session.events import (
    DataOpened,
    InboxOpened,
    IndexReady,
    MarksChanged,
    SearchAgain,
    TopicsChanged,
)
from tui.session.filter import Order
from tui.session.loaders import PARTIAL_INDEX_SIZE, import_search_code

if TYPE_CHECKING:
    import threading

    from tui.caches import CacheBuild
    from tui.search.index import SearchIndex
    from tui.search.query import FieldClause
    from tui.search.spans import Spans
    from tui.session import Session
    from tui.ui.host import Host

__all__ = ["FILTER_PLACEHOLDERS", "PARTIAL_INDEX_SIZE", "Order", "SearchController"]

#: Up to this many abstracts a search runs on the UI's thread once the whole index is
#: ready: about 2 ms at 6,506 (bench/search.py), less than a worker's start and hand-over.
INLINE_SEARCH_MAX = 20_000

#: At most this long, what waits for a search typed at start-up to be answered (the
#: user's data and the inbox opening: `after_answer`) waits for it.
ANSWER_FIRST_SECONDS = 1.0

# The filter's placeholder, longest first: the longest that fits the box is shown.
FILTER_PLACEHOLDERS = (
    '/ filter: words, "phrase", -word, year:2023, is:bookmarked',
    '/ filter: words "phrase" -word year:2023 is:bookmarked',
    "/ filter: words -word year:2023 is:bookmarked",
    "/ filter: words -word year:2023",
    "/ filter",
)


class SearchController:
    """The filter box and the list's results: searching as the user types."""

    def __init__(self, session: Session, app: Host) -> None:
        self.session = session
        self.app = app
        self.state = session.filter
        bus = session.bus
        # What the list shows was answered from this index, for this filter and order,
        # and the search under way with the whole index: the index becoming ready need
        # not search again for either.
        self._answered: tuple[str, Order, SearchIndex] | None = None
        self._answering: tuple[str, Order, SearchIndex] | None = None
        # The search in a worker whose answer the user waits for (its number; 0: none),
        # the last number given, and what runs once it is shown (`after_answer`).
        self._awaited = 0
        self._searches = 0
        self._after_answer: list[Callable[[], object]] = []
        bus.subscribe(IndexReady, lambda _: self._index_ready())
        bus.subscribe(SearchAgain, lambda _: self.rerun())
        # Topics and the inbox change only the answers of filters that read them.
        bus.subscribe(TopicsChanged, lambda _: self._rerun_if_reading(_reads_topics))
        bus.subscribe(InboxOpened, lambda _: self._rerun_if_reading(_reads_inbox))
        # A search may have answered before the data opened: then without bookmarks,
        # read marks, tags or notes.
        bus.subscribe(DataOpened, lambda _: self._data_opened())
        bus.subscribe(MarksChanged, self._marks_changed)

    # The filter's state (the session's), under the names the UI has always used.

    @property
    def query_text(self) -> str:
        return self.state.query_text

    @query_text.setter
    def query_text(self, text: str) -> None:
        self.state.query_text = text

    @property
    def order(self) -> Order:
        return self.state.order

    @property
    def filtered(self) -> bool:
        return self.state.filtered

    @property
    def match_counts(self) -> tuple[int, int] | None:
        return self.state.match_counts

    @property
    def query_error(self) -> str | None:
        return self.state.query_error

    @property
    def spans(self) -> Spans | None:
        return self.state.spans

    @property
    def searched_partially(self) -> int | None:
        return self.state.searched_partially

    @property
    def waits_for_topics(self) -> bool:
        return self.state.waits_for_topics

    @property
    def saved_selection(self) -> str | None:
        return self.state.saved_selection

    @saved_selection.setter
    def saved_selection(self, abstract_id: str | None) -> None:
        self.state.saved_selection = abstract_id

    # The index (the session's loaders').

    @property
    def index(self) -> SearchIndex | None:
        return self.session.loaders.index

    @index.setter
    def index(self, index: SearchIndex | None) -> None:
        self.session.loaders.index = index

    @property
    def indexing(self) -> bool:
        return self.session.loaders.indexing

    @property
    def cache_build(self) -> CacheBuild | None:
        return self.session.loaders.cache_build

    @property
    def _index_lock(self) -> threading.Lock:
        return self.session.loaders.index_lock

    def warm_index(self) -> None:
        """After the first paint: the index, the similarity model, the topics (a worker)."""
        self.app.run_worker(self._warm_index, thread=True, exclusive=True, group="index")

    def _warm_index(self) -> None:
        self.session.loaders.warm()

    def ensure_index(self) -> SearchIndex | None:
        return self.session.loaders.ensure_index()

    def progress_text(self) -> str:
        """What a cache-building child is doing (`indexing: files 40 / 369…`), else ""."""
        return self.session.loaders.progress_text()

    def _marks_changed(self, event: MarksChanged) -> None:
        if event.rerun_filter:
            self.rerun()  # `is:read`, `tag:`… may answer otherwise now

    # -- searching -----------------------------------------------------------

    def filter_changed(self, value: str) -> None:
        """The filter text changed: show everything, or search in a worker."""
        state, loaders = self.state, self.session.loaders
        state.query_text = value
        if not value.strip():
            state.cleared()
            # Nothing answered any more (and no index held here after a reload).
            self._answered = self._answering = None
            self._answer_shown(self._awaited)  # nothing is awaited any more
            self._set_query_error(None)
            self._apply_rows(range(len(self.session.corpus)), None, keep=state.saved_selection)
            return
        self._start_search(value, state.order)
        if loaders.index is None:
            # The list still shows what it showed; the header says the filter waits.
            self.app.refresh_header()
            if loaders.indexing and loaders.partial is None:
                self._show_line(
                    Text(
                        f"Building the search index for {len(self.session.corpus):,} "
                        "abstracts; the filter runs as soon as it is ready.",
                        style="italic",
                    ),
                    error=False,
                )

    def after_answer(self, step: Callable[[], object]) -> None:
        """Run `step` once the answer to the search under way is on screen, or now when
        none is awaited or the filter reads the user's data (or at the latest after
        `ANSWER_FIRST_SECONDS`): at start-up the user's data and the inbox open after a
        search typed meanwhile is answered, not while it runs. The first answer then
        comes sooner; the marks on its rows come when the data opens, as they always did."""
        if not self._awaited or may_read_personal(self.state.query_text):
            step()
            return
        self._after_answer.append(step)
        if len(self._after_answer) == 1:
            self.app.set_timer(ANSWER_FIRST_SECONDS, self._run_after_answer)

    def _answer_shown(self, number: int) -> None:
        """The answer of search `number` was handed to the screen (or none is awaited):
        what waited for it runs once it is painted."""
        if number != self._awaited:
            return  # an older search's answer: the newer one is still awaited
        self._awaited = 0
        if self._after_answer:
            self.app.call_after_refresh(self._run_after_answer)

    def _run_after_answer(self) -> None:
        steps, self._after_answer = self._after_answer, []
        for step in steps:
            step()

    def rerun(self) -> None:
        """Run the current filter again (personal data changed, or the order did)."""
        if self.state.filtered:
            self._start_search(self.state.query_text, self.state.order)

    def _index_ready(self) -> None:
        """The whole index is ready: search again unless the list already shows its answer
        (a search that waited for it has answered meanwhile)."""
        state, index = self.state, self.session.loaders.index
        asked = (state.query_text, state.order, index)
        if index is None or asked not in (self._answered, self._answering):
            self.rerun()

    def _rerun_if_reading(self, reads: Callable[[FieldClause], bool]) -> None:
        """Search again if the filter has a field `reads` says depends on what changed."""
        from tui.search.query import QueryError, parse_query

        if not self.state.filtered:
            return
        try:
            fields = parse_query(self.state.query_text).fields
        except QueryError:
            return  # its error is shown; nothing to answer again
        if any(reads(f) for f in fields):
            self.rerun()

    def _data_opened(self) -> None:
        """A search typed before the data opened may have answered without it (no
        bookmarks, read marks, tags or notes): one that may read them runs again. (Not
        parsed here: the parser's imports may still be under way in a worker.)"""
        if self.state.filtered and may_read_personal(self.state.query_text):
            self.rerun()

    def _start_search(self, text: str, order: Order) -> None:
        """Search for `text`: here and now when the whole index is ready and the corpus
        small enough to answer in a few milliseconds (a thread would only add its
        start and the hand-over back), else in an exclusive thread worker."""
        loaders = self.session.loaders
        if (
            loaders.index is not None
            and loaders.partial is None
            and len(self.session.corpus) <= INLINE_SEARCH_MAX
        ):
            self._search(text, order, deliver=lambda show: show())
            self._answer_shown(self._awaited)
            return
        app = self.app
        self._searches += 1
        self._awaited = number = self._searches

        def shown(show: Callable[[], object]) -> None:
            show()
            self._answer_shown(number)

        def search() -> None:
            # A newer key cancels this worker (exclusive): it stops waiting for the index.
            worker = get_current_worker()
            self._search(
                text,
                order,
                deliver=lambda show: app.post(lambda: shown(show)),
                superseded=lambda: worker.is_cancelled,
                until_painted=True,
            )

        self.app.run_worker(search, thread=True, exclusive=True, group="search")

    def _search(
        self,
        text: str,
        order: Order,
        deliver: Callable[[Callable[[], object]], object],
        superseded: Callable[[], bool] = lambda: False,
        *,
        until_painted: bool = False,
    ) -> None:
        """Search, and hand what is to be shown to `deliver` (posted from a worker).
        Meanwhile the start-up's loading of the similarity model waits (`searching`);
        `until_painted`: until the answer handed over is painted, so that its frame does
        not take turns with that loading either."""
        loaders = self.session.loaders
        handed = False

        def hand_over(show: Callable[[], object]) -> None:
            nonlocal handed
            if not until_painted:
                deliver(show)
                return

            def then() -> None:
                try:
                    show()
                finally:
                    self.app.call_after_refresh(loaders.search_ended)

            handed = True
            deliver(then)

        loaders.search_begun()
        try:
            self._search_now(text, order, hand_over, superseded)
        finally:
            if not handed:
                loaders.search_ended()

    def _search_now(
        self,
        text: str,
        order: Order,
        deliver: Callable[[Callable[[], object]], object],
        superseded: Callable[[], bool],
    ) -> None:
        import_search_code()  # waits if the start-up's import of it is under way
        from tui.search.query import QueryError, parse_query

        session = self.session
        loaders = session.loaders
        try:
            query = parse_query(text)
        except QueryError as error:
            message = str(error)
            deliver(lambda: self._show_query_error(text, message))
            return
        topics = loaders.topic_numbers
        if (
            topics is None
            and loaders.topics_pending
            and any(f.name == "topic" for f in query.fields)
        ):
            deliver(lambda: self._wait_for_topics(text))
            return  # searched again once they are ready
        index, partial = loaders.index_for_search(superseded)
        if index is None:
            return
        if partial is None:
            self._answering = (text, order, index)
        corpus = session.corpus if partial is None else partial
        result = index.search(
            query, corpus, personal=session.user.userdata, order=order, topics=topics
        )
        spans = index.highlighter(query).spans
        counts = (result.matched, result.close)
        rows = list(result.indices)
        searched = None if partial is None else len(partial)
        whole = index if partial is None else None
        deliver(lambda: self.apply_search(text, order, rows, spans, counts, searched, whole))

    def apply_search(
        self,
        text: str,
        order: Order,
        rows: list[int],
        spans: Spans,
        counts: tuple[int, int],
        searched: int | None = None,
        index: SearchIndex | None = None,
    ) -> None:
        """Show a search's result, unless the filter or order has changed since it started:
        a slower, older search must never paint over a newer one. `searched`: how many
        abstracts were searched, when only the first ones were (a partial index);
        `index`: the whole index that answered."""
        state, loaders = self.state, self.session.loaders
        if text != state.query_text or order != state.order:
            return
        if searched is not None and (loaders.partial is None or loaders.index is not None):
            return  # the whole index is ready: its own answer is on its way
        self._answered = None if index is None else (text, order, index)
        app = self.app
        was_partial = state.searched_partially is not None
        state.searched_partially = searched
        state.waits_for_topics = False
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
        state.match_counts = counts
        matched, close = counts
        self._apply_rows(
            rows,
            spans,
            keep=current.id if current else None,
            divider=matched if close else None,
            searched=True,
        )

    def _wait_for_topics(self, text: str) -> None:
        """`topic:` before the topics are ready: say so rather than match nothing."""
        if text != self.state.query_text:
            return
        self.state.waits_for_topics = True
        self._set_query_error(None)
        self._show_line(
            Text(
                f"Computing topics for {len(self.session.corpus):,} abstracts; "
                "topic: filters as soon as they are ready.",
                style="italic",
            ),
            error=False,
        )
        self.app.refresh_header()

    def _show_query_error(self, text: str, message: str) -> None:
        if text == self.state.query_text:
            self._set_query_error(message)

    def _set_query_error(self, message: str | None) -> None:
        """A query that does not parse (often half-typed, like `year:`) is explained on a
        line under the filter, which turns red; the last good results stay. No toast: it
        would fire on every keystroke while a field is being typed."""
        self.state.query_error = message
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
        searched: bool = False,
    ) -> None:
        self.state.spans = spans
        self.app.show_results(rows, spans, keep=keep, divider=divider, searched=searched)

    # -- user actions --------------------------------------------------------

    def filter_focused(self) -> None:
        """The filter took the focus (`/`, a click, Tab): what is typed next is the user's."""
        self.state.user_filtered = True

    def focus_filter(self) -> None:
        app, state = self.app, self.state
        state.user_filtered = True
        if not state.filtered and (current := app.abstract_list.current):
            state.saved_selection = current.id
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
        elif self.state.query_text:
            # Leaving results the user moved around in keeps the abstract they are on
            # (Esc in the filter box instead goes back to where they were before it).
            self.clear(keep_current=True)

    def to_results(self) -> None:
        """Enter in the filter: to the first result, focused at once."""
        app = self.app
        app.screen.set_focus(app.abstract_list)
        app.abstract_list.cursor = 0

    def set_order(self, order: Order) -> None:
        self.state.order = order

    def toggle_order(self) -> None:
        state = self.state
        state.order = "file" if state.order == "relevance" else "relevance"
        scope = "" if state.filtered else " (for filtered results; the full list is in file order)"
        self.app.notify(f"Order: {state.order}{scope}", timeout=3)
        self.rerun()
        self.app.refresh_header()

    def clear(self, *, keep_current: bool) -> None:
        """Empty the filter; `keep_current` comes back to the abstract under the cursor."""
        app = self.app
        if keep_current and (current := app.abstract_list.current) is not None:
            self.state.saved_selection = current.id
        app.filter_input.value = ""


def _reads_topics(clause: FieldClause) -> bool:
    return clause.name == "topic"


#: The fields that read the user's data (`FieldSpec(..., personal=True)` in
#: tui/search/query.py; a test checks the two agree), found without the parser.
PERSONAL_FIELDS = ("is", "has", "note", "tag")
_PERSONAL_FIELD = re.compile(rf"(?i)(?<![A-Za-z])(?:{'|'.join(PERSONAL_FIELDS)}):")


def may_read_personal(text: str) -> bool:
    """Whether a filter may read the user's data (`is:read`, `-tag:x`…): a field name
    followed by a colon anywhere, quoted or not (a false "yes" costs only a wait)."""
    return _PERSONAL_FIELD.search(text) is not None


def _reads_inbox(clause: FieldClause) -> bool:
    """`new:DATE` and `is:new` read the inbox (what arrived since the last opening)."""
    return clause.name == "new" or (clause.name == "is" and clause.arg == "new")
