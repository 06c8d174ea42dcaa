"""LaTeX in abstracts rendered as readable Unicode text with style spans.

`render(src)` gives the plain text and spans (italic, bold, mono, link) over it;
`to_plain(src)` is its text alone, and is what search indexes. The symbol and
macro knowledge comes from pylatexenc (latex2text's tables, LatexWalker for
math); this module decides what to do when those tables do not cover a case,
and the rule is: anything not converted stays visible as source, never dropped.

`RENDER_VERSION` names the rendering rules: caches of rendered or tokenized
text (the search index, similarity) put it in their keys, so bump it in the
same commit as any change to what `render` or `to_plain` output.

Speed matters because every abstract is rendered for the search index: text
without any LaTeX trigger returns at once, prose between LaTeX fragments is
copied in slices, and each distinct math fragment is parsed once (cached).
Control characters and ANSI escapes come out as Unicode control pictures, and
bidi controls as U+FFFD (through `tui.sanitize`, the one path for every text from
data), so abstract text can never restyle or reorder the terminal.

The work is split in four modules: this one (the public API and text mode:
prose, braces, text macros, URLs), `latex_math` (what is inside `$...$`),
`latex_symbols` (what each macro becomes, shared by both), and `latex_types`
(the output types all three write and pass around). Imports go one way: math
mode is handed text mode (for `\\text{...}`) as a parameter, never imports it.
"""

from __future__ import annotations

import re

from tui.corpus.latex_math import render_math
from tui.corpus.latex_symbols import (
    SWITCHES,
    accent_mark,
    apply_macro,
    argspec,
    special,
    symbol,
)
from tui.corpus.latex_types import Arg, Out, Rendered, Style, StyleSpan
from tui.sanitize import BIDI, CONTROL, visible
from tui.sanitize import visible as shown_safely  # the LaTeX source view, controls made visible

__all__ = [
    "RENDER_VERSION",
    "Rendered",
    "StyleSpan",
    "needs_rendering",
    "render",
    "shown_safely",
    "to_plain",
]

# Bump whenever the output of render() or to_plain() changes for some input.
RENDER_VERSION = 2

_TRIGGERS = ("\\", "$", "{", "}", "~", "`", "''", "--")
# `www.` only where a word starts, so `a@www.x` and `x.www.y` are left alone. Every
# alternative starts with a literal character (the lookbehind comes after the first
# `w`), so the regex engine can skip ahead to candidates: 2.5x faster than with the
# lookbehind first.
_TEXT_TOKEN = re.compile(r"[\\${}~`]|''|--|https?://|w(?<![\w.@/]w)ww\.")
# URL characters: no whitespace, no controls (they must never reach a terminal hyperlink).
_URL_CHARS = r"[^\s\x00-\x1f\x7f-\x9f" + BIDI + r"<>\"{}|\\^`\[\]]"
_URL = re.compile(r"https?://" + _URL_CHARS + "+")
# A bare `www.example.org/...`: a dotted host name, then an optional path.
_WWW_URL = re.compile(r"www\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?:[/?#:]" + _URL_CHARS + "*)?")
_URL_TRAILING = ".,;:!?'\")]"
_MACRO_NAME = re.compile(r"[A-Za-z]+\*?")
# Groups nested deeper than this are shown as source rather than recursed into.
_MAX_DEPTH = 40


def needs_rendering(src: str) -> bool:
    """False when `src` has no LaTeX trigger and no control character (so plain == src)."""
    if not src.isprintable() and CONTROL.search(src):
        return True
    return any(t in src for t in _TRIGGERS)


def to_plain(src: str) -> str:
    """The readable text of `src`; equal to `render(src).plain`, faster when there is no LaTeX."""
    if not needs_rendering(src):
        return src
    return render(src).plain


