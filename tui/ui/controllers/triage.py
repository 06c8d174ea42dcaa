"""Triage: next unread, undo and redo, "more like this", overview, resume.

The logic lives in the pure core (tui.triage, tui.similar); this controller wires
it to the list, the user's data and screens. Core modules are imported where first
used: none is needed for the first paint.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from tui import locations
from tui.triage.navigation import next_unread
from tui.ui.clock import TimerHandle

if TYPE_CHECKING:
    from tui.corpus.model import Abstract
    from tui.similar.model import SimilarityModel
    from tui.store.userdata import UserData
    from tui.triage.overview import CountRow
    from tui.triage.undo import Action, UndoStack
    from tui.ui.app import AbstractsApp

RESUME_SAVE_SECONDS = 2.0


#: From this many abstracts marked read by `A`, its toast is a warning and stays longer.
MANY_MARKED = 100


class TriageController:
    """Getting through hundreds of abstracts in one sitting, and coming back to them."""

    def __init__(self, app: AbstractsApp) -> None:
        self.app = app
        self.undo_stack: UndoStack | None = None
        self.similarity: SimilarityModel | None = None
        self.similarity_lock = threading.Lock()
        self._resume_timer: TimerHandle | None = None
        # Where the user left off, restored once the user's data is open.
        self.resume_selection: str | None = None
        self.resume_scroll = 0
        self.resume_detail: tuple[str, int] | None = None

    # -- undoable changes ----------------------------------------------------

    def start_undo(self, userdata: UserData) -> None:
        """Once the user's data is open, changes to it can be undone (this session only)."""
        from tui.triage.undo import CorpusTarget, UndoStack

        self.undo_stack = UndoStack(target=CorpusTarget(userdata, self.app.corpus))

    def perform(self, action: Action) -> bool:
        """Apply an undoable change through the store and refresh what shows it (the keys
        that get here before the data opens wait for it: `PersonalController.when_open`)."""
        if self.undo_stack is None:
            return False
        changed = self.undo_stack.do(action)
        if changed:
            self.app.view_changed()
        return changed

    def record(self, action: Action) -> None:
        """Make a change already written (a note editor's session) one undo step."""
        if self.undo_stack is not None and getattr(action, "changed", True):
            self.undo_stack.record(action)

    def undo(self) -> None:
        from tui.triage.undo import undo_notice

        if self.undo_stack is not None:
            self._step(self.undo_stack.undo, undo_notice, "Nothing to undo.")

    def redo(self) -> None:
        from tui.triage.undo import redo_notice

        if self.undo_stack is not None:
            self._step(self.undo_stack.redo, redo_notice, "Nothing to redo.")

    def _step(
        self, step: Callable[[], Action | None], notice: Callable[[Action], str], empty: str
    ) -> None:
        app = self.app
        action = step()
        if action is None:
            app.notify(empty, timeout=2)
            return
        app.notify(notice(action), timeout=3)
        app.view_changed()
        app.search.rerun()

    def set_bookmarks(self, ids: Iterable[str], on: bool) -> None:
        from tui.triage.undo import SetBookmarks

        data = self.app.personal.userdata
        if data is not None:
            self.perform(SetBookmarks.capture(ids, on, data.is_bookmarked))

    def set_read(self, ids: Iterable[str], on: bool) -> bool:
        from tui.triage.undo import SetRead

        data = self.app.personal.userdata
        return data is not None and self.perform(SetRead.capture(ids, on, data.is_read))

    # -- reading flow --------------------------------------------------------

    def space(self) -> None:
        """Page the detail pane; at its end (or from the list) mark read and go to the next unread."""
        app = self.app
        if app.focused is app.detail and not app.detail.at_bottom:
            app.detail.scroll_page_down(animate=False)
            return
        self.read_and_next()

    def read_and_next(self) -> None:
        app = self.app
        data = app.personal.userdata
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

    def mark_all_read(self) -> None:
        """`A`: the list as shown when pressed, even while the data is still opening."""
        app = self.app
        ids = [app.corpus.abstracts[i].id for i in app.abstract_list.rows]
        if not ids:
            app.notify("The list is empty: nothing to mark.", timeout=3)
            return
        app.personal.when_open(lambda data: self._mark_read(ids, data))

    def _mark_read(self, ids: list[str], data: UserData) -> None:
        from tui.triage.undo import SetRead

        app = self.app
        action = SetRead.capture(ids, True, data.is_read)
        if self.perform(action):
            count = len(action.changed)
            # Many at once from one key: said plainly, with the way back.
            app.notify(
                f"Marked {count:,} abstract{'s' * (count != 1)} of the list as read. "
                "Press u to undo them all in one step.",
                title="Mark list read",
                severity="warning" if count >= MANY_MARKED else "information",
                timeout=8 if count >= MANY_MARKED else 4,
            )
        else:
            app.notify("Everything in this list is already read.", timeout=3)

    # -- similarity ----------------------------------------------------------

    def ensure_similarity(self) -> SimilarityModel | None:
        """The similarity model, loaded from the cache or built (call off the UI thread);
        None once the app is closing. Waits for the start-up work first (the files read,
        the child's build), never building a second model in the app."""
        app = self.app
        if not app.search.wait_for_start():
            return None
        with self.similarity_lock:
            if self.similarity is None and not app.closing:
                from tui.similar.cache import load_or_build

                self.similarity = load_or_build(app.corpus, locations.cache_dir(app.data_dir))
            return self.similarity

    def near_duplicates(self, index: int) -> list[tuple[Abstract, float]]:
        """Near-duplicates of an abstract, once the model is ready (never waits for it)."""
        if self.similarity is None:
            return []
        abstracts = self.app.corpus.abstracts
        return [(abstracts[j], score) for j, score in self.similarity.near_duplicates(index)]

    def warm_similarity(self) -> None:
        self.app.run_worker(self._warm_similarity, thread=True, exclusive=True, group="similar")

    def _warm_similarity(self) -> None:
        if self.ensure_similarity() is not None:
            self.app.deliver(self.app.view_changed)
            self.app.deliver(self.app.topics.warm)

    def more_like_this(self) -> None:
        if (current := self.app.abstract_list.current) is not None:
            self._say_if_building()
            self._rank_similar("More like this", current.headline, seeds=[current.index])

    def _still_on(self, seeds: list[int]) -> bool:
        """A "more like this" result belongs to the abstract it was asked for."""
        current = self.app.abstract_list.current
        return len(seeds) != 1 or (current is not None and current.index == seeds[0])

    def _say_if_building(self) -> None:
        if self.similarity is None:
            self.app.notify(
                "Building the similarity model; the list opens when it is ready.", timeout=4
            )

    def more_like_bookmarks(self) -> None:
        app = self.app
        data = app.personal.userdata
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

    def _rank_similar(self, title: str, subtitle: str, seeds: list[int]) -> None:
        self.app.run_worker(
            lambda: self._ranked(title, subtitle, seeds),
            thread=True,
            exclusive=True,
            group="similar-query",
        )

    def _ranked(self, title: str, subtitle: str, seeds: list[int]) -> None:
        # Imported here: numpy and the model are not needed for the first paint.
        from tui.similar import taste

        app = self.app
        model = self.ensure_similarity()
        if model is None:
            return
        rows = []
        if len(seeds) == 1:
            for j, score in model.similar(seeds[0], k=10):
                # Why it is here: the words it shares with the seed.
                rows.append((app.corpus.abstracts[j], score, model.shared_terms(seeds[0], j)))
        else:
            data = app.personal.userdata
            read = data.read_ids() if data is not None else set()
            dismissed = data.dismissed_ids() if data is not None else set()
            unread = [a.index for a in app.corpus.abstracts if a.id not in read]
            # Dismissed abstracts ("not interested") and what is like them sink.
            unlikes = [a.index for a in app.corpus.abstracts if a.id in dismissed]
            for pick in taste.rank(model, seeds, unlikes, unread, k=20):
                rows.append((app.corpus.abstracts[pick.index], pick.score, list(pick.shared)))
        app.deliver(self._show_similar, title, subtitle, rows, seeds)

    def _show_similar(
        self,
        title: str,
        subtitle: str,
        rows: list[tuple[Abstract, float, list[str]]],
        seeds: list[int],
    ) -> None:
        from tui.ui.screens.similar import SimilarScreen

        app = self.app
        if len(app.screen_stack) > 1 or not self._still_on(seeds):
            # Ready late (the model was building) while the user is elsewhere: never pop
            # up over another screen and take the keys typed there.
            app.notify(f"{title}: ready; press the key again to see it.", timeout=4)
            return
        app.push_screen(
            SimilarScreen(title, subtitle, rows, app.personal.marks()), app.personal.jump_to
        )

    # -- overview ------------------------------------------------------------

    def overview(self) -> None:
        self.app.run_worker(self._overview, thread=True, exclusive=True, group="overview")

    def _overview(self) -> None:
        from tui.triage.overview import collection_rows, distinctive_terms, file_rows

        app = self.app
        model = self.ensure_similarity()
        if model is None:
            return
        data = app.personal.userdata
        read = data.read_ids() if data is not None else set()
        marked = data.bookmarked_ids() if data is not None else set()
        collections = collection_rows(app.corpus, read, marked)
        files = file_rows(app.corpus, read, marked)
        terms = distinctive_terms(app.corpus, model.terms)
        app.deliver(self._show_overview, collections, files, terms)

    def _show_overview(
        self, collections: list[CountRow], files: list[CountRow], terms: dict[str, list[str]]
    ) -> None:
        from tui.ui.screens.overview import OverviewScreen

        self.app.push_screen(OverviewScreen(collections, files, terms), self._filter_by_term)

    def _filter_by_term(self, term: str | None) -> None:
        if term:
            app = self.app
            app.filter_input.value = term
            app.abstract_list.focus()

    # -- resume --------------------------------------------------------------

    @property
    def _resume_key(self) -> str:
        return f"resume:{self.app.corpus.fingerprint}"

    def schedule_resume_save(self) -> None:
        if self._resume_timer is not None:
            self._resume_timer.stop()
        self._resume_timer = self.app.clock.set_timer(
            self.app, RESUME_SAVE_SECONDS, self.save_resume
        )

    def save_resume(self) -> None:
        """Remember where the user is in this corpus: selection, filter, order and scroll."""
        app = self.app
        data = app.personal.userdata
        if data is None:
            return
        current = app.abstract_list.current
        state = {
            "selected": current.id if current else None,
            "filter": self._filter_text(),
            "order": app.search.order,
            "scroll": int(app.abstract_list.scroll_y),
            "detail_scroll": int(app.detail.scroll_y),
        }
        data.set_state(self._resume_key, json.dumps(state))

    def _filter_text(self) -> str:
        """The filter as the user typed it. The input holds it; the search's copy can lag
        a key behind (the input's Changed message is still on its way when `q` quits)."""
        from textual.css.query import NoMatches
        from textual.widgets import Input

        try:
            return self.app.screen_stack[0].query_one("#filter", Input).value
        except (NoMatches, IndexError):
            return self.app.search.query_text

    def restore_resume(self) -> None:
        app = self.app
        data = app.personal.userdata
        raw = data.get_state(self._resume_key) if data is not None else None
        if not raw:
            return
        try:
            state = json.loads(raw)
        except ValueError:
            return
        if app.personal.settings.default_sort is None:  # else config.toml's order stands
            app.search.set_order("file" if state.get("order") == "file" else "relevance")
        self.resume_selection = state.get("selected")
        self.resume_scroll = int(state.get("scroll") or 0)
        if self.resume_selection and state.get("detail_scroll"):
            self.resume_detail = (self.resume_selection, int(state["detail_scroll"]))
        if not (state.get("filter") and app.search.restore_filter(state["filter"])):
            self.apply_resume_selection()

    def apply_resume_selection(self) -> None:
        """Once the restored filter has produced its rows, put the cursor back where it was."""
        if self.resume_selection is None:
            return
        app = self.app
        selected, self.resume_selection = self.resume_selection, None
        if app.abstract_list.select_abstract(selected):
            app.abstract_list.scroll_to(y=self.resume_scroll, animate=False, immediate=True)
            app.abstract_list.refresh()

    def commands(self) -> Iterable[SystemCommand]:
        app = self.app
        yield SystemCommand(
            "Next unread", "Mark read and go to the next unread (Space)", self.read_and_next
        )
        yield SystemCommand(
            "Mark list read",
            "Mark every abstract in the list as read (A)",
            app.action_mark_all_read,
        )
        yield SystemCommand(
            "Undo", "Undo the last bookmark, read or note change (u)", app.action_undo
        )
        yield SystemCommand("Redo", "Redo what was undone (Ctrl+R)", app.action_redo)
        yield SystemCommand(
            "More like this",
            "Abstracts similar to the selected one (m)",
            app.action_more_like_this,
        )
        yield SystemCommand(
            "More like my bookmarks",
            "Unread abstracts like the bookmarked ones (M)",
            app.action_more_like_bookmarks,
        )
        yield SystemCommand(
            "Overview", "Collections and files: read and bookmarked (O)", app.action_overview
        )
