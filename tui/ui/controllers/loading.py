"""The files read after the first paint: a large corpus is shown as it is read.

The command line reads the first files (enough for a screenful) and opens the app on
them; this controller reads the rest in a thread worker and hands what it has read to
the event loop every `PUBLISH_SECONDS`: the corpus grows in place, the unfiltered list
grows at its end (the cursor and scroll stay), and the header counts up. Everything
that needs the whole corpus (the search index, the user's data, the inbox) starts once
the last file is read (`CorpusLoaded`: the app starts the background work).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui.session.events import CorpusGrew, CorpusLoaded
from tui.session.loaders import import_search_code

if TYPE_CHECKING:
    from tui.corpus.load import Loading
    from tui.session import Session
    from tui.ui.host import Host

#: How often what has been read is handed to the screen.
PUBLISH_SECONDS = 0.2


class LoadingController:
    """The files still to read after the first paint (none when all were read first)."""

    def __init__(self, session: Session, app: Host, loading: Loading | None) -> None:
        self.session = session
        self.app = app
        self._loading = loading if loading is not None and not loading.finished else None
        # The arguments of the read cache the files were read through (None: none was),
        # for the cache-building child to read them the same way.
        loaders = session.loaders
        loaders.read_args = (
            loading.cache_args if loading is not None and loading.uses_cache else None
        )
        loaders.reading = self._loading is not None

    @property
    def active(self) -> bool:
        """True while files are still being read."""
        return self._loading is not None

    def progress_text(self) -> str:
        """`reading files 40 / 369…` while files are still being read, else ""."""
        loading = self._loading
        if loading is None:
            return ""
        return f"reading files {loading.read:,} / {len(loading.paths):,}…"

    def start(self) -> None:
        """After the first paint: read the rest in a worker (and import the search's code
        meanwhile in another)."""
        self.app.run_worker(self._read_rest, thread=True, exclusive=True, group="loading")
        self.app.run_worker(import_search_code, thread=True, group="imports")

    def _read_rest(self) -> None:
        app, loading = self.app, self._loading
        assert loading is not None
        # As many abstracts again per file as the first files held, to judge the corpus.
        self.session.loaders.start_early(loading.count * len(loading.paths) // max(loading.read, 1))
        loading.open_cache()
        handed = time.monotonic()
        while not loading.finished:
            if app.closing:
                return
            loading.read_next()
            if time.monotonic() - handed >= PUBLISH_SECONDS:
                # Waits for the loop: the corpus only ever changes on the loop's thread.
                if not self._on_loop(self._publish):
                    return
                handed = time.monotonic()
        # The whole corpus on screen first; then the read cache, which the cache child
        # reads through, is written before the work that starts it.
        if self._on_loop(self._finish):
            # The child that builds the caches starts while the cache it reads is written.
            self.session.loaders.prestart()
            loading.save_cache()
            from tui.search.blocks import release_memory

            release_memory()  # the texts now read from the read cache
            self._on_loop(lambda: self.session.bus.emit(CorpusLoaded()))

    def _on_loop(self, step: Callable[[], object]) -> bool:
        """Run `step` on the event loop and wait for it; False when the app is closing."""
        app = self.app

        def run() -> bool:
            if app.closing:
                return False
            step()
            return True

        if app.closing:
            return False
        try:
            return app.call_from_thread(run)
        except RuntimeError:  # the app ended before its loop could take it
            return False

    def _publish(self) -> None:
        loading = self._loading
        if loading is not None:
            loading.publish(self.session.corpus)
            self.session.bus.emit(CorpusGrew())

    def _finish(self) -> None:
        loading = self._loading
        if loading is None:
            return
        loading.finish(self.session.corpus, save_cache=False)
        self._loading = None
        self.session.loaders.reading = False
        self.session.bus.emit(CorpusGrew(finished=True))
