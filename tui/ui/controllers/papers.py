"""Opening and copying a paper: `w` its page, `W` its PDF, `y` its id, `Y` its link,
`c` its BibTeX entry.

Copies go through the terminal (OSC 52, `App.copy_to_clipboard`), so they work over
SSH. A page opens in the browser from a thread (`webbrowser` may wait on the program
it starts); where no graphical browser can be started (no display: SSH, a console)
the link is copied instead, since a console browser would take over the terminal.
Every key says in a toast what it did, or why it could not.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import TYPE_CHECKING, Literal

from textual.app import SystemCommand

from tui.sanitize import visible_line

if TYPE_CHECKING:
    from tui.corpus.model import Abstract
    from tui.ui.host import Host

OpenKind = Literal["page", "pdf"]
CopyKind = Literal["id", "link", "bibtex"]
# The ids `y` copies, best first, with the names the toast uses.
COPY_IDS = (
    ("doi", "DOI"),
    ("arxiv", "arXiv id"),
    ("openreview", "OpenReview id"),
    ("citekey", "citekey"),
)
NO_PAPER = "this abstract comes from conference text, which names no paper"


def can_start_browser(env: Mapping[str, str], platform: str) -> bool:
    """False where `webbrowser` could only start a console browser in this terminal:
    Linux and BSD without a display, unless $BROWSER names the user's choice."""
    if env.get("BROWSER"):
        return True
    if platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
    return True


def _open_in_thread(url: str, done: Callable[[bool], object]) -> None:
    def run() -> None:
        import webbrowser

        try:
            opened = webbrowser.open(url)
        except webbrowser.Error:
            opened = False
        done(opened)

    threading.Thread(target=run, name="open-url", daemon=True).start()


class PaperController:
    """The keys that act on the highlighted paper beyond marking it."""

    def __init__(self, app: Host) -> None:
        self.app = app
        #: Starts the browser on a URL and calls back with whether it did (tests replace it).
        self.opener: Callable[[str, Callable[[bool], object]], None] = _open_in_thread
        #: Whether a browser can be started here (tests set it).
        self.browser_available = can_start_browser(os.environ, sys.platform)

    def _say(self, message: str, *, warn: bool = False) -> None:
        # URLs, ids and titles are data: shown as text, never read as markup.
        self.app.notify(
            visible_line(message),
            severity="warning" if warn else "information",
            timeout=4,
            markup=False,
        )

    def open(self, abstract: Abstract | None, kind: OpenKind) -> None:
        """Open the paper's page or PDF in the browser (or copy it where none can start)."""
        if abstract is None:
            return
        what = "page" if kind == "page" else "PDF"
        paper = abstract.paper
        if paper is None:
            self._say(f"No link known: {NO_PAPER}.", warn=True)
            return
        url = paper.page_url if kind == "page" else paper.pdf_url
        if url is None:
            why = "no DOI, arXiv or OpenReview id and no link in its source"
            self._say(f"No {what} link known for this paper ({why}).", warn=True)
            return
        if not self.browser_available:
            self.app.copy_to_clipboard(url)
            self._say(f"No browser can start here (no display): copied the {what} link {url}")
            return
        self._say(f"Opening the {what}: {url}")
        self.opener(url, lambda opened: self._opened(url, what, opened))

    def _opened(self, url: str, what: str, opened: bool) -> None:
        if not opened:
            self.app.post(lambda: self._not_opened(url, what))

    def _not_opened(self, url: str, what: str) -> None:
        self.app.copy_to_clipboard(url)
        self._say(f"No browser could be started: copied the {what} link {url}", warn=True)

    def copy(self, abstract: Abstract | None, kind: CopyKind) -> None:
        """Copy the paper's id, link or BibTeX entry to the clipboard (OSC 52)."""
        if abstract is None:
            return
        paper = abstract.paper
        if kind == "bibtex":
            key, entry = bibtex_of(abstract)
            self.app.copy_to_clipboard(entry)
            self._say(f"Copied the BibTeX entry {key}")
            return
        if paper is None:
            missing = "No id to copy" if kind == "id" else "No link known"
            self._say(f"{missing}: {NO_PAPER}.", warn=True)
            return
        if kind == "id":
            for id_kind, name in COPY_IDS:
                if value := paper.id_of(id_kind):
                    self.app.copy_to_clipboard(value)
                    self._say(f"Copied the {name} {value}")
                    return
            why = "the source gives no DOI, arXiv id, OpenReview id or citekey"
            self._say(f"No id to copy: {why}.", warn=True)
            return
        url = paper.page_url or paper.pdf_url
        if url is None:
            self._say("No link known for this paper: nothing was copied.", warn=True)
            return
        self.app.copy_to_clipboard(url)
        self._say(f"Copied the link {url}")

    def commands(self) -> Iterator[SystemCommand]:
        """The palette's entries for the highlighted paper."""
        current = self.app.abstract_list.current
        yield SystemCommand(
            "Open the paper's page", "In the browser (w)", partial(self.open, current, "page")
        )
        yield SystemCommand(
            "Open the paper's PDF", "In the browser (W)", partial(self.open, current, "pdf")
        )
        yield SystemCommand(
            "Copy the paper's id",
            "DOI, else arXiv id, OpenReview id or citekey (y)",
            partial(self.copy, current, "id"),
        )
        yield SystemCommand(
            "Copy the paper's link",
            "Its page, else its PDF (Y)",
            partial(self.copy, current, "link"),
        )
        yield SystemCommand(
            "Copy the BibTeX entry",
            "A citation of the highlighted abstract (c)",
            partial(self.copy, current, "bibtex"),
        )


def bibtex_of(abstract: Abstract) -> tuple[str, str]:
    """(key, entry): the abstract's BibTeX entry exactly as `abstracts export` writes it."""
    from tui.store.formats import Item, bib_keys, to_bibtex
    from tui.store.records import Snapshot

    snapshot = Snapshot.of(abstract)
    [key] = bib_keys([snapshot])
    return key, to_bibtex([Item(abstract.id, snapshot, False, None, None, ())])
