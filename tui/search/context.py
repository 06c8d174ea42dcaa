"""What a field's selector reads (`FilterContext`) and the registry of selectors:
`filters.py` registers the built-in fields, `paperfields.py` and `inbox.py` theirs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from tui.corpus.model import Corpus
from tui.search.build import IndexData
from tui.search.personal import PersonalData
from tui.search.query import FieldClause

BoolArray = npt.NDArray[np.bool_]
TopicNumbers = npt.NDArray[np.int32]


@dataclass(slots=True)
class FilterContext:
    """What a selector may read: the index data, the user's data for personal fields, and
    each abstract's topic number (`tui.similar.topics.Topics.number`, aligned with the
    index's rows; None while the topics are being computed) for `topic:`."""

    data: IndexData
    personal: PersonalData | None
    topics: TopicNumbers | None = None
    #: The corpus indexed, for the fields about papers (`tui.search.paperfields`).
    corpus: Corpus | None = None
    _positions: dict[str, int] | None = field(default=None, repr=False)

    def mask_of_ids(self, ids: Iterable[str]) -> BoolArray:
        """A mask with True at the abstracts whose ids are given (unknown ids are ignored)."""
        if self._positions is None:
            self._positions = {abstract_id: i for i, abstract_id in enumerate(self.data.ids)}
        positions = self._positions
        mask = np.zeros(len(self.data.ids), dtype=np.bool_)
        hits = [positions[i] for i in ids if i in positions]
        if hits:
            mask[np.asarray(hits, dtype=np.int64)] = True
        return mask


Selector = Callable[[FieldClause, FilterContext], BoolArray]
_SELECTORS: dict[str, Selector] = {}
#: Selectors of one value of a field (`has:abstract`), before the field's own.
_VALUE_SELECTORS: dict[tuple[str, str], Selector] = {}


def register_selector(name: str, selector: Selector, *, value: str | None = None) -> None:
    """Say how the field `name` selects abstracts (pairs with query.register_field);
    with `value`, only for that value of the field (`has:abstract`), whichever module
    registers first."""
    if value is None:
        _SELECTORS[name] = selector
    else:
        _VALUE_SELECTORS[(name, value)] = selector


def select(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    """The abstracts a field clause (ignoring its negation) selects."""
    selector = None
    if _VALUE_SELECTORS and isinstance(clause.arg, str):
        selector = _VALUE_SELECTORS.get((clause.name, clause.arg))
    if selector is None:
        selector = _SELECTORS.get(clause.name)
    if selector is None:
        # A field the parser knows but no selector answers matches nothing,
        # rather than silently everything.
        return np.zeros(len(ctx.data.ids), dtype=np.bool_)
    return selector(clause, ctx)
