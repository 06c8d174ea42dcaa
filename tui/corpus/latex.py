"""LaTeX in abstracts rendered as readable Unicode text with style spans.

`render(src)` gives the plain text and spans (italic, bold, mono, link) over it;
`to_plain(src)` is its text alone, and is what search indexes. The symbol and
macro knowledge comes from pylatexenc (latex2text's tables, LatexWalker for
math); this module decides what to do when those tables do not cover a case,
and the rule is: anything not converted stays visible as source, never dropped.

Speed matters because every abstract is rendered for the search index: text
without any LaTeX trigger returns at once, prose between LaTeX fragments is
copied in slices, and each distinct math fragment is parsed once (cached).
Control characters and ANSI escapes come out as Unicode control pictures, so
abstract text can never restyle the terminal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Style = Literal["italic", "bold", "mono", "link"]


@dataclass(frozen=True, slots=True)
class StyleSpan:
    """A styled range `[start, end)` of `Rendered.plain`; `url` is set for links."""

    start: int
    end: int
    style: Style
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Rendered:
    """An abstract's text for reading, and its styled ranges (sorted by start)."""

    plain: str
    spans: tuple[StyleSpan, ...] = ()


# Text that holds none of these (and is printable) is returned as it is.
_TRIGGERS = ("\\", "$", "{", "}", "~", "`", "''", "--")
_TEXT_TOKEN = re.compile(r"[\\${}~`]|''|--|https?://")
_URL = re.compile(r"https?://[^\s<>\"{}|\\^`\[\]]+")
_URL_TRAILING = ".,;:!?'\")]"
_MACRO_NAME = re.compile(r"[A-Za-z]+\*?")
# C0 controls, DEL and C1 controls: the characters a terminal may obey instead of showing.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_PICTURES = {
    **{c: 0x2400 + c for c in range(0x20) if c not in (0x09, 0x0A)},
    0x7F: 0x2421,
    # C1 controls have no pictures; the replacement character shows one was there.
    **{c: 0xFFFD for c in range(0x80, 0xA0)},
}
# Groups nested deeper than this are shown as source rather than recursed into.
_MAX_DEPTH = 40


class _Out:
    """An output buffer that tracks its length so spans can be recorded as it grows."""

    __slots__ = ("n", "parts", "spans")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.spans: list[StyleSpan] = []
        self.n = 0

    def add(self, text: str) -> None:
        if text:
            self.parts.append(text)
            self.n += len(text)

    def span(self, start: int, style: Style, url: str | None = None) -> None:
        if self.n > start:
            self.spans.append(StyleSpan(start, self.n, style, url))

    def add_rendered(self, rendered: Rendered) -> None:
        base = self.n
        self.add(rendered.plain)
        for s in rendered.spans:
            self.spans.append(StyleSpan(s.start + base, s.end + base, s.style, s.url))

    def text(self) -> str:
        return "".join(self.parts)


def needs_rendering(src: str) -> bool:
    """False when `src` has no LaTeX trigger and no control character (so plain == src)."""
    if not src.isprintable() and _CONTROL.search(src):
        return True
    return any(t in src for t in _TRIGGERS)


def to_plain(src: str) -> str:
    """The readable text of `src`; equal to `render(src).plain`, faster when there is no LaTeX."""
    if not needs_rendering(src):
        return src
    return render(src).plain


def render(src: str) -> Rendered:
    """Render `src` for reading. Never raises; unconverted LaTeX stays visible as source."""
    if not needs_rendering(src) and "http" not in src:
        return Rendered(src)
    try:
        out = _Out()
        _text(src, 0, len(src), out, 0)
        plain = out.text()
        spans = out.spans
    except Exception:  # a last resort: the converter must never take the reader down
        plain, spans = src, []
    if _CONTROL.search(plain):
        # One-to-one replacement, so span offsets stay valid.
        plain = plain.translate(_CONTROL_PICTURES)
    spans.sort(key=lambda s: (s.start, -s.end))
    return Rendered(plain, tuple(spans))


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


