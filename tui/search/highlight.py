"""Character spans of the words a query matched, for painting headlines and detail text.

The highlighter tokenizes with the same tokenizer as the index, so what is
painted is exactly what matched: one set lookup (and, for half-typed words,
one `startswith`) per word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tui.corpus.tokens import token_spans
from tui.search.query import SYMBOL_NAMES

_CHARS_OF_NAME: dict[str, str] = {}
for _char, _name in SYMBOL_NAMES.items():
    _CHARS_OF_NAME[_name] = _CHARS_OF_NAME.get(_name, "") + _char


@dataclass(frozen=True, slots=True)
class Highlighter:
    """Finds matched words in any text. Build it with `SearchIndex.highlighter(query)`."""

    words: frozenset[str]
    prefixes: tuple[str, ...] = ()
    _symbols: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        chars = "".join(_CHARS_OF_NAME.get(w, "") for w in self.words)
        pattern = re.compile("[" + re.escape(chars) + "]") if chars else None
        object.__setattr__(self, "_symbols", pattern)

    @property
    def empty(self) -> bool:
        """True when nothing would ever be highlighted."""
        return not (self.words or self.prefixes)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of every matched word of `text`, in order."""
        if self.empty:
            return []
        words, prefixes = self.words, self.prefixes
        if prefixes:
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
