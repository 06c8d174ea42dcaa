"""Turning a corpus into the arrays the index searches.

Everything here is plain data (lists, numpy arrays), so the whole index pickles
as is and a warm start is one read.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.corpus.model import Corpus

# The one tokenizer's pattern, reused for an equivalent ASCII fast path (see fast_tokenize).
from tui.corpus.tokens import _WORD, fold, tokenize
from tui.search.query import SYMBOL_NAMES

# BM25 constants (the usual ones) and how much a headline occurrence adds,
# on the scale of one saturated body occurrence (at most K1 + 1).
K1 = 1.2
B = 0.75
HEADLINE_BONUS = 1.5

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

Int32Array = npt.NDArray[np.int32]
Int64Array = npt.NDArray[np.int64]
Float32Array = npt.NDArray[np.float32]


@dataclass(slots=True)
class IndexData:
    """The searchable form of a corpus. Arrays are indexed by document (abstract) number,
    by word number (position in the sorted `vocab`) or by posting."""

    ids: list[str]
    vocab: list[str]
    # Postings in CSR form: word w's postings are [post_ptr[w], post_ptr[w+1]).
    post_ptr: Int64Array
    post_doc: Int32Array
    # Per posting: BM25 term-frequency part (length-normalised, saturated) plus
    # the headline bonus when the word is in the headline; idf is applied per query.
    post_weight: Float32Array
    # Each document's words in order (for phrases): doc d is [tok_ptr[d], tok_ptr[d+1]).
    tokens: Int32Array
    tok_ptr: Int64Array
    years: Int32Array
    venue_names: list[str]
    venue_of: Int32Array
    file_names: list[str]
    src_doc: Int32Array
    src_file: Int32Array


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


def fast_tokenize(text: str) -> list[str]:
    """`tokenize(text)`, faster on ASCII text (most abstracts): for ASCII, folding is
    lower-casing, so lower-case once and split, instead of folding word by word."""
    if text.isascii():
        return _WORD.findall(text.lower())
    return tokenize(text)


def _counted(keys: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Sorted distinct keys and how often each occurs (np.unique, without its slow paths)."""
    if keys.size == 0:
        return keys, np.zeros(0, dtype=np.int64)
    ordered = np.sort(keys)
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    counts = np.diff(np.append(starts, ordered.size))
    return ordered[starts], counts


def build_index_data(corpus: Corpus) -> IndexData:
    """Tokenize every abstract and lay out postings, lengths and metadata."""
    n = len(corpus.abstracts)
    # word -> a unique increasing number (the counter's value when first seen);
    # map() with a bound method keeps the per-token work in C.
    word_ids: dict[str, int] = {}
    counter = itertools.count()
    token_chunks: list[list[int]] = []
    extra_docs: list[int] = []
    extra_words: list[int] = []
    head_docs: list[int] = []
    head_words: list[int] = []
    lengths = np.zeros(n, dtype=np.float32)
    for d, abstract in enumerate(corpus.abstracts):
        plain = abstract.plain
        ids = list(map(word_ids.setdefault, fast_tokenize(plain), counter))
        token_chunks.append(ids)
        lengths[d] = len(ids)
        for w in _macro_words(abstract.text) | _symbol_words(plain):
            extra_docs.append(d)
            extra_words.append(word_ids.setdefault(w, next(counter)))
        for w in set(fast_tokenize(abstract.headline)):
            wid = word_ids.get(w)
            if wid is not None:
                head_docs.append(d)
                head_words.append(wid)

    # Renumber words in sorted order so every prefix is a contiguous range.
    vocab = list(word_ids)
    first_seen = np.fromiter(word_ids.values(), dtype=np.int64, count=len(vocab))  # increasing
    order = sorted(range(len(vocab)), key=vocab.__getitem__)
    rank = np.empty(len(vocab), dtype=np.int32)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(vocab), dtype=np.int32)
    vocab = [vocab[i] for i in order]
    v = len(vocab)

    def remap(ids: npt.NDArray[np.int64]) -> Int32Array:
        result: Int32Array = rank[np.searchsorted(first_seen, ids)]
        return result

    tok_ptr = np.zeros(n + 1, dtype=np.int64)
    tok_ptr[1:] = np.cumsum([len(c) for c in token_chunks], dtype=np.int64)
    raw = np.fromiter(itertools.chain.from_iterable(token_chunks), np.int64, int(tok_ptr[-1]))
    tokens = remap(raw)
    tok_doc = np.repeat(np.arange(n, dtype=np.int64), np.diff(tok_ptr))

    # One posting per distinct (word, doc) key; tf counts body occurrences.
    # Macro and symbol names count once. A headline word only boosts a word the
    # body has (a headline cut mid-word must not invent a word).
    body_keys, body_counts = _counted(tokens.astype(np.int64) * n + tok_doc)
    extra_keys = remap(np.asarray(extra_words, dtype=np.int64)).astype(np.int64) * n + np.asarray(
        extra_docs, dtype=np.int64
    )
    uniq = _counted(np.concatenate([body_keys, extra_keys]))[0]
    tf = np.ones(uniq.size, dtype=np.float32)
    tf[np.searchsorted(uniq, body_keys)] = body_counts
    head_keys = remap(np.asarray(head_words, dtype=np.int64)).astype(np.int64) * n + np.asarray(
        head_docs, dtype=np.int64
    )
    in_head = np.isin(uniq, head_keys)
    post_word = (uniq // max(n, 1)).astype(np.int64)
    post_doc = (uniq % max(n, 1)).astype(np.int32)
    avg = float(lengths.mean()) if n and lengths.mean() > 0 else 1.0
    norm = K1 * (1 - B + B * lengths[post_doc] / avg)
    weight = tf * (K1 + 1) / (tf + norm)
    weight32: Float32Array = (weight + HEADLINE_BONUS * in_head).astype(np.float32)
    post_ptr = np.zeros(v + 1, dtype=np.int64)
    post_ptr[1:] = np.cumsum(np.bincount(post_word, minlength=v))

    years = np.asarray([a.collection.year or 0 for a in corpus.abstracts], dtype=np.int32)
    venue_index: dict[str, int] = {}
    venue_of = np.asarray(
        [
            venue_index.setdefault(fold(a.collection.venue or a.collection.label), len(venue_index))
            for a in corpus.abstracts
        ],
        dtype=np.int32,
    )
    file_index: dict[str, int] = {}
    src_doc: list[int] = []
    src_file: list[int] = []
    for d, abstract in enumerate(corpus.abstracts):
        for ref in abstract.sources:
            src_doc.append(d)
            src_file.append(file_index.setdefault(fold(ref.name), len(file_index)))
    return IndexData(
        ids=[a.id for a in corpus.abstracts],
        vocab=vocab,
        post_ptr=post_ptr,
        post_doc=post_doc,
        post_weight=weight32,
        tokens=tokens.astype(np.int32),
        tok_ptr=tok_ptr,
        years=years,
        venue_names=list(venue_index),
        venue_of=venue_of,
        file_names=list(file_index),
        src_doc=np.asarray(src_doc, dtype=np.int32),
        src_file=np.asarray(src_file, dtype=np.int32),
    )
