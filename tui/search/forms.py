"""Which words are the typed word, and which only share its stem.

The Snowball stemmer gives `positional`, `position` and `positive` one stem
(`posit`): good for finding relatives, wrong for a filter, where a reader who
types `positional` expects the abstracts that say it. So a stem's words are
split in two:

- the word's *forms*: its inflections (`network`, `networks`; `train`, `trained`,
  `training`; `modelling`, `modeled`), and its other spelling (`optimisation`,
  `optimization`; `behaviour`, `behavior`): these are the word, a full match;
- its *cousins*: the rest of the stem (`position` for `positional`,
  `generalization` for `general`): they find an abstract only as a close match.

Two words are forms of each other when they share a stem and a base once
regular inflectional endings are taken off (-s, -es, -ies, -ed, -ing, with
the final e put back and a doubled consonant undone). Derivational endings
(-al, -ive, -ion, -ity, -ly, -er, -ize) are never taken off, so they keep
words apart. On the development set (bench/quality.py's precision figure)
these rules found as many of the abstracts holding a word as lemminflect's
lemmas and more than simplemma's, with no data to load and microseconds per
searched word. Comparatives (`larger`) and irregular plurals (`matrices`)
have stems of their own in Snowball, so neither then nor now are they found
as the word.
"""

from __future__ import annotations

import functools
import re

_VOWELS = frozenset("aeiouy")

# British spellings and their American twins, applied to a whole word's ending.
# Only a twin that occurs in the corpus is ever searched (see `spellings`).
_TO_AMERICAN = [
    (re.compile(r"is(ation|ations|e|es|ed|ing|er|ers)$"), r"iz\1"),
    (re.compile(r"ys(e|es|ed|ing|er|ers)$"), r"yz\1"),
    (re.compile(r"(?<=[a-z]{3})our(s|ed|ing|al|ally|able|hood|hoods)?$"), r"or\1"),
    (re.compile(r"(?<=[a-z]{3})tre(s)?$"), r"ter\1"),
]
_TO_BRITISH = [
    (re.compile(r"iz(ation|ations|e|es|ed|ing|er|ers)$"), r"is\1"),
    (re.compile(r"yz(e|es|ed|ing|er|ers)$"), r"ys\1"),
    (re.compile(r"(?<=[a-z]{3})or(s|ed|ing|al|ally|able|hood|hoods)?$"), r"our\1"),
    (re.compile(r"(?<=[a-z]{3})ter(s)?$"), r"tre\1"),
]


def spellings(word: str) -> tuple[str, ...]:
    """`word` and its other spellings (`optimisation` -> also `optimization`),
    the word first. The caller keeps those that occur."""
    found = [word]
    for rules in (_TO_AMERICAN, _TO_BRITISH):
        for pattern, repl in rules:
            other = pattern.sub(repl, word)
            if other != word and other not in found:
                found.append(other)
    return tuple(found)


def _undouble(stripped: str) -> list[str]:
    """`stopp` -> `stop`, `modell` -> `model`: the consonant doubled before -ed/-ing."""
    if len(stripped) >= 3 and stripped[-1] == stripped[-2] and stripped[-1] not in _VOWELS:
        return [stripped[:-1]]
    return []


@functools.lru_cache(maxsize=65536)
def bases(word: str) -> frozenset[str]:
    """What `word` may be an inflection of, itself included: `trained` -> {trained,
    train, traine}. Over-generous on purpose (`traine` is no word): two words are
    forms of each other when their bases meet, and they must share a stem too."""
    found = {word}
    n = len(word)
    if n > 4 and word.endswith("ies"):
        found.add(word[:-3] + "y")
    elif n > 3 and word.endswith("es"):
        found.update((word[:-2], word[:-1]))
    elif n > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        found.add(word[:-1])
    if n > 4 and word.endswith("ied"):
        found.add(word[:-3] + "y")
    elif n > 3 and word.endswith("ed"):
        stripped = word[:-2]
        found.update((stripped, stripped + "e", *_undouble(stripped)))
    if n > 4 and word.endswith("ing"):
        stripped = word[:-3]
        found.update((stripped, stripped + "e", *_undouble(stripped)))
    return frozenset(found)


def same_word(a: str, b: str) -> bool:
    """True when `a` and `b` are forms of one word (given that they share a stem)."""
    return a == b or not bases(a).isdisjoint(bases(b))