def _url(src: str, i: int, end: int, out: _Out) -> int:
    """Emit the bare URL at `i` as a link; returns the index after it."""
    m = _URL.match(src, i, end)
    if m is None:
        out.add(src[i])
        return i + 1
    url = m.group()
    while url and url[-1] in _URL_TRAILING:
        # A closing bracket belongs to the URL only when the URL opened one.
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    if len(url) <= len("https://"):
        out.add(src[i])
        return i + 1
    start = out.n
    out.add(url)
    out.span(start, "link", url)
    return i + len(url)


def _text(src: str, i: int, end: int, out: _Out, depth: int) -> None:
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
                _text(src, k + 1, close, out, depth + 1)
                pos = close + 1
        elif tok.startswith("http"):
            pos = _url(src, k, end, out)
        elif tok == "--" and src.startswith("---", k):
            out.add(_special("---"))
            pos = k + 3
        elif tok == "`" and src.startswith("``", k):
            out.add(_special("``"))
            pos = k + 2
        else:
            # `}` without an opening brace, `~`, `--`, `''`, a single backquote.
            out.add(_special(tok) if tok != "}" else tok)
            pos = k + len(tok)
    for start, style in switches:
        out.span(start, style)


def _dollar(src: str, k: int, end: int, out: _Out) -> int:
    """Inline `$...$` or display `$$...$$` math at `k`; a lone `$` stays as it is."""
    closer = "$$" if src.startswith("$$", k) else "$"
    start = k + len(closer)
    close = _math_end(src, start, end, closer)
    if close == -1 or close == start:
        out.add(closer)
        return start
    out.add_rendered(render_math(src[start:close]))
    return close + len(closer)


def _backslash(
    src: str, k: int, end: int, out: _Out, depth: int, switches: list[tuple[int, Style]]
) -> int:
    """A control sequence at `k` (text mode); returns the index after what it consumed."""
    nxt = src[k + 1] if k + 1 < end else ""
    if nxt in ("(", "["):
        closer = "\\)" if nxt == "(" else "\\]"
        close = src.find(closer, k + 2, end)
        if close == -1:
            out.add(src[k : k + 2])
            return k + 2
        out.add_rendered(render_math(src[k + 2 : close]))
        return close + 2
    m = _MACRO_NAME.match(src, k + 1, end)
    if m is None:
        # A control symbol: \% \& \$ \_ \{ \} \, \! \\ and the accents \' \" \^ ...
        if not nxt:
            out.add("\\")
            return k + 1
        if _accent_mark(nxt) is not None:
            return _macro(nxt, src, k, k + 2, end, out, depth)
        repl = _symbol(nxt)
        out.add(("\\" + nxt) if repl is None else repl)
        return k + 2
    name = m.group().rstrip("*")
    after = k + 1 + len(name)
    style = _SWITCHES.get(name)
    if style is not None or name in _SWITCHES:
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


def _macro(name: str, src: str, k: int, after: int, end: int, out: _Out, depth: int) -> int:
    """A macro `\\name` at `k` in text mode; its arguments start at `after`."""
    spec = _argspec(name)
    if spec is None:
        # Unknown: keep it as source, braces included, but render inside them.
        out.add(src[k:after])
        j = after
        while j < end and src[j] == "{":
            close = _matching_brace(src, j, end)
            if close == -1:
                break
            out.add("{")
            _text(src, j + 1, close, out, depth + 1)
            out.add("}")
            j = close + 1
        return j
    ranges, j = _text_args(src, after, end, spec)
    if len(ranges) < len(spec):
        out.add(src[k:j])
        return j

    def renderer(r: tuple[int, int] | None) -> _Arg | None:
        if r is None:
            return None
        a, b = r
        return _Arg(src[a:b], lambda o: _text(src, a, b, o, depth + 1))

    _apply_macro(name, [renderer(r) for r in ranges], src[k:j], out, math=False)
    return j


def _words(text: str) -> list[str]:
    return text.split()


# --- What pylatexenc's tables do not say: how macros map onto this reader's styles. ---

