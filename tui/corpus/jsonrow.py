"""The one `--json` row of an abstract: what every subcommand prints of it, and what the
corpus rows keep of it (`tui.corpus.rows`), so whoever writes those rows (a command, or
the app's cache child) writes the bytes a command would print."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.sanitize import json_line

if TYPE_CHECKING:
    from tui.corpus.model import Abstract


def json_row(abstract: Abstract, **extra: object) -> dict[str, object]:
    """One `--json` row: the fields every subcommand prints (id, venue, year, source,
    headline, text; and what the source says of the paper: title, authors, ids, url),
    then the subcommand's own.

    `title` is null and `authors` and `ids` empty for a conference paragraph; `ids` maps
    each kind (`doi`, `arxiv`, `openreview`, `citekey`, ...) to its first value; `url`
    is the paper's page (its link, else its DOI's, arXiv's or OpenReview's), or null.
    """
    paper = abstract.paper
    ids: dict[str, str] = {}
    for kind, value in paper.ids if paper is not None else ():
        ids.setdefault(kind, value)
    return {
        "id": abstract.id,
        "venue": abstract.collection.venue,
        "year": abstract.collection.year,
        "source": str(abstract.source.path),
        "headline": abstract.headline,
        "text": abstract.plain,
        "title": abstract.title,
        "authors": [a.name for a in paper.authors] if paper is not None else [],
        "ids": ids,
        "url": paper.page_url if paper is not None else None,
        **extra,
    }


def json_row_line(core: str, **extra: object) -> str:
    """`json_line(json_row(abstract, **extra))` from `core`, `json_line(json_row(abstract))`
    kept in the corpus rows: the same bytes (JSON separates items with ", ", and the
    sanitiser replaces characters one by one) without encoding the text again."""
    if not extra:
        return core
    return core[:-1] + ", " + json_line(extra)[1:]
