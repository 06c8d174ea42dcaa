"""config.toml applied to the app: keys remapped by binding id, the theme, auto-read and the
order of filtered results; what cannot apply is reported (the file and the key named) and
the rest still works."""

from __future__ import annotations

import gc
import re
from pathlib import Path

import pytest
from textual.binding import Binding

from tests.conftest import REPO
from tests.ui.helpers import record_notifications, wait_for_userdata, wait_until
from tui.ui.app import make_app
from tui.ui.clock import ManualClock
from tui.ui.controllers.personal import READ_AFTER_SECONDS
from tui.ui.settings import binding_groups, configure
from tui.ui.shutdown import ShutdownGuard


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


async def test_a_remapped_key_runs_its_action_and_the_old_key_does_not(
    seeds_dir: Path, tmp_path: Path
) -> None:
    app = make_app([seeds_dir])
    configure(app, _config(tmp_path, '[keys]\n"abstracts.bookmark" = "s"\n'))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        first = app.abstract_list.current
        await pilot.press("b")
        assert not app.personal.userdata.is_bookmarked(first.id)
        await pilot.press("s")
        assert app.personal.userdata.is_bookmarked(first.id)


async def test_a_remapped_key_moves_in_the_views_of_abstracts_and_the_help(
    seeds_dir: Path, tmp_path: Path
) -> None:
    from tui.ui.screens.similar import SimilarScreen

    app = make_app([seeds_dir])
    configure(app, _config(tmp_path, '[keys]\n"abstracts.dismiss" = "z,ctrl+d"\n'))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        main = dict(app.help_sections()[0][1])
        assert main["z, ^d"] == "Not interested"
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SimilarScreen)
        shown = screen.highlighted
        assert shown is not None
        await pilot.press("z")
        assert app.personal.userdata.is_dismissed(shown.id)


async def test_swapping_two_keys_is_not_a_clash(
    seeds_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    said = record_notifications(app, monkeypatch)
    configure(
        app, _config(tmp_path, '[keys]\n"abstracts.bookmark" = "x"\n"abstracts.dismiss" = "b"\n')
    )
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await wait_until(pilot, lambda: not app.workers)
        assert said == []
        first = app.abstract_list.current
        await pilot.press("x")
        assert app.personal.userdata.is_bookmarked(first.id)
        assert not app.personal.userdata.is_dismissed(first.id)


async def test_unknown_ids_bad_keys_clashes_and_themes_are_reported_and_the_rest_applies(
    seeds_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _config(
        tmp_path,
        'theme = "no-such-theme"\nauto_read = "sometimes"\n[keys]\n'
        '"abstracts.bookmrk" = "s"\n'
        '"abstracts.read" = "ctrl+nothing"\n'
        '"abstracts.note" = "hyperctrl+n"\n'
        '"abstracts.tag" = "x"\n'
        '"abstracts.bookmark" = "s"\n',
    )
    app = make_app([seeds_dir])
    said = record_notifications(app, monkeypatch)
    configure(app, path)
    # What is known before the app runs: the values and the key names.
    assert len(said) == 4, said
    async with app.run_test(size=(140, 40)) as pilot:
        # The ids, checked against every screen's bindings once the app has painted.
        await wait_until(pilot, lambda: len(said) == 6)
        assert all(message.startswith(f"{path}: ") for message in said)
        text = "\n".join(said)
        assert "[keys] abstracts.bookmrk: no key binding has this id" in text
        assert "[keys] abstracts.read: 'ctrl+nothing' is not a key name" in text
        assert "[keys] abstracts.note: 'hyperctrl' is not a modifier" in text
        assert "[keys] abstracts.tag: x is already the key of abstracts.dismiss" in text
        assert "theme: no theme 'no-such-theme'" in text
        assert "auto_read: must be true or false" in text
        await wait_for_userdata(pilot)
        first = app.abstract_list.current
        await pilot.press("s")
        assert app.personal.userdata.is_bookmarked(first.id)
        await pilot.press("r")  # left as it was
        assert app.personal.userdata.is_read(first.id)
        await pilot.press("x")  # still "not interested": the clashing remap was left out
        assert app.personal.userdata.is_dismissed(first.id)


async def test_the_theme_in_the_config_wins_over_the_one_remembered(
    seeds_dir: Path, data_dir: Path, tmp_path: Path
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        app.theme = "textual-light"  # remembered in the user's data
        await pilot.press("q")

    again = make_app([seeds_dir], data_dir=data_dir)
    configure(again, _config(tmp_path, 'theme = "gruvbox"\n'))
    async with again.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        assert again.theme == "gruvbox"


async def test_auto_read_false_never_marks_by_dwell_time(seeds_dir: Path, tmp_path: Path) -> None:
    clock = ManualClock()
    app = make_app([seeds_dir], clock=clock)
    configure(app, _config(tmp_path, "auto_read = false\n"))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("j")
        target = app.abstract_list.current
        clock.advance(READ_AFTER_SECONDS * 10)
        await pilot.pause()
        assert not app.personal.userdata.is_read(target.id)
        assert not app.personal.auto_read


async def test_default_sort_wins_over_the_order_resumed(
    seeds_dir: Path, data_dir: Path, tmp_path: Path
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        assert app.search.order == "relevance"
        await pilot.press("q")  # the resume state keeps "relevance"

    again = make_app([seeds_dir], data_dir=data_dir)
    configure(again, _config(tmp_path, 'default_sort = "file"\n'))
    async with again.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        assert again.search.order == "file"


def test_every_binding_has_an_id_and_the_readme_lists_it() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z_]+\.[a-z_]+)`", readme))
    for place, bindings in binding_groups():
        for binding in bindings:
            assert isinstance(binding, Binding), place
            assert binding.id is not None, (place, binding)
            assert binding.id in documented, (place, binding.id)


async def test_the_readme_example_applies_without_a_problem(
    seeds_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Settings and your own keys", 1)[1]
    example = section.split("```toml\n", 1)[1].split("```", 1)[0]
    app = make_app([seeds_dir])
    said = record_notifications(app, monkeypatch)
    configure(app, _config(tmp_path, example))
    assert app.theme == "gruvbox"
    assert app.search.order == "file"
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: not app.workers)
        assert said == []


def test_the_command_line_applies_the_config_file(
    seeds_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui import cli
    from tui.ui.app import AbstractsApp

    _config(tmp_path, 'theme = "gruvbox"\ndefault_sort = "file"\n')
    monkeypatch.setenv("ABSTRACTS_CONFIG_DIR", str(tmp_path))
    seen: list[tuple[str, str]] = []

    def run(app: AbstractsApp) -> int:  # instead of taking over the terminal
        seen.append((app.theme, app.search.order))
        return 0

    monkeypatch.setattr(AbstractsApp, "run", run)
    # No signal handlers.
    monkeypatch.setattr(ShutdownGuard, "install", lambda self, terminal_modes=None: None)
    try:
        assert cli.main([str(seeds_dir)]) == 0
    finally:
        gc.enable()  # the command line pauses it until the app has painted
    assert seen == [("gruvbox", "file")]