# Macros whose argument is shown with a style (None: shown plain).
_STYLED: dict[str, Style | None] = {
    **dict.fromkeys(_words("emph textit textsl mathit"), "italic"),
    **dict.fromkeys(_words("textbf mathbf boldsymbol bm"), "bold"),
    **dict.fromkeys(_words("texttt mathtt"), "mono"),
    **dict.fromkeys(
        _words("text textrm textnormal textsf textup textmd textsc mbox hbox mathrm mathsf"),
        None,
    ),
    "operatorname": None,
}
# Declarations that style the rest of their group: `{\em word}`; sizes are layout only.
_SWITCHES: dict[str, Style | None] = {
    **dict.fromkeys(_words("em it itshape sl slshape"), "italic"),
    **dict.fromkeys(_words("bf bfseries"), "bold"),
    **dict.fromkeys(_words("tt ttfamily"), "mono"),
    **dict.fromkeys(_words("rm sf normalfont upshape mdseries rmfamily sffamily sc scshape"), None),
    **dict.fromkeys(_words("cal tiny scriptsize footnotesize small normalsize"), None),
    **dict.fromkeys(_words("large Large LARGE huge Huge"), None),
}
# Unicode math alphabets, applied with latex2text's own formatter.
_ALPHABETS = {"mathcal": "script", "mathscr": "script", "mathbb": "doublestruck"}
_ALPHABETS["mathfrak"] = "fraktur"
# Wide accents read like their narrow forms (latex2text drops them).
_ACCENT_ALIASES = {"widetilde": "tilde", "widehat": "hat", "overline": "bar"}
# Delimiter sizing and math style: layout only, nothing to read.
_SIZING = frozenset(
    _words("left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr")
    + _words("displaystyle textstyle limits nolimits")
)
_FRACTIONS = frozenset(_words("frac dfrac tfrac cfrac nicefrac"))
_OWN_ARGSPECS = {
    **dict.fromkeys(_STYLED, "{"),
    **dict.fromkeys(_ALPHABETS, "{"),
    **dict.fromkeys(_ACCENT_ALIASES, "{"),
    **dict.fromkeys(_FRACTIONS, "{{"),
    **dict.fromkeys(_SIZING, ""),
    "url": "{",
    "unicode": "{",
    "href": "{{",
    "sqrt": "[{",
}
_PLACEHOLDER = re.compile(r"%\((\d+)\)s|%s")


@dataclass(frozen=True, slots=True)
class _Arg:
    """One macro argument: its source, and how to render it into an output."""

    source: str
    render: Callable[[_Out], None]

    def rendered(self) -> Rendered:
        out = _Out()
        self.render(out)
        return Rendered(out.text(), tuple(out.spans))


@lru_cache(maxsize=1)
def _l2t_db() -> object:
    from pylatexenc import latex2text

    return latex2text.get_default_latex_context_db()


@lru_cache(maxsize=1)
def _l2t() -> object:
    from pylatexenc import latex2text

    return latex2text.LatexNodes2Text(latex_context=_l2t_db())


@lru_cache(maxsize=1)
def _walker_db() -> object:
    """LatexWalker's context, plus argument shapes for common macros it does not know."""
    from pylatexenc import latexwalker, macrospec

    db = latexwalker.get_default_latex_context_db()
    extra = [
        macrospec.MacroSpec(name, spec)
        for name, spec in _OWN_ARGSPECS.items()
        if spec and db.get_macro_spec(name) is None
    ]
    db.add_context_category("abstracts", macros=extra, prepend=True)
    return db


def _l2t_spec(name: str) -> object | None:
    spec: object | None = _l2t_db().get_macro_spec(name)  # type: ignore[attr-defined]
    return spec


@lru_cache(maxsize=1024)
def _argspec(name: str) -> str | None:
    """The argument shape of `\\name` (`{`, `[`, `*` per argument), or None when unknown."""
    if name in _OWN_ARGSPECS:
        return _OWN_ARGSPECS[name]
    spec = _walker_db().get_macro_spec(name)  # type: ignore[attr-defined]
    if spec is not None:
        argspec = getattr(spec.args_parser, "argspec", "")
        return argspec if isinstance(argspec, str) else ""
    return "" if _l2t_spec(name) is not None else None


@lru_cache(maxsize=256)
def _special(chars: str) -> str:
    """latex2text's reading of `~`, `--`, `---`, two backquotes, two quotes; else the chars."""
    spec = _l2t_db().get_specials_spec(chars)  # type: ignore[attr-defined]
    repl = getattr(spec, "simplify_repl", None)
    # A blank replacement (`&` becomes spaces) would hide a character: keep the source.
    if not isinstance(repl, str) or not repl.strip(" "):
        return chars
    return repl


