"""The detail pane's text drawn line by line, each line kept (tui/ui/widgets/wrapped.py),
is what Textual draws for the same text, whatever the highlights, widths and styles;
and a key in the filter that moves the highlights redraws only the lines they change.
So is a scrollbar drawn a line at a time."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from rich.style import Style as RichStyle
from rich.text import Text
from textual.content import Content
from textual.geometry import Offset
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget

from tests.ui.helpers import wait_for_userdata
from tui.ui.app import make_app
from tui.ui.widgets.detail_text import reading_text
from tui.ui.widgets.wrapped import WrappedLines

WORDS = [
    *["graph", "neural", "networks", "learn", "representations", "of", "nodes", "and", "edges;"],
    *["diffusion", "models", "denoise.", "Contrastive", "learning", "pulls", "views", "together"],
    "supercalifragilisticexpialidociouslylongwordwithoutspaces",
    "déjà",
    "東京",
    "x\ty",
    "",
    "end.",
]


def _text(rng: random.Random) -> Text:
    """A text of paragraphs (blank lines too) with bold, italic and highlight spans."""
    paragraphs = [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 40)))
        for _ in range(rng.randint(1, 4))
    ]
    text = Text("\n".join(paragraphs))
    styles: list[str | RichStyle] = [
        RichStyle(bold=True),
        RichStyle(italic=True),
        RichStyle(bgcolor="#336699", color="#ffffff", bold=True),
        "dim",
        RichStyle(link="https://example.org", underline=True),
    ]
    length = len(text.plain)
    for _ in range(rng.randint(0, 12)):
        if not length:
            break
        start = rng.randrange(length)
        text.stylize(rng.choice(styles), start, min(length, start + rng.randint(1, 20)))
    return text


async def test_lines_are_textuals_lines(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        pane = app.detail
        wrapped = WrappedLines(lines=64)  # small: lines are also forgotten and drawn again
        rng = random.Random(25)
        for component in ("detail-pane--body", "detail-pane--meta", "detail-pane--note"):
            style = pane.get_visual_style(component)
            for _ in range(120):
                text = _text(rng)
                content = visualize(pane, text, markup=False)
                assert isinstance(content, Content)
                if rng.random() < 0.3:
                    content = Content("\n" * rng.randint(1, 5)) + content
                width = rng.choice((1, 2, 7, 20, 56, 86))
                expected = Visual.to_strips(pane, content, width, None, style)
                for _again in range(2):  # drawn, then from what was kept
                    assert wrapped.to_strips(pane, content, width, style) == expected


async def test_new_highlights_redraw_only_their_lines(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        pane = app.detail
        abstract = app.abstract_list.current
        assert abstract is not None and abstract.has_abstract
        style = pane.get_visual_style("detail-pane--body")
        match = pane.get_component_rich_style("detail-pane--match")
        word = abstract.plain.split()[0]

        def highlight(found: str) -> Callable[[str], list[tuple[int, int]]]:
            def spans(text: str) -> list[tuple[int, int]]:
                at = text.find(found)
                return [] if at < 0 else [(at, at + len(found))]

            return spans

        def lines(found: str | None) -> list[Strip]:
            text = reading_text(
                abstract, raw=False, spans=highlight(found) if found else None, match_style=match
            )
            content = visualize(pane, text, markup=False)
            assert isinstance(content, Content)
            return wrapped.to_strips(pane, content, 60, style)

        wrapped = WrappedLines()
        plain = lines(None)
        lit = lines(word)
        changed = [y for y, (a, b) in enumerate(zip(plain, lit, strict=True)) if a is not b]
        assert changed == [0]  # the first word, on the first line
        assert lines(None) == plain and all(a is b for a, b in zip(lines(None), plain, strict=True))


async def test_scrollbar_lines_are_textuals_lines(seeds_dir: Path, data_dir: Path) -> None:
    """The list's scrollbar, drawn a line at a time (tui/ui/widgets/virtual.py), draws
    and finishes each line as Textual draws the whole bar, at any height, position and
    state."""
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_userdata(pilot)
        listed = app.abstract_list
        bar = listed.vertical_scrollbar
        assert bar.render_line != Widget.render_line.__get__(bar)  # drawn by BarLines
        rng = random.Random(5)
        for step in range(60):
            bar.window_virtual_size = rng.randint(1, 500)
            bar.position = rng.uniform(0, bar.window_virtual_size)
            bar.mouse_over = step % 3 == 1
            bar.grabbed = Offset(0, 0) if step % 5 == 4 else None
            height = bar.size.height
            bar._dirty_regions.add(bar.size.region)
            expected = [Widget.render_line(bar, y) for y in range(height)]
            bar._dirty_regions.add(bar.size.region)
            assert [bar.render_line(y) for y in range(height)] == expected
            assert bar.render_line.__self__._drawn is not None  # type: ignore[attr-defined]
            assert [bar.render_line(y) for y in range(height)] == expected  # as kept
            # Finished as Textual finishes a widget's lines (its styles, the app's filters).
            bar._dirty_regions.add(bar.size.region)
            bar._styles_cache.clear()
            finished = Widget.render_lines(bar, bar.size.region)
            assert bar.render_lines(bar.size.region) == finished
