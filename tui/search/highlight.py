"""Character spans of the words a query matched, for painting headlines and detail text.

The highlighter tokenizes with the same tokenizer as the index, so what is
painted is exactly what matched: one set lookup (and, for half-typed words,
one `startswith`) per word. A phrase's words are painted only where the whole
phrase occurs, in order, as the search required; alone they did not match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tui.corpus.tokens import token_spans
from tui.search.query import SYMBOL_MARK, SYMBOL_NAMES

_CHARS_OF_NAME: dict[str, str] = {}
for _char, _name in SYMBOL_NAMES.items():
    _CHARS_OF_NAME[_name] = _CHARS_OF_NAME.get(_name, "") + _char


def _symbol_chars(word: str) -> str:
    """The symbols a matched word stands for (`times` or `\\times` -> `×`)."""
    return _CHARS_OF_NAME.get(word.removeprefix(SYMBOL_MARK), "")


@dataclass(frozen=True, slots=True)
class Highlighter:
    """Finds matched words in any text. Build it with `SearchIndex.highlighter(query)`.

    `words` and `prefixes` are painted wherever they occur; each of `phrases`
    (tuples of words) only where all its words occur adjacent and in order.
    """

    words: frozenset[str]
    prefixes: tuple[str, ...] = ()
    phrases: tuple[tuple[str, ...], ...] = ()
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
            tokens = list(token_spans(text))
            hit = [w in words or (bool(prefixes) and w.startswith(prefixes)) for _, _, w in tokens]
            self._mark_phrases([w for _, _, w in tokens], hit)
            found = [(s, e) for (s, e, _), h in zip(tokens, hit, strict=True) if h]
        elif prefixes:
            found = [
                (s, e) for s, e, w in token_spans(text) if w in words or w.startswith(prefixes)
            ]
        else:
            found = [(s, e) for s, e, w in token_spans(text) if w in words]
        symbols = self._symbols
        if symbols is not None and not text.isascii():
            found.extend((m.start(), m.end()) for m in symbols.finditer(text))
            found.sort()
        return found

    def _mark_phrases(self, tokens: list[str], hit: list[bool]) -> None:
        """Set `hit` on every token inside an occurrence of one of the phrases."""
        for phrase in self.phrases:
            k = len(phrase)
            first = phrase[0]
            for i in range(len(tokens) - k + 1):
                if tokens[i] == first and tuple(tokens[i : i + k]) == phrase:
                    hit[i : i + k] = [True] * k