@lru_cache(maxsize=256)
def _symbol(char: str) -> str | None:
    """A control symbol such as `\\%` or `\\,` as text, or None when latex2text has none."""
    spec = _l2t_spec(char)
    if spec is None or getattr(spec, "simplify_repl", None) is None:
        return None
    try:
        text: str = _l2t().latex_to_text("\\" + char)  # type: ignore[attr-defined]
    except Exception:
        return None
    return text.replace("\n", " ")


@lru_cache(maxsize=256)
def _accent_mark(name: str) -> str | None:
    """The combining mark latex2text puts on `\\name{x}`, or None when it is not an accent."""
    import unicodedata

    spec = _l2t_spec(name)
    if spec is None or not callable(getattr(spec, "simplify_repl", None)):
        return None
    try:
        text = unicodedata.normalize("NFD", _l2t().latex_to_text("\\" + name + "{x}"))  # type: ignore[attr-defined]
    except Exception:
        return None
    marks = text[1:]
    if text[:1] == "x" and marks and all(unicodedata.combining(c) for c in marks):
        return marks
    return None


def _script_table(kind: str) -> dict[str, str]:
    """Characters with a Unicode superscript (`<super>`) or subscript (`<sub>`) form."""
    return _scripts()[0 if kind == "<super>" else 1]


@lru_cache(maxsize=1)
def _scripts() -> tuple[dict[str, str], dict[str, str]]:
    import unicodedata

    sup: dict[str, str] = {}
    sub: dict[str, str] = {}
    # The blocks holding script forms, the dedicated block first so it wins.
    blocks = [(0x2070, 0x20A0), (0x00B2, 0x00BA), (0x1D2C, 0x1DC0), (0x02B0, 0x0300)]
    blocks += [(0x2C7C, 0x2C7E), (0xA770, 0xA771), (0xA7F8, 0xA7FA)]
    for lo, hi in blocks:
        for cp in range(lo, hi):
            parts = unicodedata.decomposition(chr(cp)).split()
            if len(parts) == 2 and parts[0] in ("<super>", "<sub>"):
                table = sup if parts[0] == "<super>" else sub
                table.setdefault(chr(int(parts[1], 16)), chr(cp))
    for table in (sup, sub):
        if "\u2212" in table:
            table.setdefault("-", table["\u2212"])
    return sup, sub


def _script(text: str, sup: bool) -> str:
    """`x^2` -> `x²`: Unicode script forms when every character has one, else `^2` / `^(ab)`."""
    body = text.strip()
    if sup and body in ("∘", "°"):
        return "°"
    if sup and body in ("⊤", "T"):
        return "ᵀ"
    if sup and body and all(c in "′'″" for c in body):
        return body
    table = _scripts()[0 if sup else 1]
    if body and all(c in table for c in body):
        return "".join(table[c] for c in body)
    marker = "^" if sup else "_"
    # `n^1.5`, `L_CE` read fine bare; `E_(x ∼ p)` needs its extent shown.
    if len(body) <= 1 or body.replace(".", "").isalnum():
        return marker + body
    return marker + "(" + body + ")"


def _simple(text: str) -> bool:
    """True when `text` needs no parentheses as a fraction part or root: `2`, `x`, `ab`."""
    return len(text) <= 1 or text.isalnum()


def _wrapped(arg: _Arg, out: _Out) -> None:
    r = arg.rendered()
    if _simple(r.plain):
        out.add_rendered(r)
    else:
        out.add("(")
        out.add_rendered(r)
        out.add(")")


