"""Which vocabulary words a query term stands for: exact, prefix, and typo-tolerant.

The vocabulary is sorted, so the words starting with a prefix are one
contiguous range (two bisections). Typos are found with RapidFuzz over the
words of similar length only, with an edit budget that grows with the term's
length. Expansions are cached, so the next keystroke reuses this one's work.
Marked symbol and macro words (`\\times`) match exactly or as a prefix, never
fuzzily, and no other word ever fuzzily matches them.

The same rules serve any vocabulary: the abstracts' words and the notes' words
(`note:WORD`), so both are typo-tolerant the same way.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import OSA

from tui.search.query import SYMBOL_MARK

# Weights of a match, relative to the exact word (1.0). Any typo weighs less
# than any exact or completed word, so exact hits rank first.
PREFIX_WEIGHT = 0.8
FUZZY_WEIGHT = 0.6
# Completions of a half-typed word that is already a whole word (`graph` -> `graphical`).
COMPLETE_PREFIX_WEIGHT = 0.2
_LAST = chr(0x10FFFF)
# A short half-typed word (3-4 letters) that does match something is still
# read as a typo of a neighbouring prefix that occurs this many times more
# often (`ler` is rare, `lea` is everywhere; `gan` is common enough to stand).
RESCUE_RATIO = 100


def max_typos(length: int) -> int:
    """Edits allowed for a term of `length` letters: none below 3, one up to 8, then two."""
    if length < 3:
        return 0
    return 1 if length <= 8 else 2


@dataclass(frozen=True, slots=True)
class WordRange:
    """Vocabulary words [lo, hi) matched with `weight`; `prefix` is set when the range
    is every word starting with it (the highlighter then tests `startswith`)."""

    lo: int
    hi: int
    weight: float
    prefix: str | None = None
    # A near spelling that counts even though the typed word exists: a short word
    # being typed read as a typo of a far commoner start (see RESCUE_RATIO).
    rescue: bool = False


@dataclass(frozen=True, slots=True)
class Expansion:
    """What one term matches: disjoint ranges of the sorted vocabulary."""

    ranges: tuple[WordRange, ...]

    def words(self, vocab: list[str]) -> set[str]:
        """The single words matched (ranges of one word, not whole prefixes)."""
        return {vocab[i] for r in self.ranges if r.prefix is None for i in range(r.lo, r.hi)}

    def all_words(self, vocab: list[str]) -> set[str]:
        """Every word matched, the whole of each prefix range included."""
        return {vocab[i] for r in self.ranges for i in range(r.lo, r.hi)}

    @property
    def prefixes(self) -> tuple[str, ...]:
        """The prefixes matched whole."""
        return tuple(r.prefix for r in self.ranges if r.prefix is not None)


class Expander:
    """Expands terms against one sorted vocabulary; keeps an LRU cache of answers."""

    def __init__(
        self,
        vocab: list[str],
        cache_size: int = 1024,
        post_ptr: npt.NDArray[np.int64] | None = None,
    ) -> None:
        # `post_ptr` (the index's postings offsets, one past each word's last)
        # tells how often a range of words occurs; without it a short typed word
        # is only read as a typo when it matches nothing.
        self._vocab = vocab
        self._post_ptr = post_ptr
        self._cache: OrderedDict[tuple[str, bool, bool], Expansion] = OrderedDict()
        self._cache_size = cache_size
        # Built as the typed words call for them (the first search must not wait for
        # tables of every length and letter): each word's length, 0 for a marked symbol
        # word (never fuzzy), then the words of one length, and the heads of one length
        # starting with one letter.
        self._lengths: npt.NDArray[np.int32] | None = None
        self._bands: dict[int, tuple[list[str], np.ndarray]] = {}
        self._heads_of: dict[tuple[int, str], list[str]] = {}

    def clear(self) -> None:
        """Forget cached expansions (the length and prefix tables are kept: they never change)."""
        self._cache.clear()

    def prefix_range(self, prefix: str) -> tuple[int, int]:
        """[lo, hi) of the words starting with `prefix`."""
        lo = bisect_left(self._vocab, prefix)
        return lo, bisect_left(self._vocab, prefix + _LAST, lo)

    def exact(self, word: str) -> int | None:
        """The word's number in the vocabulary, or None."""
        i = bisect_left(self._vocab, word)
        return i if i < len(self._vocab) and self._vocab[i] == word else None

    def expand(self, word: str, prefix: bool, fuzzy: bool = True) -> Expansion:
        """Every way `word` matches: itself, completions when `prefix`, and near spellings."""
        key = (word, prefix, fuzzy)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        result = self._expand(word, prefix, fuzzy)
        self._cache[key] = result
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return result

    def _expand(self, word: str, prefix: bool, fuzzy: bool) -> Expansion:
        ranges: list[WordRange] = []
        exact = self.exact(word)
        if exact is not None:
            ranges.append(WordRange(exact, exact + 1, 1.0))
        if prefix:
            lo, hi = self.prefix_range(word)
            if exact is not None and lo == exact:
                lo += 1
            if hi > lo:
                # A typed word that is a word already is more likely finished than not.
                weight = COMPLETE_PREFIX_WEIGHT if exact is not None else PREFIX_WEIGHT
                ranges.append(WordRange(lo, hi, weight, word))
        fuzzy = fuzzy and not word.startswith(SYMBOL_MARK)
        typos = max_typos(len(word)) if fuzzy else 0
        # Short words have many one-letter neighbours: only rescue a short word
        # that matches nothing, never widen one that does.
        short = len(word) < 5
        if prefix and typos and (short and ranges):
            # The word being typed may have a typo anywhere in what is typed
            # so far; a short one is only widened towards far commoner prefixes.
            own = self._occurrences([(r.lo, r.hi) for r in ranges])
            covered = [(r.lo, r.hi) for r in ranges]
            for p_lo, p_hi, sim, head in self._fuzzy_prefixes(word, typos, short):
                if self._occurrences([(p_lo, p_hi)]) >= RESCUE_RATIO * max(own, 1):
                    for lo, hi in subtract(p_lo, p_hi, covered):
                        ranges.append(WordRange(lo, hi, FUZZY_WEIGHT * sim, head, rescue=True))
                        covered.append((lo, hi))
        elif typos and (not short or not ranges):
            covered = [(r.lo, r.hi) for r in ranges]
            if prefix:
                # The word being typed may have a typo anywhere in what is typed
                # so far (`lerni` is on its way to `learning`): without this the
                # results drop to nothing until the word is complete.
                for p_lo, p_hi, sim, head in self._fuzzy_prefixes(word, typos, short):
                    for lo, hi in subtract(p_lo, p_hi, covered):
                        ranges.append(WordRange(lo, hi, FUZZY_WEIGHT * sim, head))
                        covered.append((lo, hi))
            for w, sim in self._fuzzy_words(word, typos):
                if not any(lo <= w < hi for lo, hi in covered):
                    ranges.append(WordRange(w, w + 1, FUZZY_WEIGHT * sim))
        return Expansion(tuple(ranges))

    def _word_lengths(self) -> npt.NDArray[np.int32]:
        """Each vocabulary word's length; 0 for the marked symbol words (a prefix range of
        the sorted vocabulary), which no band or head holds."""
        lengths = self._lengths
        if lengths is None:
            vocab = self._vocab
            lengths = np.fromiter(map(len, vocab), np.int32, len(vocab))
            lo, hi = self.prefix_range(SYMBOL_MARK)
            lengths[lo:hi] = 0
            self._lengths = lengths
        return lengths

    def _band(self, length: int) -> tuple[list[str], np.ndarray]:
        """The words of `length` letters (no marked symbol word) and their numbers."""
        band = self._bands.get(length)
        if band is None:
            ids = np.flatnonzero(self._word_lengths() == length).astype(np.int64)
            vocab = self._vocab
            band = ([vocab[i] for i in ids.tolist()], ids)
            self._bands[length] = band
        return band

    def _fuzzy_words(self, word: str, typos: int) -> list[tuple[int, float]]:
        """Words within `typos` edits (OSA: a swap of neighbours is one edit)."""
        found: list[tuple[int, float]] = []
        length = len(word)
        # Longer words up to the whole budget (`transfomer` is one letter short
        # of `transformer`, two of `transformers`), shorter ones by one letter
        # only: two dropped letters turn a word into its stem, another word
        # (`contrastve` is not `contrast`).
        for band_len in range(max(1, length - 1), length + typos + 1):
            words, ids = self._band(band_len)
            if not words:
                continue
            dist = process.cdist([word], words, scorer=OSA.distance, score_cutoff=typos)[0]
            for j in np.flatnonzero(dist <= typos):
                d = int(dist[j])
                if d:
                    found.append((int(ids[j]), 1.0 - d / max(length, band_len)))
        return found

    def _heads(self, length: int, letter: str) -> list[str]:
        """Distinct first-`length`-letter heads of the words at least that long starting
        with `letter`, in vocabulary order (no marked symbol word)."""
        key = (length, letter)
        heads = self._heads_of.get(key)
        if heads is None:
            # The words starting with `letter` are one range of the sorted vocabulary,
            # and in it equal heads are adjacent.
            lo, hi = self.prefix_range(letter)
            long_enough = np.flatnonzero(self._word_lengths()[lo:hi] >= length)
            vocab = self._vocab
            heads = []
            last = ""
            for i in (long_enough + lo).tolist():
                head = vocab[i][:length]
                if head != last:
                    heads.append(head)
                    last = head
            self._heads_of[key] = heads
        return heads

    def _occurrences(self, spans: list[tuple[int, int]]) -> int:
        """Postings of the words in `spans` (0 when the expander has no postings)."""
        ptr = self._post_ptr
        if ptr is None:
            return 0
        return sum(int(ptr[hi] - ptr[lo]) for lo, hi in spans)

    def _fuzzy_prefixes(
        self, word: str, typos: int, short: bool = False
    ) -> list[tuple[int, int, float, str]]:
        """Ranges of words with a head (first len(word)-1 .. len(word)+1 letters) within
        `typos` edits of `word`, nested ones merged: (lo, hi, similarity, head).

        A `short` word's heads are never shorter than it: one letter less of
        `ler` is every `le` word."""
        length = len(word)
        found: list[tuple[int, int, float, str]] = []
        for head_len in range(max(1, length if short else length - 1), length + 2):
            # Heads starting with the typed first or second letter: this covers
            # every typo but a wrong first letter (rare while typing), and is a
            # tenth of the work of comparing every head, once per keystroke.
            for letter in dict.fromkeys(word[:2]):
                heads = self._heads(head_len, letter)
                if not heads:
                    continue
                dist = process.cdist([word], heads, scorer=OSA.distance, score_cutoff=typos)[0]
                for j in np.flatnonzero(dist <= typos):
                    d = int(dist[j])
                    if d:
                        head = heads[int(j)]
                        lo, hi = self.prefix_range(head)
                        found.append((lo, hi, 1.0 - d / max(length, head_len), head))
        # Prefix ranges are nested or disjoint: keep the widest of each nest,
        # with the best similarity found inside it, so no word counts twice.
        found.sort(key=lambda f: (f[0], -f[1]))
        merged: list[tuple[int, int, float, str]] = []
        for lo, hi, sim, head in found:
            if merged and lo < merged[-1][1]:
                m_lo, m_hi, m_sim, m_head = merged[-1]
                merged[-1] = (m_lo, m_hi, max(m_sim, sim), m_head)
            else:
                merged.append((lo, hi, sim, head))
        return merged


def subtract(lo: int, hi: int, covered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of [lo, hi) outside every range in `covered`."""
    parts = [(lo, hi)]
    for c_lo, c_hi in covered:
        nxt: list[tuple[int, int]] = []
        for p_lo, p_hi in parts:
            if c_hi <= p_lo or p_hi <= c_lo:
                nxt.append((p_lo, p_hi))
                continue
            if p_lo < c_lo:
                nxt.append((p_lo, c_lo))
            if c_hi < p_hi:
                nxt.append((c_hi, p_hi))
        parts = nxt
    return parts
