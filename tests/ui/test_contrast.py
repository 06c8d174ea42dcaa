"""Every theme the app offers is readable: WCAG AA (4.5:1) for what the list paints.

The ratios are measured on what is painted, not on the TCSS source: the list is
rendered under each theme with marks, matches, read and unread rows, a cursor (with
and without focus) and the "closest matches" divider, and every segment's colours
are read back from the strips (translucent colours are already blended over their
background there, as the terminal gets them). A theme whose colours are the
terminal's own (ANSI) cannot be measured, and so cannot be offered.

`python bench/contrast.py` prints the table.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.color import Color as RichColor
from rich.style import Style
from textual.geometry import Region

from tests.ui.helpers import wait_for_userdata
from tui.triage.marks import RowMarks
from tui.ui.app import AbstractsApp, make_app
from tui.ui.widgets.header import AppHeader

AA = 4.5
MARKS = "★✎•"
WIDTH, HEIGHT = 120, 36

Ratios = dict[str, float]


def luminance(color: RichColor) -> float:
    """WCAG relative luminance of a truecolor."""
    r, g, b = color.get_truecolor()

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(style: Style) -> float:
    """The contrast ratio of a painted style; 0 when a colour is the terminal's own."""
    fg, bg = style.color, style.bgcolor
    if fg is None or bg is None or fg.triplet is None or bg.triplet is None:
        return 0.0
    if style.dim:  # terminals draw dim text at about half intensity
        f, b = fg.triplet, bg.triplet
        fg = RichColor.from_rgb(*((x + y) / 2 for x, y in zip(f, b, strict=True)))
    high, low = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _keep_lowest(ratios: Ratios, role: str, ratio: float) -> None:
    ratios[role] = min(ratio, ratios.get(role, ratio))


def _list_ratios(app: AbstractsApp, prefix: str, ratios: Ratios) -> None:
    """Render the list and file each painted segment under its role."""
    listing = app.abstract_list
    width = listing.scrollable_content_region.width
    strips = listing.render_lines(Region(0, 0, width, 6))
    for line, strip in enumerate(strips):
        row = listing._row_at(line)  # the divider's line has no row
        is_cursor = row == listing.cursor
        x = 0
        for segment in strip:
            text, style = segment.text, segment.style
            start, x = x, x + segment.cell_length
            if style is None or not text.strip(" ─"):
                continue
            if row is None:
                role = "divider"
            elif row >= len(listing.rows):
                continue
            else:
                abstract = app.corpus.abstracts[listing.rows[row]]
                meta_width = min(len(abstract.collection.short), width // 4)
                if all(c in MARKS or c == " " for c in text):
                    role = "mark"
                elif style.underline:
                    role = "match"
                elif start >= width - meta_width:
                    role = "meta"
                else:
                    role = "read" if abstract.id in listing.marks.read else "unread"
                if is_cursor:
                    role = f"{prefix} {role}"
            _keep_lowest(ratios, role, contrast(style))


async def theme_ratios(app: AbstractsApp, pilot: object) -> Ratios:
    """Contrast ratios of everything the list and the header paint under the current theme."""
    listing = app.abstract_list
    ids = [a.id for a in app.corpus.abstracts[:5]]
    # Rows 0-2 full matches, then the divider, then rows 3-4; every mark on rows 0 and 3,
    # rows 1 and 3 read; the first four characters of each headline "match".
    listing.set_rows(range(5), divider=3)
    listing.set_marks(
        RowMarks(
            bookmarked=frozenset(ids[0::3]),
            noted=frozenset(ids[0::3]),
            read=frozenset({ids[1], ids[3]}),
        )
    )
    listing.set_highlighter(lambda text: [(0, 4)])
    ratios: Ratios = {}
    for focused in (True, False):
        if focused:
            listing.focus()
        else:
            app.filter_input.focus()
        await pilot.pause()  # type: ignore[attr-defined]
        for cursor in (0, 3):
            listing.cursor = cursor
            await pilot.pause()  # type: ignore[attr-defined]
            _list_ratios(app, "cursor" if focused else "cursor (unfocused)", ratios)
    ratios["header status"] = contrast(
        app.query_one(AppHeader).get_component_rich_style("app-header--status")
    )
    ratios["detail meta"] = contrast(app.detail.get_component_rich_style("detail-pane--meta"))
    ratios["detail match"] = contrast(app.detail.get_component_rich_style("detail-pane--match"))
    error_line = app.query_error_line
    error_line.add_class("-error")
    await pilot.pause()  # type: ignore[attr-defined]
    ratios["query error"] = contrast(error_line.rich_style)
    error_line.remove_class("-error")
    return ratios


async def measure_themes(seeds: Path, themes: list[str] | None = None) -> dict[str, Ratios]:
    """Ratios per theme, for every theme the app offers (or those named)."""
    app = make_app([seeds])
    table: dict[str, Ratios] = {}
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await wait_for_userdata(pilot)
        for name in themes if themes is not None else sorted(app.available_themes):
            app.theme = name
            await pilot.pause()
            await pilot.pause()
            table[name] = await theme_ratios(app, pilot)
    return table


def failures(table: dict[str, Ratios]) -> Iterator[str]:
    for theme, ratios in table.items():
        for role, ratio in ratios.items():
            if ratio < AA:
                yield f"{theme}: {role} {ratio:.2f}:1"


ROLES = {
    *(
        f"{where}{part}"
        for part in ("unread", "read", "mark", "match", "meta")
        for where in ("", "cursor ", "cursor (unfocused) ")
    ),
    "divider",
    "header status",
    "detail meta",
    "detail match",
    "query error",
}


async def test_every_theme_offered_passes_aa(seeds_dir: Path) -> None:
    table = await measure_themes(seeds_dir)
    assert table, "no theme offered"
    for theme, ratios in table.items():
        # A role never painted would pass unseen.
        assert set(ratios) == ROLES, theme
    assert list(failures(table)) == []


def test_contrast_of_a_known_pair() -> None:
    """A pair measured by hand: bold #e0e0e0 on #fea62b is 1.49:1."""
    assert contrast(Style.parse("#e0e0e0 on #fea62b")) == pytest.approx(1.49, abs=0.01)
    assert contrast(Style.parse("#ffffff on #000000")) == pytest.approx(21.0)


async def test_the_themes_offered_are_the_measured_ones(seeds_dir: Path) -> None:
    """The palette's Theme list is the app's `available_themes`, and the default is among them."""
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)):
        assert app.theme in app.available_themes
        assert not {"ansi-dark", "ansi-light"} & set(app.available_themes)