def _apply_macro(name: str, args: list[_Arg | None], source: str, out: _Out, math: bool) -> None:
    """Render macro `\\name` with parsed `args`; `source` is shown when it cannot be converted."""
    present = [a for a in args if a is not None]
    start = out.n
    if name in _SIZING:
        return
    if name in _STYLED:
        for a in present:
            a.render(out)
        style = _STYLED[name]
        if style is not None:
            out.span(start, style)
        return
    if name in _ALPHABETS and present:
        from pylatexenc.latex2text import fmt_math_text_style

        out.add(fmt_math_text_style(present[0].rendered().plain, _ALPHABETS[name]))
        return
    if name == "unicode" and present:
        # MathJax's \unicode{x2013} / \unicode{8211}.
        code = present[0].source.strip()
        try:
            out.add(chr(int(code[1:], 16) if code[:1] in "xX" else int(code)))
        except (ValueError, OverflowError):
            out.add(source)
        return
    if name == "url" and present:
        url = present[0].source.strip()
        out.add(url)
        out.span(start, "link", url)
        return
    if name == "href" and len(present) == 2:
        present[1].render(out)
        out.span(start, "link", present[0].source.strip())
        return
    if name == "sqrt" and len(args) == 2 and args[1] is not None:
        if args[0] is not None:
            out.add(_script(args[0].rendered().plain, sup=True))
        out.add("√")
        _wrapped(args[1], out)
        return
    if name in _FRACTIONS and len(present) == 2:
        _wrapped(present[0], out)
        out.add("/")
        _wrapped(present[1], out)
        return
    mark = _accent_mark(_ACCENT_ALIASES.get(name, name))
    if mark is not None and len(present) == 1:
        import unicodedata

        body = present[0].rendered().plain
        out.add(unicodedata.normalize("NFC", "".join(c + mark if c != " " else c for c in body)))
        return
    out.add(_from_table(name, args, source))


def _from_table(name: str, args: list[_Arg | None], source: str) -> str:
    """latex2text's replacement for `\\name`, provided it keeps every argument; else the source."""
    spec = _l2t_spec(name)
    if spec is None:
        return source
    repl = getattr(spec, "simplify_repl", None)
    present = [i for i, a in enumerate(args) if a is not None]
    if repl is None:
        if getattr(spec, "discard", False):
            return source
        return "".join(a.rendered().plain for a in args if a is not None)
    if not isinstance(repl, str):
        return _from_pylatexenc(source)
    used = _PLACEHOLDER.findall(repl)
    if not used:
        return source if present else repl
    texts = [a.rendered().plain if a is not None else "" for a in args]
    try:
        if any(used):
            # Named placeholders, `%(2)s`: every argument given must be shown.
            if any(str(i + 1) not in used for i in present):
                return source
            return repl % {str(i + 1): t for i, t in enumerate(texts)}
        if len(used) != len(args):
            return source
        return repl % tuple(texts)
    except (KeyError, TypeError, ValueError):
        return source


@lru_cache(maxsize=1024)
def _from_pylatexenc(source: str) -> str:
    """latex2text's own conversion of one macro, for its few computed replacements."""
    try:
        text: str = _l2t().latex_to_text(source)  # type: ignore[attr-defined]
    except Exception:  # pylatexenc raises on some input (IndexError in \href, ...)
        return source
    return text if text.strip() else source


@lru_cache(maxsize=8192)
def render_math(content: str) -> Rendered:
    """Render the inside of one `$...$` (cached: the same fragments recur across abstracts)."""
    try:
        from pylatexenc import latexwalker

        walker = latexwalker.LatexWalker(content, latex_context=_walker_db(), tolerant_parsing=True)
        state = walker.make_parsing_state(in_math_mode=True)
        nodes, _, _ = walker.get_latex_nodes(parsing_state=state)
        out = _Out()
        _math_nodes(nodes, out)
        return Rendered(out.text(), tuple(out.spans))
    except Exception:
        # Whatever pylatexenc or the tables could not handle is shown as written.
        return Rendered("$" + content + "$")


def _math_nodes(nodes: list[object], out: _Out) -> None:
    """Render a math node list, joining `^`/`_` with the item after them."""
    from pylatexenc import latexwalker as lw

    items: list[object] = []
    for node in nodes:
        if isinstance(node, lw.LatexCharsNode):
            items.extend(node.chars)
        elif node is not None:
            items.append(node)
    _math_items(items, out)


