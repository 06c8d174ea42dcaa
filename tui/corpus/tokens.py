"""Words as search and similarity see them.

One tokenizer for the whole program, so a word highlighted in the detail pane
is the same word the index matched. Tokens are lower-cased, accent-folded runs
of letters and digits; `vision-language` yields `vision` and `language`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

# A word: a run of letters and digits (no underscore). tui.search.build still
# imports this name for its own ASCII path until it calls tokenize() directly.
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def fold(word: str) -> str:
    """Lower-case and strip accents: `Café` -> `cafe`."""
    word = word.casefold()
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tokenize(text: str) -> list[str]:
    """The folded words of `text`, in order."""
    if text.isascii():
        # Most abstracts: lower() is casefold() for ASCII, keeps every offset and
        # leaves no accent to strip, so one C-level findall gives the same tokens.
        return _WORD.findall(text.lower())
    # Mixed text (a rendered `α` or `é` among English): only non-ASCII words need fold().
    return [w.lower() if w.isascii() else fold(w) for w in _WORD.findall(text)]


def _tokenize_general(text: str) -> list[str]:
    """`tokenize` for any text: each word matched, then folded (the reference path)."""
    return [fold(m.group()) for m in _WORD.finditer(text)]


def token_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, folded word) for each word of `text`, offsets into `text`."""
    for m in _WORD.finditer(text):
        yield m.start(), m.end(), fold(m.group())