def render(src: str) -> Rendered:
    """Render `src` for reading. Never raises; unconverted LaTeX stays visible as source."""
    if not needs_rendering(src) and "http" not in src and "www." not in src:
        return Rendered(src)
    try:
        out = Out()
        text_mode(src, 0, len(src), out, 0)
        plain = out.text()
        spans = out.spans
    except Exception:  # a last resort: the converter must never take the reader down
        plain, spans = src, []
    # One-to-one replacement, so span offsets stay valid.
    plain = visible(plain)
    # `\url{...}` and `\href{...}` targets come from the source: never let a control through.
    spans = [_safe_url(s) if s.url and CONTROL.search(s.url) else s for s in spans]
    spans.sort(key=lambda s: (s.start, -s.end))
    return Rendered(plain, tuple(spans))


def _safe_url(span: StyleSpan) -> StyleSpan:
    url = visible(span.url) if span.url else span.url
    return StyleSpan(span.start, span.end, span.style, url)


def _matching_brace(src: str, i: int, end: int) -> int:
    """Index of the `}` closing the `{` at `i`, or -1. Escaped braces do not count."""
    depth = 0
    j = i
    while j < end:
        c = src[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1


def _math_end(src: str, i: int, end: int, closer: str) -> int:
    """Index of the unescaped `closer` ending math that starts at `i`, or -1."""
    j = src.find(closer, i, end)
    while j != -1 and closer[0] == "$" and src[j - 1] == "\\":
        j = src.find(closer, j + 1, end)
    return j


def _url(src: str, i: int, end: int, out: Out) -> int:
    """Emit the bare URL at `i` as a link; returns the index after it.

    `www.example.org/x` links to `https://www.example.org/x` (its text unchanged).
    """
    www = src.startswith("www.", i)
    m = (_WWW_URL if www else _URL).match(src, i, end)
    if m is None:
        out.add(src[i])
        return i + 1
    url = m.group()
    while url and url[-1] in _URL_TRAILING:
        # A closing bracket belongs to the URL only when the URL opened one.
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    # (A `www.` match always has a dotted host left after the trailing strip.)
    if not www and len(url) <= len("https://"):
        out.add(src[i])
        return i + 1
    start = out.n
    out.add(url)
    out.span(start, "link", "https://" + url if www else url)
    return i + len(url)


def text_mode(src: str, i: int, end: int, out: Out, depth: int) -> None:
    """Render `src[i:end]` in text mode into `out`. Style switches end with the range."""
    if depth > _MAX_DEPTH:
        out.add(src[i:end])
        return
    switches: list[tuple[int, Style]] = []
    pos = i
    while pos < end:
        m = _TEXT_TOKEN.search(src, pos, end)
        if m is None:
            out.add(src[pos:end])
            break
        k = m.start()
        out.add(src[pos:k])
        tok = m.group()
        if tok == "\\":
            pos = _backslash(src, k, end, out, depth, switches)
        elif tok == "$":
            pos = _dollar(src, k, end, out)
        elif tok == "{":
            close = _matching_brace(src, k, end)
            if close == -1:
                out.add("{")
                pos = k + 1
            else:
                text_mode(src, k + 1, close, out, depth + 1)
                pos = close + 1
        elif tok.startswith(("http", "www")):
            pos = _url(src, k, end, out)
        elif tok == "--" and src.startswith("---", k):
            out.add(special("---"))
            pos = k + 3
        elif tok == "`" and src.startswith("``", k):
            out.add(special("``"))
            pos = k + 2
        else:
            # `}` without an opening brace, `~`, `--`, `''`, a single backquote.
            out.add(special(tok) if tok != "}" else tok)
            pos = k + len(tok)
    for start, style in switches:
        out.span(start, style)


def _text_argument(source: str, out: Out) -> None:
    """Render a math macro's `\\text{...}`-like argument (it may hold `$...$` again)."""
    text_mode(source, 0, len(source), out, 1)


def _dollar(src: str, k: int, end: int, out: Out) -> int:
    """Inline `$...$` or display `$$...$$` math at `k`; a lone `$` stays as it is."""
    closer = "$$" if src.startswith("$$", k) else "$"
    start = k + len(closer)
    close = _math_end(src, start, end, closer)
    if close == -1 or close == start:
        out.add(closer)
        return start
    out.add_rendered(render_math(src[start:close], _text_argument))
    return close + len(closer)


def _backslash(
    src: str, k: int, end: int, out: Out, depth: int, switches: list[tuple[int, Style]]
) -> int:
    """A control sequence at `k` (text mode); returns the index after what it consumed."""
    nxt = src[k + 1] if k + 1 < end else ""
    if nxt in ("(", "["):
        closer = "\\)" if nxt == "(" else "\\]"
        close = src.find(closer, k + 2, end)
        if close == -1:
            out.add(src[k : k + 2])
            return k + 2
        out.add_rendered(render_math(src[k + 2 : close], _text_argument))
        return close + 2
    m = _MACRO_NAME.match(src, k + 1, end)
    if m is None:
        # A control symbol: \% \& \$ \_ \{ \} \, \! \\ and the accents \' \" \^ ...
        if not nxt:
            out.add("\\")
            return k + 1
        if accent_mark(nxt) is not None:
            return _macro(nxt, src, k, k + 2, end, out, depth)
        repl = symbol(nxt)
        out.add(("\\" + nxt) if repl is None else repl)
        return k + 2
    name = m.group().rstrip("*")
    after = k + 1 + len(name)
    style = SWITCHES.get(name)
    if style is not None or name in SWITCHES:
        if style is not None:
            switches.append((out.n, style))
        return _skip_spaces(src, after, end)
    return _macro(name, src, k, after, end, out, depth)


def _skip_spaces(src: str, j: int, end: int) -> int:
    while j < end and src[j] == " ":
        j += 1
    return j


def _text_args(
    src: str, j: int, end: int, argspec: str
) -> tuple[list[tuple[int, int] | None], int]:
    """Parse macro arguments after `j` per a pylatexenc argspec (`{`, `[`, `*`).

    Returns the content ranges (None for an absent optional argument) and the
    index after the last argument; a missing mandatory argument ends parsing.
    """
    args: list[tuple[int, int] | None] = []
    for kind in argspec:
        if kind == "*":
            if j < end and src[j] == "*":
                args.append((j, j + 1))
                j += 1
            else:
                args.append(None)
            continue
        p = _skip_spaces(src, j, end)
        if kind == "[":
            close = src.find("]", p, end) if p < end and src[p] == "[" else -1
            if close == -1:
                args.append(None)
            else:
                args.append((p + 1, close))
                j = close + 1
            continue
        if p < end and src[p] == "{":
            close = _matching_brace(src, p, end)
            if close == -1:
                break
            args.append((p + 1, close))
            j = close + 1
        elif p < end and src[p] == "\\":
            m = _MACRO_NAME.match(src, p + 1, end)
            stop = m.end() if m else min(p + 2, end)
            args.append((p, stop))
            j = stop
        elif p < end and src[p] not in "}]":
            args.append((p, p + 1))
            j = p + 1
        else:
            break
    return args, j


def _macro(name: str, src: str, k: int, after: int, end: int, out: Out, depth: int) -> int:
    """A macro `\\name` at `k` in text mode; its arguments start at `after`."""
    spec = argspec(name)
    if spec is None:
        # Unknown: keep it as source, braces included, but render inside them.
        out.add(src[k:after])
        j = after
        while j < end and src[j] == "{":
            close = _matching_brace(src, j, end)
            if close == -1:
                break
            out.add("{")
            text_mode(src, j + 1, close, out, depth + 1)
            out.add("}")
            j = close + 1
        return j
    ranges, j = _text_args(src, after, end, spec)
    if len(ranges) < len(spec):
        out.add(src[k:j])
        return j

    def renderer(r: tuple[int, int] | None) -> Arg | None:
        if r is None:
            return None
        a, b = r
        return Arg(src[a:b], lambda o: text_mode(src, a, b, o, depth + 1))

    apply_macro(name, [renderer(r) for r in ranges], src[k:j], out, math=False)
    return j
