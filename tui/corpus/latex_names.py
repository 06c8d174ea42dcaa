"""The LaTeX that bibliographies put in titles and names, decoded cheaply for display,
and BibTeX's author lists split into names (`bibtex_authors`).

BibTeX libraries write accents as `{\\"u}`, `\\'{e}` or `{\\ss}`, and protect
capitals with braces (`{BERT}`, `{G}aussian`). `decode` turns those into Unicode
and drops the braces in one pass, with no parser import: it runs on every title
and author name of a library while it loads (a full LaTeX conversion of every
field of 8,923 entries took 65 s; this takes milliseconds).

What it does not know is left as it is for the app's renderer (tui.corpus.latex),
which runs lazily on what is shown: math (`$\\ell_1$`) and other macros with their
braced arguments (`\\emph{Deep}`) are copied verbatim, so rendering them later gives
the same text as rendering the source would.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from tui.corpus.latex_builtin import BUILTIN_ACCENTS, BUILTIN_SPECIALS, BUILTIN_SYMBOLS
from tui.corpus.paper import Author

# Letter macros -> the letter (or sign) they stand for.
_LETTERS = {
    "ss": "ß",
    "o": "ø",
    "O": "Ø",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "l": "ł",
    "L": "Ł",
    "i": "ı",
    "j": "ȷ",
    "dh": "ð",
    "DH": "Ð",
    "th": "þ",
    "TH": "Þ",
    "ng": "ŋ",
    "NG": "Ŋ",
    "textendash": "–",
    "textemdash": "—",
    "textquoteright": "’",
    "textquoteleft": "‘",
    "ldots": "…",
    "dots": "…",
    "textellipsis": "…",
    "LaTeX": "LaTeX",
    "TeX": "TeX",
}
# Control symbols (`\%`, `\&`, `\,`) as latex2text reads them, but `\$`: that is left for the
# renderer, since a bare `$` would open math there.
_SYMBOLS = {c: v for c, v in BUILTIN_SYMBOLS.items() if c != "$"}
# Dashes, quotes and ties, longest first (`---` before `--`); `~` becomes a space.
_SPECIALS = sorted((s for s in BUILTIN_SPECIALS if len(s) > 1 or s == "~"), key=len, reverse=True)
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_BRACE = re.compile(r"\\.|[{}]", re.DOTALL)
# Text without any of these has nothing to decode.
_TRIGGER = re.compile(r"[\\{}~$]|--|``|''")


def decode(text: str) -> str:
    """`text` with accents, letter macros, `~`, dashes and quotes decoded and braces dropped.

    Math and unknown macros (with their braced arguments) are kept verbatim for the
    renderer. Never raises; whitespace is collapsed to single spaces.
    """
    if _TRIGGER.search(text) is None:
        return " ".join(text.split())
    out: list[str] = []
    n = len(text)
    i = 0
    while i < n:
        c = text[i]
        if c == "\\":
            i = _macro(text, i, out)
        elif c in "{}":
            i += 1
        elif c == "$":
            end = _math_end(text, i)
            out.append(text[i:end])
            i = end
        elif c in "-`'~" and (special := _special_at(text, i)):
            out.append(BUILTIN_SPECIALS[special])
            i += len(special)
        else:
            out.append(c)
            i += 1
    return unicodedata.normalize("NFC", " ".join("".join(out).split()))


def _special_at(text: str, i: int) -> str | None:
    """The dash, quote or tie that starts at `text[i]`, or None."""
    return next((s for s in _SPECIALS if text.startswith(s, i)), None)


def _math_end(text: str, i: int) -> int:
    """The index after the math that opens at `text[i]` (`$...$` or `$$...$$`)."""
    closer = "$$" if text.startswith("$$", i) else "$"
    j = i + len(closer)
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text.startswith(closer, j):
            return j + len(closer)
        j += 1
    return len(text)


def group_end(text: str, i: int) -> int:
    """The index after the braced group that opens at `text[i]` (the end of text if open)."""
    depth = 0
    for m in _BRACE.finditer(text, i):
        brace = m.group()
        if brace == "{":
            depth += 1
        elif brace == "}":
            depth -= 1
            if depth == 0:
                return m.end()
    return len(text)


def _macro(text: str, i: int, out: list[str]) -> int:
    """Decode the macro at `text[i]` (a backslash) into `out`; the index after it."""
    n = len(text)
    j = i + 1
    if j >= n:
        out.append("\\")
        return n
    c = text[j]
    if not c.isalpha():
        if c in BUILTIN_ACCENTS:
            return _accent(text, j + 1, BUILTIN_ACCENTS[c], out, letter_macro=False)
        if c in _SYMBOLS:
            out.append(_SYMBOLS[c])
            return j + 1
        out.append(text[i : j + 1])
        return j + 1
    k = j
    while k < n and text[k].isalpha():
        k += 1
    name = text[j:k]
    if name in BUILTIN_ACCENTS and (k < n and not text[k].isalpha()):
        return _accent(text, k, BUILTIN_ACCENTS[name], out, letter_macro=True)
    letter = _LETTERS.get(name)
    if letter is not None:
        out.append(letter)
        # `{\ss}` or `\ss{}`: the empty group or one space ends the macro.
        if text.startswith("{}", k):
            return k + 2
        return k + 1 if k < n and text[k] == " " else k
    # Unknown: the macro and its braced arguments stay as written, for the renderer.
    end = k
    while end < n and text[end] == "{":
        end = group_end(text, end)
    out.append(text[i:end])
    return end


def _accent(text: str, k: int, mark: str, out: list[str], letter_macro: bool) -> int:
    """Put `mark` on the letter after `text[k:]` (`{e}`, `e`, `{\\i}`); the index after it."""
    n = len(text)
    if letter_macro:
        while k < n and text[k] == " ":
            k += 1
    if k >= n:
        return n
    braced = text[k] == "{"
    start = k + 1 if braced else k
    base = ""
    end = start
    if start < n and text[start] == "\\":
        # A dotless i or j (`\'{\i}`) takes the accent as a plain i or j.
        m = start + 1
        while m < n and text[m].isalpha():
            m += 1
        name = text[start + 1 : m]
        base = {"i": "i", "j": "j"}.get(name, _LETTERS.get(name, ""))
        end = m
        while end < n and text[end] == " " and braced:
            end += 1
    elif start < n and text[start] != "}":
        base = text[start]
        end = start + 1
    if braced:
        close = group_end(text, k)
        rest = text[end : close - 1] if close - 1 >= end else ""
        out.append(base + mark if base else "")
        if rest:
            out.append(decode(rest))
        return close
    out.append(base + mark if base else "")
    return end


def bibtex_authors(value: str) -> tuple[Author, ...]:
    """The authors of a BibTeX `author` field: `A and B and others`, each name parsed and
    decoded; `others` is kept as the last author (styles print it as "et al.")."""
    authors = (_author(name) for name in _split_names(value))
    return tuple(a for a in authors if a is not None)


def _split_names(value: str) -> list[str]:
    """Names split at ` and ` outside braces (`{Barnes and Noble}` is one name)."""
    value = value.strip()
    if not value:
        return []
    if "{" not in value:
        return _AND.split(value)
    names: list[str] = []
    start = 0
    for m in _AND.finditer(value):
        at = m.start()
        if value.count("{", 0, at) == value.count("}", 0, at):
            names.append(value[start:at])
            start = m.end()
    names.append(value[start:])
    return names


def _tokens(text: str, sep: str) -> list[str]:
    """`text` split at `sep` (a comma, or whitespace when empty) outside braces."""
    if "{" not in text:
        return [p.strip() for p in text.split(sep)] if sep else text.split()
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for c in text:
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        if depth == 0 and ((sep and c == sep) or (not sep and c.isspace())):
            parts.append("".join(current))
            current = []
        else:
            current.append(c)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()] if not sep else [p.strip() for p in parts]


def _starts_lower(word: str) -> bool:
    """Whether the first letter of a name word is lower-case (`van`, `{de}`, `'t`)."""
    shown = decode(word) if "{" in word or "\\" in word else word
    return next((c for c in shown if c.isalpha()), "").islower()


@lru_cache(maxsize=8192)
def _author(name: str) -> Author | None:
    """One BibTeX name: `von Last, First`, `von Last, Jr, First` or `First von Last`.

    A name in braces (`{OpenAI}`, `{Google DeepMind}`) is one family name, kept whole.
    """
    name = " ".join(name.split())
    if not name:
        return None
    if name.lower() == "others":
        return Author("others")
    parts = _tokens(name, ",") if "," in name else [name]
    if len(parts) >= 2:
        family = parts[0] if len(parts) == 2 else f"{parts[0]} {parts[1]}"
        return Author(decode(family), decode(parts[-1]))
    words = _tokens(name, "")
    if len(words) == 1:
        return Author(decode(words[0]))
    # Words starting with a lower-case letter (von, van der, de la, `{van}` too, whose
    # braces only keep it as written) begin the family name.
    start = len(words) - 1
    for i, word in enumerate(words[:-1]):
        if i > 0 and _starts_lower(word):
            start = i
            break
    return Author(decode(" ".join(words[start:])), decode(" ".join(words[:start])))
