"""The notes view (every note, orphaned ones included) and the orphan resolver."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.corpus.model import Abstract, Corpus
from tui.sanitize import visible_line
from tui.triage.marks import RowMarks
from tui.ui.screens.abstracts_view import ACT_KEYS, AbstractsView
from tui.ui.widgets.option_list import KeyedOptionList

if TYPE_CHECKING:
    from tui.store.attach import Ambiguity
    from tui.store.records import NoteRecord

PREVIEW_CHARS = 160
#: A multi-line note shows its first lines as written, not run together into one.
PREVIEW_LINES = 3


def preview_lines(text: str) -> list[str]:
    """The first `PREVIEW_LINES` non-blank lines of a note, each cut at `PREVIEW_CHARS`;
    the last ends in "…" when more of the note follows."""
    # Only the start is read: a note of megabytes must not be split whole to show 3 lines.
    start = text[: PREVIEW_LINES * PREVIEW_CHARS * 8]
    lines = [line.rstrip() for line in start.splitlines() if line.strip()]
    if len(start) < len(text):
        lines.append("…")  # more follows, whatever it is
    shown = [visible_line(line) for line in lines[:PREVIEW_LINES]]
    shown = [
        line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…" for line in shown
    ]
    if len(lines) > PREVIEW_LINES and shown and not shown[-1].endswith("…"):
        shown[-1] += " …"
    return shown


class NotesScreen(ModalScreen[str | None], AbstractsView):
    """Notes with their headlines; Enter jumps to a loaded abstract, b/x/r mark it. Orphans
    show their snapshot.

    A note edited in two places at once keeps both texts; `d` drops the other copy
    once the user has merged what they want (the only way a copy goes away).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,N", "dismiss(None)", "Back", id="notes.back"),
        Binding("d", "drop_copy", "Drop conflict copy", id="notes.drop_copy"),
    ]

    @dataclass
    class ConflictDropped(Message):
        """The user dropped a conflict copy: the app removes it from the store."""

        copy_id: int

    def __init__(self, corpus: Corpus) -> None:
        super().__init__()
        #: The notes listed (`show` sets them), newest first.
        self.notes: list[NoteRecord] = []
        self.corpus = corpus

    def compose(self) -> ComposeResult:
        with Vertical(id="notes-box") as box:
            box.border_title = self._title()
            box.border_subtitle = (
                "Enter jumps to the abstract (an orphan's note opens) · Esc returns"
            )
            orphans = Static(self._orphans_text(), id="notes-orphans")
            orphans.display = self._has_orphans()
            yield orphans
            empty = Static("No notes yet: press n on an abstract to write one.", id="notes-empty")
            empty.display = not self.notes
            yield empty
            yield KeyedOptionList(*(self._option(n) for n in self.notes), id="notes-list")
            yield Static(Text(f"{ACT_KEYS} · d drops a conflict copy"), classes="view-keys")

    def _title(self) -> str:
        return f"Notes ({len(self.notes):,})"

    def _has_orphans(self) -> bool:
        return any(n.orphaned for n in self.notes)

    def _orphans_text(self) -> Text:
        orphaned = sum(1 for n in self.notes if n.orphaned)
        return Text(
            f"{orphaned} note(s) belong to abstracts not loaded now; they are kept with a copy "
            "of their abstract and re-attach when it is opened again.",
            style="dim",
        )

    def show(self, notes: Sequence[NoteRecord], marks: RowMarks | None) -> None:
        """List these notes (before each opening: the view is built once, see
        ui/screens/prepared.py), from the first one, as a new view would."""
        self.marks = marks if marks is not None else RowMarks()
        self.notes = list(notes)
        boxes = self.query("#notes-box").results(Vertical)
        if (box := next(boxes, None)) is None:
            return  # not composed yet: compose reads them
        box.border_title = self._title()
        orphans = self.query_one("#notes-orphans", Static)
        orphans.update(self._orphans_text())
        orphans.display = self._has_orphans()
        self.query_one("#notes-empty", Static).display = not self.notes
        options = self.query_one("#notes-list", OptionList)
        options.set_options(self._option(n) for n in self.notes)
        if self.notes:
            options.action_first()
        self.set_focus(options)

    def _option(self, note: NoteRecord) -> Option:
        # Notes, headlines and origins may come from an import: shown, never obeyed.
        marks = self.marks
        title = Text.assemble(
            (marks.cells(note.id) + " ", "bold"),
            (visible_line(note.headline or note.id), "bold"),
        )
        if note.orphaned:
            title.append("  (orphaned: not loaded)", style="italic yellow")
        body = Text.assemble(title)
        for number, line in enumerate(preview_lines(note.text)):
            body.append("\n")
            body.append("  ✎ " if number == 0 else "    ", style="yellow")
            body.append(line)
        for copy in getattr(note, "conflicts", ()):
            other = visible_line(" ".join(copy.text[: PREVIEW_CHARS * 8].split())[:PREVIEW_CHARS])
            body.append(f"\n  ⚠ also kept ({visible_line(copy.origin)}): ", style="bold red")
            body.append(other)
        body.append("\n")
        return Option(
            body,
            id=note.id,
        )

    def on_mount(self) -> None:
        # A screen mounting as the app ends may have lost its widgets already.
        for options in self.query("#notes-list").results(OptionList):
            options.focus()

    @property
    def highlighted(self) -> Abstract | None:
        position = self.query_one("#notes-list", OptionList).highlighted
        if position is None or not self.notes:
            return None
        return self.corpus.by_id.get(self.notes[position].id)

    def cannot_act(self) -> None:
        if self.query_one("#notes-list", OptionList).highlighted is not None:
            self.notify(
                "Its abstract is not loaded now: open its file to mark it.",
                timeout=3,
            )

    def repaint_marks(self, before: RowMarks) -> None:
        options = self.query_one("#notes-list", OptionList)
        for position, note in enumerate(self.notes):
            if before.cells(note.id) != self.marks.cells(note.id):
                options.replace_option_prompt_at_index(position, self._option(note).prompt)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_drop_copy(self) -> None:
        options = self.query_one("#notes-list", OptionList)
        if options.highlighted is None:
            return
        note = self.notes[options.highlighted]
        if not note.conflicts:
            self.notify("This note has no conflict copy.", timeout=3)
            return
        copy = note.conflicts[0]
        self.app.post_message(self.ConflictDropped(copy.copy_id))
        self.notes[options.highlighted] = replace(note, conflicts=tuple(note.conflicts[1:]))
        options.replace_option_prompt_at_index(
            options.highlighted, self._option(self.notes[options.highlighted]).prompt
        )
        self.notify("Conflict copy dropped.", timeout=3)


