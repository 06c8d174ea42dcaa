"""The footer: Textual's, composed again only when the keys it lists change.

Textual's footer removes every key's widget and mounts new ones at each refresh of the
bindings: each focus change, each screen shown, each `refresh_bindings`. A warm start
asked for about seven such recomposes between the first paint and the filter's first
answer, each 5–45 ms on the UI's thread, and most of them listed the same keys. Here a
recompose whose keys (with their descriptions, enabled states and tooltips) are those
already listed does nothing; one that lists other keys runs as Textual's does.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Footer


class AppFooter(Footer):
    """A footer that is composed again only when what it lists changes."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # What the last compose listed (None: composed from nothing yet).
        self._listed: tuple[object, ...] | None = None
        #: How many recomposes have run (the tests count them).
        self.recomposed = 0

    def listing(self) -> tuple[object, ...]:
        """What a compose now would list: every shown binding with its enabled state and
        tooltip, and the command palette's key (empty until the bindings are ready)."""
        # Textual's own flag (8.x); without it, the bindings are taken as ready.
        if not getattr(self, "_bindings_ready", True):
            return ()
        active = self.screen.active_bindings
        shown = tuple(
            (binding, enabled, tooltip)
            for _, binding, enabled, tooltip in active.values()
            if binding.show
        )
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        palette_key = (
            (palette[1], palette[2], palette[3])
            if palette is not None and self.show_command_palette
            else None
        )
        return (shown, palette_key, self.app.ENABLE_COMMAND_PALETTE)

    def compose(self) -> ComposeResult:
        self._listed = self.listing()
        yield from super().compose()

    async def recompose(self) -> None:
        if self._listed is not None and self.is_attached and self.listing() == self._listed:
            return  # the same keys: the widgets shown are what a compose would mount
        self.recomposed += 1
        await super().recompose()
