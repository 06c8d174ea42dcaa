"""The top of the detail pane for a paper: title, authors, venue and year, ids, links.

Everything here is data from the user's files, so it is built as Text (never markup)
and every value passes `visible_line`. A conference paragraph has no paper and no
such block (`paper_text` is not called for it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.style import Style
from rich.text import Text

from tui.corpus.model import Abstract
from tui.corpus.paper import Author, Paper
from tui.corpus.venues import short_venue, tells_outcome
from tui.sanitize import visible_line

# The ids shown, in this order, with their labels.
ID_LABELS = (("doi", "DOI"), ("arxiv", "arXiv"), ("openreview", "OpenReview"), ("citekey", "key"))


def authors_line(authors: Sequence[Author], width: int) -> str:
    """The authors' names, separated by commas (`et al.` for a source's `and others`);
    when they do not fit in `width`, as many as fit followed by `+N more` (at least the
    first author is named)."""
    names = [visible_line(a.name) for a in authors if not a.is_others]
    full = ", ".join(names)
    if len(names) < len(authors):
        full += " et al."
    if len(full) <= width:
        return full
    shown = ""
    for k in range(1, len(names)):
        candidate = ", ".join(names[:k]) + f" +{len(names) - k} more"
        if len(candidate) > width and k > 1:
            break
        shown = candidate
    return shown


def venue_line(paper: Paper) -> str:
    """`2017 · Advances in Neural Information Processing Systems (NeurIPS)`: the year
    first, so a venue long enough to wrap does not push it onto a line of its own."""
    parts = [str(paper.year)] if paper.year else []
    if paper.venue:
        venue = visible_line(paper.venue)
        short = visible_line(short_venue(paper.venue))
        named = short.casefold() in venue.casefold() or tells_outcome(paper.venue)
        parts.append(venue if named else f"{venue} ({short})")
    return " · ".join(parts)


def paper_text(
    abstract: Abstract,
    width: int,
    title: Text,
    spans: Callable[[str], Sequence[tuple[int, int]]] | None = None,
    match_style: Style | str = "reverse",
) -> Text:
    """The paper's block: `title` (rendered by the caller), then one line each for the
    authors, venue and year, ids and links (a line only when the source says)."""
    paper = abstract.paper
    assert paper is not None
    out = title.copy()
    out.stylize("bold")
    if spans is not None:
        for start, end in spans(out.plain):
            out.stylize(match_style, start, end)
    if paper.authors:
        out.append("\n" + authors_line(paper.authors, width))
    if venue := venue_line(paper):
        out.append("\n" + venue, style="italic")
    ids = [(label, paper.id_of(kind)) for kind, label in ID_LABELS]
    shown = [(label, value) for label, value in ids if value]
    if shown:
        out.append("\n")
        for k, (label, value) in enumerate(shown):
            out.append(("  ·  " if k else "") + label + " ", style="dim")
            out.append(visible_line(value or ""))
    for label, url in (("Page", paper.page_url), ("PDF", paper.pdf_url)):
        if url:
            out.append(f"\n{label} ", style="dim")
            # A link only when the URL cannot carry a control sequence to the terminal.
            link = url if url.isprintable() and " " not in url else None
            out.append(visible_line(url), style=Style(link=link, underline=True))
    return out
