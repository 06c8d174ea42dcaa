"""Pilot tests of the filter: typing narrows the list, the count shows, matches are highlighted."""

from __future__ import annotations

from pathlib import Path

from tests.ui.helpers import wait_until
from tui.ui.app import make_app
from tui.ui.widgets.header import AppHeader


def status(app) -> str:
    return app.query_one(AppHeader).status_text.plain


async def test_typing_filters_and_shows_the_count(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash")
        assert app.focused is app.filter_input
        await pilot.press(*"contrastve")
        await wait_until(pilot, lambda: len(app.abstract_list.rows) < 76)
        n = len(app.abstract_list.rows)
        assert 0 < n < 76
        assert f"{n} matches · of 76" in status(app)
        spans = app.abstract_list.highlight_spans
        for i in app.abstract_list.rows:  # every row has a (typo-tolerant) match
            assert spans(app.corpus.abstracts[i].plain)
        top = app.corpus.abstracts[app.abstract_list.rows[0]]
        assert "contrastive" in top.plain.lower()
        # The matched word is highlighted in the detail pane.
        await pilot.press("enter")
        assert app.focused is app.abstract_list
        spans = app.detail.view.spans(app.detail.view.abstract.plain)
        highlighted = {app.detail.view.abstract.plain[s:e].lower() for s, e in spans}
        assert any(word.startswith("contrastive") for word in highlighted)


async def test_no_frame_shows_the_typed_text_without_its_answer(seeds_dir: Path) -> None:
    # Once the index is ready (small corpora search at once): each frame painted while
    # typing shows the filter's text and the list's answer to that same text.
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: app.search.index is not None)
        await pilot.press("slash")
        behind: list[str] = []
        display = app._display

        def checked(screen, update) -> None:  # type: ignore[no-untyped-def]
            if app.search.state.query_text != app.filter_input.value:
                behind.append(app.filter_input.value)
            display(screen, update)

        app._display = checked  # type: ignore[method-assign]
        for key in "contrastive learning":
            await pilot.press("space" if key == " " else key)
            await pilot.pause(0.02)
        assert app.search.state.query_text == "contrastive learning"
        assert behind == []


