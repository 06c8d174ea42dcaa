"""Character spans of the words a query matched, for painting headlines and detail text.

The highlighter tokenizes with the same tokenizer as the index, so what is
painted is exactly what matched: one set lookup (and, for half-typed words,
one `startswith`) per word. A phrase's words are painted only where the whole
phrase occurs, in order, as the search required; alone they did not match.

It also says, per abstract, which query words it holds only in another form, a
near spelling, a related word or a completion (`matched`, `describe`): the line
`matched: contrast ≈ contrastive (related)` of the detail pane and the `"matched"`
of `abstracts search --json`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from tui.corpus.tokens import token_spans
from tui.search.query import SYMBOL_MARK, SYMBOL_NAMES

#: Texts up to this long (headlines, titles) keep their words in a large cache; longer
#: ones (abstracts) in a small one: one abstract's words take tens of kilobytes.
SHORT_TEXT = 400


def _words_of(text: str) -> tuple[tuple[int, int, str], ...]:
    """`token_spans(text)`, remembered: each key in the filter paints the same headlines
    and the same abstract with a new query, and splitting them into folded words cost
    several times the matching."""
    return _short_words(text) if len(text) <= SHORT_TEXT else _long_words(text)


@lru_cache(maxsize=8192)
def _short_words(text: str) -> tuple[tuple[int, int, str], ...]:
    return tuple(token_spans(text))


@lru_cache(maxsize=32)
def _long_words(text: str) -> tuple[tuple[int, int, str], ...]:
    return tuple(token_spans(text))


# Of a query word found several ways, the note names the plainest.
_RANK = {"form": 0, "completion": 1, "typo": 2, "cousin": 3}

_CHARS_OF_NAME: dict[str, str] = {}
for _char, _name in SYMBOL_NAMES.items():
    _CHARS_OF_NAME[_name] = _CHARS_OF_NAME.get(_name, "") + _char


def _symbol_chars(word: str) -> str:
    """The symbols a matched word stands for (`times` or `\\times` -> `×`)."""
    return _CHARS_OF_NAME.get(word.removeprefix(SYMBOL_MARK), "")


# How a word was matched, as the reader is told: another form of the word (`networks`),
# a near spelling (a typo), a related word (the same stem, another word), a completion.
HOW = {"form": "form", "typo": "spelling", "cousin": "related", "completion": "completion"}


@dataclass(frozen=True, slots=True)
class Matched:
    """A query word an abstract holds only as `found` (other words), matched `how`
    (a value of HOW)."""

    typed: str
    found: tuple[str, ...]
    how: str

    def as_json(self) -> dict[str, object]:
        """The row's `"matched"` entry in `abstracts search --json`."""
        return {"typed": self.typed, "found": list(self.found), "as": self.how}


def describe(matched: list[Matched]) -> str:
    """One short line: `matched: contrast ≈ contrastive (related)`; "" when every word
    was found as typed."""
    parts = []
    for m in matched:
        suffix = "" if m.how == "form" else f" ({m.how})"
        parts.append(f"{'/'.join(m.found[:3])} ≈ {m.typed}{suffix}")
    return "matched: " + " · ".join(parts) if parts else ""


@dataclass(frozen=True, slots=True)
class Highlighter:
    """Finds matched words in any text. Build it with `SearchIndex.highlighter(query)`.

    `words` and `prefixes` are painted wherever they occur; each of `phrases`
    (tuples of words) only where all its words occur adjacent and in order.
    """

    words: frozenset[str]
    prefixes: tuple[str, ...] = ()
    phrases: tuple[tuple[str, ...], ...] = ()
    # For `matched`: each matched word that is not a query word as typed -> (the query
    # word, its kind: a key of HOW); (prefix, query word, kind) for the prefixes whose
    # words are such; and the query words in the order typed.
    notes: Mapping[str, tuple[str, str]] = field(default_factory=dict, compare=False)
    prefix_notes: tuple[tuple[str, str, str], ...] = ()
    order: tuple[str, ...] = ()
    _symbols: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        chars = "".join(_symbol_chars(w) for w in self.words)
        pattern = re.compile("[" + re.escape(chars) + "]") if chars else None
        object.__setattr__(self, "_symbols", pattern)

    @property
    def empty(self) -> bool:
        """True when nothing would ever be highlighted."""
        return not (self.words or self.prefixes or self.phrases)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of every matched word of `text`, in order."""
        if self.empty:
            return []
        words, prefixes = self.words, self.prefixes
        if self.phrases:
            tokens = _words_of(text)
            hit = [w in words or (bool(prefixes) and w.startswith(prefixes)) for _, _, w in tokens]
            self._mark_phrases([w for _, _, w in tokens], hit)
            found = [(s, e) for (s, e, _), h in zip(tokens, hit, strict=True) if h]
        elif prefixes:
            found = [(s, e) for s, e, w in _words_of(text) if w in words or w.startswith(prefixes)]
        else:
            found = [(s, e) for s, e, w in _words_of(text) if w in words]
        symbols = self._symbols
        if symbols is not None and not text.isascii():
            found.extend((m.start(), m.end()) for m in symbols.finditer(text))
            found.sort()
        return found

    def matched(self, text: str) -> list[Matched]:
        """The query words `text` holds only through other words, in query order."""
        if not (self.notes or self.prefix_notes):
            return []
        tokens = {w for _, _, w in _words_of(text)}
        found: dict[str, tuple[list[str], str]] = {}
        for word in sorted(tokens):
            note = self.notes.get(word)
            if note is None:
                note = next(
                    ((t, k) for p, t, k in self.prefix_notes if word.startswith(p) and word != t),
                    None,
                )
            if note is None or note[0] in tokens:
                continue
            typed, kind = note
            words, how = found.get(typed, ([], kind))
            if _RANK[kind] < _RANK[how]:
                words, how = [], kind  # name only the plainest way it was found
            if kind == how:
                words.append(word)
            found[typed] = (words, how)
        rank = {t: i for i, t in enumerate(self.order)}
        return [
            Matched(t, tuple(words), HOW[kind])
            for t, (words, kind) in sorted(found.items(), key=lambda f: rank.get(f[0], len(rank)))
        ]

    def _mark_phrases(self, tokens: list[str], hit: list[bool]) -> None:
        """Set `hit` on every token inside an occurrence of one of the phrases."""
        for phrase in self.phrases:
            k = len(phrase)
            first = phrase[0]
            for i in range(len(tokens) - k + 1):
                if tokens[i] == first and tuple(tokens[i : i + k]) == phrase:
                    hit[i : i + k] = [True] * k
