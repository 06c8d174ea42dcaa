"""The session core: the state the screens share, its one road for changes, and its
events, tested without any UI (and, in a child process, without Textual importable)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from tui.corpus.load import load_corpus
from tui.corpus.model import Corpus
from tui.search.index import SearchIndex
from tui.session import Session
from tui.session.events import (
    DataOpened,
    IndexReady,
    KeyQueued,
    MarksChanged,
    SessionEvent,
    SimilarityReady,
    StatusChanged,
    TopicsChanged,
)
from tui.store.userdata import UserData

REPO = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def session(seeds_dir: Path, tmp_path: Path) -> Session:
    return Session(load_corpus([seeds_dir]), lambda: tmp_path)


def open_data(session: Session) -> UserData:
    userdata = UserData.open(session.data_dir)
    session.user.opened(userdata, userdata.attach(session.corpus))
    return userdata


def test_a_session_works_without_textual_importable(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path

        class NoTextual:
            def find_spec(self, name, path=None, target=None):
                if name == "textual" or name.startswith("textual."):
                    raise ImportError("textual is not importable here")
                return None

        sys.meta_path.insert(0, NoTextual())
        from tui.corpus.load import load_corpus
        from tui.search.query import parse_query
        from tui.session import Session
        from tui.store.userdata import UserData

        data = Path({str(tmp_path)!r})
        session = Session(load_corpus([Path({str(REPO / "seeds")!r})]), lambda: data)
        events = session.bus.record()
        session.loaders.warm()
        userdata = UserData.open(data)
        session.user.opened(userdata, userdata.attach(session.corpus))
        first = session.corpus.abstracts[0]
        assert session.user.set_bookmarks([first.id], True)
        found = session.loaders.index.search(
            parse_query("is:bookmarked"), session.corpus, personal=session.user.userdata
        )
        assert list(found.indices) == [0], list(found.indices)
        session.user.undo()
        userdata.close()
        assert "textual" not in sys.modules
        print(" ".join(type(e).__name__ for e in events))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "IndexReady",
        "StatusChanged",
        "SimilarityReady",
        "TopicsChanged",
        "DataOpened",
        "MarksChanged",
        "MarksChanged",
    ]


def test_a_change_is_announced_with_the_abstracts_it_touched(session: Session) -> None:
    open_data(session)
    events = session.bus.record()
    a, b = session.corpus.abstracts[:2]
    assert session.user.set_bookmarks([a.id, b.id], True)
    assert events == [MarksChanged(frozenset({a.id, b.id}))]
    version = session.user.version
    # Nothing to change: nothing announced, the version stays.
    assert not session.user.set_bookmarks([a.id], True)
    assert len(events) == 1 and session.user.version == version


def test_undo_announces_its_abstracts_and_asks_for_the_filter_again(session: Session) -> None:
    open_data(session)
    a = session.corpus.abstracts[3]
    session.user.set_read([a.id], True)
    events = session.bus.record()
    undone = session.user.undo()
    assert undone is not None and not session.user.userdata.is_read(a.id)  # type: ignore[union-attr]
    assert events == [MarksChanged(frozenset({a.id}), rerun_filter=True)]
    assert session.user.redo() is not None and session.user.userdata.is_read(a.id)  # type: ignore[union-attr]


def test_changes_asked_before_the_data_opens_run_in_order_when_it_opens(session: Session) -> None:
    events = session.bus.record()
    a = session.corpus.abstracts[0]
    user = session.user
    ran_now = user.when_open(lambda data: user.set_bookmarks([a.id], not data.is_bookmarked(a.id)))
    user.when_open(lambda data: user.set_read([a.id], True))
    assert not ran_now and user.marks() is None
    assert events == [KeyQueued(1), KeyQueued(2)]
    open_data(session)
    data = user.userdata
    assert data is not None and data.is_bookmarked(a.id) and data.is_read(a.id)
    opened = [e for e in events if isinstance(e, DataOpened)]
    assert [e.replayed for e in opened] == [2]
    # Each queued change was announced before the data's opening was.
    kinds = [type(e) for e in events[2:]]
    assert kinds == [MarksChanged, MarksChanged, DataOpened]
    # Both are undo steps, undone last first.
    assert user.undo() is not None and not data.is_read(a.id) and data.is_bookmarked(a.id)


def test_the_marks_follow_each_change(session: Session) -> None:
    assert session.user.marks() is None  # nothing to mark before the data opens
    open_data(session)
    a = session.corpus.abstracts[5]
    session.user.set_bookmarks([a.id], True)
    marks = session.user.marks()
    assert marks is not None and a.id in marks.bookmarked and marks.judged(a.id) == "★"


def test_an_event_from_another_thread_goes_through_the_handoff(session: Session) -> None:
    handed: list[SessionEvent] = []
    dispatched: list[SessionEvent] = []
    session.bus.attach(handed.append)
    session.bus.subscribe(SessionEvent, dispatched.append)
    session.bus.emit(IndexReady())  # on the owner thread: at once
    worker = threading.Thread(target=lambda: session.bus.emit(TopicsChanged()))
    worker.start()
    worker.join()
    assert dispatched == [IndexReady()] and handed == [TopicsChanged()]
    session.bus.dispatch(handed[0])  # as the UI does on its own thread
    assert dispatched == [IndexReady(), TopicsChanged()]


def test_the_loaders_announce_the_index_the_model_and_the_topics(session: Session) -> None:
    events = session.bus.record()
    session.loaders.warm()
    kinds = [type(e) for e in events]
    assert IndexReady in kinds and SimilarityReady in kinds and TopicsChanged in kinds
    assert kinds.index(IndexReady) < kinds.index(SimilarityReady) < kinds.index(TopicsChanged)
    assert session.loaders.index is not None and session.loaders.topics is not None
    assert session.loaders.near_duplicates(0) == session.loaders.near_duplicates(0)


def test_a_closing_session_builds_nothing(session: Session) -> None:
    session.stop()
    assert session.closing
    assert session.loaders.ensure_index() is None
    assert session.loaders.ensure_similarity() is None


def test_loading_the_index_waits_for_the_search_code_imports_under_way(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start-up imports the search's code in a worker while the files are read; a
    worker loading the index meanwhile waits for those imports rather than importing the
    same modules at once (circular package imports fail when two threads meet)."""
    from tui.session import loaders

    session.loaders.warm_index()  # the start-up's load has settled: nothing else to wait for
    session.loaders.index = None
    monkeypatch.setattr(loaders, "_imported", False)
    done = threading.Event()

    def load() -> None:
        session.loaders.ensure_index()
        done.set()

    with loaders._imports_lock:  # the start-up's imports, under way
        thread = threading.Thread(target=load, daemon=True)
        thread.start()
        assert not done.wait(0.3)
    assert done.wait(10)
    assert session.loaders.index is not None
    assert loaders._imported


