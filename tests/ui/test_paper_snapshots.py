"""SVG snapshot of a library of papers at 80x24: rows with title, first author, venue and
year beside two conference paragraphs, and a paper's block in the detail pane.

Update after an intended change with `pytest --snapshot-update`, then read it.
"""

from __future__ import annotations

from typing import Any

from tests.search.papers import paper_corpus
from tests.ui.helpers import keys_handled, steady_cursors, wait_for_userdata
from tui.ui.app import make_app
from tui.ui.clock import ManualClock


async def _settle(pilot: Any) -> None:
    await wait_for_userdata(pilot)
    await pilot.press("j")
    await keys_handled(pilot)
    pilot.app.clear_notifications()
    steady_cursors(pilot.app)
    await pilot.pause()


def test_papers_80x24(snap_compare) -> None:
    app = make_app(corpus=paper_corpus(), clock=ManualClock())
    assert snap_compare(app, terminal_size=(80, 24), run_before=_settle)
