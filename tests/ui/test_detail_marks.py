"""A mark on the abstract the detail pane shows (`b`, `x`, `r`, a tag, a note) redraws
its meta lines and note box alone, from the user's data as it now is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.helpers import wait_for_userdata
from tui.ui import view
from tui.ui.app import make_app


async def test_b_on_the_abstract_shown_builds_no_whole_detail_view(
    seeds_dir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.pause(0.1)
        built: list[object] = []
        detail_view = view.detail_view
        monkeypatch.setattr(
            view, "detail_view", lambda *a, **k: built.append(a) or detail_view(*a, **k)
        )
        await pilot.press("b")
        await pilot.pause(0.1)
        assert app.detail.view is not None and app.detail.view.bookmarked
        assert built == []


async def test_a_note_taken_away_leaves_the_detail_pane(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        shown = app.abstract_list.current
        assert shown is not None
        userdata = app.personal.userdata
        assert userdata is not None
        userdata.save_note(shown, "kept for the reading group")
        app.session.user.changed([shown.id])
        await pilot.pause(0.1)
        assert app.detail.view is not None
        assert app.detail.view.note == "kept for the reading group"
        userdata.delete_note(shown.id)
        app.session.user.changed([shown.id])
        await pilot.pause(0.1)
        assert app.detail.view.note is None
        assert not app.detail.view.bookmarked


async def test_b_draws_again_only_the_meta_line_it_changes(
    seeds_dir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.visual import Visual

    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.pause(0.1)
        shown_before = list(app.detail._lines)
        drawn: list[str] = []
        to_strips = Visual.to_strips

        def recording(widget: object, visual: object, *args: object, **kwargs: object) -> object:
            if widget is app.detail:
                drawn.append(str(getattr(visual, "plain", visual)))
            return to_strips(widget, visual, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(Visual, "to_strips", recording)
        await pilot.press("b")
        await pilot.pause(0.1)
        assert len(drawn) == 1 and "★ bookmarked" in drawn[0]
        assert "\n" not in drawn[0].strip("\n")  # the marks' line alone, not the block
        # The same lines as before but that one.
        after = app.detail._lines
        assert len(after) == len(shown_before)
        changed = [y for y, (a, b) in enumerate(zip(shown_before, after, strict=True)) if a != b]
        assert len(changed) == 1


@pytest.mark.parametrize("first_line", [0, 4])
async def test_meta_lines_drawn_one_by_one_are_the_block_drawn_whole(
    seeds_dir: Path, data_dir: Path, first_line: int
) -> None:
    """Each line drawn alone is the line of the whole block, cells' places included
    (what a selection with the mouse reads)."""
    from rich.text import Text
    from textual.content import Content
    from textual.visual import visualize

    from tui.ui.widgets.detail_text import meta_text

    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        pane = app.detail
        style = pane.get_visual_style("detail-pane--meta")
        texts = [meta_text(app.detail_view(a)) for a in app.corpus.abstracts[:12]]
        texts += [Text("a\n\nb"), Text("ends in a newline\n"), Text(""), Text("x" * 300)]
        for text in texts:
            for width in (8, 40, 90):
                content = visualize(pane, text, markup=False)
                lines = content.split("\n", allow_blank=True)  # type: ignore[attr-defined]
                whole = pane._text_lines(
                    Content("\n").join(line.truncate(width, ellipsis=True) for line in lines),
                    width,
                    first_line,
                    style,
                )
                # Each line drawn alone (the others kept from the drawing before).
                alone = []
                for y, line in enumerate(lines):
                    pane._fact_lines.clear()
                    others = [Content(f"not this line {n}") for n in range(len(lines))]
                    pane._fact_lines_of(others, first_line, width, True, style)
                    others[y] = line
                    alone.append(pane._fact_lines_of(others, first_line, width, True, style)[y])
                pane._fact_lines.clear()
                assert pane._fact_lines_of(lines, first_line, width, True, style) == whole
                assert alone == whole, (text.plain, width)
