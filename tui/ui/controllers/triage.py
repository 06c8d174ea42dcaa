"""Triage: next unread, undo and redo, "more like this", overview, resume.

The logic lives in the pure core (tui.triage, tui.similar); this controller wires
it to the list, the user's data and screens. Core modules are imported where first
used: none is needed for the first paint.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.css.query import NoMatches

from tui.session.events import DataOpened
from tui.triage.navigation import next_unread
from tui.ui.clock import Deadline

if TYPE_CHECKING:
    from tui.corpus.model import Abstract
    from tui.session import Session
    from tui.similar.model import SimilarityModel
    from tui.store.userdata import UserData
    from tui.triage.overview import CountRow
    from tui.triage.undo import Action
    from tui.ui.host import Host

RESUME_SAVE_SECONDS = 2.0


#: From this many abstracts marked read by `A`, its toast is a warning and stays longer.
MANY_MARKED = 100


class TriageController:
    """Getting through hundreds of abstracts in one sitting, and coming back to them."""

    def __init__(self, session: Session, app: Host) -> None:
        self.session = session
        self.app = app
        # The resume save: one deadline moved on by each cursor move.
        self._resume_deadline: Deadline | None = None
        # Where the user left off, restored once the user's data is open.
        self.resume_selection: str | None = None
        self.resume_scroll = 0
        self.resume_detail: tuple[str, int] | None = None
        session.bus.subscribe(DataOpened, lambda _: self.restore_resume())

    @property
    def similarity(self) -> SimilarityModel | None:
        """The similarity model once loaded (the session's)."""
        return self.session.loaders.similarity

    # -- undoable changes ----------------------------------------------------

    def perform(self, action: Action) -> bool:
        """Apply an undoable change through the session (which announces it)."""
        return self.session.user.perform(action)

    def undo(self) -> None:
        from tui.triage.undo import undo_notice

        self._step(self.session.user.undo, undo_notice, "Nothing to undo.")

    def redo(self) -> None:
        from tui.triage.undo import redo_notice

        self._step(self.session.user.redo, redo_notice, "Nothing to redo.")

    def _step(
        self, step: Callable[[], Action | None], notice: Callable[[Action], str], empty: str
    ) -> None:
        if not self.session.user.is_open:
            return
        action = step()  # announced by the session, the filter searched again
        self.app.notify(
            notice(action) if action is not None else empty, timeout=2 if action is None else 3
        )

    def set_bookmarks(self, ids: Iterable[str], on: bool) -> None:
        self.session.user.set_bookmarks(ids, on)

    def set_read(self, ids: Iterable[str], on: bool) -> bool:
        return self.session.user.set_read(ids, on)

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
        data = self.session.user.userdata
        current = app.abstract_list.current
        if data is None or current is None:
            return
        self.set_read([current.id], True)
        rows = app.abstract_list.rows
        abstracts = self.session.corpus.abstracts
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
        abstracts = self.session.corpus.abstracts
        ids = [abstracts[i].id for i in app.abstract_list.rows]
        if not ids:
            app.notify("The list is empty: nothing to mark.", timeout=3)
            return
        self.session.user.when_open(lambda data: self._mark_read(ids, data))

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
        """The similarity model (call off the UI thread; see `Loaders.ensure_similarity`)."""
        return self.session.loaders.ensure_similarity()

    def near_duplicates(self, index: int) -> list[tuple[Abstract, float]]:
        """Near-duplicates of an abstract, once the model is ready (never waits for it)."""
        return self.session.loaders.near_duplicates(index)

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
        data = self.session.user.userdata
        if data is None:
            return
        marked = data.bookmarked_ids()
        seeds = [a.index for a in self.session.corpus.abstracts if a.id in marked]
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

        model = self.ensure_similarity()
        if model is None:
            return
        abstracts = self.session.corpus.abstracts
        rows = []
        if len(seeds) == 1:
            for j, score in model.similar(seeds[0], k=10):
                # Why it is here: the words it shares with the seed.
                rows.append((abstracts[j], score, model.shared_terms(seeds[0], j)))
        else:
            data = self.session.user.userdata
            read = data.read_ids() if data is not None else set()
            dismissed = data.dismissed_ids() if data is not None else set()
            unread = [a.index for a in abstracts if a.id not in read]
            # Dismissed abstracts ("not interested") and what is like them sink.
            unlikes = [a.index for a in abstracts if a.id in dismissed]
            for pick in taste.rank(model, seeds, unlikes, unread, k=20):
                rows.append((abstracts[pick.index], pick.score, list(pick.shared)))
        self.app.post(lambda: self._show_similar(title, subtitle, rows, seeds))

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
            SimilarScreen(title, subtitle, rows, self.session.user.marks()), app.jump_to
        )

    # -- overview ------------------------------------------------------------

    def overview(self) -> None:
        self.app.run_worker(self._overview, thread=True, exclusive=True, group="overview")

    def _overview(self) -> None:
        from tui.triage.overview import collection_rows, distinctive_terms, file_rows

        corpus = self.session.corpus
        model = self.ensure_similarity()
        if model is None:
            return
        data = self.session.user.userdata
        read = data.read_ids() if data is not None else set()
        marked = data.bookmarked_ids() if data is not None else set()
        collections = collection_rows(corpus, read, marked)
        files = file_rows(corpus, read, marked)
        terms = distinctive_terms(corpus, model.terms)
        self.app.post(lambda: self._show_overview(collections, files, terms))

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
        return f"resume:{self.session.corpus.fingerprint}"

    def schedule_resume_save(self) -> None:
        if self._resume_deadline is None:
            self._resume_deadline = Deadline(self.app.clock, self.app, RESUME_SAVE_SECONDS)
        self._resume_deadline.restart(self.save_resume)

    def save_resume(self) -> None:
        """Remember where the user is in this corpus: selection, filter, order and scroll."""
        app = self.app
        data = self.session.user.userdata
        if data is None:
            return
        try:
            listing, detail = app.abstract_list, app.detail
        except NoMatches:
            # The app is closing and its widgets are gone: a timer set before can still
            # fire. The quit saved where the user was before they went.
            return
        current = listing.current
        state = {
            "selected": current.id if current else None,
            "filter": self._filter_text(),
            "order": self.session.filter.order,
            "scroll": int(listing.scroll_y),
            "detail_scroll": int(detail.scroll_y),
        }
        data.set_state(self._resume_key, json.dumps(state))

    def _filter_text(self) -> str:
        """The filter as the user typed it. The input holds it; the search's copy can lag
        a key behind (the input's Changed message is still on its way when `q` quits)."""
        from textual.widgets import Input

        try:
            return self.app.screen_stack[0].query_one("#filter", Input).value
        except (NoMatches, IndexError):
            return self.session.filter.query_text

    def restore_resume(self) -> None:
        session = self.session
        data = session.user.userdata
        raw = data.get_state(self._resume_key) if data is not None else None
        if not raw:
            return
        try:
            state = json.loads(raw)
        except ValueError:
            return
        if session.settings.default_sort is None:  # else config.toml's order stands
            session.filter.order = "file" if state.get("order") == "file" else "relevance"
        self.resume_selection = state.get("selected")
        self.resume_scroll = int(state.get("scroll") or 0)
        if self.resume_selection and state.get("detail_scroll"):
            self.resume_detail = (self.resume_selection, int(state["detail_scroll"]))
        if not (state.get("filter") and self._restore_filter(state["filter"])):
            self.apply_resume_selection()

    def _restore_filter(self, text: str) -> bool:
        """The filter from last time, shown unless the user has gone to the filter
        already, whose typing then wins (it is never mixed into the restored text)."""
        if self.session.filter.user_filtered:
            return False
        self.app.filter_input.value = text
        return True

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
        yield SystemCommand(
            "Next unread", "Mark read and go to the next unread (Space)", self.read_and_next
        )
        yield SystemCommand(
            "Mark list read", "Mark every abstract in the list as read (A)", self.mark_all_read
        )
        yield SystemCommand("Undo", "Undo the last bookmark, read or note change (u)", self.undo)
        yield SystemCommand("Redo", "Redo what was undone (Ctrl+R)", self.redo)
        yield SystemCommand(
            "More like this", "Abstracts similar to the selected one (m)", self.more_like_this
        )
        yield SystemCommand(
            "More like my bookmarks",
            "Unread abstracts like the bookmarked ones (M)",
            self.more_like_bookmarks,
        )
        yield SystemCommand(
            "Overview", "Collections and files: read and bookmarked (O)", self.overview
        )
