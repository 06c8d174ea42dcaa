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
    from tui.caches import CacheBuild
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
        loading.open_cache()
        build = self._start_build(loading)
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
        if not self._on_loop(self._finish):  # the whole corpus on screen first
            return
        from tui.search.blocks import release_memory

        if build is None:
            # The read cache, which the cache child reads through, is written before the
            # work that starts it.
            loading.save_cache()
            release_memory()  # the texts now read from the read cache
            self._on_loop(self._loaded)
            return
        # The child read the files too, and writes the read cache: the work goes on with
        # it, and the texts parsed here are read from its cache once it is saved.
        self._on_loop(self._loaded)
        if build.wait_for("read"):
            loading.adopt_saved_cache()
            release_memory()
        elif not app.closing:  # the child failed (or was stopped: the corpus is small)
            loading.save_cache()
            release_memory()

    def _start_build(self, loading: Loading) -> CacheBuild | None:
        """The cache child, started now when the files look like a large corpus (the first
        ones read times the files to read) and the read cache does not hold them: then no
        cache of theirs can be there, and the child reads them on the other core while
        this worker does, rather than after it (from the read cache it would wait for)."""
        from tui import caches

        if loading.read == 0 or not loading.uses_cache:
            return None
        guess = loading.count * len(loading.paths) / loading.read
        if guess < caches.SUBPROCESS_THRESHOLD or loading.rest_cached():
            return None
        return self.session.loaders.start_build(loading.cache_args)

    def _loaded(self) -> None:
        self.session.bus.emit(CorpusLoaded())

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
