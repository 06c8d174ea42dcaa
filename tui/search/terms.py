"""One query term against the index: the words it stands for, and a BM25 score per abstract.

A term stands for its word as typed, the word's forms (inflections and other
spellings, `forms.py`), near spellings (typos, `expand.py`) and, while it is being
typed, its completions. Those make an abstract *have* the term. The rest of the
word's stem (`position` for `positional`) and the completions of a word already
whole (`generalization` for `general`) only make an abstract *near* it: they add
to the score and may make a close match, never a full one.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from tui.corpus.stem import stem
from tui.search.build import HEADLINE_BONUS, K1, IndexData
from tui.search.expand import Expansion, WordRange, subtract
from tui.search.filters import BoolArray
from tui.search.forms import same_word, spellings
from tui.search.positions import FloatArray, IntArray
from tui.search.query import SYMBOL_MARK

# Other forms of a word (`networks` for `network`) weigh a little less than the form typed.
FORM_WEIGHT = 0.9
# Words that only share the stem (`position` for `positional`) weigh this much.
COUSIN_WEIGHT = 0.3
# Near spellings of a word that exists as typed weigh this share of their usual weight.
KNOWN_FUZZY_SCALE = 0.1

# How a word came to be matched, for the line saying so (`highlight.Explainer`).
Kind = Literal["typed", "form", "typo", "cousin", "completion"]


@dataclass(slots=True)
class TermMatch:
    """One term's answer: its score per abstract, the vocabulary it matched, its idf."""

    vector: FloatArray
    ranges: list[tuple[int, int]]  # prefix ranges of the vocabulary, [lo, hi)
    words: IntArray  # single vocabulary words (exact, typo, other forms, cousins)
    idf: float
    # Abstracts that count as having the term (the word, a form, a typo of an unknown
    # word): only these make a full match.
    present: BoolArray
    df: int = 0
    # Abstracts with only a cousin or a completion of the term: at most close matches.
    near: BoolArray | None = None
    # How each single word of `words` and each range of `ranges` was matched.
    kinds: dict[int, Kind] = field(default_factory=dict)
    range_kinds: list[Kind] = field(default_factory=list)
    _mask: BoolArray | None = field(default=None, repr=False)

    def word_mask(self, vocab_size: int) -> BoolArray:
        """True for every vocabulary word this term matched."""
        if self._mask is None:
            mask = np.zeros(vocab_size, dtype=np.bool_)
            for lo, hi in self.ranges:
                mask[lo:hi] = True
            mask[self.words] = True
            self._mask = mask
        return self._mask


def _stem_number(data: IndexData, word: str) -> int | None:
    stems = data.stems
    target = word if word.startswith(SYMBOL_MARK) else stem(word)
    i = bisect_left(stems, target)
    return i if i < len(stems) and stems[i] == target else None


def _stem_members(data: IndexData, word: str) -> list[int]:
    """The vocabulary words sharing `word`'s stem (it need not occur itself)."""
    s = _stem_number(data, word)
    if s is None:
        return []
    return data.stem_words[data.stem_ptr[s] : data.stem_ptr[s + 1]].tolist()  # type: ignore[no-any-return]


def word_forms(data: IndexData, word: str) -> tuple[list[int], list[int]]:
    """(forms, cousins): the vocabulary words that are `word` in another form or
    spelling, and those that only share a stem with it (or with another spelling)."""
    vocab = data.vocab
    forms: list[int] = []
    cousins: list[int] = []
    seen: set[int] = set()
    for spelling in spellings(word):
        for w in _stem_members(data, spelling):
            if w in seen:
                continue
            seen.add(w)
            (forms if same_word(vocab[w], spelling) else cousins).append(w)
    formset = set(forms)
    return forms, [w for w in cousins if w not in formset]


Forms = dict[str, tuple[list[int], list[int]]]
# Words whose forms a cache keeps (each a few small lists) before it starts afresh.
FORMS_CACHE_MAX = 50_000


