"""Triage: next unread, undo and redo, "more like this", overview, resume.

A mixin of AbstractsApp. The logic lives in the pure core (tui.triage,
tui.similar); this module wires it to keys, screens and the user's data.
Core modules are imported where first used: none is needed for the first paint.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.timer import Timer

from tui import locations
from tui.triage.navigation import next_unread

if TYPE_CHECKING:
    from tui.similar.model import SimilarityModel
    from tui.triage.undo import Action, UndoStack

RESUME_SAVE_SECONDS = 2.0


class TriageMixin:
    """Keys and screens for getting through hundreds of abstracts in one sitting."""

    TRIAGE_BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "space", "Next unread"),
        Binding("u", "undo", "Undo", show=False),
        Binding("ctrl+r", "redo", "Redo", show=False),
        Binding("A", "mark_all_read", "Mark list read", show=False),
        Binding("m", "more_like_this", "Similar"),
        Binding("M", "more_like_bookmarks", "More like ★", show=False),
        Binding("O", "overview", "Overview", show=False),
    ]

    undo_stack: UndoStack | None
    similarity: SimilarityModel | None
    _similarity_lock: threading.Lock
    _resume_timer: Timer | None

    def init_triage(self) -> None:
        self.undo_stack = None
        self.similarity = None
        self._similarity_lock = threading.Lock()
        self._resume_timer = None

    # -- undoable changes ----------------------------------------------------

    def start_undo(self) -> None:
        """Once the user's data is open, changes to it can be undone (this session only)."""
        from tui.triage.undo import CorpusTarget, UndoStack

        app: Any = self
        self.undo_stack = UndoStack(target=CorpusTarget(app.userdata, app.corpus))

    def perform(self, action: Action) -> bool:
        """Apply an undoable change through the store and refresh what shows it."""
        app: Any = self
        if self.undo_stack is None:
            app.notify("Your data is still opening; try again in a moment.", timeout=3)
            return False
        changed = self.undo_stack.do(action)
        if changed:
            app.personal_changed()
        return changed

    def action_undo(self) -> None:
        from tui.triage.undo import undo_notice

        if self.undo_stack is not None:
            self._step(self.undo_stack.undo, undo_notice, "Nothing to undo.")

    def action_redo(self) -> None:
        from tui.triage.undo import redo_notice

        if self.undo_stack is not None:
            self._step(self.undo_stack.redo, redo_notice, "Nothing to redo.")

    def _step(self, step: Any, notice: Any, empty: str) -> None:
        app: Any = self
        action = step()
        if action is None:
            app.notify(empty, timeout=2)
            return
        app.notify(notice(action), timeout=3)
        app.personal_changed()
        app.rerun_filter()

    def toggle_bookmark(self, ids: Iterable[str], on: bool) -> None:
        from tui.triage.undo import SetBookmarks

        app: Any = self
        self.perform(SetBookmarks.capture(ids, on, app.userdata.is_bookmarked))

    def set_read(self, ids: Iterable[str], on: bool) -> bool:
        from tui.triage.undo import SetRead

        app: Any = self
        return self.perform(SetRead.capture(ids, on, app.userdata.is_read))

    # -- reading flow --------------------------------------------------------

    def action_space(self) -> None:
        """Page the detail pane; at its end (or from the list) mark read and go to the next unread."""
        app: Any = self
        if app.focused is app.detail and not app.detail.at_bottom:
            app.detail.scroll_page_down(animate=False)
            return
        self.read_and_next()

    def read_and_next(self) -> None:
        app: Any = self
        data = app.userdata
        current = app.abstract_list.current
        if data is None or current is None:
            return
        self.set_read([current.id], True)
        rows = app.abstract_list.rows
        abstracts = app.corpus.abstracts
        read = data.read_ids()

        def is_read(i: int) -> bool:
            return abstracts[i].id in read

        position = next_unread(rows, app.abstract_list.cursor, is_read)
        if position is None:
            # Nothing unread below: say so, and say whether anything is left above.
            earlier = next_unread(rows, None, is_read)
            if earlier is None:
                app.notify("Everything in this list is read.", title="End of list", timeout=4)
            else:
                left = sum(1 for i in rows if not is_read(i))
                app.notify(
                    f"No unread abstracts below; {left:,} unread above (g goes to the top).",
                    title="End of list",
                    timeout=5,
                )
            return
        app.abstract_list.cursor = position

    def action_mark_all_read(self) -> None:
        from tui.triage.undo import SetRead

        app: Any = self
        if app.userdata is None:
            return
        ids = [app.corpus.abstracts[i].id for i in app.abstract_list.rows]
        if not ids:
            app.notify("The list is empty: nothing to mark.", timeout=3)
            return
        action = SetRead.capture(ids, True, app.userdata.is_read)
        if self.perform(action):
            app.notify(f"Marked {len(action.changed):,} as read. u undoes.", timeout=4)
        else:
            app.notify("Everything in this list is already read.", timeout=3)

    # -- similarity ----------------------------------------------------------

    def ensure_similarity(self) -> SimilarityModel | None:
        """The similarity model, loaded from the cache or built (call off the UI thread);
        None once the app is quitting."""
        app: Any = self
        with self._similarity_lock:
            if self.similarity is None and not app.quitting:
                from tui.similar.cache import load_or_build

                self.similarity = load_or_build(app.corpus, locations.cache_dir(app.data_dir))
            return self.similarity

    def near_duplicates(self, index: int) -> list[tuple[Any, float]]:
        """Near-duplicates of an abstract, once the model is ready (never waits for it)."""
        if self.similarity is None:
            return []
        app: Any = self
        return [
            (app.corpus.abstracts[j], score) for j, score in self.similarity.near_duplicates(index)
        ]

    @work(thread=True, exclusive=True, group="similar")
    def warm_similarity(self) -> None:
        app: Any = self
        if self.ensure_similarity() is not None:
            app.call_from_thread(app._show_current)

    def action_more_like_this(self) -> None:
        app: Any = self
        if (current := app.abstract_list.current) is not None:
            self._say_if_building()
            self._rank_similar("More like this", current.headline, seeds=[current.index])

    def _still_on(self, seeds: list[int]) -> bool:
        """A "more like this" result belongs to the abstract it was asked for."""
        app: Any = self
        current = app.abstract_list.current
        return len(seeds) != 1 or (current is not None and current.index == seeds[0])

    def _say_if_building(self) -> None:
        if self.similarity is None:
            app: Any = self
            app.notify("Building the similarity model; the list opens when it is ready.", timeout=4)

    def action_more_like_bookmarks(self) -> None:
        app: Any = self
        data = app.userdata
        if data is None:
            return
        marked = data.bookmarked_ids()
        seeds = [a.index for a in app.corpus.abstracts if a.id in marked]
        if not seeds:
            app.notify(
                "Bookmark a few abstracts (b) first; then M finds more like them.", timeout=5
            )
            return
        self._say_if_building()
        self._rank_similar(
            "More like my bookmarks", f"{len(seeds)} bookmarked, unread only", seeds=seeds
        )

    @work(thread=True, exclusive=True, group="similar-query")
    def _rank_similar(self, title: str, subtitle: str, seeds: list[int]) -> None:
        app: Any = self
        model = self.ensure_similarity()
        if model is None:
            return
        if len(seeds) == 1:
            ranked = model.similar(seeds[0], k=10)
        else:
            read = app.userdata.read_ids() if app.userdata is not None else set()
            unread = [a.index for a in app.corpus.abstracts if a.id not in read]
            ranked = model.like(seeds, unread, k=20)
        per_seed = {s: model.scores(s) for s in seeds}
        rows = []
        for j, score in ranked:
            # Why it is here: the words it shares with the seed it is closest to.
            closest = max(seeds, key=lambda s: float(per_seed[s][j]))
            rows.append((app.corpus.abstracts[j], score, model.shared_terms(closest, j)))
        app.call_from_thread(self._show_similar, title, subtitle, rows, seeds)

    def _show_similar(
        self,
        title: str,
        subtitle: str,
        rows: list[tuple[Any, float, list[str]]],
        seeds: list[int],
    ) -> None:
        from tui.ui.screens.similar import SimilarScreen

        app: Any = self
        if len(app.screen_stack) > 1 or not self._still_on(seeds):
            # Ready late (the model was building) while the user is elsewhere: never pop
            # up over another screen and take the keys typed there.
            app.notify(f"{title}: ready; press the key again to see it.", timeout=4)
            return
        app.push_screen(SimilarScreen(title, subtitle, rows), app.jump_to)

    # -- overview ------------------------------------------------------------

    def action_overview(self) -> None:
        self._open_overview()

    @work(thread=True, exclusive=True, group="overview")
    def _open_overview(self) -> None:
        from tui.triage.overview import collection_rows, distinctive_terms, file_rows

        app: Any = self
        model = self.ensure_similarity()
        if model is None:
            return
        data = app.userdata
        read = data.read_ids() if data is not None else set()
        marked = data.bookmarked_ids() if data is not None else set()
        collections = collection_rows(app.corpus, read, marked)
        files = file_rows(app.corpus, read, marked)
        terms = distinctive_terms(app.corpus, model.terms)
        app.call_from_thread(self._show_overview, collections, files, terms)

    def _show_overview(self, collections: Any, files: Any, terms: Any) -> None:
        from tui.ui.screens.overview import OverviewScreen

        app: Any = self
        app.push_screen(OverviewScreen(collections, files, terms), self._filter_by_term)

    def _filter_by_term(self, term: str | None) -> None:
        if term:
            app: Any = self
            app.filter_input.value = term
            app.abstract_list.focus()

    # -- resume --------------------------------------------------------------

    @property
    def _resume_key(self) -> str:
        app: Any = self
        return f"resume:{app.corpus.fingerprint}"

    def schedule_resume_save(self) -> None:
        app: Any = self
        if self._resume_timer is not None:
            self._resume_timer.stop()
        self._resume_timer = app.set_timer(RESUME_SAVE_SECONDS, self.save_resume)

    def save_resume(self) -> None:
        """Remember where the user is in this corpus: selection, filter, order and scroll."""
        app: Any = self
        if app.userdata is None:
            return
        current = app.abstract_list.current
        state = {
            "selected": current.id if current else None,
            "filter": app.query_text,
            "order": app.order,
            "scroll": int(app.abstract_list.scroll_y),
            "detail_scroll": int(app.detail.scroll_y),
        }
        import json

        app.userdata.set_state(self._resume_key, json.dumps(state))

    def restore_resume(self) -> None:
        app: Any = self
        raw = app.userdata.get_state(self._resume_key) if app.userdata is not None else None
        if not raw:
            return
        import json

        try:
            state = json.loads(raw)
        except ValueError:
            return
        app.order = (
            state.get("order") if state.get("order") in ("relevance", "file") else "relevance"
        )
        app.resume_selection = state.get("selected")
        app.resume_scroll = int(state.get("scroll") or 0)
        if app.resume_selection and state.get("detail_scroll"):
            app.resume_detail = (app.resume_selection, int(state["detail_scroll"]))
        if state.get("filter"):
            app.filter_input.value = state["filter"]
        else:
            app.apply_resume_selection()

    def triage_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Next unread", "Mark read and go to the next unread (Space)", self.read_and_next
        )
        yield SystemCommand(
            "Mark list read",
            "Mark every abstract in the list as read (A)",
            self.action_mark_all_read,
        )
        yield SystemCommand("Undo", "Undo the last bookmark or read change (u)", self.action_undo)
        yield SystemCommand("Redo", "Redo what was undone (Ctrl+R)", self.action_redo)
        yield SystemCommand(
            "More like this",
            "Abstracts similar to the selected one (m)",
            self.action_more_like_this,
        )
        yield SystemCommand(
            "More like my bookmarks",
            "Unread abstracts like the bookmarked ones (M)",
            self.action_more_like_bookmarks,
        )
        yield SystemCommand(
            "Overview", "Collections and files: read and bookmarked (O)", self.action_overview
        )