class ResolveScreen(ModalScreen[tuple[str, str] | None]):
    """An orphaned record matches two loaded abstracts equally well: the user picks one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Decide later", id="conflict.later")
    ]

    def __init__(self, ambiguity: Ambiguity, corpus: Corpus) -> None:
        super().__init__()
        self.ambiguity = ambiguity
        self.corpus = corpus

    def compose(self) -> ComposeResult:
        with Vertical(id="notes-box") as box:
            box.border_title = "Which abstract does this note belong to?"
            box.border_subtitle = "Enter picks · Esc decides later (the record is kept)"
            yield Static(
                "A note or bookmark belonged to an abstract that changed; these loaded abstracts match it "
                "equally well."
            )
            options = []
            for abstract_id, score in self.ambiguity.candidates:
                abstract = self.corpus.by_id.get(abstract_id)
                label = visible_line(abstract.headline if abstract else abstract_id)
                options.append(
                    Option(Text.assemble((f"{score:5.1f}  ", "bold"), label), id=abstract_id)
                )
            yield KeyedOptionList(*options)

    def on_mount(self) -> None:
        # A screen mounting as the app ends may have lost its widgets already.
        for options in self.query("#notes-list").results(OptionList):
            options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.dismiss((self.ambiguity.orphan_id, event.option.id))
