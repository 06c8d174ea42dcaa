"""Moving through the current list: the next unread abstract, and the progress line."""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence


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
