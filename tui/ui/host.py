"""The app as its controllers see it: Textual's `App`, the main screen's widgets, and
the few calls that cross controllers, which the app routes.

Controllers are built with the `Session` (the shared state) and a `Host`; they never
import the app (`tui.ui.app`) or each other, so the import graph has no circle, and a
controller is tested with any `Host` (tests/ui use the real app).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from textual.app import App
from textual.message import Message
from textual.widgets import Input, Static

from tui.ui.clock import Clock
from tui.ui.widgets.abstract_list import AbstractList
from tui.ui.widgets.detail import DetailPane

if TYPE_CHECKING:
    from textual.widget import Widget

    from tui.search.spans import Spans
    from tui.session import Session


class Posted(Message):
    """A callback from another thread, to run on the event loop (`Host.post`)."""

    def __init__(self, callback: Callable[[], object]) -> None:
        super().__init__()
        self.callback = callback


class Host(App[int]):
    """The app's side of a controller: the widgets it shows and its timers' clock."""

    clock: Clock
    session: Session
    #: Set by an unhandled exception: the exit status says so.
    crashed: bool

    @property
    @abstractmethod
    def abstract_list(self) -> AbstractList: ...

    @property
    @abstractmethod
    def detail(self) -> DetailPane: ...

    @property
    @abstractmethod
    def filter_input(self) -> Input: ...

    @property
    @abstractmethod
    def query_error_line(self) -> Static: ...

    @property
    @abstractmethod
    def closing(self) -> bool:
        """True once quitting has begun or the app is going away: a late result from a
        worker must not touch the widgets."""

    def action_command(self, name: str) -> Callable[[], Awaitable[object]]:
        """A palette entry's callback that runs the app's action `name`, as its key does."""
        return partial(self.run_action, name)

    def post(self, callback: Callable[[], object]) -> None:
        """From a worker's thread: run `callback` on the event loop, later, unless the
        app is closing then. Never waits (a thread holding a lock must not wait for the
        loop); a result that must be seen before the worker goes on uses Textual's
        `call_from_thread`."""
        if not self.closing:
            self.post_message(Posted(callback))

    def on_posted(self, message: Posted) -> None:
        if not self.closing:
            message.callback()

    @abstractmethod
    def jump_to(self, abstract_id: str | None) -> None:
        """Select an abstract in the main list (clearing a filter that hides it); an
        orphaned note's id opens the note."""

    @abstractmethod
    def show_results(
        self,
        rows: Sequence[int],
        spans: Spans | None,
        *,
        keep: str | None,
        divider: int | None = None,
        searched: bool = False,
    ) -> None:
        """The list shows `rows` (a search's answer when `searched`, else the whole
        corpus), highlighted by `spans`, the cursor kept on abstract `keep`; the detail
        pane and the header follow."""

    @abstractmethod
    def refresh_header(self) -> None:
        """The header alone (a progress report): the list and detail pane are as they were."""

    @abstractmethod
    def takes_no_text(self, widget: Widget) -> bool:
        """Whether a key on `widget` can only mean its binding (the list, the detail pane)."""

    @abstractmethod
    def stop_background(self) -> None:
        """Quitting: stop the background builds, build nothing more."""
