"""Gathering runs of a CSR layout (postings by word, tokens by abstract) without a Python loop.

Shared by the search index (token positions of abstracts) and the similarity
model (postings of a query's terms): both read many `ptr[i]:ptr[i+1]` slices at
once as one index array.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Int64Array = npt.NDArray[np.int64]


def run_positions(starts: npt.NDArray[np.integer], lengths: npt.NDArray[np.integer]) -> Int64Array:
    """The positions `starts[k] .. starts[k] + lengths[k] - 1` of every run `k`, concatenated."""
    total = int(lengths.sum())
    # Each position is its index in the result plus its run's offset.
    offsets = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    positions: Int64Array = np.arange(total, dtype=np.int64) + offsets
    return positions
