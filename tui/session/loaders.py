"""The search index, the similarity model and the topics: loaded from their caches or
built (large corpora in the cache-building child process), off the UI's thread.

`warm` runs in one worker after the first paint (and the last file read): the index,
then the model, then the topics, each announced when ready (`IndexReady`,
`SimilarityReady`, `TopicsChanged`) and their progress as `StatusChanged`. A search or
an `m` asked for meanwhile waits for them (`index_for_search`, `ensure_similarity`)
instead of building a second copy in the app, whose GIL-bound work would make every
key lag. While a lock is held here nothing waits for the UI's thread: events are
posted, never awaited.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tui import locations
from tui.session.events import IndexReady, SimilarityReady, StatusChanged, TopicsChanged

if TYPE_CHECKING:
    from tui.caches import CacheBuild
    from tui.corpus.model import Abstract, Corpus
    from tui.search.filters import TopicNumbers
    from tui.search.index import SearchIndex
    from tui.session.bus import Bus
    from tui.similar.model import SimilarityModel
    from tui.similar.topics import Topics

#: While the child builds the index, the filter searches the first this many abstracts,
#: indexed in the app (as many as a small corpus, whose whole index is built here).
PARTIAL_INDEX_SIZE = 2_000

#: From about this many abstracts (as the first files read promise), the child that will
#: build the caches starts while the files are read, and indexes the first ones for a filter
#: typed meanwhile (`start_early`): the app's reading then has its interpreter to itself.
#: (Smaller corpora, from `HALF_BY_CHILD_SIZE`, have it started then too, for the second
#: half of their index.) At 15,000 abstracts (fresh data dir, 14 rounds in turns, load
#: 2.4-2.8): the whole answer at 2.50 s against 2.64 s with the child started once the
#: files were read (from 20,000 then), the first matches at 1.44 against 1.60 s, the
#: tree's peak 245-249 MB against 265 MB.
EARLY_CHILD_SIZE = 10_000

#: Below this many abstracts the app indexes them itself, in its start-up worker, once
#: every file is read, and no partial index answers meanwhile. At ICLR's 6,506 (fresh data
#: dir, 6 rounds in turns): the whole answer at 2.56 s against 2.68 s through the child with
#: a partial index first, and a peak of 233 MB against 370 MB for both processes: the child,
#: its interpreter started and its code imported, then loads the index and builds the rest.
APP_INDEX_SIZE = 10_000

#: From this many abstracts (up to `APP_INDEX_SIZE`), the index built here is built by two
#: processes, the child started ahead indexing the second half: the size from which a
#: build is worth two processes (`tui.search.parallel.PARALLEL_MIN`, not imported here:
#: it imports NumPy, and the thread reading the files asks). At ICLR's 6,506 (fresh
#: data dir, 8 rounds in turns at load 1.5): the whole answer at 2.13 s against 2.51 s
#: with the app indexing every abstract itself.
HALF_BY_CHILD_SIZE = 4_000

#: How long the start-up's loading of the similarity model waits, at most, for a search
#: under way to finish first (the user waits for the search, nobody for the model).
SEARCH_FIRST_SECONDS = 1.0

_imports_lock = threading.Lock()
_imported = False


def import_search_code() -> None:
    """Import what loading the index and answering the filter need (NumPy and the search
    modules, about 0.25 s), one thread at a time.

    Started in a worker with the reading of the files, so the imports overlap the
    reading instead of following it; every worker about to load or search calls it
    first and, if the imports are under way, waits for them. Two threads importing the
    same modules at once is what this prevents: where a package's imports are circular
    (rapidfuzz's are), each can meet the other's half-made module and fail.
    """
    global _imported
    if _imported:
        return
    with _imports_lock:
        if not _imported:
            import numpy  # noqa: F401  (first: everything below imports it)

            import tui.caches
            import tui.search.cache
            import tui.search.query
            import tui.similar.cache  # noqa: F401

            _imported = True


class Loaders:
    """The index, the similarity model and the topics of one corpus, and their loading."""

    def __init__(
        self,
        corpus: Corpus,
        bus: Bus,
        data_dir: Callable[[], Path],
        closing: Callable[[], bool],
    ) -> None:
        self._corpus = corpus
        self._bus = bus
        self._data_dir = data_dir
        self._closing = closing
        self.index: SearchIndex | None = None
        self.index_lock = threading.Lock()
        # Set once the start-up load (or the child's build) of the index has settled: a
        # search typed earlier waits for it rather than building a second index here.
        self._index_settled = threading.Event()
        #: The first abstracts' index and their corpus, while the child builds the whole's.
        self.partial: tuple[SearchIndex, Corpus] | None = None
        self._partial_lock = threading.Lock()
        #: True while a child process builds the index.
        self.indexing = False
        # True while the start-up worker builds it here (`APP_INDEX_SIZE`).
        self._indexing_here = False
        self.cache_build: CacheBuild | None = None
        # A child started before the read cache was saved, not yet given its files.
        self._spawned: CacheBuild | None = None
        self._spawned_lock = threading.Lock()  # `prestart` against `stop`
        self.similarity: SimilarityModel | None = None
        self.similarity_lock = threading.Lock()
        self.topics: Topics | None = None
        #: Why topics could not be computed (then `topic:` matches nothing and says so).
        self.topics_failure: str | None = None
        self._topics_build: CacheBuild | None = None
        #: Files still being read after the first paint (the index waits for them), and
        #: the arguments of the read cache they were read through, for the child.
        self.reading = False
        self.read_args: Sequence[str] | None = None
        # How many abstracts the first files read promise (`start_early`).
        self._expected = 0
        self._searches = 0
        self._searches_lock = threading.Lock()
        self._no_search = threading.Event()
        self._no_search.set()

    @property
    def cache_dir(self) -> Path:
        return locations.cache_dir(self._data_dir())

    def _status(self) -> None:
        self._bus.emit(StatusChanged())

    @contextlib.contextmanager
    def searching(self) -> Iterator[None]:
        """Around a search: meanwhile the start-up's loading of the similarity model
        waits (up to `SEARCH_FIRST_SECONDS`) instead of taking turns with it for the
        interpreter, so the first answer comes sooner."""
        self.search_begun()
        try:
            yield
        finally:
            self.search_ended()

    def search_begun(self) -> None:
        """A search has begun (the model's loading waits until `search_ended`: a search
        in a worker ends once its answer is painted)."""
        with self._searches_lock:
            self._searches += 1
            self._no_search.clear()

    def search_ended(self) -> None:
        with self._searches_lock:
            self._searches -= 1
            if not self._searches:
                self._no_search.set()

    # -- the index -----------------------------------------------------------

    def prestart(self) -> None:
        """Every file read, before the read cache is saved (off the UI's thread): when a
        large corpus's index or model is not cached, the child that will build them is
        started now, so that its interpreter starts and its code is imported while the
        cache is written (`warm_index` then sends it the files)."""
        from tui import caches

        corpus, cache_dir = self._corpus, self.cache_dir
        if len(corpus) < caches.SUBPROCESS_THRESHOLD:
            return
        import_search_code()
        from tui.search import cache as search_cache
        from tui.similar import cache as similar_cache

        if search_cache.cache_path(corpus, cache_dir).exists() and (
            similar_cache.cache_path(corpus, cache_dir).exists()
        ):
            return
        self._spawn()

    def start_early(self, expected: int) -> None:
        """As the files start to be read after the first paint (off the UI's thread): when
        they promise `expected` abstracts (see `_early`) and no index seems cached, start
        the child that will build the caches now. Its interpreter and imports then run on
        another core meanwhile, and a filter typed before the files are read has it index
        the first abstracts (`_ensure_partial`, from `APP_INDEX_SIZE` on)."""
        self._expected = expected
        if not self._early(expected) or self._index_cached():
            return
        self._spawn()

    @staticmethod
    def _early(expected: int) -> bool:
        """Whether the child starts as the files are read, for `expected` abstracts: from
        `EARLY_CHILD_SIZE` on, and for a corpus indexed here by two processes (from
        `HALF_BY_CHILD_SIZE` to `APP_INDEX_SIZE`), whose second half it indexes once the files
        are read (`_index_here`), its interpreter started and its code imported by then."""
        return expected >= EARLY_CHILD_SIZE or HALF_BY_CHILD_SIZE <= expected < APP_INDEX_SIZE

    def _spawn(self) -> None:
        """Start the child that will build the caches, without its files (once)."""
        from tui import caches

        with self._spawned_lock:
            if self._spawned is None and not self._closing():
                self._spawned = caches.CacheBuild(None, self.cache_dir, on_report=self._status)

    def _new_build(self) -> CacheBuild:
        """The child to build the caches: the one started ahead (`_spawn`), else a new one."""
        from tui import caches

        build = self._take_spawned()
        if build is None:
            return caches.CacheBuild(
                self._corpus, self.cache_dir, on_report=self._status, read_args=self.read_args
            )
        build.send(self._corpus, self.read_args)
        return build

    def _take_spawned(self) -> CacheBuild | None:
        """The child started ahead (`_spawn`), now the caller's to send its files or stop."""
        with self._spawned_lock:
            build, self._spawned = self._spawned, None
        return build

    def _drop_spawned(self) -> None:
        """The child started ahead (`_spawn`), when no build needs it (the caches were there)."""
        build = self._take_spawned()
        if build is not None:
            build.discard()

    def warm(self) -> None:
        """In a worker, after the first paint: the index, the model, then the topics."""
        import_search_code()
        if self.warm_index() is not None and self.ensure_similarity() is not None:
            self._bus.emit(SimilarityReady())
            self.warm_topics()

    def warm_index(self) -> SearchIndex | None:
        """Load the search index and similarity model, building large ones in a child
        (the index of fewer than `APP_INDEX_SIZE` abstracts here, the model there).

        Both locks are held while the child builds, so a search typed or an `m`
        pressed meanwhile waits for its result instead of starting a second build here.
        Returns the index (None once the app is closing)."""
        from tui import caches
        from tui.search import cache as search_cache
        from tui.similar import cache as similar_cache

        corpus, cache_dir = self._corpus, self.cache_dir
        had_index = False
        try:
            if len(corpus) >= caches.SUBPROCESS_THRESHOLD:
                with self.similarity_lock, self.index_lock:
                    if self._closing():  # never start a build for an app that is ending
                        return None
                    self.index = search_cache.load(corpus, cache_dir)
                    build = None
                    built_here = False
                    if self.index is None and len(corpus) < APP_INDEX_SIZE:
                        self._indexing_here = True
                        self._status()
                        try:
                            build, self.index = self._index_here()
                            built_here = True
                        finally:
                            self._indexing_here = False
                    if self.index is not None:
                        # A search waiting for it runs now, not after the model loads,
                        # and the model waits for it.
                        self._index_settled.set()
                        self._no_search.wait(SEARCH_FIRST_SECONDS)
                    if built_here and self.index is not None:
                        search_cache.save(self.index, corpus, cache_dir)  # after the answer
                    if build is not None:
                        build.release_half()  # the child goes on to the model
                    self.similarity = similar_cache.load(corpus, cache_dir)
                    if build is None and (self.index is None or self.similarity is None):
                        build = self.cache_build = self._new_build()
                        self.indexing = self.index is None
                        self._status()
                        if build.wait_for("index") and self.index is None:
                            self.index = search_cache.load(corpus, cache_dir)
                        self.indexing = False
                    # Searching works from here on; similarity may still be building.
                    self._index_settled.set()
                    had_index = self.index is not None
                    self.partial = None
                    self._bus.emit(IndexReady())
                    if build is not None and build.wait_for("similar"):
                        self.similarity = similar_cache.load(corpus, cache_dir)
        finally:
            self._drop_spawned()
            self._index_settled.set()
        # Either may still be None (small corpus, or the child failed): built in this thread.
        index = self.ensure_index()
        if index is not None and not had_index:
            self.partial = None
            self._bus.emit(IndexReady())
        self._status()
        return index

    def _index_here(self) -> tuple[CacheBuild | None, SearchIndex]:
        """The index built in this thread (`APP_INDEX_SIZE`), its second half by the child
        started ahead when there is one and the corpus is worth two processes
        (`HALF_BY_CHILD_SIZE`): that child is then given its files at once, and returned."""
        from tui.search.index import SearchIndex

        corpus = self._corpus
        n = len(corpus)
        build = None
        if n >= HALF_BY_CHILD_SIZE:
            build = self._take_spawned()
        if build is None:
            return None, SearchIndex.build(corpus)
        self.cache_build = build
        build.send(corpus, self.read_args, index_from=n // 2)
        return build, SearchIndex.build(corpus, other=build.other_half(corpus, n // 2))

    def _index_cached(self) -> bool:
        """Whether an index cache is there, probably this corpus's (a warm start): then
        the files are read and the index loaded sooner than a partial one is built."""
        try:
            return any(self.cache_dir.glob("search-*.npz"))
        except OSError:
            return False

    def _ensure_partial(self) -> tuple[SearchIndex, Corpus] | None:
        """For a search typed while the files are read (and no index is cached, it seems)
        or while the child indexes them: the first abstracts indexed here, once; the filter
        answers from them meanwhile, saying so. None when there is no call for one yet."""
        corpus = self._corpus
        with self._partial_lock:
            if self.partial is not None or len(corpus) < PARTIAL_INDEX_SIZE:
                return self.partial
            if max(len(corpus), self._expected) < APP_INDEX_SIZE:
                return None  # the whole index is built here as soon as the files are read
            if not (self.indexing or (self.reading and not self._index_cached())):
                return None
            from tui.corpus.model import Corpus
            from tui.search.index import SearchIndex

            first = Corpus(corpus.abstracts[:PARTIAL_INDEX_SIZE], [], [])
            index = self._partial_by_child(first) or SearchIndex.build(first)
            self.partial = (index, first)
            return self.partial

    def _partial_by_child(self, first: Corpus) -> SearchIndex | None:
        """The index of the first abstracts (`first`), made by the child `start_early`
        started, from the files that hold them; None when there is no such child, or it
        failed, or its abstracts are not these."""
        with self._spawned_lock:
            build = self._spawned
        if build is None:
            return None
        paths, count = [], 0
        for info in self._corpus.files:
            paths.append(info.path)
            count += info.count - info.repeated
            if count >= len(first):
                break
        if not (build.ask_partial(len(first), paths) and build.wait_for("partial")):
            return None
        from tui.search import cache as search_cache

        return search_cache.load_partial(first, self.cache_dir)

    def index_for_search(
        self, superseded: Callable[[], bool] = lambda: False
    ) -> tuple[SearchIndex | None, Corpus | None]:
        """The whole index (waiting for the start-up load or build), or meanwhile the
        partial one with its corpus; (None, None) once the app is closing or the search
        is `superseded` by a newer one, so that a key typed before the index is ready
        leaves no thread behind waiting for it (every waiting thread is one the
        workers' pool cannot give the index's own worker or the user data's)."""
        import_search_code()
        while not self._index_settled.wait(0.05):
            if self._closing() or superseded():
                return None, None
            if (partial := self._ensure_partial()) is not None:
                return partial
        return self.ensure_index(), None

    def wait_for_start(self) -> bool:
        """Wait (off the UI's thread) until every file is read and the start-up load of
        the index has settled: by then the start-up worker holds the similarity lock while
        the child builds the model, so a caller taking that lock next waits for the child
        rather than building in the app. False once the app is closing."""
        while not self._index_settled.wait(0.05):
            if self._closing():
                return False
        return True

    def ensure_index(self) -> SearchIndex | None:
        """The index, loaded or built here; None once the app is closing (never build then:
        the interpreter would wait for the build before it could exit). Waits for the
        start-up load first, which may be the child's build (`warm_index`)."""
        if not self.wait_for_start():
            return None
        import_search_code()
        if self.index is not None:
            return self.index  # without the lock, which the start-up may hold a while more
        with self.index_lock:
            if self.index is None and not self._closing():
                from tui.search.cache import load_or_build

                self.index = load_or_build(self._corpus, self.cache_dir)
            return self.index

    def progress_text(self) -> str:
        """What a cache-building child is doing (`indexing: files 40 / 369…`), or the
        start-up worker building the index here, else ""."""
        if self._indexing_here:
            from tui.caches import STAGES

            return dict(STAGES)["index"] + "…"
        for build in (self.cache_build, self._topics_build):
            text = build.progress_text() if build is not None else ""
            if text:
                return text + "…"
        return ""

    def stop(self) -> None:
        """Quitting: stop the cache builds in progress (a half-built cache is rebuilt
        next time)."""
        for build in (self.cache_build, self._topics_build):
            if build is not None:
                build.stop()
        self._drop_spawned()

    # -- similarity ----------------------------------------------------------

    def ensure_similarity(self) -> SimilarityModel | None:
        """The similarity model, loaded from the cache or built (call off the UI's
        thread); None once the app is closing. Waits for the start-up work first (the
        files read, the child's build), never building a second model in the app."""
        if not self.wait_for_start():
            return None
        import_search_code()
        with self.similarity_lock:
            if self.similarity is None and not self._closing():
                from tui.similar.cache import load_or_build

                self.similarity = load_or_build(self._corpus, self.cache_dir)
            return self.similarity

    def near_duplicates(self, index: int) -> list[tuple[Abstract, float]]:
        """Near-duplicates of an abstract, once the model is ready (never waits for it)."""
        if self.similarity is None:
            return []
        abstracts = self._corpus.abstracts
        return [(abstracts[j], score) for j, score in self.similarity.near_duplicates(index)]

    # -- topics --------------------------------------------------------------

    @property
    def topic_numbers(self) -> TopicNumbers | None:
        """Each abstract's topic number (1 the largest, 0 none), or None until computed."""
        return self.topics.number if self.topics is not None else None

    @property
    def topics_pending(self) -> bool:
        """True until the topics are ready (or have failed)."""
        return self.topics is None and self.topics_failure is None

    def warm_topics(self) -> None:
        """With the similarity model ready: the topics from the cache, else from the
        cache-building child (large corpora), else computed in this thread."""
        import_search_code()
        from tui import caches
        from tui.similar import topic_cache

        corpus, cache_dir = self._corpus, self.cache_dir
        topics = topic_cache.load(corpus, cache_dir)
        if topics is None and len(corpus) >= caches.SUBPROCESS_THRESHOLD:
            # The child started for the index computes topics after similarity (its
            # report may be waiting in the pipe); when both of those were cached, a new
            # child loads them and computes only the topics.
            build = self.cache_build
            if build is None:
                build = self._topics_build = caches.CacheBuild(
                    corpus, cache_dir, on_report=self._status, read_args=self.read_args
                )
            if not self._closing() and build.wait_for("topics"):
                topics = topic_cache.load(corpus, cache_dir)
        if topics is None and not self._closing():
            model = self.ensure_similarity()
            if model is not None:
                try:
                    topics = topic_cache.load_or_build(corpus, cache_dir, model)
                except Exception as error:  # never take the reader down over the topics
                    self.topics_failure = str(error) or type(error).__name__
                    self._bus.emit(TopicsChanged())
                    return
        if topics is not None and not self._closing():
            self.topics = topics
            self._bus.emit(TopicsChanged())
