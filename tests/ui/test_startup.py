"""Start-up on a large corpus: the first files paint before the rest are read, an early
search waits for the child's index (never building one in the app), and a partial index
answers meanwhile, saying so."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.ui.helpers import wait_for_userdata, wait_until
from tui.corpus.load import Loading
from tui.ui.app import AbstractsApp, make_app
from tui.ui.widgets.header import AppHeader


def header_status(app) -> str:
    return app.query_one(AppHeader).status_text.plain


def calls_of(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[bool]:
    """A list that grows by one at each call of `module.name` (which still runs)."""
    calls: list[bool] = []
    real = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def held_until(
    monkeypatch: pytest.MonkeyPatch, owner: type, name: str, seconds: float
) -> threading.Event:
    """An event that `owner.name` waits for (at most `seconds`) before it runs."""
    release = threading.Event()
    real = getattr(owner, name)

    def held(self: object, *args: object, **kwargs: object) -> object:
        release.wait(seconds)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, held)
    return release


def write_files(folder: Path, files: int, per_file: int) -> list[Path]:
    folder.mkdir()
    paths = []
    for f in range(files):
        texts = [
            f"Paragraph {p} of file {f} studies pruning of sparse networks number {f * 100 + p}."
            for p in range(per_file)
        ]
        path = folder / f"venue{f}.txt"
        path.write_text(f"Venue {f}\n\n" + "\n\n".join(texts) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def app_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first_files: int
) -> tuple[AbstractsApp, threading.Event]:
    """An app on the first files of three (four abstracts each), as the command line
    opens it; reading the others waits for the event."""
    write_files(tmp_path / "corpus", files=3, per_file=4)
    loading = Loading([tmp_path / "corpus"], None)
    for _ in range(first_files):
        loading.read_next()
    corpus = loading.publish()
    go_on = held_until(monkeypatch, Loading, "read_next", 10)
    return make_app(corpus=corpus, data_dir=tmp_path / "data", loading=loading), go_on


async def test_the_first_files_paint_and_the_rest_stream_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, second_file = app_reading(tmp_path, monkeypatch, first_files=1)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: "reading files 1 / 3" in header_status(app))
        assert len(app.abstract_list.rows) == 4
        assert app.personal.userdata is None  # the user's data waits for every file
        await pilot.press("j")  # the list works meanwhile
        second_file.set()
        await wait_until(pilot, lambda: len(app.abstract_list.rows) == 12)
        assert app.abstract_list.cursor == 1  # the cursor stayed where the user put it
        await wait_for_userdata(pilot)
        assert "reading files" not in header_status(app)
        assert "12 abstracts · 3 files" in header_status(app)
        assert [a.index for a in app.corpus.abstracts] == list(range(12))


async def test_an_early_search_waits_for_the_child_instead_of_building_an_index(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui import caches
    from tui.search import cache as search_cache

    monkeypatch.setattr(caches, "SUBPROCESS_THRESHOLD", 0)
    monkeypatch.setattr("tui.session.loaders.APP_INDEX_SIZE", 0)  # by the child too
    built_here = calls_of(monkeypatch, search_cache, "load_or_build")
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        # The start-up worker is slow to take its locks (as when it imports modules first).
        with app.session.loaders.similarity_lock:
            await pilot.press("slash", *"pruning")
            await pilot.pause(0.5)
        await wait_until(pilot, lambda: 0 < len(app.abstract_list.rows) < 76, timeout=60)
        await wait_until(pilot, lambda: app.search.index is not None, timeout=60)
        assert built_here == []


def child_held(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """A cache child that reports nothing until the event is set, then fails (so the
    index is built in the app then), with a partial index of 30 abstracts meanwhile."""
    from tui import caches
    from tui.session import loaders as search

    child_done = threading.Event()

    class SlowChild:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def wait_for(self, stage: str) -> bool:
            child_done.wait(20)
            return False

        def stop(self) -> None:
            child_done.set()

        def progress_text(self) -> str:
            return "" if child_done.is_set() else "building the search index"

    monkeypatch.setattr(caches, "SUBPROCESS_THRESHOLD", 0)
    monkeypatch.setattr("tui.session.loaders.APP_INDEX_SIZE", 0)  # by the child too
    monkeypatch.setattr(caches, "CacheBuild", SlowChild)
    monkeypatch.setattr(search, "PARTIAL_INDEX_SIZE", 30)
    return child_done


async def test_a_partial_index_answers_while_the_child_builds(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    child_done = child_held(monkeypatch)
    app = make_app([seeds_dir])
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("slash", *"learning")
        await wait_until(pilot, lambda: "(30 searched)" in header_status(app), timeout=30)
        assert app.abstract_list.rows and max(app.abstract_list.rows) < 30
        assert "building the search index" in header_status(app)
        child_done.set()
        await wait_until(pilot, lambda: "searched" not in header_status(app), timeout=30)
        await wait_until(pilot, lambda: max(app.abstract_list.rows) >= 30, timeout=30)


async def test_the_whole_answer_puts_a_cursor_left_on_the_first_row_on_its_best_match(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    child_done = child_held(monkeypatch)
    app = make_app([seeds_dir])
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("slash", *"graph", "enter")
        await wait_until(pilot, lambda: "(30 searched)" in header_status(app), timeout=30)
        assert app.abstract_list.cursor == 0
        partial_first = app.abstract_list.current
        child_done.set()
        await wait_until(pilot, lambda: "searched" not in header_status(app), timeout=30)
        await wait_until(pilot, lambda: max(app.abstract_list.rows, default=0) >= 30, timeout=30)
        await pilot.pause()
        assert app.abstract_list.rows[0] != partial_first.index  # the answer's order changed
        assert app.abstract_list.cursor == 0
        assert app.abstract_list.current.index == app.abstract_list.rows[0]


async def test_an_early_more_like_this_waits_for_the_child_instead_of_building_a_model(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from tui import caches
    from tui.similar import cache as similar_cache
    from tui.ui.screens.similar import SimilarScreen

    monkeypatch.setattr(caches, "SUBPROCESS_THRESHOLD", 0)
    monkeypatch.setattr("tui.session.loaders.APP_INDEX_SIZE", 0)  # by the child too
    built_here = calls_of(monkeypatch, similar_cache, "load_or_build")
    app = make_app([seeds_dir])
    start_up = app.search._warm_index

    def late_start_up() -> None:  # as when the start-up worker imports modules first
        time.sleep(0.5)
        start_up()

    monkeypatch.setattr(app.search, "_warm_index", late_start_up)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, SimilarScreen), timeout=60)
        assert built_here == []


async def test_a_search_typed_while_the_files_are_read_answers_from_the_first_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.session import loaders as search

    monkeypatch.setattr(search, "PARTIAL_INDEX_SIZE", 8)
    monkeypatch.setattr(search, "APP_INDEX_SIZE", 0)  # a corpus the child would index
    app, last_file = app_reading(tmp_path, monkeypatch, first_files=2)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("slash", *"pruning")
        await wait_until(pilot, lambda: "(8 searched)" in header_status(app), timeout=30)
        assert sorted(app.abstract_list.rows) == list(range(8))
        last_file.set()
        await wait_until(pilot, lambda: len(app.abstract_list.rows) == 12, timeout=30)
        assert "searched" not in header_status(app)
        assert "of 12" in header_status(app)


async def test_keys_typed_before_the_index_is_ready_leave_one_search_waiting(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each key typed while the index loads starts a search; a newer one supersedes it,
    and the older stops waiting for the index. Threads left waiting would fill the
    workers' pool, and the user data's worker (and the index's own) would never start:
    keys typed in the first second of a warm start left the data unopened until quit."""
    from tui.session.loaders import Loaders

    release = held_until(monkeypatch, Loaders, "warm", 20)

    waiting: list[int] = [0]
    index_for_search = Loaders.index_for_search

    def counted(self: Loaders, *args: object):  # type: ignore[no-untyped-def]
        waiting[0] += 1
        try:
            return index_for_search(self, *args)
        finally:
            waiting[0] -= 1

    monkeypatch.setattr(Loaders, "index_for_search", counted)
    app = make_app([seeds_dir])
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.press("slash", *"graph neural networks")
            await wait_until(pilot, lambda: app.filter_input.value == "graph neural networks")
            await wait_until(pilot, lambda: waiting[0] == 1, timeout=5)
            release.set()
            await wait_until(pilot, lambda: app.search.match_counts is not None, timeout=30)
            assert waiting[0] == 0
    finally:
        release.set()


