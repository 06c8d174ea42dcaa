"""Indexing a block of abstracts: tokens and postings of a few thousand documents.

A block's word numbers are those of a `Vocabulary` being built (in order of
first sighting); `tui.search.build` renumbers them in sorted order and merges
the blocks. Blocks bound the memory of a build: only one block's Python
strings exist at a time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.corpus.model import Abstract
from tui.corpus.tokens import fold
from tui.search.bulk import Vocabulary, numbered, tokenize_texts
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


def _counted(keys: Int64Array) -> tuple[Int64Array, Int64Array]:
    """Sorted distinct keys and how often each occurs (np.unique, without its slow paths)."""
    if keys.size == 0:
        return keys, np.zeros(0, dtype=np.int64)
    ordered = np.sort(keys)
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    counts = np.diff(np.append(starts, ordered.size))
    return ordered[starts], counts


@dataclass(slots=True)
class Block:
    """One block of documents, tokenized: word numbers (not yet in vocabulary order) and postings."""

    tokens: Int32Array
    lengths: Int64Array
    post_word: Int32Array
    post_doc: Int32Array  # global document numbers
    tf: Uint16Array
    in_head: BoolArray


def index_block(abstracts: list[Abstract], first: int, vocab: Vocabulary) -> Block:
    """Tokenize a block of abstracts (the first is document number `first`) and
    count one posting per distinct (word, doc).

    tf counts body occurrences; hyphenated compounds, macro and symbol names
    count once. A headline word only boosts a word the body (or its macros)
    has: a headline cut mid-word must not invent a word.
    """
    m = len(abstracts)
    plains = [a.plain for a in abstracts]
    body = tokenize_texts(plains, vocab)
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

    # Keys word * m + local doc sort by word, then doc.
    tokens = body.ids
    local_doc = np.repeat(np.arange(m, dtype=np.int64), body.lengths)
    body_keys, body_counts = _counted(tokens.astype(np.int64) * m + local_doc)
    del local_doc
    extra_keys = np.concatenate(
        [
            extra.astype(np.int64) * m + np.asarray(extra_docs, dtype=np.int64),
            body.compound_ids.astype(np.int64) * m + body.compound_text,
        ]
    )
    uniq = _counted(np.concatenate([body_keys, extra_keys]))[0]
    tf = np.ones(uniq.size, dtype=np.uint16)
    # uint16 keeps the block small; a word 65,535 times in one abstract is saturated anyway.
    tf[np.searchsorted(uniq, body_keys)] = np.minimum(body_counts, np.iinfo(np.uint16).max)
    head_doc = np.repeat(np.arange(m, dtype=np.int64), head.lengths)
    known = head.ids >= 0
    head_keys = head.ids[known].astype(np.int64) * m + head_doc[known]
    return Block(
        tokens=tokens,
        lengths=body.lengths,
        post_word=(uniq // m).astype(np.int32),
        post_doc=(uniq % m + first).astype(np.int32),
        tf=tf,
        in_head=np.isin(uniq, head_keys),
    )


def block_starts(lo: int, hi: int, size: int) -> list[tuple[int, int]]:
    return [(start, min(start + size, hi)) for start in range(lo, hi, size)]
