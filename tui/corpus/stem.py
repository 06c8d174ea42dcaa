"""Word forms: the Snowball English stemmer (PyStemmer, the C build of Snowball).

`network` and `networks`, `learn`, `learning` and `learned` share a stem, so a
search for one form finds the others. Stems are only ever compared with stems;
what the user sees (highlights, headlines) is always the word as written.
"""

from __future__ import annotations

import Stemmer  # PyStemmer

_STEMMER = Stemmer.Stemmer("english")
# PyStemmer's own cache (on by default) keeps the stems of words it has seen.


def stem(word: str) -> str:
    """The stem of one folded word: `networks` -> `network`."""
    result: str = _STEMMER.stemWord(word)
    return result


def stem_words(words: list[str]) -> list[str]:
    """The stems of folded words, in order (one C call for the whole list)."""
    result: list[str] = _STEMMER.stemWords(words)
    return result
