"""Tokenizing many texts at once: the index build's tokenizer, equal to `tokenize`.

Creating one Python string per token and looking each up in a dictionary was
most of an index build (16 million tokens at 100,000 abstracts). Here a block
of texts becomes one byte array, words are found with numpy, and a word of up
to 16 letters is its bytes read as two integers: a hash table of those
numbers most tokens without making a string (see `tui.search.codetable`).
Only the first sighting of a word, words longer than 16 letters and words
with a non-ASCII letter (`café`, `α`, `x²`, folded by `tui.corpus.tokens.fold`
as everywhere else) are strings. tests/search/test_bulk.py checks equality with `tokenize` and
`tokenize_with_compounds` on generated text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from tui.corpus.tokens import fold
from tui.search.codetable import CodeTable
from tui.search.postings import run_positions

Int32Array = npt.NDArray[np.int32]
Int64Array = npt.NDArray[np.int64]

_WORD = re.compile(r"[^\W_]")
# Stands for a non-ASCII letter or digit in the byte array: a word byte whose word is
# read from the original text instead (DEL: never a word character itself).
_OTHER_BYTE = 0x7F
# Bytes of word characters (after lower-casing), and the stand-in.
_IS_WORD = np.zeros(256, dtype=np.bool_)
_IS_WORD[list(b"0123456789abcdefghijklmnopqrstuvwxyz")] = True
_IS_WORD[_OTHER_BYTE] = True
_IS_LETTER = np.zeros(256, dtype=np.bool_)
_IS_LETTER[list(b"abcdefghijklmnopqrstuvwxyz")] = True
# Bytes of a word read as one integer.
_WINDOW = 8
# Keeps the first k bytes of a little-endian window (k = 0..8).
_MASK = np.array([(1 << (8 * k)) - 1 for k in range(_WINDOW + 1)], dtype=np.uint64)
_HYPHEN = ord("-")
_SEPARATOR = "\n"  # between texts: not a word character, never inside a hyphenated run
_SPACE = ord(" ")
# Byte -> the byte of its lower case; DEL (the stand-in) a space.
_LOWER = np.arange(256, dtype=np.uint8)
_LOWER[ord("A") : ord("Z") + 1] += 32
_LOWER[_OTHER_BYTE] = _SPACE
# Non-ASCII code point -> its stand-in: `_OTHER_BYTE` for a letter or digit, else a
# space (dashes, quotes, `×`: they only separate words).
_STAND_IN: dict[int, int] = {}


def numbered(words: list[str], word_ids: dict[str, int], add: bool = True) -> Int32Array:
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
class Vocabulary:
    """Word numbers as a build assigns them: by word, and by the bytes of a short
    ASCII word (`codes`, a cache of `ids`)."""

    ids: dict[str, int] = field(default_factory=dict)
    codes: CodeTable = field(default_factory=CodeTable)


@dataclass(slots=True)
class Tokens:
    """The tokens of a list of texts as word numbers, text by text (`lengths` of each);
    `compound_text` and `compound_ids`: the hyphenated words written as one
    (`pre-training` -> `pretraining`) with the number of their text (unordered)."""

    ids: Int32Array
    lengths: Int64Array
    compound_text: Int64Array
    compound_ids: Int32Array


def _byte_form(original: str) -> npt.NDArray[np.uint8]:
    """`original` as bytes, character for character: ASCII lower-cased, each non-ASCII
    letter or digit `_OTHER_BYTE`, every other non-ASCII character (and DEL) a space."""
    if original.isascii():
        return _LOWER[np.frombuffer(original.encode("ascii"), dtype=np.uint8)]
    points = np.frombuffer(original.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    high = np.flatnonzero(points > 0x7F)
    buf = _LOWER[points.astype(np.uint8)]
    found = points[high]
    distinct = np.unique(found)
    stand_in = np.fromiter(map(_stand_in, distinct.tolist()), np.uint8, distinct.size)
    buf[high] = stand_in[np.searchsorted(distinct, found)]
    return buf


def _stand_in(point: int) -> int:
    byte = _STAND_IN.get(point)
    if byte is None:
        byte = _STAND_IN[point] = _OTHER_BYTE if _WORD.match(chr(point)) else _SPACE
    return byte


def _other_form(word: str) -> str:
    """A word of the original text, as `tokenize` gives it."""
    return word.lower() if word.isascii() else fold(word)


def tokenize_texts(
    texts: Sequence[str], vocab: Vocabulary, add: bool = True, compounds: bool = True
) -> Tokens:
    """Every text's tokens (as `tokenize` gives them) numbered in `vocab` (see `numbered`),
    and with `compounds` its hyphenated words (as `tokenize_with_compounds` gives them)."""
    n = len(texts)
    original = _SEPARATOR.join(texts)
    buf = _byte_form(original)
    edges = np.diff(_IS_WORD[buf].view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    del edges
    sizes = ends - starts
    text_starts = np.zeros(n, dtype=np.int64)
    np.cumsum([len(t) + 1 for t in texts[:-1]], out=text_starts[1:])
    owner = np.searchsorted(text_starts, starts, side="right") - 1
    lengths = np.bincount(owner, minlength=n).astype(np.int64)

    # Words with a non-ASCII letter are read from the original text (same offsets).
    other = np.zeros(starts.size, dtype=np.bool_)
    marks = np.flatnonzero(buf == _OTHER_BYTE)
    other[np.searchsorted(starts, marks, side="right") - 1] = True

    ids = np.empty(starts.size, dtype=np.int32)
    ascii_words = np.flatnonzero(~other)
    ids[ascii_words] = _numbers(buf, starts[ascii_words], sizes[ascii_words], vocab, add)
    odd = np.flatnonzero(other)
    if odd.size:
        spans = map(slice, starts[odd].tolist(), ends[odd].tolist())
        words = [_other_form(original[span]) for span in spans]
        ids[odd] = numbered(words, vocab.ids, add)

    comp_text = np.zeros(0, dtype=np.int64)
    comp_ids = np.zeros(0, dtype=np.int32)
    if compounds and starts.size > 1:
        rows, comp_ids = _compounds(original, buf, marks, starts, ends, vocab, add)
        comp_text = owner[rows]
    return Tokens(ids, lengths, comp_text, comp_ids)


#: Texts tokenized at once by `tokenize_in_pieces`: a piece's temporaries are about 200
#: bytes a token (its text in UTF-32, each token's offsets and codes in 64 bits); 4,096
#: abstracts at once held 130 MB of them.
PIECE_TEXTS = 512


def tokenize_in_pieces(
    texts: Sequence[str], vocab: Vocabulary, add: bool = True, compounds: bool = True
) -> Tokens:
    """`tokenize_texts` of `PIECE_TEXTS` texts at a time, joined: the same tokens, with
    the temporaries of one piece alive at once. New words are numbered piece by piece
    (a caller that renumbers the vocabulary in sorted order sees no difference)."""
    if len(texts) <= PIECE_TEXTS:
        return tokenize_texts(texts, vocab, add, compounds)
    pieces = [
        tokenize_texts(texts[lo : lo + PIECE_TEXTS], vocab, add, compounds)
        for lo in range(0, len(texts), PIECE_TEXTS)
    ]
    return Tokens(
        np.concatenate([t.ids for t in pieces]),
        np.concatenate([t.lengths for t in pieces]),
        np.concatenate([t.compound_text + k * PIECE_TEXTS for k, t in enumerate(pieces)]).astype(
            np.int64
        ),
        np.concatenate([t.compound_ids for t in pieces]).astype(np.int32),
    )


def _numbers(
    buf: npt.NDArray[np.uint8], starts: Int64Array, sizes: Int64Array, vocab: Vocabulary, add: bool
) -> Int32Array:
    """Numbers of the ASCII words `buf[starts[k] : starts[k] + sizes[k]]`."""
    ids = np.empty(starts.size, dtype=np.int32)
    short = sizes <= 2 * _WINDOW
    ids[short] = _short_words(buf, starts[short], sizes[short], vocab, add)
    long = np.flatnonzero(~short)
    if long.size:
        ids[long] = numbered(_strings(buf, starts[long], sizes[long]), vocab.ids, add)
    return ids


def _strings(buf: npt.NDArray[np.uint8], starts: Int64Array, sizes: Int64Array) -> list[str]:
    """The ASCII words `buf[starts[k] : starts[k] + sizes[k]]` as strings."""
    view = buf.data
    return [
        str(view[a : a + n], "ascii") for a, n in zip(starts.tolist(), sizes.tolist(), strict=True)
    ]


def _short_words(
    buf: npt.NDArray[np.uint8],
    starts: Int64Array,
    sizes: Int64Array,
    vocab: Vocabulary,
    add: bool,
) -> Int32Array:
    """Numbers of ASCII words of at most 16 letters, by their bytes as two integers
    (bytes past the word's end masked off): equal pairs are equal words."""
    padded = np.concatenate([buf, np.zeros(2 * _WINDOW, dtype=np.uint8)])
    windows = np.ndarray((buf.size + _WINDOW,), dtype="<u8", buffer=padded.data, strides=(1,))
    lo = windows[starts]
    lo &= _MASK[np.minimum(sizes, _WINDOW)]
    hi = np.zeros(starts.size, dtype=np.uint64)
    longer = np.flatnonzero(sizes > _WINDOW)
    hi[longer] = windows[starts[longer] + _WINDOW] & _MASK[sizes[longer] - _WINDOW]
    del padded, windows, longer
    ids = vocab.codes.get(lo, hi)
    missing = np.flatnonzero(ids < 0)
    if missing.size:
        # Words not met yet (or only as strings): each distinct one numbered by its
        # string (one string per word, not per token: a first block is all new words).
        m_lo, m_hi = lo[missing], hi[missing]
        order = np.lexsort((m_hi, m_lo))
        step = np.empty(order.size, dtype=np.bool_)
        step[0] = True
        step[1:] = (np.diff(m_lo[order]) != 0) | (np.diff(m_hi[order]) != 0)
        first = order[step]
        group = np.empty(order.size, dtype=np.int64)
        group[order] = np.cumsum(step) - 1
        words = _strings(buf, starts[missing[first]], sizes[missing[first]])
        numbers = numbered(words, vocab.ids, add)
        ids[missing] = numbers[group]
        known = numbers >= 0
        vocab.codes.put(m_lo[first[known]], m_hi[first[known]], numbers[known])
    return ids


def _compounds(
    original: str,
    buf: npt.NDArray[np.uint8],
    marks: Int64Array,
    starts: Int64Array,
    ends: Int64Array,
    vocab: Vocabulary,
    add: bool,
) -> tuple[Int64Array, Int32Array]:
    """(first token, word number) of each hyphenated run of tokens (`pre-training`:
    token i joined to token i+1 by exactly one hyphen), written as one word; runs of
    digits only (`2020-2024`) are not words."""
    link = (buf[ends[:-1]] == _HYPHEN) & (starts[1:] == ends[:-1] + 1)
    step = np.diff(link.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    heads = np.flatnonzero(step == 1)
    tails = np.flatnonzero(step == -1)
    first, last = starts[heads], ends[tails]
    other = np.searchsorted(marks, last) > np.searchsorted(marks, first)
    # ASCII runs: their bytes without the hyphens (one between each two tokens).
    plain = np.flatnonzero(~other)
    span = last[plain] - first[plain]
    positions = run_positions(first[plain], span)
    kept = buf[positions[buf[positions] != _HYPHEN]]
    del positions
    sizes = span - (tails[plain] - heads[plain])
    at = np.cumsum(sizes) - sizes
    word = np.zeros(0, dtype=np.bool_)
    if plain.size:
        word = np.add.reduceat(_IS_LETTER[kept], at) > 0
    rows = [heads[plain[word]]]
    ids = [_numbers(kept, at[word], sizes[word], vocab, add)]
    # Runs with a non-ASCII letter: read from the original text, as `tokenize` does.
    heads_other: list[int] = []
    names: list[str] = []
    spans = zip(heads[other].tolist(), first[other].tolist(), last[other].tolist(), strict=True)
    for head, a, b in spans:
        name = original[a:b].replace("-", "")
        if not name.isdigit():
            heads_other.append(head)
            names.append(_other_form(name))
    rows.append(np.asarray(heads_other, dtype=np.int64))
    ids.append(numbered(names, vocab.ids, add))
    return np.concatenate(rows), np.concatenate(ids)