async def test_a_paper_read_after_the_first_paint_shows_its_title_in_the_row_and_pane(
    tmp_path: Path,
) -> None:
    import json

    from tui.ui.widgets.detail import BLOCKS, DetailPane

    text = "A study of pruning in sparse networks, shown before the library is read."
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.txt").write_text(f"ICLR 2023 Papers\n\n{text}\n", encoding="utf-8")
    paper = {"title": "Pruning, Revisited", "abstract": text, "authors": ["Ada Lovelace"]}
    (tmp_path / "corpus" / "b.json").write_text(json.dumps([paper]), encoding="utf-8")
    loading = Loading([tmp_path / "corpus"], None)
    loading.read_next()  # the conference file only: the screen shows its paragraph
    app = make_app(corpus=loading.publish(), data_dir=tmp_path / "data", loading=loading)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.pause()
        shown = app.abstract_list.current
        assert shown.headline == "Pruning, Revisited"
        assert "Pruning, Revisited" in app.abstract_list.render_line(0).text
        pane = app.query_one(DetailPane)
        drawn = " ".join((text.plain if (text := pane.text_of(b)) else "") for b in BLOCKS)
        assert "Pruning, Revisited" in drawn and "Ada Lovelace" in drawn
        assert shown.id in drawn  # the paper's final id, not the paragraph's


