from __future__ import annotations

from array import array

from tui import locations
from tui.corpus.load import load_corpus
from tui.triage.navigation import ProgressCounts, next_unread, progress

SEEDS = locations.seeds_dir()


def test_next_unread_skips_read_and_follows_the_given_order() -> None:
    order = [5, 2, 9, 1, 7]  # a filtered, re-sorted list of abstract indices
    read = {2, 9}
    assert next_unread(order, 0, read.__contains__) == 3
    assert next_unread(order, None, read.__contains__) == 0
    assert next_unread(order, 3, read.__contains__) == 4


def test_next_unread_does_not_wrap() -> None:
    order = [0, 1, 2, 3]
    read = {3}
    assert next_unread(order, 2, read.__contains__) is None
    assert next_unread(order, 3, read.__contains__) is None


def test_next_unread_only_sees_the_filtered_list() -> None:
    # Abstract 4 is unread but filtered out of the list, so it is never chosen.
    order = [1, 3, 6]
    read = {3}
    assert next_unread(order, 0, read.__contains__) == 2


def test_next_unread_on_empty_or_all_read_list() -> None:
    assert next_unread([], None, lambda _i: False) is None
    assert next_unread([1, 2], None, lambda _i: True) is None


def test_progress_counts_only_the_current_list() -> None:
    ids = [f"id{i}" for i in range(3000)]
    order = list(range(1574))
    read_ids = {f"id{i}" for i in range(212)} | {"id2999"}  # id2999 is not in the list
    starred = {f"id{i}" for i in range(100, 131)}
    assert progress(order, read_ids, starred, ids) == "212 / 1,574 read · 31 ★"


def test_progress_of_empty_list() -> None:
    assert progress([], set(), set(), []) == "0 / 0 read · 0 ★"


def test_progress_counts_agree_with_progress_over_lists_shown_in_turn() -> None:
    corpus = load_corpus([SEEDS])
    ids, by_id = corpus.ids, corpus.by_id
    read_ids = set(ids[::3]) | {"not-loaded"}
    starred = set(ids[5:9]) | {"gone"}
    counts = ProgressCounts()
    everything = list(range(len(ids)))
    for rows in (everything, everything[10:40], [70, 3, 12], [], list(reversed(everything))):
        shown = counts.text(rows, read_ids, starred, by_id, ids)
        assert shown == progress(rows, read_ids, starred, ids)
    rows = array("i", range(10))
    assert counts.text(rows, read_ids, starred, by_id, ids) == progress(
        rows, read_ids, starred, ids
    )
    rows.extend(range(10, 20))  # the same list grown (files read after the first paint)
    assert counts.text(rows, read_ids, starred, by_id, ids) == progress(
        rows, read_ids, starred, ids
    )
    read_ids.update(ids)  # more ids than rows: counted over the rows
    assert counts.text(rows, read_ids, starred, by_id, ids) == "20 / 20 read · 4 ★"


class _NoPythonWalk(array):  # type: ignore[type-arg]
    """A list's rows that fail when walked one by one in Python."""

    def __iter__(self):  # type: ignore[no-untyped-def]
        raise AssertionError("the rows were walked in Python")


def test_progress_counts_a_filtered_list_without_walking_its_rows_in_python() -> None:
    corpus = load_corpus([SEEDS])
    ids, by_id = corpus.ids, corpus.by_id
    read_ids, starred = {ids[1], ids[4]}, {ids[4]}
    rows = _NoPythonWalk("i", [4, 2, 1])  # a new answer of the filter, fewer rows than ids
    assert ProgressCounts().text(rows, read_ids, starred, by_id, ids) == "2 / 3 read · 1 ★"
