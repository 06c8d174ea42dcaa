"""Fetching new papers from the app (`f`), and the inbox `is:new` reads.

At start, a worker opens the library's arrivals index, records this opening and hands
the inbox to search (`tui.search.inbox`), so `is:new` selects what arrived since the
previous opening. `f` runs `abstracts fetch` in a thread worker (network and disk
only; the interface stays free), with a progress line above the footer; Esc cancels
(the sleep between requests ends at once, a request under way within its timeout).
The papers fetched go to the library; they are read the next time it is opened.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from tui.session.events import InboxOpened

if TYPE_CHECKING:
    from tui.inbox.fetch import Progress
    from tui.inbox.run import Outcome
    from tui.search.inbox import Inbox
    from tui.session import Session
    from tui.ui.host import Host
    from tui.ui.widgets.fetch_panel import FetchPanel


class FetchController:
    """The inbox at start, and one fetch at a time with its progress line."""

    def __init__(self, session: Session, app: Host) -> None:
        self.session = session
        self.app = app
        self.panel: FetchPanel | None = None
        self._cancel: threading.Event | None = None
        #: How many papers arrived since the previous opening (the header shows it).
        self.new_count = 0

    @property
    def running(self) -> bool:
        return self._cancel is not None

    # -- the inbox -------------------------------------------------------------

    def open_inbox(self) -> None:
        """After the first paint: read the arrivals, note this opening (a worker: disk)."""
        self.app.run_worker(self._open_inbox, thread=True, exclusive=True, group="inbox")

    def _open_inbox(self) -> None:
        from tui.inbox.library import open_inbox

        session = self.session
        inbox = open_inbox(session.data_dir, session.corpus, opened=datetime.now(UTC))
        self.app.post(lambda: self._inbox_ready(inbox))

    def _inbox_ready(self, inbox: Inbox) -> None:
        from tui.search.inbox import use_inbox

        use_inbox(inbox)
        self.new_count = len(inbox.new_ids())
        # A filter typed meanwhile (`is:new`) is answered again; the header counts them.
        self.session.bus.emit(InboxOpened(self.new_count))

    def new_ids(self) -> set[str]:
        """The papers new since the previous opening (for the feed to rank first)."""
        from tui.search.inbox import current_inbox

        inbox = current_inbox()
        return inbox.new_ids() if inbox is not None else set()

    # -- f: fetch ----------------------------------------------------------------

    def start(self) -> None:
        """Fetch every followed source, unless a fetch is already running."""
        from tui.ui.widgets.fetch_panel import FetchPanel

        app = self.app
        if self._cancel is not None:
            app.notify("A fetch is already running (Esc cancels it).", timeout=3)
            return
        self._cancel = cancel = threading.Event()
        self.panel = FetchPanel(id="fetch-panel")
        app.screen_stack[0].mount(self.panel)
        app.run_worker(lambda: self._fetch(cancel), thread=True, exclusive=True, group="fetch")

    def cancel(self) -> bool:
        """Esc: cancel a running fetch; False when none is running."""
        if self._cancel is None or self._cancel.is_set():
            return False
        self._cancel.set()
        if self.panel is not None:
            self.panel.show_progress("Cancelling…", 0.0)
        return True

    def _fetch(self, cancel: threading.Event) -> None:
        """In a worker thread: the fetch, its progress and its outcome handed to the loop."""
        from tui import locations
        from tui.inbox.client import SystemClock
        from tui.inbox.run import fetch_followed

        app = self.app

        def progress(p: Progress) -> None:
            app.post(lambda: self._progress(p))

        outcome = fetch_followed(
            self.session.data_dir,
            locations.config_dir(),
            SystemClock(cancelled=cancel.wait),
            progress=progress,
            cancelled=cancel.is_set,
        )
        app.post(lambda: self._done(outcome))

    def _progress(self, progress: Progress) -> None:
        if self.panel is not None and not (self._cancel is not None and self._cancel.is_set()):
            label = (
                f"Fetching {progress.source.text} ({progress.number}/{progress.sources}): "
                f"page {progress.pages}, {progress.papers:,} papers read"
            )
            self.panel.show_progress(label, progress.fraction)

    def _done(self, outcome: Outcome) -> None:
        self._cancel = None
        if self.panel is not None:
            self.panel.remove()
            self.panel = None
        self.app.notify(summary(outcome), timeout=8, markup=False)


def summary(outcome: Outcome) -> str:
    """One notification for a fetch: what came in, what failed, or why it stopped."""
    parts = []
    if outcome.results:
        stored = outcome.stored
        parts.append(
            f"{stored:,} new paper{'s' * (stored != 1)} stored in the library"
            + ("; open abstracts again to read them (is:new)." if stored else ".")
        )
    parts.extend(f"{r.source.text}: {r.error}." for r in outcome.failed)
    if outcome.problem is not None:
        parts.append(f"Fetch stopped: {outcome.problem}.")
    return " ".join(parts)