async def test_a_search_typed_at_start_is_answered_before_the_data_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's data and the inbox open after the answer to a search typed while the
    files were read: opening them meanwhile would only slow that answer down."""
    from tui.ui.controllers import search

    monkeypatch.setattr(search, "ANSWER_FIRST_SECONDS", 30.0)  # a loaded machine's answer
    app, last_file = app_reading(tmp_path, monkeypatch, first_files=1)
    happened: list[str] = []
    open_data, open_inbox, apply_search = (
        app.personal.open,
        app.fetching.open_inbox,
        app.search.apply_search,
    )

    def opened() -> None:
        happened.append("data")
        open_data()

    def inbox() -> None:
        happened.append("inbox")
        open_inbox()

    def answered(*args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        happened.append("answer")
        apply_search(*args, **kwargs)

    monkeypatch.setattr(app.personal, "open", opened)
    monkeypatch.setattr(app.fetching, "open_inbox", inbox)
    monkeypatch.setattr(app.search, "apply_search", answered)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("slash", *"pruning")
        await wait_until(pilot, lambda: app.filter_input.value == "pruning")
        last_file.set()
        await wait_for_userdata(pilot)
        await wait_until(pilot, lambda: app.search.match_counts is not None)
        assert happened.index("answer") < happened.index("data")
        assert happened.index("answer") < happened.index("inbox")
        assert "of 12" in header_status(app)


async def test_with_nothing_typed_the_data_opens_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, last_file = app_reading(tmp_path, monkeypatch, first_files=1)
    async with app.run_test(size=(160, 40)) as pilot:
        last_file.set()
        await wait_for_userdata(pilot, timeout=5)  # not after ANSWER_FIRST_SECONDS' wait
        assert not app.search._after_answer


async def test_the_data_waits_for_an_early_answer_at_most_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search that never answers (here the index never loads) holds nothing back for
    more than `ANSWER_FIRST_SECONDS`."""
    from tui.session.loaders import Loaders

    release = held_until(monkeypatch, Loaders, "warm", 20)

    app, last_file = app_reading(tmp_path, monkeypatch, first_files=1)
    try:
        async with app.run_test(size=(160, 40)) as pilot:
            await pilot.press("slash", *"pruning")
            await wait_until(pilot, lambda: app.filter_input.value == "pruning")
            last_file.set()
            await wait_for_userdata(pilot, timeout=5)
            assert app.search.match_counts is None  # the index is still held back
    finally:
        release.set()


async def test_the_model_waits_for_an_early_answer_to_be_painted(
    seeds_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start-up's loading of the similarity model waits while a search typed meanwhile
    runs, and until its answer is painted: not only until the worker has searched."""
    import time

    from tui.session.loaders import Loaders

    release = held_until(monkeypatch, Loaders, "warm", 20)

    app = make_app([seeds_dir])
    loaders = app.session.loaders
    held_at_answer: list[bool] = []
    apply_search = app.search.apply_search

    def answered(*args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        time.sleep(0.2)  # the worker has long posted its answer and returned
        held_at_answer.append(not loaders._no_search.is_set())
        apply_search(*args, **kwargs)

    monkeypatch.setattr(app.search, "apply_search", answered)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            app.filter_input.value = "graph"  # one search (a key each would start five)
            await pilot.pause(0.1)
            release.set()
            await wait_until(pilot, lambda: app.search.match_counts is not None, timeout=30)
            assert held_at_answer[0]  # the first answer, the worker's
            await wait_until(pilot, loaders._no_search.is_set, timeout=5)  # once painted
    finally:
        release.set()


async def test_the_rest_is_read_as_soon_as_the_first_frame_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files still to read (and the search's imports, which the first answer waits
    for) start right after the first frame, before the footer's keys are composed: not
    after the next refresh, which waits for that compose and for keys typed meanwhile."""
    from textual.widgets import Footer

    from tui.ui.controllers.loading import LoadingController

    happened: list[str] = []
    start, compose = LoadingController.start, Footer.compose

    def started(self: LoadingController) -> None:
        happened.append("reading")
        start(self)

    def composed(self: Footer):  # type: ignore[no-untyped-def]
        if self._bindings_ready:
            happened.append("footer")
        return compose(self)

    monkeypatch.setattr(LoadingController, "start", started)
    monkeypatch.setattr(Footer, "compose", composed)
    app, last_file = app_reading(tmp_path, monkeypatch, first_files=1)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_until(pilot, lambda: "footer" in happened and "reading" in happened)
        last_file.set()
        assert happened.index("reading") < happened.index("footer")


async def test_the_rest_is_read_even_if_textual_never_calls_the_frame_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_display` is Textual's own: should a release rename it, the files still to read
    start after the first refresh, as they did before the hook."""
    from textual.app import App

    from tui.ui.app import AbstractsApp

    monkeypatch.setattr(AbstractsApp, "_display", App._display)
    app, last_file = app_reading(tmp_path, monkeypatch, first_files=1)
    async with app.run_test(size=(160, 40)) as pilot:
        last_file.set()
        await wait_until(pilot, lambda: not app.loading.active, timeout=30)
        assert app._first_frame_shown
