"""Near-duplicates searched in a forked helper while this process goes on.

Finding every near-duplicate pair takes seconds at 100,000 abstracts; the cache
child has the topics to compute meanwhile, which need only the weights. A forked
helper inherits the term matrix and the texts (nothing is copied or pickled),
finds the pairs and sends them back through a pipe as raw arrays. Should it fail
or its pipe break, this process finds them itself: the result is the same.
Only a process that may fork calls this (see `tui.search.parallel.workers_for`).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from tui.similar.duplicates import Duplicates, FloatArray, find_duplicates
from tui.similar.terms import TermMatrix

# The arrays sent, in order, with their types.
_FIELDS: list[tuple[str, type[Any]]] = [
    ("indptr", np.int64),
    ("rows", np.int32),
    ("cosines", np.float64),
]


class DuplicateSearch:
    """`find_duplicates(terms, weights, texts)` running in a forked helper."""

    def __init__(self, terms: TermMatrix, weights: FloatArray, texts: Sequence[str]) -> None:
        self._inputs = (terms, weights, texts)
        read, write = os.pipe()
        with warnings.catch_warnings():
            # Python 3.12+ warns about forking with threads; the caller vouches for them.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the helper: never returns into the caller's code
            status = 1
            try:
                os.close(read)
                with os.fdopen(write, "wb") as out:
                    _send(out, find_duplicates(terms, weights, texts))
                status = 0
            finally:
                os._exit(status)
        os.close(write)
        self._pid: int | None = pid
        self._pipe: io.BufferedReader | None = os.fdopen(read, "rb")

    def result(self) -> Duplicates:
        """The near-duplicates, from the helper, or found here if it failed."""
        try:
            assert self._pipe is not None
            found = _receive(self._pipe, self._inputs[0].n_docs)
        except (OSError, ValueError, EOFError, KeyError, TypeError, AssertionError):
            found = None
        finally:
            self.close()
        return find_duplicates(*self._inputs) if found is None else found

    def close(self) -> None:
        """Close the pipe and reap the helper (killed if still running)."""
        if self._pipe is not None:
            with contextlib.suppress(OSError):
                self._pipe.close()
            self._pipe = None
        if self._pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(self._pid, 0)
            self._pid = None


def _send(out: io.BufferedWriter, duplicates: Duplicates) -> None:
    arrays = [np.ascontiguousarray(getattr(duplicates, name), dtype) for name, dtype in _FIELDS]
    out.write(json.dumps([len(a) for a in arrays]).encode("ascii") + b"\n")
    for array in arrays:
        out.write(array.data)


def _receive(pipe: io.BufferedReader, n_docs: int) -> Duplicates | None:
    sizes = json.loads(pipe.readline())
    arrays = []
    for (_, dtype), size in zip(_FIELDS, sizes, strict=True):
        array = np.empty(int(size), dtype=dtype)
        view = array.data.cast("B")
        got = 0
        while got < len(view):
            k = pipe.readinto(view[got:])
            if not k:
                raise EOFError("the helper stopped before sending everything")
            got += k
        arrays.append(array)
    indptr, rows, cosines = arrays
    if len(indptr) != n_docs + 1 or not int(indptr[-1]) == len(rows) == len(cosines):
        return None
    return Duplicates(indptr, rows, cosines)
