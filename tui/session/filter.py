"""The filter's state: what was typed, the order, and the answer shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tui.search.spans import Spans

Order = Literal["relevance", "file"]


@dataclass
class FilterState:
    """What the filter holds. The filter box owns the text as typed; `query_text` is the
    text whose answer is shown or on its way (the two differ for a key's time)."""

    query_text: str = ""
    order: Order = "relevance"
    #: Highlight spans of the search shown (None when unfiltered).
    spans: Spans | None = None
    #: (full matches, closest matches) of the search shown; None when unfiltered.
    match_counts: tuple[int, int] | None = None
    #: How many abstracts the results shown searched, when not all of them (None).
    searched_partially: int | None = None
    query_error: str | None = None
    #: True while the filter shown has `topic:` and the topics are still being computed.
    waits_for_topics: bool = False
    #: Set once the user has gone to the filter: the filter restored from last time
    #: then never replaces or mixes with what they type.
    user_filtered: bool = False
    #: The abstract to come back to when the filter is cleared.
    saved_selection: str | None = None

    @property
    def filtered(self) -> bool:
        return bool(self.query_text.strip())

    def cleared(self) -> None:
        """The filter emptied: no answer, no error."""
        self.query_error = None
        self.waits_for_topics = False
        self.match_counts = None
        self.searched_partially = None
