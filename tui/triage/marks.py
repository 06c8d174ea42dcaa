"""What the lists show about each abstract's personal state: bookmarked, dismissed, read,
noted, tagged.

A plain value built from the user's data and handed to every view that lists abstracts
(the main list, the feed, the notes and similar views), so they all draw the same cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RowMarks:
    """What the list shows about personal state; set by the app, never read from disk here."""

    bookmarked: AbstractSet[str] = frozenset()
    noted: AbstractSet[str] = frozenset()
    read: AbstractSet[str] = frozenset()
    tags: Mapping[str, AbstractSet[str]] = field(default_factory=dict)
    dismissed: AbstractSet[str] = frozenset()

    def judged(self, abstract_id: str) -> str:
        """The one cell for the two opposite judgements: ★ kept (shown over) ✗ not interested."""
        if abstract_id in self.bookmarked:
            return "★"
        return "✗" if abstract_id in self.dismissed else " "

    def unread(self, abstract_id: str) -> str:
        """The read cell: • while unread."""
        return " " if abstract_id in self.read else "•"

    def cells(self, abstract_id: str) -> str:
        """The judgement and read cells, as the views that list abstracts show them."""
        return self.judged(abstract_id) + self.unread(abstract_id)
