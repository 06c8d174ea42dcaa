"""Labels of groups of abstracts (topics, collections): the terms that best describe each.

Shared by the topic map (`tui.similar.topics`) and the overview's distinctive
terms (`tui.triage.overview`), so both say things the same way. Words that say
nothing about a group are kept out by principle, not by a list made for one
corpus: stop words are never terms (`tui.corpus.stopwords`, which has the
Latin abbreviations of academic prose such as "et al." beside "etc." and
"e.g."), a label must be at least `MIN_LIFT` times as common in its group as
in the rest of the corpus (so "propose", "results" or "paper", which every
group uses alike, never qualify) and more common than chance explains (`MIN_Z`),
and must be used by a real part of the group (`MIN_LABEL_DOCS`, `MIN_LABEL_SHARE`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.search.blocks import release_memory
from tui.search.postings import run_positions

# pick_terms' rule for when a pair is how a word is written.
from tui.similar.terms import _PAIR_SHARE as PAIR_SHARE
from tui.similar.terms import TermMatrix

# With no other group to compare with (the overview of one collection), a term in
# more than this share of the abstracts is taken as the corpus's vocabulary
# ("results", "paper"), not what distinguishes it.
COMMON_SHARE = 0.2
LABELS = 4
# A topic's label must be at least this many times as common in its group as in the
# rest (topics are made to differ; the overview asks collections for less).
MIN_LIFT = 2.0
# ... and more common than chance explains: this many standard deviations above the
# count the rest's rate predicts (a binomial z-score).
MIN_Z = 2.0
# ... and used by at least this many of the group's abstracts,
MIN_LABEL_DOCS = 2
# ... and by at least this share of them (a label names what a real part of it shares).
MIN_LABEL_SHARE = 0.1
# An abstract already named by a label counts this much for the next one (half as
# much again for each label naming it), so labels spread over the group.
REPEAT_WEIGHT = 0.5


def label_groups(
    terms: TermMatrix,
    group_of_row: npt.NDArray[np.integer],
    n_groups: int,
    top: int = LABELS,
    min_lift: float = MIN_LIFT,
) -> list[list[str]]:
    """The `top` terms that best describe each group of abstracts (`group_of_row[i]` is
    abstract i's group, 0..n_groups-1, or -1 for none), one per meaning.

    Chosen greedily, as a set: each next label is the term that adds most, counting
    the group's abstracts that use it (by sublinear term frequency: an abstract is
    about what it repeats; one already named by earlier labels counts `REPEAT_WEIGHT`
    as much per label) times its log lift (how many times more common it is in the
    group than in the rest of the corpus). So the labels together name as many of the
    group's abstracts as they can, and a word every group uses is worth nothing. With a
    single group (the corpus itself) the weight is the term's idf instead.

    One term per meaning, in the style of `pick_terms`: a label shares no word with
    another (`graph neural` and `graph`), is not another written without its space or
    plural `s` (`pre trained`, `pretrained`; `llm`, `llms`), and two chosen words
    become their pair where it is how each is mostly written (`graph` + `neural`).
    """
    groups = np.asarray(group_of_row, dtype=np.int64)
    if n_groups <= 0 or terms.n_docs != len(groups) or top <= 0:
        return [[] for _ in range(max(n_groups, 0))]
    n = terms.n_docs
    df = terms.document_frequency().astype(np.float64)
    candidate = df >= MIN_LABEL_DOCS
    if n_groups == 1:
        candidate &= df <= max(COMMON_SHARE * n, MIN_LABEL_DOCS)
    sizes = np.bincount(groups[groups >= 0], minlength=n_groups)
    pairs = _Pairs(terms)
    # Each group's rows, ascending; its entries are gathered one group at a time, so no
    # array the size of the whole matrix is made.
    by_group = np.argsort(groups, kind="stable")
    bounds = np.searchsorted(groups[by_group], np.arange(n_groups + 1))
    labels = []
    for g in range(n_groups):
        members = by_group[bounds[g] : bounds[g + 1]]
        starts = terms.indptr[members]
        lengths = terms.indptr[members + 1] - starts
        at = run_positions(starts, lengths)
        words = terms.indices[at]
        use = candidate[words]
        at = at[use]
        group = _Uses(
            np.repeat(members.astype(np.int64), lengths)[use],
            words[use].astype(np.int64),
            1.0 + np.log(terms.counts[at].astype(np.float64)),
        )
        rules = _Rules(top, min_lift if n_groups > 1 else None, pairs)
        labels.append(_cover(terms, group, int(sizes[g]), df, rules))
        release_memory()  # the heap would otherwise grow by each group's temporaries
    return labels


def _meaning(shown: str) -> str:
    """What two labels that mean the same share: `pre trained` and `pretrained`, `llm` and
    `llms` (plurals the stemmer leaves alone, such as acronyms')."""
    return shown.replace(" ", "").removesuffix("s")


@dataclass(frozen=True, slots=True)
class _Uses:
    """The candidate terms one group's abstracts use: abstract `rows[e]` uses term
    `words[e]` with weight `weights[e]` (sublinear term frequency)."""

    rows: npt.NDArray[np.int64]
    words: npt.NDArray[np.int64]
    weights: npt.NDArray[np.float64]


class _Pairs:
    """A pair's term id from its words' ids, looked up in sorted arrays (a dict of 140,000
    pairs would be tens of MB of Python objects at 100,000 abstracts)."""

    def __init__(self, terms: TermMatrix) -> None:
        ids = np.flatnonzero(terms.parts[:, 1] >= 0)
        codes = (terms.parts[ids, 0].astype(np.int64) << 32) | terms.parts[ids, 1]
        order = np.argsort(codes, kind="stable")
        self._codes = codes[order]
        self._ids = ids[order]

    def get(self, key: tuple[int, int]) -> int | None:
        """The pair of the words `key` (first, second), or None when it is no term."""
        code = (key[0] << 32) | key[1]
        at = int(np.searchsorted(self._codes, code))
        if at < len(self._codes) and int(self._codes[at]) == code:
            return int(self._ids[at])
        return None


@dataclass(frozen=True, slots=True)
class _Rules:
    """How many labels, the lift they need (None: a single group, weighted by idf), and
    `pairs`, a pair's term id from its words' ids."""

    top: int
    min_lift: float | None
    pairs: _Pairs


def _cover(
    terms: TermMatrix, group: _Uses, size: int, df: npt.NDArray[np.float64], rules: _Rules
) -> list[str]:
    """Greedy labels of one group (see `label_groups`)."""
    n, top, pairs = terms.n_docs, rules.top, rules.pairs
    rows, words = group.rows, group.words
    inside = np.bincount(words, minlength=terms.n_terms).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        if rules.min_lift is None:
            weight = np.log(n / df)
        else:
            # Against the rest of the corpus (add-one smoothed: a term found only here
            # is not infinitely distinctive), and beyond chance: at least MIN_Z standard
            # deviations above the count the rest's rate predicts for a group this size.
            rest = (df - inside + 1) / (n - size + 2)
            lift = (inside / max(size, 1)) / rest
            z = (inside - size * rest) / np.sqrt(size * rest * (1 - rest))
            weight = np.where((lift >= rules.min_lift) & (z >= MIN_Z), np.log(lift), 0.0)
    weight[inside < max(min(MIN_LABEL_DOCS, size), MIN_LABEL_SHARE * size)] = 0.0
    weight = np.nan_to_num(weight, nan=0.0, posinf=0.0, neginf=0.0)
    named = np.zeros(n, dtype=np.intp)  # how many labels so far name each abstract
    # REPEAT_WEIGHT to the power of each count an abstract can reach (a power of each of
    # the group's uses at every step took as long as the rest of the step). Each step
    # names one more abstract once at most: a label chosen (`top` at most) or a pair put
    # in a single word's place (once for each such label at most).
    repeat = np.power(REPEAT_WEIGHT, np.arange(2 * top + 1, dtype=np.float64))
    chosen: list[int] = []
    used_words: set[int] = set()
    shown: set[str] = set()
    while len(chosen) < top:
        worth = group.weights * repeat[named[rows]]
        gain = np.bincount(words, worth, minlength=terms.n_terms) * weight
        best = int(np.argmax(gain))  # the first of equal gains: deterministic
        while gain[best] > 0 and (
            {int(p) for p in terms.parts[best] if p >= 0} & used_words
            or _meaning(terms.vocab[best]) in shown
        ):
            weight[best] = gain[best] = 0.0  # one meaning, already said
            best = int(np.argmax(gain))
        if gain[best] <= 0:
            break
        merged = _merge(terms, chosen, best, inside, pairs)
        if merged is not None:
            weight[best] = 0.0
            best = merged
        else:
            chosen.append(best)
        used_words |= {int(p) for p in terms.parts[best] if p >= 0}
        shown.add(_meaning(terms.vocab[best]))
        named[rows[words == best]] += 1
    return [terms.vocab[t] for t in chosen]


def _merge(
    terms: TermMatrix,
    chosen: list[int],
    word: int,
    inside: npt.NDArray[np.float64],
    pairs: _Pairs,
) -> int | None:
    """When `word` and a label already chosen are mostly written as one pair in the
    group (`graph` + `neural` -> `graph neural`), put the pair in that label's place and
    return it; else None. The rule of `pick_terms`: a pair where at least half the uses
    of one of its words are in it."""
    if terms.parts[word][1] >= 0:
        return None
    for k, other in enumerate(chosen):
        if terms.parts[other][1] >= 0:
            continue
        for key in ((other, word), (word, other)):
            pair = pairs.get(key)
            if pair is not None and inside[pair] >= PAIR_SHARE * max(inside[word], inside[other]):
                chosen[k] = pair
                return pair
    return None
