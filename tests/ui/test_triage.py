"""Pilot tests of the triage flow: Space, undo and redo, more like this, resume."""

from __future__ import annotations

from pathlib import Path

from textual.css.query import NoMatches

from tests.ui.helpers import wait_for_userdata, wait_until
from tui.ui.app import make_app
from tui.ui.screens.overview import OverviewScreen
from tui.ui.screens.similar import SimilarScreen


async def test_space_marks_read_and_moves_to_the_next_unread(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        third = app.corpus.abstracts[2]
        app.personal.userdata.set_read([app.corpus.abstracts[1]], True)
        first = app.abstract_list.current
        await pilot.press("space")
        assert app.personal.userdata.is_read(first.id)
        assert app.abstract_list.current is third  # the read second one is skipped


async def test_undo_and_redo_a_bulk_mark_read(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("b")
        await pilot.press("A")
        assert len(app.personal.userdata.read_ids()) == 76
        await pilot.press("u")
        assert len(app.personal.userdata.read_ids()) == 0
        assert app.personal.userdata.is_bookmarked(app.abstract_list.current.id)
        await pilot.press("u")
        assert not app.personal.userdata.is_bookmarked(app.abstract_list.current.id)
        await pilot.press("ctrl+r", "ctrl+r")
        assert len(app.personal.userdata.read_ids()) == 76
        assert app.personal.userdata.is_bookmarked(app.abstract_list.current.id)


async def test_more_like_this_opens_and_jumps(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        start = app.abstract_list.current
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, SimilarScreen))
        rows = app.screen.rows
        assert 0 < len(rows) <= 10
        assert all(a is not start for a, _, _ in rows)
        assert all(shared for _, _, shared in rows)  # each says which words it shares
        assert rows[0][1] >= rows[-1][1]
        await pilot.press("enter")
        assert not isinstance(app.screen, SimilarScreen)
        assert app.abstract_list.current is rows[0][0]


async def test_resume_reopens_where_the_user_left(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(100, 18)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("slash", *"vision")
        await wait_until(pilot, lambda: len(app.abstract_list.rows) < 76)
        await pilot.press("enter", "j")
        chosen = app.abstract_list.current
        await pilot.press("tab", "j", "j", "j")  # read a little way into it
        detail_y = app.detail.scroll_y
        assert detail_y > 0
        await pilot.press("q")

    again = make_app([seeds_dir], data_dir=data_dir)
    async with again.run_test(size=(100, 18)) as pilot:
        await wait_for_userdata(pilot)
        await wait_until(
            pilot,
            lambda: (
                again.abstract_list.current is not None
                and again.abstract_list.current.id == chosen.id
            ),
        )
        assert again.filter_input.value == "vision"
        await wait_until(pilot, lambda: again.detail.scroll_y == detail_y)


async def test_quitting_right_after_typing_saves_the_filter_as_typed(
    seeds_dir: Path, data_dir: Path
) -> None:
    import json

    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(100, 18)) as pilot:
        await wait_for_userdata(pilot)
        # The input holds the new text; its Changed message has not reached the search
        # yet, as when `q` follows the last letter within a few milliseconds.
        app.filter_input.value = "vision"
        app.triage.save_resume()
        key = f"resume:{app.corpus.fingerprint}"
        assert json.loads(app.personal.userdata.get_state(key))["filter"] == "vision"


async def test_the_resume_timer_firing_after_the_widgets_went_does_nothing(
    seeds_dir: Path, data_dir: Path, monkeypatch
) -> None:
    # At the app's end the screen's widgets are removed before the app's own timers
    # stop: the resume save's timer, set by a key shortly before, could fire then.
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(100, 18)) as pilot:
        await wait_for_userdata(pilot)
        key = f"resume:{app.corpus.fingerprint}"
        before = app.personal.userdata.get_state(key)

        def gone(_app: object) -> None:
            raise NoMatches("No nodes match '#list'")

        monkeypatch.setattr(type(app), "abstract_list", property(gone))
        app.triage.save_resume()
        assert app.personal.userdata.get_state(key) == before


