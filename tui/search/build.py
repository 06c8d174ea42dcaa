"""Turning a corpus into the arrays the index searches.

Everything here is plain data (string lists, numpy arrays), so the whole index
is saved as arrays (tui/cachefile.py, no pickle) and a warm start is one read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tui.corpus.model import Corpus
from tui.corpus.stem import stem_words
from tui.corpus.tokens import fold
from tui.search.blocks import release_memory
from tui.search.parallel import HalfIndexer, index_blocks, workers_for
from tui.search.query import SYMBOL_MARK

# BM25 constants (the usual ones) and how much a headline occurrence adds,
# on the scale of one saturated body occurrence (at most K1 + 1).
K1 = 1.2
B = 0.75
HEADLINE_BONUS = 0.5

Int32Array = npt.NDArray[np.int32]
Int64Array = npt.NDArray[np.int64]
Float32Array = npt.NDArray[np.float32]
Uint16Array = npt.NDArray[np.uint16]
BoolArray = npt.NDArray[np.bool_]

# Documents tokenized per block: bounds the Python lists alive at once (a
# 100,000-abstract corpus has ~16 million tokens; as Python lists of ints
# that alone was ~130 MB, plus the int64 temporaries of one global sort).
BLOCK_SIZE = 4096


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


def _destinations(words: Int32Array, runs: Int64Array, cursor: Int64Array) -> Int64Array:
    """Where a block's postings go in the merged arrays; advances `cursor`.

    The block's postings come in runs, one per word of `words` (in vocabulary
    order now), `runs` long, each in doc order.
    """
    total = int(runs.sum())
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(runs) - runs, runs)
    dest: Int64Array = np.repeat(cursor[words], runs) + within
    cursor[words] += runs
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


def build_index_data(
    corpus: Corpus,
    block_size: int = BLOCK_SIZE,
    workers: int | None = None,
    fork_safe: bool = False,
    other: HalfIndexer | None = None,
) -> IndexData:
    """Tokenize every abstract and lay out postings, lengths and metadata.

    Documents are indexed in blocks, so only one block's Python lists exist at
    a time; the rest is compact numpy arrays (int32 word and doc numbers,
    uint16 counts) that are scattered into word order at the end. A large
    corpus is indexed by two processes (`workers`, default: see
    `tui.search.parallel.workers_for`, which `fork_safe` is passed to), or with
    `other`, the process indexing the abstracts from `other.lo` on.
    """
    abstracts = corpus.abstracts
    n = len(abstracts)
    size = max(block_size, 1)
    if workers is None:
        workers = workers_for(n, fork_safe)
    word_ids, blocks, sink = index_blocks(abstracts, size, workers, other)

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
    sink.remap(rank)
    release_memory()
    tokens = sink.array[: sink.size]
    del sink
    per_word = np.zeros(v, dtype=np.int64)
    for b in blocks:
        b.words = rank[b.words]
        per_word[b.words] += b.runs  # a block lists each word once
    post_ptr = np.zeros(v + 1, dtype=np.int64)
    post_ptr[1:] = np.cumsum(per_word)

    # Scatter the blocks into place (postings in word order, then doc order: blocks
    # come in doc order), one field at a time, each block's copy freed once placed:
    # every block scatters all over the merged array, so merging all fields at once
    # would hold all of the blocks and all of the merged arrays.
    total = int(post_ptr[-1])
    merged: dict[str, npt.NDArray[Any]] = {}
    for name, dtype in (("local_doc", np.int32), ("tf", np.uint16), ("in_head", np.bool_)):
        out = merged[name] = np.empty(total, dtype=dtype)
        cursor = post_ptr[:-1].copy()  # next free slot of each word's postings
        for b in blocks:
            values = getattr(b, name)
            setattr(b, name, np.zeros(0, dtype=values.dtype))  # not a view: frees it
            if name == "local_doc":
                values = values + np.int32(b.first)  # the document numbers
            out[_destinations(b.words, b.runs, cursor)] = values
            del values
        release_memory()
    del blocks

    release_memory()
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
        post_doc=merged["local_doc"],
        post_tf=merged["tf"],
        post_head=merged["in_head"],
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
