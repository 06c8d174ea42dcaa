"""How many abstracts each saved search matches, and how many of those are unread.

The same engine as the filter (`SearchIndex.search`), in file order (ranking only
changes the order, not the count). A count is of full matches, the number the
header shows in bold; close matches are counted apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tui.search.filters import FilterContext, TopicNumbers
from tui.search.index import SearchIndex
from tui.search.personal import PersonalData
from tui.search.query import Query, QueryError, parse_query

if TYPE_CHECKING:
    from tui.corpus.model import Corpus


@dataclass(frozen=True, slots=True)
class SearchCounts:
    """Full matches, the unread among them, close matches; `problem` when the query
    no longer parses (a field renamed since it was saved)."""

    matched: int
    unread: int
    close: int = 0
    problem: str | None = None


def needs_the_corpus(text: str) -> bool:
    """Whether counting `text` reads more than the index and the user's data: the paper
    fields (`author:`, `id:`, `has:abstract`) read the loaded corpus, `is:new` and `new:`
    the library's inbox. A process holding only the index cannot count such a query."""
    try:
        query = parse_query(text)
    except QueryError:
        return False
    return _needs_the_corpus(query)


def _needs_the_corpus(query: Query) -> bool:
    return any(
        f.name in ("author", "id", "new") or (f.name, f.arg) in (("is", "new"), ("has", "abstract"))
        for f in query.fields
    )


def count_searches(
    index: SearchIndex,
    queries: Sequence[str],
    personal: PersonalData | None,
    stop: Callable[[], bool] = lambda: False,
    topics: TopicNumbers | None = None,
    topics_pending: bool = False,
    corpus: Corpus | None = None,
) -> list[SearchCounts] | None:
    """Counts for each query, in order; None as soon as `stop()` says the answer is no
    longer wanted (checked between queries). `topic:` reads `topics`; while they are
    still being computed (`topics_pending`) such a query says so instead of counting.
    The paper fields read `corpus` (the one indexed); without it they match nothing."""
    ctx = FilterContext(index.data, personal)
    read = ctx.mask_of_ids(personal.read_ids() if personal is not None else ())
    out: list[SearchCounts] = []
    for text in queries:
        if stop():
            return None
        try:
            query = parse_query(text)
        except QueryError as error:
            out.append(SearchCounts(0, 0, 0, str(error)))
            continue
        if topics is None and topics_pending and any(f.name == "topic" for f in query.fields):
            out.append(SearchCounts(0, 0, 0, "topics are still being computed"))
            continue
        result = index.search(query, corpus=corpus, personal=personal, order="file", topics=topics)
        full = np.asarray(result.indices[: result.matched], dtype=np.int64)
        unread = int(full.size - np.count_nonzero(read[full]))
        out.append(SearchCounts(result.matched, unread, result.close))
    return out
