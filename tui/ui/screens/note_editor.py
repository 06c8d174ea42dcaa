"""The note editor: a Markdown TextArea over one abstract's note.

Saved while typing (debounced, and at least every `max_wait` seconds while the
typing goes on) and again when the editor closes, never only on quit: the app
hands the text to the store, which writes it on its thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from tui.corpus.model import Abstract
from tui.sanitize import visible, visible_line
from tui.ui.clock import TimerHandle, clock_of

#: The longest note the editors (this one, $EDITOR) save, in characters: about 1 MB of
#: text, hundreds of pages; the TextArea stays responsive well past it.
MAX_NOTE_CHARS = 1_000_000


def too_long(length: int) -> str:
    """What is said when a note of `length` characters is refused."""
    return (
        f"A note takes at most {MAX_NOTE_CHARS:,} characters; this one would have "
        f"{length:,}. Nothing was changed."
    )


class NoteArea(TextArea):
    """A TextArea that shows control characters in the note (an import may bring them) as
    symbols: the text itself is kept as it is, only what reaches the terminal changes."""

    def get_line(self, line_index: int) -> Text:
        # As TextArea.get_line, one character for one, so cursor columns and highlights
        # stay where they were (rich's Text alone would drop some controls, shifting them).
        return Text(visible(self.document.get_line(line_index)), end="", no_wrap=True)

    async def _on_key(self, event: events.Key) -> None:
        # With tab_behavior="indent" TextArea takes Esc to move the focus; here Esc is the
        # screen's (save and close): preventing TextArea's handler leaves it to the bindings.
        # (Every other key goes on to TextArea's own `_on_key`, which Textual calls next.)
        if event.key == "escape":
            event.prevent_default()

    async def _on_paste(self, event: events.Paste) -> None:
        # A paste that would take the note past the limit is refused whole (TextArea's
        # own paste handler, called next, is prevented), and the user told.
        length = len(self.text) + len(event.text)
        if length > MAX_NOTE_CHARS:
            event.prevent_default()
            event.stop()
            self.notify(too_long(length), severity="warning", timeout=8, markup=False)


#: Typing that never pauses as long as the debounce is still saved this often.
MAX_WAIT_SECONDS = 2.0


class NoteEditorScreen(ModalScreen[str]):
    """Edit a note; Esc saves and closes. Saving is the app's: the screen posts
    `NoteEditorScreen.Changed` to it (while typing, debounced, and on closing)."""

    @dataclass
    class Changed(Message):
        """The note's text should be saved (empty: the note is to be deleted)."""

        abstract: Abstract
        text: str

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Save and close", id="note.close")
    ]

    def __init__(
        self,
        abstract: Abstract | None = None,
        text: str = "",
        *,
        debounce: float = 1.0,
        max_wait: float = MAX_WAIT_SECONDS,
        orphaned: bool = False,
    ) -> None:
        super().__init__()
        #: The abstract whose note is edited (None: an editor built before it is opened,
        #: see `open_on`).
        self.abstract = abstract
        self.orphaned = orphaned
        self.initial = text
        self.debounce = debounce
        self.max_wait = max_wait
        self._timer: TimerHandle | None = None
        # Started by the first unsaved change and not pushed back by later ones: typing
        # without a pause is still saved every `max_wait` seconds.
        self._deadline: TimerHandle | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="editor-box") as box:
            box.border_title = "Note"
            box.border_subtitle = "saved as you type · empty deletes · Esc closes"
            yield Static(self._headline(), id="editor-headline")
            orphan = Static(self._orphan_text(), id="editor-orphan")
            orphan.display = self.orphaned
            yield orphan
            # Tab indents (a list in a note); NoteArea leaves Esc to this screen.
            yield NoteArea(self.initial, language="markdown", tab_behavior="indent", id="note-text")

    def _headline(self) -> Text:
        headline = self.abstract.headline if self.abstract is not None else ""
        return Text(visible_line(headline), style="bold")

    def _orphan_text(self) -> Text:
        if not self.orphaned or self.abstract is None:
            return Text()
        return Text(
            "This abstract is not loaded now; the note is kept with a stored copy:\n"
            + visible(self.abstract.text),
            style="dim",
        )

    def open_on(self, abstract: Abstract, text: str, *, orphaned: bool = False) -> None:
        """Edit `abstract`'s note (`text`) in this editor, built before and maybe used for
        another note: it shows this one as a new editor would (the cursor at its end, no
        undo history of the other note), and saves nothing until it is changed."""
        self._stop_timers()
        self.abstract, self.initial, self.orphaned = abstract, text, orphaned
        area = self._area()
        if area is None:
            return  # not composed yet: compose reads them
        self.query_one("#editor-headline", Static).update(self._headline())
        orphan = self.query_one("#editor-orphan", Static)
        orphan.update(self._orphan_text())
        orphan.display = orphaned
        with area.prevent(TextArea.Changed):  # loading is no change of the note
            area.load_text(text)
        self._start_at_end(area)

    def on_mount(self) -> None:
        area = self._area()
        # Built before it is opened (no abstract yet), `open_on` does this; and a screen
        # mounting as the app ends may have lost its widgets already.
        if area is not None and self.abstract is not None:
            self._start_at_end(area)

    def _start_at_end(self, area: TextArea) -> None:
        self.set_focus(area)  # now: the keys typed after `n` wait for it (ui/key_router.py)
        area.move_cursor(area.document.end)

    def _area(self) -> TextArea | None:
        """The text area, or None while the screen is still being composed (it was pushed
        a moment ago: the data may open, or the app quit, before it is)."""
        areas = self.query("#note-text").results(TextArea)
        return next(areas, None)

    @property
    def text(self) -> str:
        area = self._area()
        return self.initial if area is None else area.text

    def put_above(self, saved: str) -> None:
        """The note saved before, known only now (the editor opened before the user's data
        did): put it above what was typed, which is then saved as one note."""
        area = self._area()
        above = saved.rstrip("\n") + "\n"
        if area is None:
            self.initial = above + self.initial
            return
        self.initial = saved
        area.insert(above, location=(0, 0))

    def on_text_area_changed(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        clock = clock_of(self)
        self._timer = clock.set_timer(self, self.debounce, self._save)
        if self._deadline is None:
            self._deadline = clock.set_timer(self, self.max_wait, self._save)

    def _stop_timers(self) -> None:
        for timer in (self._timer, self._deadline):
            if timer is not None:
                timer.stop()
        self._timer = self._deadline = None

    def _save(self) -> None:
        self._stop_timers()
        if self.abstract is None or self not in self.app.screen_stack:
            # Closed (a late change of the note it showed, or a timer): closing saved it,
            # and its text may be another abstract's by now.
            return
        # To the app directly: a message left in this screen's queue would be lost
        # when Esc closes it.
        self.app.post_message(self.Changed(self.abstract, self.text))

    def action_close(self) -> None:
        self._save()
        self.dismiss(self.text)
