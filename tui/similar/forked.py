"""Near-duplicates searched in a forked helper while this process goes on.

Finding every near-duplicate pair takes seconds at 100,000 abstracts; the cache
child has the topics to compute meanwhile, which need only the weights. A forked
helper inherits the term matrix and the texts (nothing is copied or pickled),
finds the pairs and sends them back through a pipe as raw arrays. Should it fail
or its pipe break, this process finds them itself: the result is the same.
Only a process that may fork calls this (see `tui.search.parallel.workers_for`).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any, BinaryIO

import numpy as np

from tui.search.parallel import ForkedHelper, read_into
from tui.similar.duplicates import Duplicates, FloatArray, find_duplicates
from tui.similar.terms import TermMatrix

# The arrays sent, in order, with their types.
_FIELDS: list[tuple[str, type[Any]]] = [
    ("indptr", np.int64),
    ("rows", np.int32),
    ("cosines", np.float64),
]


class DuplicateSearch(ForkedHelper):
    """`find_duplicates(terms, weights, texts)` running in a forked helper."""

    def __init__(self, terms: TermMatrix, weights: FloatArray, texts: Sequence[str]) -> None:
        self._inputs = (terms, weights, texts)
        super().__init__(lambda out: _send(out, find_duplicates(terms, weights, texts)))

    def result(self) -> Duplicates:
        """The near-duplicates, from the helper, or found here if it failed."""
        try:
            assert self.pipe is not None
            found = _receive(self.pipe, self._inputs[0].n_docs)
        except (OSError, ValueError, EOFError, KeyError, TypeError, AssertionError):
            found = None
        finally:
            self.close()
        return find_duplicates(*self._inputs) if found is None else found


def _send(out: BinaryIO, duplicates: Duplicates) -> None:
    arrays = [np.ascontiguousarray(getattr(duplicates, name), dtype) for name, dtype in _FIELDS]
    out.write(json.dumps([len(a) for a in arrays]).encode("ascii") + b"\n")
    for array in arrays:
        out.write(array.data)


def _receive(pipe: io.BufferedReader, n_docs: int) -> Duplicates | None:
    sizes = json.loads(pipe.readline())
    arrays = []
    for (_, dtype), size in zip(_FIELDS, sizes, strict=True):
        array = np.empty(int(size), dtype=dtype)
        read_into(pipe, array.data.cast("B"))
        arrays.append(array)
    indptr, rows, cosines = arrays
    if len(indptr) != n_docs + 1 or not int(indptr[-1]) == len(rows) == len(cosines):
        return None
    return Duplicates(indptr, rows, cosines)
