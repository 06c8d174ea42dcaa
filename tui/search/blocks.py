"""Indexing a block of abstracts: tokens and postings of a few thousand documents.

A block's word numbers are those of a `Vocabulary` being built (in order of
first sighting); `tui.search.build` renumbers them in sorted order and merges
the blocks. Blocks bound the memory of a build: only one block's Python
strings exist at a time.
"""

from __future__ import annotations

import ctypes
import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.corpus.model import Abstract, texts_held
from tui.corpus.tokens import fold
from tui.search.bulk import Vocabulary, numbered, tokenize_in_pieces, tokenize_texts
from tui.search.query import SYMBOL_NAMES, symbol_word

Int32Array = npt.NDArray[np.int32]
Int64Array = npt.NDArray[np.int64]
Uint16Array = npt.NDArray[np.uint16]
BoolArray = npt.NDArray[np.bool_]

_MACRO = re.compile(r"\\([A-Za-z]+)")
# Macros that only format text: indexing them would make `emph` match every
# abstract that emphasises anything.
_FORMATTING_MACROS = frozenset(
    [
        "emph",
        "textbf",
        "textit",
        "texttt",
        "textsc",
        "textrm",
        "textsf",
        "text",
        "mathbf",
        "mathrm",
        "mathit",
        "mathsf",
        "mathcal",
        "mathbb",
        "mathfrak",
        "mathtt",
        "boldsymbol",
        "bm",
        "operatorname",
        "underline",
        "cite",
        "citep",
        "citet",
        "url",
        "href",
        "footnote",
        "label",
        "ref",
        "eqref",
        "left",
        "right",
        "big",
        "bigg",
        "begin",
        "end",
        "item",
    ]
)


def _macro_words(source: str) -> set[str]:
    """LaTeX macro names of the source (`\\times` -> `times`), so `times` finds `$3\\times$`."""
    if "\\" not in source:
        return set()
    return {fold(m) for m in _MACRO.findall(source)} - _FORMATTING_MACROS


def _symbol_words(plain: str) -> set[str]:
    """Names of symbols in the rendered text (`×` -> `times`): the tokenizer skips symbols."""
    if plain.isascii():
        return set()
    return {name for ch, name in SYMBOL_NAMES.items() if ch in plain}


def _counted(keys: npt.NDArray[np.integer]) -> tuple[npt.NDArray[np.integer], Int64Array]:
    """Sorted distinct keys and how often each occurs (np.unique, without its slow paths)."""
    if keys.size == 0:
        return keys, np.zeros(0, dtype=np.int64)
    ordered = np.sort(keys)
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    counts = np.diff(np.append(starts, ordered.size))
    return ordered[starts], counts


@dataclass(slots=True)
class Block:
    """One block of documents, indexed: its postings sorted by (word, doc), with word
    numbers of the vocabulary being built (not yet in sorted order). Compact, as
    every block of a corpus is held until the merge: each word once with its
    number of postings (`runs`), documents counted from the block's first (`first`)."""

    first: int
    lengths: Int64Array  # tokens per document
    words: Int32Array  # distinct words, in posting order
    runs: Int64Array  # postings of each of `words`
    local_doc: Uint16Array
    tf: Uint16Array
    in_head: BoolArray


