"""The session's events, from any thread to the observers on the UI's thread."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from tui.session.events import SessionEvent

E = TypeVar("E", bound=SessionEvent)
Handoff = Callable[[SessionEvent], None]


class Bus:
    """Observers by event type. An event emitted on the owner thread (the UI's) reaches
    them at once, in the order they subscribed; one emitted on another thread goes
    through `handoff`, which the UI sets to post it to its own thread (then `dispatch`).
    Without a handoff (a test, a command) every event is dispatched where it is emitted."""

    def __init__(self) -> None:
        self._observers: list[tuple[type[SessionEvent], Callable[[SessionEvent], object]]] = []
        self._handoff: Handoff | None = None
        self._owner = threading.get_ident()
        #: Every event dispatched, when a test asks for it (`record`).
        self.recorded: list[SessionEvent] | None = None

    def subscribe(self, kind: type[E], handler: Callable[[E], object]) -> None:
        """Call `handler` with every event of type `kind` (or a subclass)."""
        self._observers.append((kind, handler))  # type: ignore[arg-type]

    def attach(self, handoff: Handoff) -> None:
        """Events emitted on other threads than this one go through `handoff`."""
        self._handoff = handoff
        self._owner = threading.get_ident()

    def detach(self) -> None:
        """From now on events from other threads are dropped (the UI is gone)."""
        self._handoff = lambda _event: None

    def record(self) -> list[SessionEvent]:
        """Keep every dispatched event in a list (for tests)."""
        self.recorded = []
        return self.recorded

    def emit(self, event: SessionEvent) -> None:
        """Announce `event`: to the observers now on the owner thread, else handed off."""
        if self._handoff is not None and threading.get_ident() != self._owner:
            self._handoff(event)
        else:
            self.dispatch(event)

    def dispatch(self, event: SessionEvent) -> None:
        """Call each observer of `event`'s type (on the owner thread)."""
        if self.recorded is not None:
            self.recorded.append(event)
        for kind, handler in list(self._observers):
            if isinstance(event, kind):
                handler(event)
