"""The footer lists the keys that apply, and is composed again only when they change."""

from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tests.search.papers import paper_corpus
from tests.ui.helpers import wait_until
from tui.ui.app import make_app

# Rows of paper_corpus(): 0 an arXiv paper, 5 a paragraph of conference text.
PARAGRAPH = 5


async def test_the_footer_is_composed_again_only_when_its_keys_change() -> None:
    app = make_app(corpus=paper_corpus())
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        footer = app.query_one(Footer)

        def listed() -> list[FooterKey]:
            return list(footer.query(FooterKey))

        def keys() -> set[str]:
            return {key.key for key in listed()}

        await wait_until(pilot, lambda: {"w", "c"} <= keys())
        await pilot.pause(0.1)
        before = listed()
        # Refreshes of the bindings that change nothing listed: the same widgets stay.
        for _ in range(3):
            app.screen.refresh_bindings()
            await pilot.pause(0.05)
        app.screen.set_focus(app.detail)
        await pilot.pause(0.05)
        app.screen.set_focus(app.abstract_list)
        await pilot.pause(0.05)
        assert listed() == before
        # A paragraph has no paper: its keys leave the footer.
        app.abstract_list.cursor = PARAGRAPH
        await wait_until(pilot, lambda: not {"w", "c"} & keys())
        # The filter focused: `/` (focus the filter) is no longer offered; Esc brings it back.
        assert "slash" in keys()
        await pilot.press("slash")
        await wait_until(pilot, lambda: "slash" not in keys())
        await pilot.press("escape")
        await wait_until(pilot, lambda: "slash" in keys())
