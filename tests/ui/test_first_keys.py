"""Keys typed before the screen they belong to exists are routed as they will be once
it does: in order, `/` and then text into the filter, text after `n` into the note.

The keys are put in the app's queue before its first frame, as a terminal's input
buffer delivers what was typed while the program started.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from tests.ui.helpers import keys_handled, wait_for_userdata, wait_until
from tui.ui.app import AbstractsApp, make_app
from tui.ui.screens.note_editor import NoteEditorScreen

NAMES = {"/": "slash", " ": "space", "\x1b": "escape", "\r": "enter", "\n": "ctrl+j"}


def typed_at_launch(app: AbstractsApp, text: str) -> None:
    """Queue `text` as key presses that arrive before the app's first frame."""
    build = app._build_driver

    def build_then_type(*args: object, **kwargs: object):
        driver = build(*args, **kwargs)  # type: ignore[arg-type]
        for char in text:
            key = events.Key(NAMES.get(char, char), None if char == "\x1b" else char)
            key.set_sender(app)
            app.post_message(key)
        return driver

    app._build_driver = build_then_type  # type: ignore[method-assign]


async def test_slash_and_words_typed_at_launch_fill_the_filter(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    typed_at_launch(app, "/graph neural")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.filter_input.value == "graph neural")
        await wait_for_userdata(pilot)
        assert app.screen is app.screen_stack[0]  # no note editor opened by the `n`
        assert app.focused is app.filter_input
        assert app.personal.userdata.read_ids() == set()  # the `r` was text


async def test_enter_typed_before_the_terminal_went_raw_leaves_the_filter(
    seeds_dir: Path,
) -> None:
    # Typed while the app starts, Enter reaches it as a line feed (the tty's ICRNL):
    # it must still take the keys after it to the list, where `b` bookmarks.
    app = make_app([seeds_dir])
    typed_at_launch(app, "/contrastive\njb")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        await wait_until(pilot, lambda: bool(app.personal.userdata.bookmarked_ids()))
        assert app.filter_input.value == "contrastive"
        assert app.focused is app.abstract_list
        assert len(app.personal.userdata.bookmarked_ids()) == 1  # `b` was not text


async def test_text_typed_after_n_at_launch_is_the_note(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    typed_at_launch(app, "jjnfirst thoughts: read again")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, NoteEditorScreen))
        editor = app.screen
        await wait_until(pilot, lambda: editor.text == "first thoughts: read again")
        await wait_for_userdata(pilot)
        assert editor.abstract.id == app.corpus.abstracts[2].id
        await pilot.press("escape")
        assert app.personal.userdata.note(editor.abstract.id) == "first thoughts: read again"


async def test_keys_after_esc_in_the_filter_are_the_lists(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    typed_at_launch(app, "/x\x1bjjb")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        await wait_until(pilot, lambda: bool(app.personal.userdata.bookmarked_ids()))
        assert app.filter_input.value == ""
        assert app.personal.userdata.bookmarked_ids() == {app.corpus.abstracts[2].id}


def test_an_editor_not_yet_composed_takes_the_saved_note_above(seeds_dir: Path) -> None:
    from tui.corpus.load import load_corpus

    abstract = load_corpus([seeds_dir]).abstracts[0]
    editor = NoteEditorScreen(abstract, "typed")
    assert editor.text == "typed"
    editor.put_above("saved before\n")
    assert editor.text == "saved before\ntyped"


@pytest.mark.parametrize("delay_turns", [0, 1, 3])
async def test_n_and_text_right_after_the_first_frame_never_crash(
    seeds_dir: Path, delay_turns: int
) -> None:
    from tests.ui.test_queued_actions import held_closed, open_now

    app = make_app([seeds_dir])
    held_closed(app, pytest.MonkeyPatch())
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(delay_turns):
            await pilot.pause()
        for char in "nabc":
            key = events.Key(char, char)
            key.set_sender(app)
            app._driver.send_message(key)
        await open_now(pilot)  # the data opens while the editor may still be composing
        await wait_until(pilot, lambda: isinstance(app.screen, NoteEditorScreen))
        await wait_until(pilot, lambda: app.screen.text == "abc")
        assert app.is_running


async def quit_with_a_filter(seeds_dir: Path, data_dir: Path, text: str) -> None:
    """A session that ends with `text` in the filter (restored at the next start)."""
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("slash", *text, "enter")
        await pilot.press("q")


async def test_typing_before_the_data_opens_replaces_the_restored_filter(
    seeds_dir: Path, data_dir: Path
) -> None:
    await quit_with_a_filter(seeds_dir, data_dir, "diffusion")
    again = make_app([seeds_dir], data_dir=data_dir)
    opening = again.personal.open
    again.personal.open = lambda: None  # type: ignore[method-assign]
    typed_at_launch(again, "/gra")
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: again.filter_input.value == "gra")
        opening()  # the data (and with it last time's filter) opens mid-typing
        await wait_for_userdata(pilot)
        await pilot.press(*"ph neural")
        assert again.filter_input.value == "graph neural"


async def test_the_filter_from_last_time_comes_back_when_nothing_was_typed(
    seeds_dir: Path, data_dir: Path
) -> None:
    await quit_with_a_filter(seeds_dir, data_dir, "diffusion")
    again = make_app([seeds_dir], data_dir=data_dir)
    typed_at_launch(again, "jj")
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        await wait_until(pilot, lambda: again.filter_input.value == "diffusion")


def typed_at_once(app: AbstractsApp, keys: list[tuple[str, str | None]]) -> None:
    """Put `keys` in the app's queue together, as a terminal delivers a burst in one read."""
    for name, char in keys:
        key = events.Key(name, char)
        key.set_sender(app)
        app.post_message(key)


@pytest.mark.parametrize(
    ("burst", "expected"),
    [
        # Backspace is the field's binding, run once the key has bubbled up to the app;
        # the letters after it are the field's own keys, inserted where they land.
        ([("backspace", "\x7f"), ("backspace", "\x7f"), *[(c, c) for c in "aph"]], "graph"),
        ([("left", None), ("left", None), *[(c, c) for c in "xy"]], "grxyaf"),
        ([("home", None), ("delete", None), ("x", "x")], "xraf"),
    ],
)
async def test_keys_in_one_burst_edit_the_filter_in_the_order_typed(
    seeds_dir: Path, burst: list[tuple[str, str | None]], expected: str
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("slash", *"graf")
        await wait_until(pilot, lambda: app.filter_input.value == "graf")
        typed_at_once(app, burst)
        await keys_handled(pilot)
        assert app.filter_input.value == expected
