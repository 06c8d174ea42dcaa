"""Field clauses (`venue:`, `year:`, `file:`, `is:`, `has:`, `note:`, `tag:`, `topic:`, `new:`)
as masks.

Each field name has one selector here and one parser in `query.py`; adding a
field is registering both, nothing else changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import numpy as np
from rapidfuzz.distance import OSA

from tui.corpus.tokens import tokenize
from tui.search import inbox
from tui.search.context import (
    BoolArray,
    FilterContext,
    Selector,
    TopicNumbers,
    register_selector,
    select,
)
from tui.search.expand import Expander, max_typos
from tui.search.query import FieldClause

__all__ = [
    "BoolArray",
    "FilterContext",
    "Selector",
    "TopicNumbers",
    "register_selector",
    "select",
]


def _venue(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    value = str(clause.arg)
    wanted = [i for i, name in enumerate(ctx.data.venue_names) if name.startswith(value)]
    return np.isin(ctx.data.venue_of, np.asarray(wanted, dtype=np.int32))


def _year(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    low, high = cast(tuple[int, int], clause.arg)
    years = ctx.data.years
    result: BoolArray = (years >= low) & (years <= high)
    return result


def _file(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    value = str(clause.arg)
    wanted = [i for i, name in enumerate(ctx.data.file_names) if value in name]
    mask = np.zeros(len(ctx.data.ids), dtype=np.bool_)
    if wanted:
        chosen = np.isin(ctx.data.src_file, np.asarray(wanted, dtype=np.int32))
        mask[ctx.data.src_doc[chosen]] = True
    return mask


def _is(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    personal = ctx.personal
    if clause.arg == "bookmarked":
        return ctx.mask_of_ids(personal.bookmarked_ids() if personal else ())
    if clause.arg == "dismissed":
        return ctx.mask_of_ids(personal.dismissed_ids() if personal else ())
    if clause.arg == "new":
        return inbox.new_mask(ctx)
    read = ctx.mask_of_ids(personal.read_ids() if personal else ())
    return read if clause.arg == "read" else ~read


def _has(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    personal = ctx.personal
    if personal is None:
        return ctx.mask_of_ids(())
    if clause.arg == "tag":
        index = personal.tag_index()
        return ctx.mask_of_ids(set().union(*index.values()) if index else ())
    return ctx.mask_of_ids(personal.noted_ids())


def matching_tags(wanted: str, tags: Iterable[str], *, typing: bool) -> list[str]:
    """The tags `tag:wanted` stands for: the tag itself and, while it is being typed, the
    tags it starts; when neither exists, the tags a typo or two away (as terms are)."""
    names = list(tags)
    found = [t for t in names if t == wanted or (typing and t.startswith(wanted))]
    if found:
        return found
    budget = max_typos(len(wanted))
    return [t for t in names if budget and OSA.distance(wanted, t, score_cutoff=budget) <= budget]


def _tag(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    index = ctx.personal.tag_index() if ctx.personal else {}
    chosen = matching_tags(str(clause.arg), index, typing=clause.typing)
    return ctx.mask_of_ids(set().union(*(index[t] for t in chosen)) if chosen else ())


def _note(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    """Notes containing every given word, matched as terms match abstracts: exactly,
    typo-tolerantly, and the word being typed also as a prefix."""
    wanted = cast(tuple[str, ...], clause.arg)
    notes = [
        (i, set(tokenize(text))) for i, text in (ctx.personal.note_items() if ctx.personal else ())
    ]
    # The notes' own vocabulary through the abstracts' expansion rules: one
    # set of rules for typos and prefixes, whatever is searched.
    vocab = sorted(set().union(*(words for _, words in notes)))
    expander = Expander(vocab)
    last = len(wanted) - 1
    matched = [
        expander.expand(word, prefix=clause.typing and k == last).all_words(vocab)
        for k, word in enumerate(wanted)
    ]
    hits = [i for i, words in notes if all(not words.isdisjoint(m) for m in matched)]
    return ctx.mask_of_ids(hits)


def _topic(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    """The abstracts of one topic; none while topics are unknown (the UI says it waits)."""
    topics = ctx.topics
    if topics is None or len(topics) != len(ctx.data.ids):
        return np.zeros(len(ctx.data.ids), dtype=np.bool_)
    result: BoolArray = topics == cast(int, clause.arg)
    return result


register_selector("venue", _venue)
register_selector("year", _year)
register_selector("file", _file)
register_selector("is", _is)
register_selector("has", _has)
register_selector("note", _note)
register_selector("tag", _tag)
register_selector("topic", _topic)
register_selector("new", inbox.select_new)

# The fields about papers (author:, title:, id:, has:abstract) register their selectors.
from tui.search import paperfields as _paperfields  # noqa: E402, F401
