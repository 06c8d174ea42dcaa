"""Indexing a large corpus in two processes: a forked helper indexes the second half.

The helper inherits the loaded abstracts from the fork (nothing is re-read,
re-parsed or pickled) and numbers words in a vocabulary of its own. It sends
its blocks back through a pipe as raw array bytes, read straight into numpy
arrays, with its words as one UTF-8 blob; this process translates its word
numbers into its own. Should the helper fail or its pipe break, this process
indexes that half itself: the index is the same either way.

The app, whose threads make forking unsafe, can have its cache child index the
second half instead (`OtherHalf`): the child, started ahead and holding the same
abstracts read through the read cache, writes that half the same way (`send_half`)
to a pipe the app reads, with a digest of the abstracts' ids that must be the app's.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import io
import json
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any, BinaryIO, Protocol

import numpy as np

from tui.corpus.model import Abstract
from tui.progress import advance
from tui.search.blocks import Block, TokenSink, block_starts, index_block
from tui.search.bulk import Vocabulary

# From this many abstracts on, two processes index (see `workers_for`).
PARALLEL_MIN = 4000
# A block's arrays in the order they are sent: (field, dtype, which length).
_FIELDS: list[tuple[str, type[Any], int]] = [
    ("lengths", np.int64, 0),
    ("words", np.int32, 1),
    ("runs", np.int64, 1),
    ("local_doc", np.uint16, 2),
    ("tf", np.uint16, 2),
    ("in_head", np.bool_, 2),
]


def workers_for(n: int, fork_safe: bool = False) -> int:
    """How many processes index `n` abstracts: two on a multi-core Linux machine for a
    large corpus, one otherwise. Forking a process whose other threads may hold locks
    (the app's) is unsafe: only a process without other threads forks, or one whose
    caller vouches that they hold none the build needs (`fork_safe`: the cache child,
    whose one other thread waits on stdin)."""
    if n < PARALLEL_MIN or sys.platform != "linux" or len(os.sched_getaffinity(0)) < 2:
        return 1
    return 2 if fork_safe or threading.active_count() == 1 else 1


class HalfIndexer(Protocol):
    """Another process indexing abstracts [`lo`, the end) while this one indexes the rest."""

    lo: int

    def receive(self, sink: TokenSink) -> tuple[list[str], list[Block]] | None:
        """Its words and blocks, its tokens read into `sink`; None when it failed."""

    def close(self) -> None:
        """Let go of it (reaped, its pipe closed)."""


def index_blocks(
    abstracts: list[Abstract], size: int, workers: int, other: HalfIndexer | None = None
) -> tuple[dict[str, int], list[Block], TokenSink]:
    """Blocks of every abstract, the vocabulary (word -> number) they are numbered in,
    and every abstract's tokens in those numbers. `other`: the process indexing the
    abstracts from `other.lo` on (else a forked helper does when `workers` is 2)."""
    n = len(abstracts)
    vocab = Vocabulary()
    sink = TokenSink(TokenSink.bound(abstracts))
    if other is None and workers < 2:
        return vocab.ids, _indexed(abstracts, 0, n, size, vocab, sink), sink
    helper: HalfIndexer = other if other is not None else _Helper(abstracts, n // 2, n, size)
    half = min(max(helper.lo, 0), n)
    try:
        blocks = _indexed(abstracts, 0, half, size, vocab, sink)
        mine = sink.size
        theirs = helper.receive(sink)
    finally:
        helper.close()
    if theirs is None:  # the helper failed: index its half here
        sink.size = mine
        blocks += _indexed(abstracts, half, n, size, vocab, sink)
        return vocab.ids, blocks, sink
    their_words, their_blocks = theirs
    word_ids = vocab.ids
    mapping = np.fromiter(
        (word_ids.setdefault(w, len(word_ids)) for w in their_words), np.int32, len(their_words)
    )
    sink.remap(mapping, start=mine)
    for block in their_blocks:
        block.words = mapping[block.words]
    return word_ids, blocks + their_blocks, sink


def _indexed(
    abstracts: list[Abstract], lo: int, hi: int, size: int, vocab: Vocabulary, sink: TokenSink
) -> list[Block]:
    """The blocks of abstracts [lo, hi), each reported done as it is (`tui.progress`:
    "index", as a share of them; the helper indexes the other half as fast)."""
    starts = list(block_starts(lo, hi, size))
    blocks = []
    for done, (a, b) in enumerate(starts, start=1):
        blocks.append(index_block(abstracts[a:b], a, vocab, sink))
        advance("index", done, len(starts))
    return blocks


class ForkedHelper:
    """A forked process running `work(out)` (writing its result to `out`), read back
    through `pipe`. The helper never returns into the caller's code, and dies with
    the process that forked it; `close` reaps it (killed if still running)."""

    def __init__(self, work: Callable[[BinaryIO], None]) -> None:
        read, write = os.pipe()
        parent = os.getpid()
        with warnings.catch_warnings():
            # Python 3.12+ warns about forking with threads; see workers_for.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            status = 1
            try:
                os.close(read)
                _die_with_parent()
                if os.getppid() == parent:  # else it went before it could be asked to
                    with os.fdopen(write, "wb") as out:
                        work(out)
                    status = 0
            finally:
                os._exit(status)
        os.close(write)
        self.pid: int | None = pid
        self.pipe: io.BufferedReader | None = os.fdopen(read, "rb")

    def close(self) -> None:
        """Close the pipe and reap the helper (killed if still running)."""
        if self.pipe is not None:
            with contextlib.suppress(OSError):
                self.pipe.close()
            self.pipe = None
        if self.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(self.pid, 0)
            self.pid = None


def _die_with_parent() -> None:
    """Have the kernel kill this process when its parent dies (Linux's PR_SET_PDEATHSIG):
    a helper whose parent was killed stops at once instead of working for nobody."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


_PR_SET_PDEATHSIG = 1


class _Helper(ForkedHelper):
    """A forked process indexing abstracts [lo, hi), its blocks read back from a pipe."""

    def __init__(self, abstracts: list[Abstract], lo: int, hi: int, size: int) -> None:
        parent = os.getpid()
        self.lo = lo
        super().__init__(lambda out: _send(out, abstracts, lo, hi, size, parent))

    def receive(self, sink: TokenSink) -> tuple[list[str], list[Block]] | None:
        """The helper's words and blocks, its tokens read into `sink`; None when it failed."""
        assert self.pipe is not None
        return _received(self.pipe, sink)


class OtherHalf:
    """The abstracts from `lo` on of `abstracts`, indexed by another process (the cache
    child: see `send_half`) and read from `pipe`, taken only if that process indexed
    the same abstracts (the digest of their ids); else `receive` says it failed."""

    def __init__(self, pipe: io.BufferedReader, abstracts: list[Abstract], lo: int) -> None:
        self.lo = lo
        self._pipe: io.BufferedReader | None = pipe
        self._digest = ids_digest(abstracts, lo)

    def receive(self, sink: TokenSink) -> tuple[list[str], list[Block]] | None:
        pipe = self._pipe
        return None if pipe is None else _received(pipe, sink, self._digest)

    def close(self) -> None:
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


def ids_digest(abstracts: list[Abstract], lo: int) -> str:
    """Which abstracts are [lo, the end) of `abstracts`: their count and a digest of their ids."""
    digest = hashlib.blake2b(digest_size=16)
    for abstract in abstracts[lo:]:
        digest.update(abstract.id.encode("utf-8", "surrogatepass") + b"\0")
    return f"{len(abstracts) - lo}:{digest.hexdigest()}"


def send_half(out: BinaryIO, abstracts: list[Abstract], lo: int, size: int) -> None:
    """The other process's side of `OtherHalf`: index abstracts [lo, the end) and write
    them to `out`, with the digest of their ids `OtherHalf` checks."""
    _send(out, abstracts, lo, len(abstracts), size, None, ids_digest(abstracts, lo))


def _send(
    out: BinaryIO,
    abstracts: list[Abstract],
    lo: int,
    hi: int,
    size: int,
    parent: int | None,
    digest: str | None = None,
) -> None:
    """Helper side: index [lo, hi), then write a header line, the words, the tokens
    and each block's arrays. `parent`: the forking process, which must still be there;
    `digest`: the abstracts' (`ids_digest`), sent in the header when given."""
    vocab = Vocabulary()
    sink = TokenSink(TokenSink.bound(abstracts[lo:hi]))
    blocks: list[Block] = []
    for a, b in block_starts(lo, hi, size):
        if parent is not None and os.getppid() != parent:
            return  # the parent has gone: nobody will read
        blocks.append(index_block(abstracts[a:b], a, vocab, sink))
    words = "\0".join(vocab.ids).encode("utf-8", "surrogatepass")
    sizes = [[b.first, b.lengths.size, b.words.size, b.local_doc.size] for b in blocks]
    head = {
        "words": len(vocab.ids),
        "bytes": len(words),
        "tokens": sink.size,
        "blocks": sizes,
        "abstracts": digest,
    }
    out.write(json.dumps(head).encode("ascii") + b"\n")
    out.write(words)
    del words
    out.write(sink.array[: sink.size].data)
    del sink
    blocks.reverse()
    while blocks:
        block = blocks.pop()
        for name, dtype, _ in _FIELDS:
            out.write(np.ascontiguousarray(getattr(block, name), dtype=dtype).data)


def _received(
    pipe: io.BufferedReader, sink: TokenSink, digest: str | None = None
) -> tuple[list[str], list[Block]] | None:
    """`_receive`, or None when the pipe failed or held something else."""
    try:
        return _receive(pipe, sink, digest)
    except (OSError, ValueError, EOFError, KeyError, TypeError):
        return None


def _receive(
    pipe: io.BufferedReader, sink: TokenSink, digest: str | None = None
) -> tuple[list[str], list[Block]]:
    """What `_send` wrote; ValueError when its abstracts are not `digest`'s (when given)."""
    head, words = read_head_and_words(pipe)
    if digest is not None and head.get("abstracts") != digest:
        raise ValueError("the other process indexed other abstracts")
    read_into(pipe, sink.reserve(int(head["tokens"])).data.cast("B"))
    blocks = []
    for first, *counts in head["blocks"]:
        arrays = {}
        for name, dtype, which in _FIELDS:
            array = np.empty(int(counts[which]), dtype=dtype)
            read_into(pipe, array.data.cast("B"))
            arrays[name] = array
        blocks.append(Block(first=int(first), **arrays))
    return words, blocks


def read_head_and_words(pipe: io.BufferedReader) -> tuple[dict[str, Any], list[str]]:
    """A helper's header line (JSON) and the words after it: `head["words"]` of them,
    NUL-separated UTF-8 of `head["bytes"]` bytes. ValueError when they do not add up."""
    head = json.loads(pipe.readline())
    blob = bytearray(int(head["bytes"]))
    read_into(pipe, memoryview(blob))
    words = blob.decode("utf-8", "surrogatepass").split("\0") if head["words"] else []
    del blob
    if len(words) != head["words"]:
        raise ValueError("the helper's words do not add up")
    return head, words


def read_into(pipe: io.BufferedReader, view: memoryview) -> None:
    """Fill `view` from the helper's pipe; EOFError if it stops before."""
    got = 0
    while got < len(view):
        k = pipe.readinto(view[got:])
        if not k:
            raise EOFError("the helper stopped before sending everything")
        got += k
