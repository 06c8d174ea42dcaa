"""Turning a corpus into the arrays the index searches.

Everything here is plain data (string lists, numpy arrays), so the whole index
is saved as arrays (tui/cachefile.py, no pickle) and a warm start is one read.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
import threading
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.corpus.model import Abstract, Corpus
from tui.corpus.stem import stem_words
from tui.corpus.tokens import fold, tokenize, tokenize_with_compounds
from tui.search.query import SYMBOL_MARK, SYMBOL_NAMES, symbol_word

# BM25 constants (the usual ones) and how much a headline occurrence adds,
# on the scale of one saturated body occurrence (at most K1 + 1).
K1 = 1.2
B = 0.75
HEADLINE_BONUS = 0.5

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
Uint16Array = npt.NDArray[np.uint16]
BoolArray = npt.NDArray[np.bool_]

# Documents tokenized per block: bounds the Python lists alive at once (a
# 100,000-abstract corpus has ~16 million tokens; as Python lists of ints
# that alone was ~130 MB, plus the int64 temporaries of one global sort).
BLOCK_SIZE = 4096
# From this many abstracts on, two processes index (see _workers).
PARALLEL_MIN = 4000


@dataclass(slots=True)
class IndexData:
    """The searchable form of a corpus. Arrays are indexed by document (abstract) number,
    by word number (position in the sorted `vocab`) or by posting."""

    ids: list[str]
    vocab: list[str]
    # Postings in CSR form: word w's postings are [post_ptr[w], post_ptr[w+1]).
    post_ptr: Int64Array
    post_doc: Int32Array
    # Per posting: how often the word occurs in the abstract, and whether it is in
    # the headline. BM25 saturates the summed counts of all the forms a query term
    # matched, per query (see index.py), with each document's `doc_norm`:
    # K1 * (1 - B + B * length / average length).
    post_tf: Uint16Array
    post_head: BoolArray
    doc_norm: Float32Array
    # Each document's words in order (for phrases): doc d is [tok_ptr[d], tok_ptr[d+1]).
    tokens: Int32Array
    tok_ptr: Int64Array
    # Word forms: the stem number of every vocabulary word, the sorted stems, and
    # the words of each stem in CSR form (stem s's words are
    # stem_words[stem_ptr[s]:stem_ptr[s+1]]).
    word_stem: Int32Array
    stems: list[str]
    stem_ptr: Int64Array
    stem_words: Int32Array
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


def _counted(keys: Int64Array) -> tuple[Int64Array, Int64Array]:
    """Sorted distinct keys and how often each occurs (np.unique, without its slow paths)."""
    if keys.size == 0:
        return keys, np.zeros(0, dtype=np.int64)
    ordered = np.sort(keys)
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    counts = np.diff(np.append(starts, ordered.size))
    return ordered[starts], counts


def _numbered(words: list[str], word_ids: dict[str, int], add: bool = True) -> Int32Array:
    """The numbers of `words` (-1 for words not in `word_ids` when not `add`).

    New words get the next free number. The lookups run in C (map over dict.get);
    only the first sighting of a word costs a Python-level step.
    """
    ids = np.fromiter(map(word_ids.get, words, itertools.repeat(-1)), np.int32, len(words))
    if add:
        missing = np.flatnonzero(ids < 0)
        if missing.size:
            unseen = list(map(words.__getitem__, missing.tolist()))
            # Number each new word once (in order of first sighting), not per occurrence:
            # in a corpus's first block nearly every token is a new word's.
            for word in dict.fromkeys(unseen):
                word_ids[word] = len(word_ids)
            ids[missing] = np.fromiter(map(word_ids.__getitem__, unseen), np.int32, len(unseen))
    return ids


@dataclass(slots=True)
class _Block:
    """One block of documents, tokenized: word numbers (not yet in vocabulary order) and postings."""

    tokens: Int32Array
    lengths: Int64Array
    post_word: Int32Array
    post_doc: Int32Array  # global document numbers
    tf: Uint16Array
    in_head: BoolArray


def _index_block(abstracts: list[Abstract], first: int, word_ids: dict[str, int]) -> _Block:
    """Tokenize a block of abstracts (the first is document number `first`) and
    count one posting per distinct (word, doc).

    tf counts body occurrences; macro and symbol names count once. A headline
    word only boosts a word the body (or its macros) has: a headline cut
    mid-word must not invent a word.
    """
    m = len(abstracts)
    words: list[str] = []
    lengths = np.empty(m, dtype=np.int64)
    extra_docs: list[int] = []
    extra_words: list[str] = []
    head_docs: list[int] = []
    head_words: list[str] = []
    for j, abstract in enumerate(abstracts):
        plain = abstract.plain
        body, compounds = tokenize_with_compounds(plain)
        lengths[j] = len(body)
        words += body
        for name in _macro_words(abstract.text) | _symbol_words(plain):
            # The plain name (`times`) and the marked one only a symbol or
            # macro query asks for (a backslash and the name).
            extra_docs += (j, j)
            extra_words += (name, symbol_word(name))
        for word in set(compounds):
            extra_docs.append(j)
            extra_words.append(word)
        for w in set(tokenize(abstract.headline)):
            head_docs.append(j)
            head_words.append(w)
    tokens = _numbered(words, word_ids)
    del words
    extra = _numbered(extra_words, word_ids)
    head = _numbered(head_words, word_ids, add=False)

    # Keys word * m + local doc sort by word, then doc.
    local_doc = np.repeat(np.arange(m, dtype=np.int64), lengths)
    body_keys, body_counts = _counted(tokens.astype(np.int64) * m + local_doc)
    del local_doc
    extra_keys = extra.astype(np.int64) * m + np.asarray(extra_docs, dtype=np.int64)
    uniq = _counted(np.concatenate([body_keys, extra_keys]))[0]
    tf = np.ones(uniq.size, dtype=np.uint16)
    # uint16 keeps the block small; a word 65,535 times in one abstract is saturated anyway.
    tf[np.searchsorted(uniq, body_keys)] = np.minimum(body_counts, np.iinfo(np.uint16).max)
    known = head >= 0
    head_keys = head[known].astype(np.int64) * m + np.asarray(head_docs, dtype=np.int64)[known]
    return _Block(
        tokens=tokens,
        lengths=lengths,
        post_word=(uniq // m).astype(np.int32),
        post_doc=(uniq % m + first).astype(np.int32),
        tf=tf,
        in_head=np.isin(uniq, head_keys),
    )


def _destinations(words: Int32Array, cursor: Int64Array) -> Int64Array:
    """Where a block's postings go in the merged arrays; advances `cursor`.

    `words` (in vocabulary order now) come in runs, one per word, each in doc order,
    because the block was sorted by (first-sighting number, doc).
    """
    if words.size == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], words[1:] != words[:-1]]))
    run_lengths = np.diff(np.append(starts, words.size))
    within = np.arange(words.size, dtype=np.int64) - np.repeat(starts, run_lengths)
    dest: Int64Array = cursor[words] + within
    cursor[words[starts]] += run_lengths
    return dest


def _stem_table(vocab: list[str]) -> tuple[Int32Array, list[str], Int64Array, Int32Array]:
    """Stem every vocabulary word; number the distinct stems in sorted order and list the
    words of each. Marked symbol words are their own stems."""
    forms = stem_words([w for w in vocab if not w.startswith(SYMBOL_MARK)])
    it = iter(forms)
    word_stems = [w if w.startswith(SYMBOL_MARK) else next(it) for w in vocab]
    stems = sorted(set(word_stems))
    number = {s: i for i, s in enumerate(stems)}
    word_stem = np.fromiter(map(number.__getitem__, word_stems), np.int32, len(vocab))
    # Stable: each stem's words stay in vocabulary order.
    stem_words_ = np.argsort(word_stem, kind="stable").astype(np.int32)
    stem_ptr = np.zeros(len(stems) + 1, dtype=np.int64)
    stem_ptr[1:] = np.cumsum(np.bincount(word_stem, minlength=len(stems)))
    return word_stem, stems, stem_ptr, stem_words_


def _block_starts(lo: int, hi: int, size: int) -> list[tuple[int, int]]:
    return [(start, min(start + size, hi)) for start in range(lo, hi, size)]


# The abstracts a forked helper process indexes (set just before forking: the
# child inherits them without copying or pickling).
_FORKED: list[Abstract] = []


def _index_part(lo: int, hi: int, size: int) -> tuple[list[str], list[_Block]]:
    """Index abstracts [lo, hi) of `_FORKED` with a vocabulary of its own (helper side)."""
    word_ids: dict[str, int] = {}
    blocks = [_index_block(_FORKED[a:b], a, word_ids) for a, b in _block_starts(lo, hi, size)]
    return list(word_ids), blocks


def _workers(n: int) -> int:
    """How many processes index `n` abstracts: two on a multi-core Linux machine for a
    large corpus, from a process with no other threads (forking one that has threads,
    such as the app's, is unsafe); one otherwise."""
    if n < PARALLEL_MIN or sys.platform != "linux" or (os.cpu_count() or 1) < 2:
        return 1
    return 2 if threading.active_count() == 1 else 1


def _index_all(
    abstracts: list[Abstract], size: int, workers: int
) -> tuple[dict[str, int], list[_Block]]:
    """Blocks of every abstract and the vocabulary they are numbered in. With two
    workers a forked process indexes the second half while this one does the first;
    its word numbers are then translated into this process's."""
    n = len(abstracts)
    word_ids: dict[str, int] = {}  # word -> number in order of first sighting
    if workers < 2:
        return word_ids, [
            _index_block(abstracts[a:b], a, word_ids) for a, b in _block_starts(0, n, size)
        ]
    import multiprocessing

    global _FORKED
    half = n // 2
    _FORKED = abstracts
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            pending = pool.apply_async(_index_part, (half, n, size))
            blocks = [
                _index_block(abstracts[a:b], a, word_ids) for a, b in _block_starts(0, half, size)
            ]
            their_words, their_blocks = pending.get()
    finally:
        _FORKED = []
    mapping = np.fromiter(
        (word_ids.setdefault(w, len(word_ids)) for w in their_words), np.int32, len(their_words)
    )
    for block in their_blocks:
        block.tokens = mapping[block.tokens]
        block.post_word = mapping[block.post_word]
    return word_ids, blocks + their_blocks


def build_index_data(
    corpus: Corpus, block_size: int = BLOCK_SIZE, workers: int | None = None
) -> IndexData:
    """Tokenize every abstract and lay out postings, lengths and metadata.

    Documents are indexed in blocks, so only one block's Python lists exist at
    a time; the rest is compact numpy arrays (int32 word and doc numbers,
    uint16 counts) that are scattered into word order at the end. A large
    corpus is indexed by two processes (`workers`, default: see `_workers`).
    """
    abstracts = corpus.abstracts
    n = len(abstracts)
    size = max(block_size, 1)
    word_ids, blocks = _index_all(abstracts, size, _workers(n) if workers is None else workers)

    # Renumber words in sorted order so every prefix is a contiguous range.
    first_seen = list(word_ids)
    del word_ids
    order = sorted(range(len(first_seen)), key=first_seen.__getitem__)
    vocab = [first_seen[i] for i in order]
    del first_seen
    v = len(vocab)
    rank = np.empty(v, dtype=np.int32)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(v, dtype=np.int32)
    del order

    counts = np.concatenate([b.lengths for b in blocks]) if blocks else np.zeros(0, np.int64)
    lengths = counts.astype(np.float32)
    tok_ptr = np.zeros(n + 1, dtype=np.int64)
    tok_ptr[1:] = np.cumsum(counts)
    avg = float(lengths.mean()) if n and lengths.mean() > 0 else 1.0
    per_word = np.zeros(v, dtype=np.int64)
    for b in blocks:
        b.post_word = rank[b.post_word]
        per_word += np.bincount(b.post_word, minlength=v)
    post_ptr = np.zeros(v + 1, dtype=np.int64)
    post_ptr[1:] = np.cumsum(per_word)
    cursor = post_ptr[:-1].copy()  # next free slot of each word's postings

    # Scatter each block into place (postings in word order, then doc order:
    # blocks come in doc order), freeing blocks as they are merged.
    tokens = np.empty(int(tok_ptr[-1]), dtype=np.int32)
    post_doc = np.empty(int(post_ptr[-1]), dtype=np.int32)
    post_tf: Uint16Array = np.empty(int(post_ptr[-1]), dtype=np.uint16)
    post_head: BoolArray = np.empty(int(post_ptr[-1]), dtype=np.bool_)
    blocks.reverse()
    at = 0
    while blocks:
        b = blocks.pop()
        tokens[at : at + b.tokens.size] = rank[b.tokens]
        at += b.tokens.size
        dest = _destinations(b.post_word, cursor)
        post_doc[dest] = b.post_doc
        post_tf[dest] = b.tf
        post_head[dest] = b.in_head
        del b, dest

    word_stem, stems, stem_ptr, stem_word_ids = _stem_table(vocab)
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
        post_tf=post_tf,
        post_head=post_head,
        doc_norm=(K1 * (1 - B + B * lengths / avg)).astype(np.float32),
        tokens=tokens,
        tok_ptr=tok_ptr,
        word_stem=word_stem,
        stems=stems,
        stem_ptr=stem_ptr,
        stem_words=stem_word_ids,
        years=years,
        venue_names=list(venue_index),
        venue_of=venue_of,
        file_names=list(file_index),
        src_doc=np.asarray(src_doc, dtype=np.int32),
        src_file=np.asarray(src_file, dtype=np.int32),
    )
