"""A screen built before it is first opened, then shown again instead of built anew.

Opening a screen costs Textual its compose, its mount and its first layout, and the
first time in the process the import of its module and the styles of its widgets: the
note editor (a TextArea with its Markdown parser) took 100 ms and more from its key on
a busy 2-core machine. A `PreparedScreen` builds its screen while the app is idle,
mounts and lays it out off the screen stack, and installs it, so that closing it keeps
it; each opening fills it with fresh content (the screen's own method) and pushes the
same instance. Only what the screen's content needs is done on the key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from textual.app import App
from textual.screen import Screen, ScreenResultCallbackType

S = TypeVar("S", bound=Screen[Any])


class PreparedScreen(Generic[S]):
    """One instance of a screen, made ready before it is needed (see the module)."""

    def __init__(self, name: str, build: Callable[[], S]) -> None:
        self.name = name
        self._build = build
        self._screen: S | None = None

    def prepare(self, app: App[Any]) -> None:
        """Build the screen, mount it off the stack and lay it out at the app's size (once)."""
        if self._screen is not None:
            return
        screen = self._screen = self._build()
        app.install_screen(screen, self.name)  # kept when it is closed, not removed
        # What `push_screen` does to a screen that is not running yet (Textual's private
        # `_register`: compose and mount in the screen's own task), without showing it.
        app._register(app, screen)
        # Once mounted, a first layout: its widgets get their sizes now, not on the key.
        screen.call_later(lambda: screen._refresh_layout(app.size))

    def ready(self, app: App[Any]) -> S | None:
        """The screen when it can be shown now: mounted, and not shown already (a second
        one opened over it is built anew). None otherwise: the caller builds one."""
        screen = self._screen
        if screen is None or not screen.is_mounted or screen in app.screen_stack:
            return None
        return screen

    def push(self, app: App[Any], screen: S, callback: ScreenResultCallbackType[Any]) -> None:
        """Show `screen` (the prepared one or a new one) over the app's screens, drawn at once.

        A new screen is laid out and drawn as soon as it is resumed, its size being new;
        the prepared one, its size unchanged, would be drawn only at the screen's next
        update tick (up to 1/60 s later, and later still when the loop is busy): it is
        laid out and drawn right after Textual's own handling of its resumption.
        """
        shown_again = screen is self._screen and screen._size == app.size
        app.push_screen(screen, callback)
        if shown_again:
            screen.call_later(lambda: screen._refresh_layout(app.size))
