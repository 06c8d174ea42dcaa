"""What the app offers beyond the footer: the help screen's sections and the command
palette's entries (Ctrl+P). Both read the app's bindings and controllers; neither acts.

The palette offers what the keys offer where it was opened: the app's commands on the main
screen; over a view of abstracts (m, M, N, F) the marks on that view's abstract; over any
other screen only Help (and Textual's own entries: theme, keys, screenshot, quit)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from tui.ui.controllers.personal import READ_AFTER_SECONDS
from tui.ui.screens.abstracts_view import AbstractsView
from tui.ui.widgets.abstract_list import AbstractList
from tui.ui.widgets.detail import DetailPane

if TYPE_CHECKING:
    from tui.ui.host import Host

#: A help section: its title and its rows of (keys, what they do).
HelpSection = tuple[str, list[tuple[str, str]]]


def help_sections(app: Host) -> list[HelpSection]:
    """Every binding, grouped by where it applies, for the help screen."""
    sections: list[HelpSection] = []
    for title, bindings in (
        ("Main screen", app.BINDINGS),
        ("List", AbstractList.BINDINGS),
        ("Detail", DetailPane.BINDINGS),
        ("In a view of abstracts (m, M, N, F)", AbstractsView.BINDINGS),
    ):
        rows = []
        for binding in bindings:
            # An unlisted twin of a key (no description) is the same key: named once.
            if isinstance(binding, Binding) and binding.description:
                # The keys config.toml gave it (Textual keeps the keymap in `_keymap`).
                bound = app._keymap.get(binding.id, binding.key) if binding.id else binding.key
                keys = ", ".join(
                    app.get_key_display(Binding(k.strip(), "")) for k in bound.split(",")
                )
                # The footer's word, or the longer tooltip where the binding has one.
                rows.append((keys, binding.tooltip or binding.description))
        sections.append((title, rows))
    sections.append(
        (
            "More",
            [
                ("Enter, Tab", "Read the selected abstract in the detail pane"),
                ("Esc", "Back to the list; clears the filter"),
                ("Ctrl+P", "Command palette"),
                ("Mouse", "Click selects, the wheel scrolls"),
                (
                    "Auto-read",
                    f"An abstract you move to and keep on screen {READ_AFTER_SECONDS:g} s "
                    "is marked read (not while typing in the filter or with a dialog open; "
                    "never the one shown at start). r marks by hand; "
                    "turn it off in the palette (Auto-read)",
                ),
            ],
        )
    )
    return sections


def commands_for(
    app: Host, screen: Screen[object], parts: Iterable[Callable[[], Iterable[SystemCommand]]]
) -> Iterator[SystemCommand]:
    """The palette's entries after Textual's own, for the screen it was opened from;
    `parts`: each controller's `commands`, listed after the app's own on the main screen."""
    if screen is app.screen_stack[0]:
        yield from app_commands(app)
        for commands in parts:
            yield from commands()
        return
    yield SystemCommand("Help", "Every key binding", app.action_command("help"))
    if isinstance(screen, AbstractsView):
        yield from view_commands(screen)
        yield SystemCommand(
            "Undo", "Undo the last bookmark, read or note change (u)", app.action_command("undo")
        )
        yield SystemCommand("Redo", "Redo what was undone (Ctrl+R)", app.action_command("redo"))


def view_commands(view: AbstractsView) -> Iterator[SystemCommand]:
    """In a view of abstracts: the marks its keys set, on the abstract highlighted there."""
    yield SystemCommand(
        "Toggle bookmark",
        "Bookmark the abstract highlighted here (b)",
        partial(view.action_act, "bookmark"),
    )
    yield SystemCommand(
        "Not interested",
        "Dismiss the abstract highlighted here; it and ones like it sink (x)",
        partial(view.action_act, "dismiss"),
    )
    yield SystemCommand(
        "Toggle read",
        "Mark the abstract highlighted here read or unread (r)",
        partial(view.action_act, "read"),
    )


def app_commands(app: Host) -> Iterator[SystemCommand]:
    """The main screen's own entries after Textual's (theme, quit, …)."""
    yield SystemCommand("Filter", "Focus the filter box", app.action_command("focus_filter"))
    yield SystemCommand("Help", "Every key binding", app.action_command("help"))
    yield SystemCommand(
        "Load report", "Files loaded and problems found", app.action_command("load_report")
    )
    yield SystemCommand(
        "Toggle LaTeX source", "Rendered text or the source", app.action_command("toggle_raw")
    )
    yield SystemCommand(
        "Toggle order",
        "Relevance or file order for filtered results",
        app.action_command("toggle_order"),
    )