class TokenSink:
    """Every document's word numbers, block after block, in one array.

    Allocated at an upper bound (the memory of pages never written is never
    used) and grown should the bound prove short, so no block holds its
    tokens until the merge and no merge copies them.
    """

    def __init__(self, capacity: int) -> None:
        self.array: Int32Array = np.empty(max(capacity, 1), dtype=np.int32)
        self.size = 0

    def reserve(self, count: int) -> Int32Array:
        """The next `count` slots (to be written by the caller)."""
        end = self.size + count
        if end > self.array.size:
            grown = np.empty(max(end, 2 * self.array.size), dtype=np.int32)
            grown[: self.size] = self.array[: self.size]
            self.array = grown
        view = self.array[self.size : end]
        self.size = end
        return view

    def remap(self, mapping: Int32Array, start: int = 0, chunk: int = 1 << 22) -> None:
        """Replace every word number from `start` on by `mapping[number]`, in place."""
        for lo in range(start, self.size, chunk):
            part = self.array[lo : min(lo + chunk, self.size)]
            np.take(mapping, part, out=part)

    @staticmethod
    def bound(abstracts: list[Abstract]) -> int:
        """At most this many tokens in `abstracts` (a word and a separator each), unless
        rendering makes a text longer than its source."""
        return sum(a.source_chars // 2 + 1 for a in abstracts)


def index_block(
    abstracts: list[Abstract], first: int, vocab: Vocabulary, tokens: TokenSink
) -> Block:
    """`_index_block` (the block's texts held meanwhile: see `texts_held`), then its
    temporaries' memory released."""
    with texts_held(abstracts):
        block = _index_block(abstracts, first, vocab, tokens)
    release_memory()
    return block


def _index_block(
    abstracts: list[Abstract], first: int, vocab: Vocabulary, tokens: TokenSink
) -> Block:
    """Tokenize a block of abstracts (the first is document number `first`) into
    `tokens` and count one posting per distinct (word, doc).

    tf counts body occurrences; hyphenated compounds, macro and symbol names
    count once. A headline word only boosts a word the body (or its macros)
    has: a headline cut mid-word must not invent a word.
    """
    m = len(abstracts)
    # A paper's title and authors are searched with its abstract (see Abstract.searchable).
    plains = [a.searchable for a in abstracts]
    body = tokenize_in_pieces(plains, vocab)
    extra_docs: list[int] = []
    extra_words: list[str] = []
    for j, abstract in enumerate(abstracts):
        for name in _macro_words(abstract.text) | _symbol_words(plains[j]):
            # The plain name (`times`) and the marked one only a symbol or
            # macro query asks for (a backslash and the name).
            extra_docs += (j, j)
            extra_words += (name, symbol_word(name))
    del plains
    extra = numbered(extra_words, vocab.ids)
    head = tokenize_texts([a.headline for a in abstracts], vocab, add=False, compounds=False)

    # Keys word * m + local doc sort by word, then doc (in 32 bits while they fit: faster).
    local_doc = np.repeat(np.arange(m, dtype=np.int64), body.lengths)
    wide = len(vocab.ids) * max(m, 1) >= 2**32
    keys = body.ids.astype(np.int64) * m + local_doc
    del local_doc
    ordered, body_counts = _counted(keys if wide else keys.astype(np.uint32))
    del keys
    body_keys: Int64Array = ordered.astype(np.int64)
    del ordered
    # Compounds, macro and symbol names: a posting (tf 1) where the body has no such word.
    extra_keys = np.unique(
        np.concatenate(
            [
                extra.astype(np.int64) * m + np.asarray(extra_docs, dtype=np.int64),
                body.compound_ids.astype(np.int64) * m + body.compound_text,
            ]
        )
    )
    new = extra_keys[~_contains(body_keys, extra_keys)]
    at = np.searchsorted(body_keys, new)
    uniq: Int64Array = np.insert(body_keys, at, new)
    # uint16 keeps the block small; a word 65,535 times in one abstract is saturated anyway.
    counts = np.minimum(body_counts, np.iinfo(np.uint16).max).astype(np.uint16)
    tf = np.insert(counts, at, np.uint16(1))
    head_doc = np.repeat(np.arange(m, dtype=np.int64), head.lengths)
    known = head.ids >= 0
    head_keys = np.unique(head.ids[known].astype(np.int64) * m + head_doc[known])
    in_head = np.zeros(uniq.size, dtype=np.bool_)
    in_head[np.searchsorted(uniq, head_keys[_contains(uniq, head_keys)])] = True
    tokens.reserve(body.ids.size)[:] = body.ids
    word = uniq // m
    step = np.flatnonzero(np.diff(word, prepend=-1))
    return Block(
        first=first,
        lengths=body.lengths,
        words=word[step].astype(np.int32),
        runs=np.diff(np.append(step, word.size)),
        local_doc=(uniq % m).astype(np.uint16),
        tf=tf,
        in_head=in_head,
    )


def _contains(ordered: Int64Array, values: Int64Array) -> BoolArray:
    """Whether each of `values` is in the sorted array `ordered`."""
    if ordered.size == 0:
        return np.zeros(values.size, dtype=np.bool_)
    at = np.minimum(np.searchsorted(ordered, values), ordered.size - 1)
    found: BoolArray = ordered[at] == values
    return found


def release_memory() -> None:
    """Give memory freed since (a block's temporaries) back to the system. glibc keeps
    freed heap for reuse, and after large numpy temporaries raises its threshold for
    mapping allocations separately, so a build's RSS would creep up by tens of MB at
    100,000 abstracts. Nothing to do elsewhere."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if sys.platform != "linux":
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL("libc.so.6").malloc_trim
        return trim
    except (OSError, AttributeError):  # not glibc
        return None


# Documents of a block are counted in 16 bits (`Block.local_doc`).
MAX_BLOCK = 1 << 16


def block_starts(lo: int, hi: int, size: int) -> list[tuple[int, int]]:
    """[start, end) of each block of documents [lo, hi), `size` (at most MAX_BLOCK) each."""
    size = min(max(size, 1), MAX_BLOCK)
    return [(start, min(start + size, hi)) for start in range(lo, hi, size)]