def test_loading_the_similarity_model_at_start_waits_for_a_search_under_way(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the index cached, the start-up loads it and then the similarity model; a
    search typed meanwhile runs first, rather than taking turns with the model's loading
    for the interpreter (the user waits for the answer, nobody for the model)."""
    from tui import caches
    from tui.search import cache as search_cache
    from tui.similar import cache as similar_cache

    loaders = session.loaders
    search_cache.load_or_build(session.corpus, loaders.cache_dir)
    similar_cache.load_or_build(session.corpus, loaders.cache_dir)
    monkeypatch.setattr(caches, "SUBPROCESS_THRESHOLD", 10)  # the seeds count as large
    monkeypatch.setattr("tui.session.loaders.APP_INDEX_SIZE", 0)  # by the child too
    loaded = threading.Event()
    load = similar_cache.load

    def recorded_load(*args: object, **kwargs: object) -> object:
        loaded.set()
        return load(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(similar_cache, "load", recorded_load)
    with loaders.searching():
        thread = threading.Thread(target=loaders.warm_index, daemon=True)
        thread.start()
        assert loaders.index_for_search()[0] is not None  # the search has its index
        assert not loaded.wait(0.3)  # and the model waits for it
    assert loaded.wait(10)
    thread.join(10)
    assert loaders.index is not None and loaders.similarity is not None


def _counted_builds(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each cache child started: whether it was given its files at once."""
    from tui import caches

    started: list[bool] = []
    real = caches.CacheBuild

    def counted(corpus: object, *args: object, **kwargs: object) -> object:
        started.append(corpus is not None)
        return real(corpus, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(caches, "CacheBuild", counted)
    monkeypatch.setattr(caches, "SUBPROCESS_THRESHOLD", 10)  # the seeds count as large
    monkeypatch.setattr("tui.session.loaders.APP_INDEX_SIZE", 0)  # by the child too
    return started


def test_the_cache_child_is_started_before_the_read_cache_is_saved_and_then_given_the_files(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last file read, the child starts (its interpreter, its imports) while the app
    writes the read cache; the start-up's load then hands it the files: one child, and
    the index and model it builds are the ones loaded."""
    started = _counted_builds(monkeypatch)
    loaders = session.loaders
    loaders.prestart()
    assert started == [False]  # started without its files
    build = loaders._spawned
    assert build is not None and build._process is not None
    assert build._process.poll() is None  # waiting for them, not failed
    assert loaders.warm_index() is not None
    assert len(started) == 1 and loaders.cache_build is build
    assert loaders.ensure_similarity() is not None
    assert build.done >= {"index", "similar"}
    assert build.wait_for("topics")  # and then it ends


def test_no_child_is_started_early_for_a_corpus_whose_caches_are_there(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.search import cache as search_cache
    from tui.similar import cache as similar_cache

    started = _counted_builds(monkeypatch)
    loaders = session.loaders
    search_cache.load_or_build(session.corpus, loaders.cache_dir)
    similar_cache.load_or_build(session.corpus, loaders.cache_dir)
    loaders.prestart()
    assert started == []


def test_a_child_started_early_and_not_needed_is_stopped(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The caches appeared meanwhile (another start built them): the start-up loads them
    and stops the child waiting for files, which would otherwise wait until the app ends."""
    from tui.search import cache as search_cache
    from tui.similar import cache as similar_cache

    started = _counted_builds(monkeypatch)
    loaders = session.loaders
    loaders.prestart()
    build = loaders._spawned
    assert build is not None and build._process is not None
    search_cache.load_or_build(session.corpus, loaders.cache_dir)
    similar_cache.load_or_build(session.corpus, loaders.cache_dir)
    process = build._process
    assert loaders.warm_index() is not None
    assert len(started) == 1 and loaders._spawned is None
    assert process.wait(timeout=10) != 0  # killed
    assert process.stdout is not None and process.stdout.closed


def _early(
    session: Session, monkeypatch: pytest.MonkeyPatch, first: int = 30
) -> tuple[list[bool], list[int]]:
    """The seeds as a corpus still being read that promises to be large: each cache child
    started, and the size of each index built in this process."""
    from tui.search.index import SearchIndex
    from tui.session import loaders as loaders_module

    started = _counted_builds(monkeypatch)
    monkeypatch.setattr(loaders_module, "EARLY_CHILD_SIZE", 50)
    monkeypatch.setattr(loaders_module, "PARTIAL_INDEX_SIZE", first)
    built: list[int] = []
    real = SearchIndex.build.__func__  # type: ignore[attr-defined]

    def counted(
        cls: type[SearchIndex], corpus: Corpus, *args: object, **kwargs: object
    ) -> SearchIndex:
        built.append(len(corpus))
        return real(cls, corpus, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(SearchIndex, "build", classmethod(counted))
    session.loaders.reading = True
    return started, built


def test_a_child_started_as_the_files_are_read_indexes_the_first_abstracts_for_the_filter(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large corpus being read: the child starts at once, and a filter typed meanwhile
    answers from its index of the first abstracts, the one the app would have built, while
    the app's reading keeps the interpreter; then the same child builds the caches."""
    from tui.search.index import SearchIndex

    started, built = _early(session, monkeypatch)
    loaders = session.loaders
    loaders.start_early(49)
    assert started == []  # promises too few abstracts
    loaders.start_early(50)
    assert started == [False]
    partial = loaders._ensure_partial()
    assert partial is not None
    index, first = partial
    assert built == [] and len(first) == 30
    assert first.abstracts == session.corpus.abstracts[:30]
    here = SearchIndex.build(first)
    for field in dataclasses.fields(here.data):
        a, b = getattr(index.data, field.name), getattr(here.data, field.name)
        assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b, field.name
    loaders.reading = False
    assert loaders.warm_index() is not None
    assert len(started) == 1 and loaders.cache_build is not None
    assert loaders.cache_build.wait_for("topics")


def test_a_middle_sized_corpus_is_indexed_here_and_the_child_builds_the_model(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fewer than `APP_INDEX_SIZE` abstracts: no partial index while the files are read
    (the whole one is built as soon as they are), the start-up builds the index in the
    app, and the child, started as before, loads that index and builds the model."""
    from tui.session import loaders as loaders_module

    started, built = _early(session, monkeypatch)
    monkeypatch.setattr(loaders_module, "APP_INDEX_SIZE", len(session.corpus) + 1)
    loaders = session.loaders
    loaders.start_early(len(session.corpus))
    assert loaders._ensure_partial() is None and built == []
    loaders.prestart()
    loaders.reading = False
    said: list[str] = []
    session.bus.subscribe(StatusChanged, lambda _: said.append(loaders.progress_text()))
    assert loaders.warm_index() is not None
    assert "building the search index…" in said  # the header says so meanwhile
    assert loaders.progress_text() != "building the search index…"
    assert built == [len(session.corpus)]  # here, once
    assert len(started) == 1 and loaders.cache_build is not None
    assert loaders.cache_build.wait_for("similar")
    assert loaders.ensure_similarity() is not None
    assert built == [len(session.corpus)]


def _same_index(a: SearchIndex, b: SearchIndex) -> None:
    for field in dataclasses.fields(a.data):
        x, y = getattr(a.data, field.name), getattr(b.data, field.name)
        assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y, field.name


def _halved(session: Session, monkeypatch: pytest.MonkeyPatch) -> tuple[list[bool], list[int]]:
    """The seeds as a middle-sized corpus (indexed here), worth two processes."""
    from tui.session import loaders as loaders_module

    started, built = _early(session, monkeypatch)
    monkeypatch.setattr(loaders_module, "EARLY_CHILD_SIZE", 10**9)
    monkeypatch.setattr(loaders_module, "HALF_BY_CHILD_SIZE", 20)
    monkeypatch.setattr(loaders_module, "APP_INDEX_SIZE", len(session.corpus) + 1)
    return started, built


def test_a_middle_sized_corpus_is_indexed_here_with_its_second_half_by_the_child(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From `HALF_BY_CHILD_SIZE` abstracts, the child starts as the files are read; the
    start-up then gives it its files and has it index the second half while the app
    indexes the first: the index is the one a single process builds, the app saves it,
    and the child goes on to the model."""
    from tui.search import cache as search_cache
    from tui.search.index import SearchIndex

    started, built = _halved(session, monkeypatch)
    loaders = session.loaders
    loaders.start_early(19)
    assert started == []  # too few to be worth it
    loaders.start_early(len(session.corpus))
    assert started == [False] and loaders._spawned is not None
    assert loaders._ensure_partial() is None
    loaders.prestart()  # the same child
    loaders.reading = False
    said: list[str] = []
    session.bus.subscribe(StatusChanged, lambda _: said.append(loaders.progress_text()))
    index = loaders.warm_index()
    assert "building the search index…" in said  # the header says so meanwhile
    assert index is not None and built == [len(session.corpus)]
    build = loaders.cache_build
    assert len(started) == 1 and build is not None and "half" in build.done
    _same_index(index, SearchIndex.build(session.corpus))
    saved = search_cache.load(session.corpus, loaders.cache_dir)
    assert saved is not None
    _same_index(saved, index)
    assert build.wait_for("similar") and loaders.ensure_similarity() is not None
    assert built == [len(session.corpus), len(session.corpus)]  # the one compared with


def test_the_size_worth_two_processes_is_the_search_builds_own() -> None:
    # Not imported by the loaders (it imports NumPy), so kept equal by hand.
    from tui.search.parallel import PARALLEL_MIN
    from tui.session.loaders import HALF_BY_CHILD_SIZE

    assert HALF_BY_CHILD_SIZE == PARALLEL_MIN


def test_the_app_indexes_the_second_half_itself_when_the_child_died(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.search.index import SearchIndex

    started, _ = _halved(session, monkeypatch)
    loaders = session.loaders
    loaders.start_early(len(session.corpus))
    build = loaders._spawned
    assert build is not None and build._process is not None
    build._process.kill()
    build._process.wait()
    loaders.reading = False
    index = loaders.warm_index()
    assert index is not None and "half" not in build.done
    _same_index(index, SearchIndex.build(session.corpus))
    assert loaders.ensure_similarity() is not None  # built here, the child being dead
    assert len(started) == 1


def test_no_child_starts_as_the_files_are_read_when_an_index_seems_cached(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.search import cache as search_cache

    started, _ = _early(session, monkeypatch)
    search_cache.load_or_build(session.corpus, session.loaders.cache_dir)
    session.loaders.start_early(10_000)
    assert started == []


def test_the_app_indexes_the_first_abstracts_itself_when_the_early_child_died(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, built = _early(session, monkeypatch)
    loaders = session.loaders
    loaders.start_early(100)
    assert started == [False] and loaders._spawned is not None
    loaders._spawned.stop()
    partial = loaders._ensure_partial()
    assert partial is not None and built == [30]
    assert partial[1].abstracts == session.corpus.abstracts[:30]


def test_the_app_indexes_the_first_abstracts_itself_when_the_childs_are_not_its_own(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child read other first abstracts (here the app's are in another order, as when a
    later file changes a paper's id): its index is not used for the app's."""
    started, built = _early(session, monkeypatch)
    session.corpus.abstracts.reverse()
    loaders = session.loaders
    loaders.start_early(100)
    assert started == [False]
    partial = loaders._ensure_partial()
    assert partial is not None and built == [30]
    assert partial[1].abstracts == session.corpus.abstracts[:30]
    assert loaders._spawned is not None and "partial" in loaders._spawned.done  # it answered
