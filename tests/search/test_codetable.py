"""The numpy hash table answers as a dictionary would, through collisions and growth."""

from __future__ import annotations

import numpy as np

from tui.search.codetable import CodeTable


def test_lookups_match_a_dictionary() -> None:
    rng = np.random.default_rng(7)
    table = CodeTable(bits=2)  # tiny: forces collisions and several growths
    reference: dict[tuple[int, int], int] = {}
    for batch in range(20):
        # Few distinct his and small los: many pairs share one half.
        lo = rng.integers(1, 50, size=40).astype(np.uint64)
        hi = rng.integers(0, 3, size=40).astype(np.uint64)
        got = table.get(lo, hi)
        expected = [reference.get(k, -1) for k in zip(lo.tolist(), hi.tolist(), strict=True)]
        assert got.tolist() == expected, batch
        new = {k: None for k in zip(lo.tolist(), hi.tolist(), strict=True) if k not in reference}
        values = np.arange(len(reference), len(reference) + len(new), dtype=np.int32)
        reference.update(zip(new, values.tolist(), strict=True))
        pairs = np.array(list(new), dtype=np.uint64).reshape(-1, 2)
        table.put(pairs[:, 0].copy(), pairs[:, 1].copy(), values)
    assert table.count == len(reference)
    lo = np.array([k[0] for k in reference], dtype=np.uint64)
    hi = np.array([k[1] for k in reference], dtype=np.uint64)
    assert table.get(lo, hi).tolist() == list(reference.values())


def test_a_probe_runs_on_from_the_last_slot_to_the_first() -> None:
    # Pairs that all hash to the table's last slot: the second and third are put in,
    # and looked for, past its end, in its first slots.
    table = CodeTable(bits=4)
    candidates = np.arange(1, 10_000, dtype=np.uint64)
    last = candidates[table._slots(candidates, np.zeros_like(candidates)) == (1 << 4) - 1]
    lo, missing = last[:3], last[3:4]
    hi = np.zeros(3, dtype=np.uint64)
    table.put(lo, hi, np.arange(3, dtype=np.int32))
    assert table.count == 3
    assert table.get(lo, hi).tolist() == [0, 1, 2]
    assert table.get(missing, np.zeros(1, dtype=np.uint64)).tolist() == [-1]


def test_the_table_is_kept_at_most_half_full() -> None:
    # A full table would leave the lookup of a missing pair probing for ever.
    table = CodeTable(bits=2)
    table.put(
        np.arange(1, 5, dtype=np.uint64), np.zeros(4, dtype=np.uint64), np.arange(4, dtype=np.int32)
    )
    assert table._values.size >= 2 * table.count
    assert table.get(np.asarray([9], dtype=np.uint64), np.zeros(1, dtype=np.uint64)).tolist() == [
        -1
    ]
