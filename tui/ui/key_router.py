"""Keys in the order typed, each routed as the screen it reaches would route it.

Textual hands a key to the focused widget's own queue and checks the bindings only
once it has bubbled back up to the app, so a burst of keys (typed at launch, before
the first frame; a paste; a fast typist over SSH) is spread over several queues
before the first of them acts: the keys after an `n` reach the list, not the note
editor `n` opens, and the keys typed before the app's first frame went to the filter.

Here every key waits until the screen it belongs to exists (a screen just pushed is
mounted, its focus set), then runs: a priority binding at once; on the main screen's
list and detail pane (which take no text) their bindings at once, from the focused
widget up, exactly as Textual would look them up; anything else goes on to the
focused widget as before. A key that opens a screen or moves the focus has therefore
done so before the next key is routed.

A key that goes on to a text field and is not text (Backspace, the arrows, Home) acts
through the field's bindings, which Textual checks only once the key has bubbled from
the field through every container up to the app; a letter after it is the field's own
key, inserted as soon as it reaches the field. So the key after such a key waits until
it has landed (the app saw it bubble up, or a widget on the way stopped it): typed in
one burst, Backspace Backspace `a` edits the field in that order.
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING

from textual import events

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from tui.ui.host import Host

#: How often keys held for a screen still mounting look again (seconds).
RETRY_SECONDS = 0.005
#: The longest a key waits for the one before it to bubble up (one that a widget drops
#: without stopping it, e.g. as it is removed, would otherwise hold every key after it).
LANDING_SECONDS = 0.5


class KeyRouter:
    """The app's keys, held while their screen is mounting and routed one at a time."""

    def __init__(self, app: Host) -> None:
        self.app = app
        self.held: deque[events.Key] = deque()
        self._retrying = False
        #: Where the last key went on to (its own queue handles it later).
        self._forwarded_to: MessagePump | None = None
        #: A key sent on to a widget that acts through a binding once it has bubbled up
        #: to the app, and when it was sent: the next key waits for it (see the module).
        self._in_flight: tuple[events.Key, float] | None = None

    async def route(self, key: events.Key) -> None:
        """A key from the terminal: routed now, or after the keys held before it."""
        if key.key == "ctrl+j":
            # Enter typed before the terminal went raw (while the app started) was turned
            # into a line feed by the tty (ICRNL), which Textual reads as Ctrl+J. Both
            # mean Enter, as in a shell.
            enter = events.Key("enter", "\r")
            enter.set_sender(self.app)
            key = enter
        self.held.append(key)
        await self.release()

    async def release(self) -> None:
        """Route the keys held, in order, while their screen is ready to take them."""
        self._retrying = False
        while self.held:
            if not self._ready_for(self.held[0]):
                self._retry_later()
                return
            await self._route_one(self.held.popleft())

    def _ready_for(self, key: events.Key) -> bool:
        app = self.app
        if app.closing:
            return True  # keys then go where Textual sends them; nothing waits for a screen
        if self._in_flight is not None:
            in_flight, sent = self._in_flight
            if in_flight._stop_propagation or time.monotonic() - sent > LANDING_SECONDS:
                self._in_flight = None  # handled on its way up (or lost): it bubbles no more
            else:
                return False
        screen = app.screen
        focused = screen.focused
        if not screen.is_mounted or (focused is not None and not focused.is_mounted):
            return False
        # Text typed into a field is in that field's queue: a key that may act on it or
        # move the focus away (Esc, Enter, Tab) waits until the text has landed. Text
        # after text goes to the same queue, in order, without waiting.
        typed_into = self._forwarded_to
        if key.is_printable or typed_into is None or not typed_into.is_attached:
            return True
        return typed_into._message_queue.empty()

    def _retry_later(self) -> None:
        if not self._retrying:
            self._retrying = True
            # Through the app's queue: a screen's `on_mount` focus (`Widget.focus` is
            # itself a callback in that queue) is settled before the keys are routed.
            self.app.set_timer(RETRY_SECONDS, lambda: self.app.call_later(self.release))

    async def _route_one(self, key: events.Key) -> None:
        app = self.app
        # Textual's private binding lookup, the one its own key handling uses: priority
        # bindings from the app down, the others from the focused widget up.
        if await app._check_bindings(key.key, priority=True):
            return
        focused = app.focused
        takes_no_text = focused is not None and app.takes_no_text(focused)
        if takes_no_text and await app._check_bindings(key.key):
            return
        target = focused or app.screen
        if not key.is_printable:
            self._in_flight = (key, time.monotonic())
        target._forward_event(key)
        self._forwarded_to = target

    async def landed(self, key: events.Key) -> None:
        """`key`, sent on to a widget, has bubbled up to the app and its binding has run:
        the keys held behind it go on."""
        if self._in_flight is not None and self._in_flight[0] is key:
            self._in_flight = None
            await self.release()
