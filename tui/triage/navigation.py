"""Moving through the current list: the next unread abstract, and the progress line."""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from tui.corpus.model import Abstract


def next_unread(
    order: Sequence[int], current: int | None, is_read: Callable[[int], bool]
) -> int | None:
    """The position in `order` of the first unread abstract after position `current`.

    `order` is the current list (filter and sort applied) as abstract indices;
    `current` is a position in it, or None to start from the top (position 0
    included). `is_read` is asked about abstract indices. Returns None when no
    unread abstract follows: the search does not wrap, so the UI can say "end
    of list" instead of jumping back up.
    """
    start = 0 if current is None else current + 1
    for position in range(max(start, 0), len(order)):
        if not is_read(order[position]):
            return position
    return None


def progress(
    order: Sequence[int],
    read_ids: Container[str],
    bookmarked_ids: Container[str],
    ids: Sequence[str],
) -> str:
    """The header's progress for the current list: `212 / 1,574 read · 31 ★`.

    `order` holds abstract indices; `ids[i]` is the id of abstract `i`.
    """
    read = sum(1 for i in order if ids[i] in read_ids)
    starred = sum(1 for i in order if ids[i] in bookmarked_ids)
    return f"{read:,} / {len(order):,} read · {starred:,} ★"


class ProgressCounts:
    """`progress` for the header, without a pass in Python over every row shown at each
    redraw.

    A redraw (every keystroke in the filter) counts the read and bookmarked ids that are
    among the rows: it walks the smaller of the id set and the rows; against the rows it
    asks a membership mask over the corpus, set from the rows' array in one vectorised
    step when a list is first counted that way (a new list, or one grown), not a set of
    them built in Python. The unfiltered list holds every abstract, so there it only
    checks that each id is loaded.
    """

    def __init__(self) -> None:
        self._rows: Sequence[int] | None = None
        self._length = -1
        self._members: np.ndarray | None = None  # by corpus index: among the rows
        self._made = False

    def text(
        self,
        rows: Sequence[int],
        read_ids: AbstractSet[str],
        bookmarked_ids: AbstractSet[str],
        by_id: Mapping[str, Abstract],
        ids: Sequence[str],
    ) -> str:
        """`212 / 1,574 read · 31 ★`, as `progress(rows, read_ids, bookmarked_ids, ids)`;
        `by_id` is the corpus's abstracts by id (`ids` the other way)."""
        if rows is not self._rows or len(rows) != self._length:
            self._rows, self._length = rows, len(rows)
            self._made = False  # the mask is set again when next asked
        read = self._count(rows, read_ids, by_id, ids)
        starred = self._count(rows, bookmarked_ids, by_id, ids)
        return f"{read:,} / {len(rows):,} read · {starred:,} ★"

    def _count(
        self,
        rows: Sequence[int],
        chosen: AbstractSet[str],
        by_id: Mapping[str, Abstract],
        ids: Sequence[str],
    ) -> int:
        if len(chosen) > len(rows):
            return sum(1 for i in rows if ids[i] in chosen)
        if len(rows) == len(ids):
            # Every abstract is shown (the unfiltered list): membership is being loaded.
            return sum(1 for i in chosen if i in by_id)
        members = self._membership(rows, len(ids))
        found = (by_id.get(i) for i in chosen)
        return sum(1 for a in found if a is not None and members[a.index])

    def _membership(self, rows: Sequence[int], size: int) -> np.ndarray:
        """Whether each abstract (by corpus index) is among `rows`."""
        import numpy as np  # here: the app's module leaves numpy for later (start-up)

        members = self._members
        if members is None or len(members) != size:
            members = self._members = np.zeros(size, dtype=np.bool_)
            self._made = False
        if not self._made:
            members.fill(False)
            # The list's rows are an `array("i")`: read through its buffer, not row by row.
            members[np.asarray(rows, dtype=np.intp)] = True
            self._made = True
        return members
