"""Saved searches: the dialog that names one, the view that lists them with their
counts, and a yes/no question (deleting one).

Screens write nothing: the name dialog asks the `check` callback it was given
whether a name can be used, and returns it; the list calls back for rename and
delete and returns the name to apply.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.sanitize import visible_line
from tui.ui.widgets.option_list import KeyedOptionList

if TYPE_CHECKING:
    from tui.search.counts import SearchCounts
    from tui.store.records import SavedSearch


@dataclass(frozen=True, slots=True)
class NameCheck:
    """The answer to a typed name: the name to use, or why not, or a question first."""

    name: str | None
    message: str = ""
    #: The name is usable but replaces something: ask, and take a second Enter as yes.
    confirm: bool = False


class NameScreen(ModalScreen[str | None]):
    """One line to name (or rename) a saved search; Enter saves, Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="save_search.cancel")
    ]

    def __init__(
        self, title: str, about: Text, check: Callable[[str], NameCheck], initial: str = ""
    ) -> None:
        super().__init__()
        self.title_text = title
        self.about = about
        self.check = check
        self.initial = initial
        #: The name the user was asked about: Enter on it again means yes.
        self._asked: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="name-box") as box:
            box.border_title = self.title_text
            box.border_subtitle = "Enter saves · Esc cancels"
            yield Static(self.about, id="name-query")
            yield Input(self.initial, placeholder="a name, e.g. reading group", id="name-input")
            yield Static(id="name-problem")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def _say(self, message: str, *, error: bool) -> None:
        line = self.query_one("#name-problem", Static)
        line.set_class(error, "-error")
        line.update(Text(message))

    @on(Input.Changed)
    def _changed(self) -> None:
        self._asked = None
        self._say("", error=False)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        answer = self.check(event.value)
        if answer.name is None:
            self._say(answer.message, error=True)
        elif answer.confirm and self._asked != answer.name:
            self._asked = answer.name
            self._say(answer.message, error=True)
        else:
            self.dismiss(answer.name)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A question answered with y (or Enter) or n (or Esc)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, title: str, question: Text) -> None:
        super().__init__()
        self.title_text = title
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box") as box:
            box.border_title = self.title_text
            box.border_subtitle = "y yes · n or Esc no"
            yield Static(self.question)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def counts_text(counts: SearchCounts | None) -> Text:
    """`12 matches · 3 unread`, `… counting`, or the query's problem."""
    if counts is None:
        return Text("… counting", style="italic dim")
    if counts.problem is not None:
        return Text("⚠ " + visible_line(counts.problem), style="red")
    text = Text.assemble(
        (f"{counts.matched:,} match{'es' if counts.matched != 1 else ''}", "bold"),
        " · ",
        (f"{counts.unread:,} unread", "bold green" if counts.unread else ""),
    )
    if counts.close:
        text.append(f" · {counts.close:,} close", style="dim")
    return text


def search_prompt(search: SavedSearch, counts: SearchCounts | None, name_width: int) -> Text:
    """Two lines: the name and its counts, then the query (and its order)."""
    name = visible_line(search.name)
    if len(name) > name_width:
        name = name[: name_width - 1] + "…"
    line = Text.assemble((name.ljust(name_width), "bold"), "  ", counts_text(counts))
    line.append("\n  ")
    line.append(visible_line(search.query), style="dim")
    if search.sort == "file":
        line.append("  (file order)", style="dim italic")
    line.no_wrap = True
    line.overflow = "ellipsis"
    return line


class SavedSearchesScreen(ModalScreen[str | None]):
    """Every saved search with its counts; Enter applies one (dismisses with its name)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,at", "dismiss(None)", "Back", id="saved_searches.back"),
        Binding("r", "rename", "Rename", id="saved_searches.rename"),
        Binding("d", "delete", "Delete", id="saved_searches.delete"),
    ]

    def __init__(
        self,
        searches: Sequence[SavedSearch],
        *,
        on_rename: Callable[[str], None],
        on_delete: Callable[[str], None],
    ) -> None:
        super().__init__()
        self.searches = list(searches)
        self.counts: Mapping[str, SearchCounts] = {}
        self.counting = True
        self.on_rename = on_rename
        self.on_delete = on_delete

    def compose(self) -> ComposeResult:
        with Vertical(id="saved-box") as box:
            box.border_title = "Saved searches"
            box.border_subtitle = "Enter applies · r renames · d deletes · Esc returns"
            yield Static(id="saved-status")
            yield KeyedOptionList(id="saved-list")

    def on_mount(self) -> None:
        self._fill()
        self.query_one(OptionList).focus()

    def show(
        self, searches: Sequence[SavedSearch], counts: Mapping[str, SearchCounts], counting: bool
    ) -> None:
        """What to list: the searches, the counts known (by name key), whether they are
        being counted again (the status line says so until the new ones come). Only the
        status line is redrawn when nothing else changed: counting starts on every change
        of the user's data, and the list is repainted once, when the counts come."""
        same = list(searches) == self.searches and counts is self.counts
        self.searches, self.counts, self.counting = list(searches), counts, counting
        if not self.is_mounted:
            return
        if same:
            self._fill_status()
        else:
            self._fill()

    def _fill(self) -> None:
        from tui.store.names import name_key

        listing = self.query_one(OptionList)
        highlighted = listing.highlighted
        current = listing.get_option_at_index(highlighted).id if highlighted is not None else None
        width = min(max((len(s.name) for s in self.searches), default=8), 28)
        listing.clear_options()
        listing.add_options(
            Option(
                search_prompt(s, self.counts.get(name_key(s.name)), width),
                id=s.name,
            )
            for s in self.searches
        )
        names = [s.name for s in self.searches]
        if names:
            listing.highlighted = names.index(current) if current in names else 0
        self.query_one("#saved-box").border_title = f"Saved searches ({len(names):,})"
        self._fill_status()

    def _fill_status(self) -> None:
        status = self.query_one("#saved-status", Static)
        if not self.searches:
            status.update("None yet: type a filter (/), then S saves it under a name.")
        elif self.counting:
            status.update(Text("counting matches and unread…", style="italic"))
        else:
            status.update("Matches have every word; unread are those not marked read.")

    @property
    def selected(self) -> str | None:
        listing = self.query_one(OptionList)
        if listing.highlighted is None or not self.searches:
            return None
        return listing.get_option_at_index(listing.highlighted).id

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_rename(self) -> None:
        if (name := self.selected) is not None:
            self.on_rename(name)

    def action_delete(self) -> None:
        if (name := self.selected) is not None:
            self.on_delete(name)
