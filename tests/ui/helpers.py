"""Helpers for pilot tests."""

from __future__ import annotations

import asyncio

from textual.widgets import TextArea


async def wait_for_userdata(pilot, timeout: float = 10.0) -> None:
    """Wait until the app has opened the user's data (it does so after the first paint)."""
    app = pilot.app
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while app.personal.userdata is None:
        if loop.time() > deadline:
            raise AssertionError("the user's data never opened")
        await pilot.pause(0.02)
    await pilot.pause()


async def keys_handled(pilot, timeout: float = 10.0) -> None:
    """Wait until every key pressed so far has been handled and the detail pane shows
    the abstract under the cursor.

    `pilot.press` only waits until the process looks idle, for at most a second: on a
    loaded machine (background threads count as busy) it returns with keys still in
    the app's queue, and a step that reads the cursor next, or a picture taken then,
    would see the app half-way through them."""
    app = pilot.app
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout

    def settled() -> bool:
        focused = app.focused
        return (
            not app.keys.held
            and app._message_queue.empty()
            and (focused is None or focused._message_queue.empty())
            and app._shown_detail is app.abstract_list.current
        )

    while not settled():
        if loop.time() > deadline:
            raise AssertionError("the keys pressed were never all handled")
        await pilot.pause(0.01)
    await pilot.pause()


async def wait_until(pilot, predicate, timeout: float = 10.0) -> None:
    """Wait until `predicate()` is true (a worker result landed), or fail."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition never became true")
        await pilot.pause(0.02)
    await pilot.pause()


async def open_feed_with_bookmarks(pilot, count: int = 3):
    """Bookmark `count` abstracts three rows apart, open the feed and wait for its ranking."""
    from tui.ui.screens.feed import FeedScreen

    app = pilot.app
    for _ in range(count):
        await pilot.press("b", "j", "j", "j")
    await pilot.press("F")
    await wait_until(
        pilot,
        lambda: (
            isinstance(app.screen, FeedScreen)
            and not app.screen.state.pending
            and app.screen.state.items
        ),
    )
    return app.screen


def record_notifications(app, monkeypatch) -> list[str]:
    """Keep every message the app shows as a notification (toasts expire), in order."""
    said: list[str] = []
    notify = app.notify

    def spy(message, *args, **kwargs) -> None:
        said.append(str(message))
        notify(message, *args, **kwargs)

    monkeypatch.setattr(app, "notify", spy)
    return said


def steady_cursors(app) -> None:
    """Stop the text cursors blinking. Textual blinks them on a real half-second timer,
    so a picture taken a moment later on a loaded machine would lack the cursor."""
    for widget in app.screen.query("Input, TextArea"):
        widget.cursor_blink = False
        if isinstance(widget, TextArea):
            # TextArea caches its lines under a key that reads "no cursor" whenever the
            # blink is off, so a line cached in the blink's hidden half would be painted
            # without the cursor: forget the cached lines (a private cache, Textual 8).
            widget._line_cache.clear()
        widget.refresh()


#: The abstracts of `orphan_a_note`'s file: the first stays, the second is removed.
KEPT = "A paper about graph neural networks for molecules and their properties."
GONE = "A paper about reinforcement learning that will be removed from the file."


async def orphan_a_note(paper, data_dir) -> None:
    """Write `paper` with two abstracts, note "keep this" on the second, then remove it
    from the file: opened again, the note is an orphan's (kept with a stored copy)."""
    from tui.ui.app import make_app

    paper.write_text(f"ICLR 2023 Papers\n\n{KEPT}\n\n{GONE}\n", encoding="utf-8")
    app = make_app([paper], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("j", "n", *"keep this", "escape")
    paper.write_text(f"ICLR 2023 Papers\n\n{KEPT}\n", encoding="utf-8")
