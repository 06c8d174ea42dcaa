"""A hash table in numpy arrays: word numbers by the bytes of short words.

The index build reads a word of up to 16 ASCII letters as two integers (its
bytes, see `tui.search.bulk`) and numbers a block's 700,000 tokens in one go:
open addressing with linear probing, every lookup and insertion done for a
whole array at a time, a few numpy passes instead of a dictionary lookup per
token.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Int32Array = npt.NDArray[np.int32]
Int64Array = npt.NDArray[np.int64]
Uint64Array = npt.NDArray[np.uint64]

# Odd constants of Fibonacci hashing (2**64 / golden ratio) and another (splitmix64's).
_MULTIPLY = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xBF58476D1CE4E5B9)


class CodeTable:
    """(lo, hi) integer pairs -> numbers (int32, never negative). Kept at most half full."""

    def __init__(self, bits: int = 16) -> None:
        self.count = 0
        self._allocate(bits)

    def _allocate(self, bits: int) -> None:
        self._bits = bits
        size = 1 << bits
        self._lo: Uint64Array = np.zeros(size, dtype=np.uint64)
        self._hi: Uint64Array = np.zeros(size, dtype=np.uint64)
        self._values: Int32Array = np.full(size, -1, dtype=np.int32)  # -1: empty slot

    def _slots(self, lo: Uint64Array, hi: Uint64Array) -> Int64Array:
        mixed = (lo ^ (hi * _MIX)) * _MULTIPLY
        slots: Int64Array = (mixed >> np.uint64(64 - self._bits)).astype(np.int64)
        return slots

    def get(self, lo: Uint64Array, hi: Uint64Array) -> Int32Array:
        """The number of each pair; -1 for pairs not in the table."""
        found = np.full(lo.size, -1, dtype=np.int32)
        mask = (1 << self._bits) - 1
        slots = self._slots(lo, hi)
        todo = np.arange(lo.size, dtype=np.int64)
        while todo.size:
            at = slots[todo]
            values = self._values[at]
            hit = (self._lo[at] == lo[todo]) & (self._hi[at] == hi[todo]) & (values >= 0)
            found[todo[hit]] = values[hit]
            # A slot taken by another pair: look in the next; an empty one: not there.
            todo = todo[~hit & (values >= 0)]
            slots[todo] = (slots[todo] + 1) & mask
        return found

    def put(self, lo: Uint64Array, hi: Uint64Array, values: Int32Array) -> None:
        """Add pairs that are distinct and not in the table yet."""
        if 2 * (self.count + lo.size) > (1 << self._bits):
            self._grow(self.count + lo.size)
        mask = (1 << self._bits) - 1
        slots = self._slots(lo, hi)
        todo = np.arange(lo.size, dtype=np.int64)
        placed = np.zeros(lo.size, dtype=np.bool_)
        while todo.size:
            at = slots[todo]
            free = self._values[at] < 0
            # One pair per free slot (the first asking); the others probe on.
            taken, first = np.unique(at[free], return_index=True)
            winners = todo[free][first]
            self._lo[taken] = lo[winners]
            self._hi[taken] = hi[winners]
            self._values[taken] = values[winners]
            placed[winners] = True
            todo = todo[~placed[todo]]
            slots[todo] = (slots[todo] + 1) & mask
        self.count += lo.size

    def _grow(self, needed: int) -> None:
        used = np.flatnonzero(self._values >= 0)
        lo, hi, values = self._lo[used], self._hi[used], self._values[used]
        bits = self._bits
        while 2 * needed > (1 << bits):
            bits += 2
        self._allocate(bits)
        self.count = 0
        self.put(lo, hi, values)
