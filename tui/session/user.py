"""The user's data as the session holds it: open or not yet, the undo history, and the
changes asked for before it opened.

Every change goes one road: an undoable `Action` (tui.triage.undo) through `perform`,
applied to the in-memory `UserData` (whose writer thread commits it), recorded for
undo, then announced as `MarksChanged` with the ids it touched, so each view redraws
those rows alone. `version` counts the changes: a view that kept a count or a ranking
knows whether it is still current.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from tui.session.events import DataOpened, KeyQueued, MarksChanged, StoreReported
from tui.triage.marks import RowMarks

if TYPE_CHECKING:
    from tui.corpus.model import Abstract, Corpus
    from tui.session.bus import Bus
    from tui.store.attach import AttachReport
    from tui.store.userdata import UserData
    from tui.triage.undo import Action, UndoStack

Step = Callable[["UserData"], object]


def touched(action: Action) -> frozenset[str] | None:
    """The abstract ids an action changes (None when it cannot say)."""
    changed = getattr(action, "changed", None)
    if changed is None:
        return None
    return frozenset(item if isinstance(item, str) else item[0] for item in changed)


class UserState:
    """The user's data (None until it opens), its undo history and the queued changes."""

    def __init__(self, corpus: Corpus, bus: Bus) -> None:
        self._corpus = corpus
        self._bus = bus
        self.userdata: UserData | None = None
        self.undo_stack: UndoStack | None = None
        self._queued: list[Step] = []
        #: Counts every change announced: a view compares it with the one it drew.
        self.version = 0
        #: Shown in the header while the store cannot save ("" when it can).
        self.saving_problem = ""

    @property
    def is_open(self) -> bool:
        return self.userdata is not None

    def opened(self, userdata: UserData, report: AttachReport) -> None:
        """The data opened (on the UI's thread): changes can be undone from now on, the
        store's reports are events, the changes asked for meanwhile run in order."""
        bus = self._bus
        userdata.listener = lambda event: bus.emit(StoreReported(event))
        replayed = self._take(userdata)
        self._bus.emit(DataOpened(report, replayed))

    @property
    def queued(self) -> int:
        """How many changes wait for the data to open."""
        return len(self._queued)

    def take_at_quit(self, userdata: UserData) -> int:
        """The app quits before its data opened, with changes asked for: they are applied
        to `userdata`, opened for them, so that closing it saves them. Edited abstracts
        are not re-attached (the corpus may not be read whole yet) and nothing is
        announced to the screens. Returns how many changes were applied."""
        return self._take(userdata)

    def _take(self, userdata: UserData) -> int:
        from tui.triage.undo import CorpusTarget, UndoStack

        self.userdata = userdata
        self.undo_stack = UndoStack(target=CorpusTarget(userdata, self._corpus))
        queued, self._queued = self._queued, []
        for step in queued:
            step(userdata)
        return len(queued)

    def when_open(self, step: Step) -> bool:
        """Run `step` on the user's data now (True), or, while it is still opening, queue
        it to run when it opens (False): a key pressed in the first second is applied,
        never refused, and acts on the state found then."""
        if self.userdata is not None:
            step(self.userdata)
            return True
        self._queued.append(step)
        self._bus.emit(KeyQueued(len(self._queued)))
        return False

    # -- changes -------------------------------------------------------------

    def perform(self, action: Action) -> bool:
        """Apply an undoable change and announce the abstracts it touched; False when it
        changed nothing (or the data is not open: callers queue with `when_open`)."""
        if self.undo_stack is None or not self.undo_stack.do(action):
            return False
        self.changed(touched(action))
        return True

    def record(self, action: Action) -> None:
        """Make a change already written (a note editor's session) one undo step."""
        if self.undo_stack is not None and getattr(action, "changed", True):
            self.undo_stack.record(action)

    def undo(self) -> Action | None:
        """Revert the last change (None: nothing to undo); the filter is searched again."""
        return self._step(self.undo_stack.undo if self.undo_stack is not None else None)

    def redo(self) -> Action | None:
        """Apply the last undone change again (None: nothing to redo)."""
        return self._step(self.undo_stack.redo if self.undo_stack is not None else None)

    def _step(self, step: Callable[[], Action | None] | None) -> Action | None:
        action = step() if step is not None else None
        if action is not None:
            self.changed(touched(action), rerun_filter=True)
        return action

    def changed(self, ids: Iterable[str] | None = None, *, rerun_filter: bool = False) -> None:
        """Announce a change of these abstracts' personal state (None: any of them)."""
        self.version += 1
        self._bus.emit(
            MarksChanged(frozenset(ids) if ids is not None else None, rerun_filter=rerun_filter)
        )

    def set_bookmarks(self, ids: Iterable[str], on: bool) -> bool:
        from tui.triage.undo import SetBookmarks

        data = self.userdata
        return data is not None and self.perform(SetBookmarks.capture(ids, on, data.is_bookmarked))

    def set_read(self, ids: Iterable[str], on: bool) -> bool:
        from tui.triage.undo import SetRead

        data = self.userdata
        return data is not None and self.perform(SetRead.capture(ids, on, data.is_read))

    def set_dismissed(self, ids: Iterable[str], on: bool) -> bool:
        from tui.triage.undo import SetDismissed

        data = self.userdata
        return data is not None and self.perform(SetDismissed.capture(ids, on, data.is_dismissed))

    # -- what the views show -------------------------------------------------

    def marks(self) -> RowMarks | None:
        """What the lists mark (None until the data is open): the data's own sets, not
        copies, so taking them after a change costs nothing whatever the corpus's size."""
        data = self.userdata
        if data is None:
            return None
        return RowMarks(
            bookmarked=data.bookmarked_ids(),
            noted=data.noted_ids(),
            read=data.read_ids(),
            tags=data.tags_by_id(),
            dismissed=data.dismissed_ids(),
        )

    def view_of(self, abstract: Abstract) -> tuple[bool, bool, str | None]:
        """(bookmarked, read, note) of an abstract for the detail pane."""
        data = self.userdata
        if data is None:
            return False, False, None
        return data.is_bookmarked(abstract.id), data.is_read(abstract.id), data.note(abstract.id)
