"""The cells a paper's list row shows after its title: first author and venue with year.

The columns have fixed widths for a given row width, so they line up from row to row;
the title takes what is left. Each cell is shortened in a way that still reads: the
venue in its common short form (`tui.corpus.venues`), then cut before the year; the
author list as `Family et al.`, then the family name cut. Below `AUTHOR_MIN_WIDTH`
columns the author cell is left out: the title matters more.
"""

from __future__ import annotations

from tui.corpus.paper import Paper
from tui.corpus.venues import short_venue
from tui.sanitize import visible_line

AUTHOR_MIN_WIDTH = 60
AUTHOR_MAX = 20
VENUE_MAX = 14
VENUE_MIN = 9  # `ICLR 2023`


def columns(width: int) -> tuple[int, int]:
    """(author cell width, venue-and-year cell width) for a row `width` cells wide."""
    author = min(AUTHOR_MAX, width // 5) if width >= AUTHOR_MIN_WIDTH else 0
    venue = min(VENUE_MAX, max(VENUE_MIN, width // 6))
    return author, venue


def _cut(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    return text[: max(0, width - 1)].rstrip() + "…" if width > 0 else ""


def author_cell(paper: Paper, width: int) -> str:
    """`Vaswani et al.`, `Lovelace and Babbage`, or the first family name cut to fit."""
    first = paper.first_author
    if not first or width <= 0:
        return ""
    named = paper.named_authors
    family = visible_line(named[0].family)
    candidates = [visible_line(first)]
    if len(named) == 2 and not paper.more_authors:
        candidates += [f"{family} & {visible_line(named[1].family)}", f"{family} et al."]
    if len(named) > 1 or paper.more_authors:
        candidates.append(family + "+")  # `Krizhevsky+`: more authors, no room to say so
    return next((c for c in candidates if len(c) <= width), _cut(family, width))


def venue_year_cell(paper: Paper, width: int) -> str:
    """`NeurIPS 2023`; a long venue is cut before the year, which always shows."""
    venue = visible_line(short_venue(paper.venue)) if paper.venue else ""
    year = str(paper.year) if paper.year else ""
    text = f"{venue} {year}".strip()
    if len(text) <= width:
        return text
    if not year:
        return _cut(venue, width)
    return f"{_cut(venue, width - len(year) - 1)} {year}".strip()[-width:]
