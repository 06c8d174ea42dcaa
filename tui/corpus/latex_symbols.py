"""What LaTeX macros and symbols become: shared by text mode (latex.py) and math mode (latex_math.py).

Internal to `tui.corpus.latex`. This module holds the knowledge pylatexenc's
tables give (symbols, accents, argument shapes, latex2text replacements) plus
what they do not say (which macros map onto this reader's styles), and
`apply_macro`, which turns one parsed macro into text whichever mode found it.
Nothing here parses LaTeX source; the two modes do, and call in here. The
output types it writes into are in `latex_types`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from tui.corpus.latex_builtin import BUILTIN_ACCENTS, BUILTIN_SPECIALS, BUILTIN_SYMBOLS
from tui.corpus.latex_types import Arg, Out, Style


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
SWITCHES: dict[str, Style | None] = {
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
# latex2text's `%s` / `%(2)s` placeholders. Left for `re` to compile (and cache) on
# first use: only `_from_table` needs it, and compiling at import costs ~0.1 ms.
_PLACEHOLDER = r"%\((\d+)\)s|%s"


@lru_cache(maxsize=1)
def _l2t_db() -> object:
    from pylatexenc import latex2text

    return latex2text.get_default_latex_context_db()


@lru_cache(maxsize=1)
def _l2t() -> object:
    from pylatexenc import latex2text

    return latex2text.LatexNodes2Text(latex_context=_l2t_db())


@lru_cache(maxsize=1)
def walker_db() -> object:
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
def argspec(name: str) -> str | None:
    """The argument shape of `\\name` (`{`, `[`, `*` per argument), or None when unknown."""
    if name in _OWN_ARGSPECS:
        return _OWN_ARGSPECS[name]
    if name in BUILTIN_ACCENTS:
        # One argument, as LatexWalker says (checked by the built-in tables' test).
        return "{"
    spec = walker_db().get_macro_spec(name)  # type: ignore[attr-defined]
    if spec is not None:
        argspec = getattr(spec.args_parser, "argspec", "")
        return argspec if isinstance(argspec, str) else ""
    return "" if _l2t_spec(name) is not None else None


def special(chars: str) -> str:
    """latex2text's reading of `~`, `--`, `---`, two backquotes, two quotes; else the chars."""
    repl = BUILTIN_SPECIALS.get(chars)
    return repl if repl is not None else special_l2t(chars)


@lru_cache(maxsize=256)
def special_l2t(chars: str) -> str:
    """`special(chars)` as pylatexenc's tables give it."""
    spec = _l2t_db().get_specials_spec(chars)  # type: ignore[attr-defined]
    repl = getattr(spec, "simplify_repl", None)
    # A blank replacement (`&` becomes spaces) would hide a character: keep the source.
    if not isinstance(repl, str) or not repl.strip(" "):
        return chars
    return repl


def symbol(char: str) -> str | None:
    """A control symbol such as `\\%` or `\\,` as text, or None when latex2text has none."""
    if char in BUILTIN_SYMBOLS:
        return BUILTIN_SYMBOLS[char]
    return symbol_l2t(char)


@lru_cache(maxsize=256)
def symbol_l2t(char: str) -> str | None:
    """`symbol(char)` as pylatexenc's tables give it."""
    spec = _l2t_spec(char)
    if spec is None or getattr(spec, "simplify_repl", None) is None:
        return None
    try:
        text: str = _l2t().latex_to_text("\\" + char)  # type: ignore[attr-defined]
    except Exception:
        return None
    return text.replace("\n", " ")


def accent_mark(name: str) -> str | None:
    """The combining mark latex2text puts on `\\name{x}`, or None when it is not an accent."""
    mark = BUILTIN_ACCENTS.get(name)
    if mark is not None:
        return mark
    if name in BUILTIN_SYMBOLS:
        return None
    return accent_mark_l2t(name)


@lru_cache(maxsize=256)
def accent_mark_l2t(name: str) -> str | None:
    """`accent_mark(name)` as pylatexenc's tables give it."""
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


def script(text: str, sup: bool) -> str:
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


def _wrapped(arg: Arg, out: Out) -> None:
    r = arg.rendered()
    if _simple(r.plain):
        out.add_rendered(r)
    else:
        out.add("(")
        out.add_rendered(r)
        out.add(")")


def apply_macro(name: str, args: list[Arg | None], source: str, out: Out, math: bool) -> None:
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
            point = int(code[1:], 16) if code[:1] in "xX" else int(code)
            # A surrogate is half of a UTF-16 pair, no character: it stays as source.
            out.add(source if 0xD800 <= point <= 0xDFFF else chr(point))
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
            out.add(script(args[0].rendered().plain, sup=True))
        out.add("√")
        _wrapped(args[1], out)
        return
    if name in _FRACTIONS and len(present) == 2:
        _wrapped(present[0], out)
        out.add("/")
        _wrapped(present[1], out)
        return
    mark = accent_mark(_ACCENT_ALIASES.get(name, name))
    if mark is not None and len(present) == 1:
        import unicodedata

        body = present[0].rendered().plain
        out.add(unicodedata.normalize("NFC", "".join(c + mark if c != " " else c for c in body)))
        return
    out.add(_from_table(name, args, source))


def _from_table(name: str, args: list[Arg | None], source: str) -> str:
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
    used = re.findall(_PLACEHOLDER, repl)
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
