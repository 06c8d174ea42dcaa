"""What search needs to know about the user's own data, and nothing more.

The store implements this structurally (no import of this module needed), so
search never depends on how bookmarks and notes are kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Protocol


class PersonalData(Protocol):
    """The user's bookmarks, read state, dismissals, notes and tags, by abstract id."""

    def bookmarked_ids(self) -> AbstractSet[str]: ...

    def read_ids(self) -> AbstractSet[str]: ...

    def dismissed_ids(self) -> AbstractSet[str]:
        """Abstracts the user dismissed ("not interested", the `x` key)."""
        ...

    def noted_ids(self) -> AbstractSet[str]: ...

    def note_items(self) -> Iterable[tuple[str, str]]:
        """(abstract id, note text) for every note."""
        ...

    def tag_index(self) -> Mapping[str, AbstractSet[str]]:
        """Tag name (normalised) -> ids of the abstracts that have it."""
        ...
