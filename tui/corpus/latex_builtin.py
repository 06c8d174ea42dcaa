"""Built-in copies of latex2text's answers for the commonest text-mode cases.

Importing pylatexenc.latex2text and building its tables costs 5-8 ms, paid
before the first paint when the first abstract shown has ``quotes'' or \\%.
`latex_symbols` answers these cases from the tables here and asks pylatexenc
about anything not listed. tests/corpus/test_latex_builtin.py checks every
entry against pylatexenc's own answer, so the two cannot drift apart.
"""

from __future__ import annotations

# Specials as text mode meets them: two backquotes, two quotes, dashes, tie.
BUILTIN_SPECIALS: dict[str, str] = {
    "``": "\u201c",
    "''": "\u201d",
    "--": "\u2013",
    "---": "\u2014",
    "~": "\u00a0",
    "`": "`",
}
# Control symbols: `\%` is `%`, spacing commands are a space, `\!` (a negative
# thin space) is nothing, `\-` (a hyphenation point) a soft hyphen.
BUILTIN_SYMBOLS: dict[str, str] = {
    **{c: c for c in "%&_#${}"},
    **dict.fromkeys(",;: \\", " "),
    "!": "",
    "-": "\u00ad",
}
# Accents, as the combining mark latex2text puts on the letter: `\'e` is é.
BUILTIN_ACCENTS: dict[str, str] = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "c": "\u0327",
    "v": "\u030c",
    "u": "\u0306",
    "H": "\u030b",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
    "b": "\u0331",
}
