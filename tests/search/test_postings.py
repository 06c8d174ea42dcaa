"""run_positions reads many CSR runs at once, exactly as slicing them one by one would."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tui.search.postings import run_positions


def test_runs_are_concatenated_in_order() -> None:
    starts = np.asarray([5, 0, 9], dtype=np.int64)
    lengths = np.asarray([2, 3, 0], dtype=np.int64)
    assert run_positions(starts, lengths).tolist() == [5, 6, 0, 1, 2]


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 6)), max_size=12))
def test_same_as_slicing_each_run(runs: list[tuple[int, int]]) -> None:
    starts = np.asarray([s for s, _ in runs], dtype=np.int64)
    lengths = np.asarray([n for _, n in runs], dtype=np.int64)
    expected = [p for s, n in runs for p in range(s, s + n)]
    got = run_positions(starts, lengths)
    assert got.dtype == np.int64
    assert got.tolist() == expected