async def test_zero_results_show_an_empty_state(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash", *"qqqzzzxxx")
        await wait_until(pilot, lambda: len(app.abstract_list.rows) == 0)
        assert "0 matches · of 76" in status(app)
        assert "No abstract shares a word" in app.abstract_list.empty_text
        assert app.detail.view is None


async def test_escape_clears_the_filter_and_keeps_the_selection(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("j", "j", "j")
        chosen = app.abstract_list.current
        await pilot.press("slash", *"pruning")
        await wait_until(pilot, lambda: len(app.abstract_list.rows) < 76)
        await pilot.press("escape")
        await wait_until(pilot, lambda: len(app.abstract_list.rows) == 76)
        assert app.focused is app.abstract_list
        assert app.abstract_list.current is chosen


async def test_a_bad_query_is_reported_not_raised(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash", *"year:abc")
        await wait_until(pilot, lambda: app.filter_input.has_class("-error"))
        assert "year" in str(app.filter_input.tooltip)
        # Explained under the filter, not as a toast per keystroke.
        assert "year" in str(app.query_one("#query-error").render())
        assert app.query_one("#query-error").display
        assert not list(app._notifications)
        app.filter_input.value = "year:2023 "
        await wait_until(pilot, lambda: not app.filter_input.has_class("-error"))
        assert all(app.corpus.abstracts[i].collection.year == 2023 for i in app.abstract_list.rows)


async def test_large_corpora_index_in_a_child_process(seeds_dir: Path, monkeypatch) -> None:
    from tui import caches

    monkeypatch.setattr(caches, "SUBPROCESS_THRESHOLD", 0)
    monkeypatch.setattr("tui.session.loaders.APP_INDEX_SIZE", 0)  # by the child too
    started = []
    real = caches.CacheBuild

    class Spy(real):
        def __init__(self, *args, **kwargs) -> None:
            started.append(True)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(caches, "CacheBuild", Spy)
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash", *"pruning")
        await wait_until(pilot, lambda: 0 < len(app.abstract_list.rows) < 76, timeout=60)
        await wait_until(pilot, lambda: app.triage.similarity is not None, timeout=60)
        assert started == [True]
        assert not app.search.indexing


async def test_keys_arriving_in_one_burst_after_slash_go_into_the_filter(seeds_dir: Path) -> None:
    from textual import events

    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        # As a paste or a fast typist over SSH delivers them: all queued before any is handled.
        for char in "/quantum":
            key = events.Key("slash" if char == "/" else char, char)
            key.set_sender(app)
            app._driver.send_message(key)  # the path terminal input takes
        await wait_until(pilot, lambda: app.filter_input.value == "quantum")
        assert app.is_running
        assert app.screen is app.screen_stack[0]  # no note editor or other screen opened


async def test_escape_from_the_results_keeps_the_abstract_found(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("j", "j")
        await pilot.press("slash", *"pruning", "enter", "j")
        found = app.abstract_list.current
        await pilot.press("escape")
        await wait_until(pilot, lambda: len(app.abstract_list.rows) == 76)
        assert app.abstract_list.current is found


async def test_quitting_never_waits_for_an_index_build(seeds_dir: Path, monkeypatch) -> None:
    from tui.search import cache as search_cache

    builds = []
    real = search_cache.load_or_build

    def counted_build(corpus, cache_dir):
        builds.append(True)
        return real(corpus, cache_dir)

    monkeypatch.setattr(search_cache, "load_or_build", counted_build)
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: app.search.index is not None)  # the start-up build is done
        before = len(builds)
        app.quitting = True  # as quitting sets it: a search after this must not build
        app.search.index = None
        assert app.search.ensure_index() is None
        assert len(builds) == before


async def test_keys_right_after_enter_in_the_filter_act_on_the_results(seeds_dir: Path) -> None:
    from textual import events

    from tui.ui.screens.similar import SimilarScreen

    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash", *"pruning")
        await wait_until(pilot, lambda: len(app.abstract_list.rows) < 76)
        for key, char in (("enter", "\r"), ("m", "m")):  # one burst, as a fast typist sends it
            event = events.Key(key, char)
            event.set_sender(app)
            app._driver.send_message(event)
        await wait_until(pilot, lambda: isinstance(app.screen, SimilarScreen))
        assert app.filter_input.value == "pruning"


async def test_closest_matches_follow_behind_a_divider(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        # Two words no single seed abstract has together, each in some.
        await pilot.press("slash", *"pruning molecules ")
        await wait_until(pilot, lambda: app.search.match_counts is not None)
        matched, close = app.search.match_counts
        assert close > 0
        assert len(app.abstract_list.rows) == matched + close
        assert app.abstract_list.divider == matched
        assert f"{close} close · of 76" in status(app)
        strip = app.abstract_list.render_line(matched - int(app.abstract_list.scroll_y))
        assert "closest matches" in "".join(segment.text for segment in strip)
        # The cursor walks from the full matches over the divider to the close ones.
        await pilot.press("enter")
        for _ in range(matched):
            await pilot.press("j")
        assert app.abstract_list.cursor == matched
        assert app.abstract_list.current.index == app.abstract_list.rows[matched]


async def test_a_title_with_a_missing_word_still_finds_its_abstract(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        # Words of a seed abstract, in other forms, with stop words and one word it lacks.
        await pilot.press("slash", *"Towards pruned network via zebras")
        await wait_until(pilot, lambda: app.search.match_counts is not None)
        assert app.abstract_list.rows
        top = app.corpus.abstracts[app.abstract_list.rows[0]].plain.lower()
        assert "prun" in top and "network" in top


async def test_the_filter_waits_for_the_index_and_says_so(seeds_dir: Path, monkeypatch) -> None:
    import threading

    from tui.search import cache

    release = threading.Event()
    real = cache.load_or_build

    def slow(*args, **kwargs):
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(cache, "load_or_build", slow)
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash", *"pruning")
        await wait_until(pilot, lambda: "waits for the search index" in status(app))
        assert "of 76" not in status(app)  # never the unfiltered list as a result
        assert " / 76 read" not in status(app)  # nor its counts
        assert len(app.abstract_list.rows) == 76
        release.set()
        await wait_until(pilot, lambda: app.search.match_counts is not None)
        assert 0 < len(app.abstract_list.rows) < 76
        assert "matches" in status(app) or "match" in status(app)


async def test_a_late_result_for_an_older_query_never_paints_over_the_newer_one(
    seeds_dir: Path,
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("slash", *"pruning ")
        await wait_until(pilot, lambda: app.search.match_counts is not None)
        shown = list(app.abstract_list.rows)
        counts = app.search.match_counts
        # A slower worker for an earlier text (and one for the other order) reports late.
        app.search.apply_search("prun", "relevance", [0, 1, 2], lambda text: [], (3, 0))
        app.search.apply_search("pruning ", "file", [5], lambda text: [], (1, 0))
        assert list(app.abstract_list.rows) == shown
        assert app.search.match_counts == counts
        # The current text and order do paint.
        app.search.apply_search("pruning ", "relevance", [7], lambda text: [], (1, 0))
        assert list(app.abstract_list.rows) == [7]
