"""A note typed without ever pausing for the debounce is still saved.

Typing a key every 0.6 s never left the 1 s debounce time to fire, so nothing was
saved until a pause: a crash after minutes of steady typing lost the whole note.
The app runs on a manual clock: the test moves time on between keys instead of sleeping.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from tests.ui.helpers import wait_for_userdata
from tui.store.db import Store
from tui.ui.app import make_app
from tui.ui.clock import ManualClock
from tui.ui.screens.note_editor import MAX_WAIT_SECONDS as NOTE_MAX_WAIT_SECONDS


async def test_steady_typing_is_saved_at_least_every_two_seconds(
    seeds_dir: Path, data_dir: Path
) -> None:
    assert NOTE_MAX_WAIT_SECONDS <= 2.0
    clock = ManualClock()
    app = make_app([seeds_dir], data_dir=data_dir, clock=clock)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        await pilot.press("n")
        saves: list[tuple[float, str]] = []
        save = app.personal.userdata.save_note

        def spy(abstract, text: str) -> None:
            saves.append((clock.now - start, text))
            save(abstract, text)

        app.personal.userdata.save_note = spy
        start = clock.now
        typed = ""
        step = 0.6
        for key in "steadily":  # a key every 0.6 s: the 1 s debounce never comes
            await pilot.press(key)
            typed += key
            clock.advance(step)
            await pilot.pause()
        ended = clock.now - start
        # Saved while the typing went on, at least every `max_wait` seconds (a save is
        # seen at the end of the step it fell due in).
        assert len(saves) >= 2, "nothing was saved while typing"
        times = [0.0] + [t for t, _ in saves] + [ended]
        assert max(b - a for a, b in itertools.pairwise(times)) <= NOTE_MAX_WAIT_SECONDS + step
        assert all(typed.startswith(text) for _, text in saves)
        assert app.personal.userdata.flush(timeout=5)
        store = Store.open(data_dir, read_only=True)
        try:
            on_disk = store.load().notes[target.id].text
        finally:
            store.close()
        assert on_disk == saves[-1][1]
        await pilot.press("escape")


async def test_a_pause_in_typing_saves_after_the_debounce(seeds_dir: Path) -> None:
    clock = ManualClock()
    app = make_app([seeds_dir], clock=clock)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        await pilot.press("n", "h", "i")
        clock.advance(0.9)
        await pilot.pause()
        assert app.personal.userdata.note(target.id) is None
        clock.advance(0.2)
        await pilot.pause()
        assert app.personal.userdata.note(target.id) == "hi"
        await pilot.press("escape")
