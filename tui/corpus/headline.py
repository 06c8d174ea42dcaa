"""A one-line headline for an abstract: its first sentence, cut to fit a list row."""

from __future__ import annotations

import re

from tui.corpus.spaces import collapse

# Words ending in a full stop that do not end a sentence (compared case-insensitively).
_ABBREVIATIONS = frozenset(
    [
        "e.g.",
        "i.e.",
        "al.",
        "vs.",
        "fig.",
        "figs.",
        "eq.",
        "eqs.",
        "cf.",
        "resp.",
        "approx.",
        "sec.",
        "tab.",
        "no.",
        "dr.",
        "prof.",
        "w.r.t.",
        "a.k.a.",
        "viz.",
        "ca.",
        "st.",
    ]
)
# Sentence end: . ! or ? (with closing quotes/brackets), then space, then not lower-case.
_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s+[^\s a-z])")
# How much of a long text a headline reads (see make_headline): a few times the limit.
_READ_FACTOR = 2
_READ_MARGIN = 40


def first_sentence(text: str) -> str:
    """The first sentence of `text` (whitespace collapsed); all of it when there is one."""
    return _first_of(collapse(text))


def _first_of(text: str) -> str:
    """The first sentence of whitespace-collapsed `text`."""
    for m in _END.finditer(text):
        end = m.end()
        word = text[: m.start() + 1].rsplit(" ", 1)[-1]
        if word.lower() in _ABBREVIATIONS or word.lower().lstrip("(") in _ABBREVIATIONS:
            continue
        return text[:end]
    return text


def make_headline(plain: str, limit: int = 100) -> str:
    """The first sentence of `plain`, cut on a word boundary with `…` past `limit` characters.

    Never empty for input with any non-space character. Only the start of a long
    text is read: the first sentence of the start is that of the whole text, or
    both are longer than `limit` and cut to the same characters.
    """
    reach = _READ_FACTOR * max(limit, 2) + _READ_MARGIN
    if len(plain) > reach:
        start = collapse(plain[:reach])
        if len(start) > limit + 1:
            return _cut(_first_of(start), plain, limit)
    return _cut(first_sentence(plain), plain, limit)


def _cut(sentence: str, plain: str, limit: int) -> str:
    if not sentence:
        return "…" if plain else ""
    limit = max(limit, 2)
    if len(sentence) <= limit:
        return sentence
    cut = sentence[: limit - 1]
    space = cut.rfind(" ")
    # Cut at the last word boundary unless that leaves too little of the line.
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:–—-") + "…"