def compute_term(
    data: IndexData, word: str, expansion: Expansion, cache: Forms | None = None
) -> TermMatch | None:
    """Score every abstract for the words of `expansion`, the forms of the typed word and
    of its near spellings (each weighed as the word it came from), and its cousins.
    `cache` keeps `word_forms` answers for the next keystroke (the same typos recur)."""
    vocab = data.vocab
    known_forms: Forms = {} if cache is None else cache
    if len(known_forms) > FORMS_CACHE_MAX:
        known_forms.clear()

    def word_forms_of(w: str) -> tuple[list[int], list[int]]:
        found = known_forms.get(w)
        if found is None:
            found = known_forms[w] = word_forms(data, w)
        return found

    weights: dict[int, float] = {}
    kinds: dict[int, Kind] = {}

    def add(w: int, weight: float, kind: Kind) -> None:
        if weights.get(w, -1.0) < weight:
            weights[w] = weight
            kinds[w] = kind

    typos: list[tuple[int, float]] = []
    ranges: list[WordRange] = []
    for r in expansion.ranges:
        if r.prefix is not None:
            ranges.append(r)
            continue
        for w in range(r.lo, r.hi):
            if vocab[w] == word:
                add(w, r.weight, "typed")
            else:
                typos.append((w, r.weight))
                add(w, r.weight, "typo")
    whole = "typed" in kinds.values()
    forms: list[int] = []
    cousins: list[int] = []
    if word.startswith(SYMBOL_MARK):
        pass
    elif not whole and any(r.prefix == word for r in ranges):
        # A half-typed word (`studie`) is no word yet: every word of its stem may be
        # where it is going (`studies`, `study`).
        forms, cousins = _stem_members(data, word), []
    else:
        forms, cousins = word_forms_of(word)
    for w in forms:
        if vocab[w] == word:
            add(w, 1.0, "typed")
        else:
            add(w, FORM_WEIGHT, "form")
    # The word is known as typed: near spellings are more likely other words
    # (`modal` for `model`, `relevant` for `relevance`) than typos: they count for little.
    known = whole or bool(forms)
    for w, weight in typos:
        typo_forms, typo_cousins = word_forms_of(vocab[w])
        for f in typo_forms:
            add(f, weight * FORM_WEIGHT, "typo")
        for c in [] if known else typo_cousins:
            add(c, weight * COUSIN_WEIGHT, "cousin")
    for w in cousins:
        if known and kinds.get(w) == "typo":
            # `position` is a near spelling of `positional` too, but it is its cousin.
            del weights[w]
        add(w, COUSIN_WEIGHT, "cousin")

    # (lo, hi, weight, kind, strength): strong words make an abstract have the term,
    # near ones (cousins, a whole word's completions, a known word's typos) only
    # bring it close.
    strength: dict[int, str] = {}
    for w, how in kinds.items():
        if how == "cousin" or (how == "typo" and known):
            # A known word's near spellings may still bring a close match: a title's
            # word may be misspelt into another word.
            strength[w] = "near" if how == "cousin" else "weak"
            if how == "typo":
                weights[w] *= KNOWN_FUZZY_SCALE
        else:
            strength[w] = "strong"
    spans: list[tuple[int, int, float, Kind, str]] = []
    for r in ranges:
        kind: Kind = "completion" if r.prefix == word else "typo"
        if kind == "completion":
            # `graph`'s completions: `graphs` is the word, `graphical` another one.
            level = "near" if whole else "strong"
            weight = r.weight
        else:
            faint = known and not r.rescue
            level = "weak" if faint else "strong"
            weight = r.weight * KNOWN_FUZZY_SCALE if faint else r.weight
        # The words inside the range that are matched on their own keep their own
        # weight and standing, unless the range gives them more.
        inside = [w for w in weights if r.lo <= w < r.hi]
        for w in inside:
            if level == "strong" and strength[w] != "strong":
                del weights[w]
        carve = [(w, w + 1) for w in inside if w in weights]
        for lo, hi in subtract(r.lo, r.hi, carve):
            spans.append((lo, hi, weight, kind, level))
    singles = {w: kinds[w] for w in weights}
    for w, weight in weights.items():
        spans.append((w, w + 1, weight, kinds[w], strength[w]))
    return _score(data, spans, singles)


def _score(
    data: IndexData, spans: list[tuple[int, int, float, Kind, str]], kinds: dict[int, Kind]
) -> TermMatch | None:
    """BM25 over the summed (weighted) counts of every word of `spans`: `network` twice and
    `networks` once is three occurrences of one term."""
    n = len(data.ids)
    docs: list[npt.NDArray[np.int32]] = []
    counts: list[npt.NDArray[np.float32]] = []
    heads: list[npt.NDArray[np.float32]] = []
    found: dict[str, list[npt.NDArray[np.int32]]] = {"strong": [], "near": [], "weak": []}
    ranges: list[tuple[int, int]] = []
    range_kinds: list[Kind] = []
    for lo, hi, weight, kind, strength in spans:
        if hi - lo > 1 or lo not in kinds:
            ranges.append((lo, hi))
            range_kinds.append(kind)
        start, end = int(data.post_ptr[lo]), int(data.post_ptr[hi])
        if end <= start:
            continue
        where = data.post_doc[start:end]
        docs.append(where)
        found[strength].append(where)
        counts.append(data.post_tf[start:end] * np.float32(weight))
        heads.append(data.post_head[start:end] * np.float32(weight))
    if not docs:
        return None
    all_docs = np.concatenate(docs)
    tf = np.bincount(all_docs, weights=np.concatenate(counts), minlength=n)
    head = np.bincount(all_docs, weights=np.concatenate(heads), minlength=n)
    present = np.zeros(n, dtype=np.bool_)
    if found["strong"]:
        present[np.concatenate(found["strong"])] = True
    near = np.zeros(n, dtype=np.bool_)
    if found["near"]:
        near[np.concatenate(found["near"])] = True
    near &= ~present
    df = int(np.count_nonzero(present))
    idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
    saturated = tf * (K1 + 1) / (tf + data.doc_norm)
    saturated += HEADLINE_BONUS * np.minimum(head, 1.0)
    vector: FloatArray = (saturated * idf).astype(np.float32)
    words = np.asarray(sorted(kinds), dtype=np.int64)
    return TermMatch(vector, ranges, words, idf, present, df, near, kinds, range_kinds)