def _math_items(items: list[object], out: _Out) -> None:
    """Render flattened math items (characters and nodes)."""
    from pylatexenc import latexwalker as lw

    i = 0
    while i < len(items):
        item = items[i]
        i += 1
        if isinstance(item, str):
            if item in "^_" and i < len(items):
                # pylatexenc nodes compare unequal to str only after an isinstance test.
                while i < len(items) and isinstance(items[i], str) and items[i] == " ":
                    i += 1
                if i < len(items):
                    sub = _Out()
                    _math_item(items[i], sub)
                    out.add(_script(sub.text(), sup=item == "^"))
                    i += 1
                    continue
            out.add(item)
        elif isinstance(item, lw.LatexMacroNode) and item.macroname == "!":
            # Negative space: `\perp \!\!\! \perp` reads ⊥⊥.
            while out.parts and out.parts[-1] == " ":
                out.parts.pop()
                out.n -= 1
            while i < len(items) and isinstance(items[i], str) and items[i] == " ":
                i += 1
        elif isinstance(item, lw.LatexMacroNode) and item.macroname in _SWITCHES:
            # `{\bf K}`, `\cal O`: the declaration styles the rest of its group.
            rest = _Out()
            _math_items(items[i:], rest)
            name = item.macroname
            if name == "cal":
                from pylatexenc.latex2text import fmt_math_text_style

                # TeX's calligraphic font has capitals only: `\cal O(n)` is 𝒪(n).
                text = rest.text()
                out.add(
                    "".join(fmt_math_text_style(c, "script") if c.isupper() else c for c in text)
                )
            else:
                start = out.n
                out.add_rendered(Rendered(rest.text().lstrip(" "), tuple(rest.spans)))
                style = _SWITCHES[name]
                if style is not None:
                    out.span(start, style)
            return
        elif isinstance(item, lw.LatexMacroNode) and _argspec(item.macroname) is None:
            # Unknown macro: keep it and any braces after it as source.
            out.add(item.latex_verbatim())
            while i < len(items) and isinstance(items[i], lw.LatexGroupNode):
                out.add("{")
                _math_nodes(items[i].nodelist, out)  # type: ignore[attr-defined]
                out.add("}")
                i += 1
        else:
            _math_item(item, out)
            name = getattr(item, "macroname", None)
            # `\left.` is an invisible delimiter.
            if name in ("left", "right") and i < len(items) and _is_char(items[i], "."):
                i += 1
                continue
            argd = getattr(item, "nodeargd", None)
            has_args = argd is not None and any(argd.argnlist)
            if isinstance(item, lw.LatexMacroNode) and item.macro_post_space and not has_args:
                # The walker keeps the space after `\log` apart; `\log n` must not read logn.
                out.add(" ")


def _is_char(item: object, char: str) -> bool:
    # pylatexenc nodes raise when compared with a str, so test the type first.
    return isinstance(item, str) and item == char


def _is_macro(items: list[object], i: int, name: str) -> bool:
    return 0 <= i < len(items) and getattr(items[i], "macroname", None) == name


def _math_item(item: object, out: _Out) -> None:
    """Render one math item: a character or a node."""
    from pylatexenc import latexwalker as lw

    if isinstance(item, str):
        out.add(item)
    elif isinstance(item, lw.LatexCharsNode):
        _math_nodes([item], out)
    elif isinstance(item, (lw.LatexGroupNode, lw.LatexMathNode)):
        _math_nodes(item.nodelist, out)
    elif isinstance(item, lw.LatexMacroNode):
        name = item.macroname
        argnodes = item.nodeargd.argnlist if item.nodeargd is not None else []
        text_args = name.startswith("text") or name in ("mbox", "hbox", "emph")
        out_args = [_math_arg(a, text_args) if a is not None else None for a in argnodes]
        _apply_macro(name, out_args, item.latex_verbatim(), out, math=True)
    elif isinstance(item, lw.LatexSpecialsNode):
        out.add(_special(item.specials_chars))
    elif isinstance(item, lw.LatexCommentNode):
        # `%` in math is rarely a comment in an abstract; show it all.
        out.add("%" + item.comment + item.comment_post_space)
    else:
        out.add(item.latex_verbatim())  # type: ignore[attr-defined]


def _math_arg(node: object, text_mode: bool) -> _Arg:
    """A macro argument node as an `_Arg`; `\\text{...}` arguments render in text mode."""
    from pylatexenc import latexwalker as lw

    source: str = node.latex_verbatim()  # type: ignore[attr-defined]
    if isinstance(node, lw.LatexGroupNode) and source.startswith("{") and source.endswith("}"):
        source = source[1:-1]
    if text_mode:
        return _Arg(source, lambda o: _text(source, 0, len(source), o, 1))
    if isinstance(node, lw.LatexGroupNode):
        return _Arg(source, lambda o: _math_nodes(node.nodelist, o))
    return _Arg(source, lambda o: _math_item(node, o))
