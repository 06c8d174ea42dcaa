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


# Words joined by hyphens (`pre-training`, `state-of-the-art`) as one run; a lone word
# matches too, so one pass finds every word and every hyphenated compound.
_RUN = re.compile(r"[^\W_]+(?:-[^\W_]+)*", re.UNICODE)


def tokenize_with_compounds(text: str) -> tuple[list[str], list[str]]:
    """`tokenize(text)`, and the hyphenated words of `text` written as one word
    (`pre-training` -> `pretraining`; runs of numbers only, `2020-2024`, are not words)."""
    lowered = text.lower() if text.isascii() else text
    runs = _RUN.findall(lowered)
    hyphenated = [r for r in runs if "-" in r]
    if hyphenated:
        runs = " ".join(runs).replace("-", " ").split()
    if not text.isascii():
        runs = [w.lower() if w.isascii() else fold(w) for w in runs]
    compounds = []
    for run in hyphenated:
        joined = run.replace("-", "")
        if not joined.isdigit():
            compounds.append(joined.lower() if joined.isascii() else fold(joined))
    return runs, compounds


def _tokenize_general(text: str) -> list[str]:
    """`tokenize` for any text: each word matched, then folded (the reference path)."""
    return [fold(m.group()) for m in _WORD.finditer(text)]


def token_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, folded word) for each word of `text`, offsets into `text`."""
    for m in _WORD.finditer(text):
        yield m.start(), m.end(), fold(m.group())
