"""The tag input (`t`): one line adding and removing tags, completed from the tags in use.

`to cite, -draft #rg` adds `to-cite` and `rg` and removes `draft` (see
`tui.tagnames.parse_tag_edit`). Tab or → accepts the completion shown. The screen
dismisses with the parsed `TagEdit` (None when closed or left empty); a name that
cannot be a tag is explained under the input and nothing is dismissed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Static

from tui.sanitize import visible_line
from tui.tagnames import TagEdit, TagError, format_tags, parse_tag_edit

# The part of the tag being typed: after the last comma or space, and any `-` or `#`.
_LAST_PART = re.compile(r"[^,\s#-][^,\s]*$")
HINT_TAGS = 12


class TagSuggester(Suggester):
    """Completes the tag being typed (the last one on the line) from the tags in use,
    most used first, whatever case it is typed in."""

    def __init__(self, tags: Sequence[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.tags = list(tags)

    async def get_suggestion(self, value: str) -> str | None:
        return complete(value, self.tags)


def complete(value: str, tags: Sequence[str]) -> str | None:
    """`value` with its last tag completed from `tags` (in order), or None."""
    found = _LAST_PART.search(value)
    if found is None:
        return None
    part = found.group().lower()
    for tag in tags:
        if tag.startswith(part) and tag != part:
            return value + tag[len(part) :]
    return None


class TagLine(Input):
    """The input line; Tab takes the completion shown (as → does) rather than moving on."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "cursor_right", "Complete", show=False, id="tag_input.complete"),
    ]


class TagInputScreen(ModalScreen[TagEdit | None]):
    """Add or remove tags on one abstract or on every abstract of a list."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Cancel", id="tag_input.cancel")
    ]

    def __init__(self, title: str, subject: str, current: Sequence[str], known: Sequence[str]):
        """`title` says what is tagged, `subject` names it (a headline, `212 abstracts`),
        `current` are its tags now, `known` every tag in use, most used first."""
        super().__init__()
        self.title_text = title
        self.subject = subject
        self.current = current
        self.known = known

    def compose(self) -> ComposeResult:
        with Vertical(id="tag-box") as box:
            box.border_title = self.title_text
            box.border_subtitle = "Enter applies · Tab completes · Esc cancels"
            yield Static(Text(visible_line(self.subject), style="bold"), id="tag-subject")
            now = format_tags(self.current) if self.current else "none yet"
            yield Static(Text(f"Tags: {now}", style="dim"), id="tag-current")
            yield TagLine(
                placeholder="to-cite, reading group, -draft",
                suggester=TagSuggester(self.known),
                id="tag-line",
            )
            yield Static(id="tag-error")
            shown = list(self.known[:HINT_TAGS])
            more = f" (+{len(self.known) - HINT_TAGS})" if len(self.known) > HINT_TAGS else ""
            hint = f"In use: {format_tags(shown)}{more}" if shown else "No tags in use yet."
            yield Static(
                Text(visible_line(hint) + "\n-name removes a tag; commas separate tags.", "dim"),
                id="tag-hint",
            )

    def on_mount(self) -> None:
        self.query_one(TagLine).focus()

    @on(Input.Submitted, "#tag-line")
    def _submitted(self, event: Input.Submitted) -> None:
        try:
            edit = parse_tag_edit(event.value)
        except TagError as e:
            self.query_one("#tag-error", Static).update(Text(visible_line(str(e)), "bold red"))
            return
        self.dismiss(None if edit.is_empty else edit)

    @on(Input.Changed, "#tag-line")
    def _changed(self) -> None:
        self.query_one("#tag-error", Static).update("")