async def test_overview_filters_by_a_term_shared_by_two_collections(tmp_path: Path) -> None:
    body = (
        "Diffusion models sample images with a learned denoiser and guidance.\n\n"
        "Diffusion policies control robots with denoising of action sequences.\n\n"
        "Graph networks pass messages between nodes of molecules.\n\n"
    )
    for year in (2023, 2024):
        (tmp_path / f"{year}.txt").write_text(
            f"ICLR {year} Papers\n\n" + body.replace("sample", f"sample{year}"), encoding="utf-8"
        )
    app = make_app([tmp_path])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("O")
        await wait_until(pilot, lambda: isinstance(app.screen, OverviewScreen))
        await pilot.press("enter")  # the first collection: venue and year
        await wait_until(pilot, lambda: not isinstance(app.screen, OverviewScreen))
        assert app.filter_input.value.strip() == "venue:ICLR year:2023"
        await wait_until(pilot, lambda: len(app.abstract_list.rows) == 3)


async def test_undo_history_ends_at_a_restart_and_the_store_stays_intact(
    seeds_dir: Path, data_dir: Path
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("b", "A")
        await pilot.press("q")

    again = make_app([seeds_dir], data_dir=data_dir)
    async with again.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("u")
        assert len(again.personal.userdata.read_ids()) == 76
        assert len(again.personal.userdata.bookmarked_ids()) == 1
        assert any("Nothing to undo" in n.message for n in again._notifications)


async def test_a_near_duplicate_is_flagged_in_the_detail_pane(tmp_path: Path) -> None:
    original = (
        "We propose a sparse attention mechanism for long documents that scales linearly with "
        "sequence length, and show on three summarization benchmarks that it matches dense "
        "attention while using a fraction of the memory and compute."
    )
    reworded = original.replace("We propose", "This paper proposes").replace("three", "3")
    other = "Graph neural networks predict molecular properties from atoms and bonds."
    (tmp_path / "a.txt").write_text(
        f"ICLR 2023 Papers\n\n{original}\n\n{other}\n", encoding="utf-8"
    )
    (tmp_path / "b.txt").write_text(f"ICLR 2024 Papers\n\n{reworded}\n", encoding="utf-8")
    app = make_app([tmp_path])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)

        def meta() -> str:
            return app.detail.text_of("meta").plain

        await wait_until(pilot, lambda: "Near-duplicate" in meta())
        assert "b.txt" in meta()
        await pilot.press("j")  # the unrelated abstract is not flagged
        assert "Near-duplicate" not in meta()


async def test_the_theme_chosen_is_kept_for_the_next_start(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        app.theme = "textual-light"
        await pilot.press("q")

    again = make_app([seeds_dir], data_dir=data_dir)
    async with again.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        assert again.theme == "textual-light"


async def test_space_at_the_end_says_what_is_left_above(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("G", "space")
        messages = " ".join(n.message for n in app._notifications)
        assert "unread above" in messages


async def test_a_late_similar_list_never_pops_up_over_where_the_user_went(
    seeds_dir: Path, monkeypatch
) -> None:
    import threading

    from tui.ui.controllers.triage import TriageController

    real = TriageController.ensure_similarity
    built = threading.Event()

    def slow(self):
        built.wait(30)  # as when the model is still building for a large corpus
        return real(self)

    monkeypatch.setattr(TriageController, "ensure_similarity", slow)
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("m", "j", "j")  # the user moves on before the list is ready
        built.set()
        await wait_until(pilot, lambda: any("ready" in n.message for n in app._notifications))
        assert not isinstance(app.screen, SimilarScreen)
        assert app.abstract_list.cursor == 2
        assert any("ready" in n.message for n in app._notifications)
