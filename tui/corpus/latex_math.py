r"""Math mode: the inside of `$...$`, `$$...$$`, `\(...\)` and `\[...\]` as readable text.

Internal to `tui.corpus.latex`. The boundary: text mode (latex.py) finds a math
fragment and calls `render_math(content, text)`; this module parses it with
pylatexenc's LatexWalker and walks the nodes, joining `^`/`_` with what follows
them as Unicode scripts. Macros are turned into text by
`latex_symbols.apply_macro`, as in text mode. `\text{...}`-like arguments are
text mode again; this module knows nothing of text mode and renders them with
the `text` renderer its caller passes in (so it never imports latex.py).
"""

from __future__ import annotations

from functools import lru_cache

from tui.corpus.latex_symbols import (
    SWITCHES,
    apply_macro,
    argspec,
    script,
    special,
    walker_db,
)
from tui.corpus.latex_types import Arg, Out, Rendered, TextMode


@lru_cache(maxsize=8192)
def render_math(content: str, text: TextMode) -> Rendered:
    """Render the inside of one `$...$`; `text` renders `\\text{...}`-like arguments.

    Cached: the same fragments recur across abstracts.
    """
    fast = _render_simple(content, text)
    if fast is not None:
        return fast
    return _render_walked(content, text)


def _render_walked(content: str, text: TextMode) -> Rendered:
    """`render_math` through pylatexenc's LatexWalker: any fragment."""
    try:
        from pylatexenc import latexwalker

        walker = latexwalker.LatexWalker(content, latex_context=walker_db(), tolerant_parsing=True)
        state = walker.make_parsing_state(in_math_mode=True)
        nodes, _, _ = walker.get_latex_nodes(parsing_state=state)
        out = Out()
        _math_nodes(nodes, out, text)
        return Rendered(out.text(), tuple(out.spans))
    except Exception:
        # Whatever pylatexenc or the tables could not handle is shown as written.
        return Rendered("$" + content + "$")


def _math_nodes(nodes: list[object], out: Out, text: TextMode) -> None:
    """Render a math node list, joining `^`/`_` with the item after them."""
    from pylatexenc import latexwalker as lw

    items: list[object] = []
    for node in nodes:
        if isinstance(node, lw.LatexCharsNode):
            items.extend(node.chars)
        elif node is not None:
            items.append(node)
    _math_items(items, out, text)


def _math_items(items: list[object], out: Out, text: TextMode) -> None:
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
                    sub = Out()
                    _math_item(items[i], sub, text)
                    out.add(script(sub.text(), sup=item == "^"))
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
        elif isinstance(item, lw.LatexMacroNode) and item.macroname in SWITCHES:
            # `{\bf K}`, `\cal O`: the declaration styles the rest of its group.
            rest = Out()
            _math_items(items[i:], rest, text)
            name = item.macroname
            if name == "cal":
                from pylatexenc.latex2text import fmt_math_text_style

                # TeX's calligraphic font has capitals only: `\cal O(n)` is 𝒪(n).
                out.add(
                    "".join(
                        fmt_math_text_style(c, "script") if c.isupper() else c for c in rest.text()
                    )
                )
            else:
                start = out.n
                out.add_rendered(Rendered(rest.text().lstrip(" "), tuple(rest.spans)))
                style = SWITCHES[name]
                if style is not None:
                    out.span(start, style)
            return
        elif isinstance(item, lw.LatexMacroNode) and argspec(item.macroname) is None:
            # Unknown macro: keep it and any braces after it as source.
            out.add(item.latex_verbatim())
            while i < len(items) and isinstance(items[i], lw.LatexGroupNode):
                out.add("{")
                _math_nodes(items[i].nodelist, out, text)  # type: ignore[attr-defined]
                out.add("}")
                i += 1
        else:
            _math_item(item, out, text)
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


def _math_item(item: object, out: Out, text: TextMode) -> None:
    """Render one math item: a character or a node."""
    from pylatexenc import latexwalker as lw

    if isinstance(item, str):
        out.add(item)
    elif isinstance(item, lw.LatexCharsNode):
        _math_nodes([item], out, text)
    elif isinstance(item, (lw.LatexGroupNode, lw.LatexMathNode)):
        _math_nodes(item.nodelist, out, text)
    elif isinstance(item, lw.LatexMacroNode):
        name = item.macroname
        argnodes = item.nodeargd.argnlist if item.nodeargd is not None else []
        text_args = name.startswith("text") or name in ("mbox", "hbox", "emph")
        out_args = [_math_arg(a, text_args, text) if a is not None else None for a in argnodes]
        apply_macro(name, out_args, item.latex_verbatim(), out, math=True)
    elif isinstance(item, lw.LatexSpecialsNode):
        out.add(special(item.specials_chars))
    elif isinstance(item, lw.LatexCommentNode):
        # `%` in math is rarely a comment in an abstract; show it all.
        out.add("%" + item.comment + item.comment_post_space)
    else:
        out.add(item.latex_verbatim())  # type: ignore[attr-defined]


def _math_arg(node: object, text_args: bool, text: TextMode) -> Arg:
    """A macro argument node as an `Arg`; `\\text{...}` arguments render through `text`."""
    from pylatexenc import latexwalker as lw

    source: str = node.latex_verbatim()  # type: ignore[attr-defined]
    if isinstance(node, lw.LatexGroupNode) and source.startswith("{") and source.endswith("}"):
        source = source[1:-1]
    if text_args:
        return Arg(source, lambda o: text(source, o))
    if isinstance(node, lw.LatexGroupNode):
        return Arg(source, lambda o: _math_nodes(node.nodelist, o, text))
    return Arg(source, lambda o: _math_item(node, o, text))


# --- The fast path: simple fragments without pylatexenc. ---
#
# Most fragments are short (`k`, `\\epsilon`, `\\ell_2`, `\\mathbb{R}^d`) and a
# LatexWalker costs ~25 us to set up for each. For fragments made only of plain
# ASCII characters, macros whose arguments are all `{...}` groups, groups and
# `^`/`_`, this builds the items the walker's nodes flatten to and renders them
# by the same rules as `_math_items`/`_math_item`. Anything else (control
# symbols, style switches, unbraced or optional arguments, specials such as
# `--` or `~`, comments) returns None and goes through the walker.
# tests/corpus/test_latex_fast.py checks that both paths agree.

# Characters that start a pylatexenc special, comment or math shift; `''` and
# `--` are specials too (a single `'` or `-` is not).
_NOT_SIMPLE = frozenset("&~`%$#")


class _Group:
    """A `{...}` group: its items and the source between the braces."""

    __slots__ = ("items", "source")

    def __init__(self, items: list[object], source: str) -> None:
        self.items = items
        self.source = source


class _Macro:
    """A macro as the walker sees it: name, verbatim source, arguments, space after it."""

    __slots__ = ("args", "name", "post_space", "verbatim")

    def __init__(self, name: str, verbatim: str, args: list[_Group | None], post_space: bool):
        self.name = name
        self.verbatim = verbatim
        self.args = args
        self.post_space = post_space


def _render_simple(content: str, text: TextMode) -> Rendered | None:
    """`render_math(content)` without pylatexenc, or None when `content` is not simple."""
    if not (content.isascii() and content.isprintable()) or "''" in content or "--" in content:
        return None
    if not _NOT_SIMPLE.isdisjoint(content):
        return None
    try:
        items, end = _simple_items(content, 0, False)
        if items is None or end != len(content):
            return None
        out = Out()
        _simple_walk(items, out, text)
        return Rendered(out.text(), tuple(out.spans))
    except Exception:
        return None


def _simple_items(src: str, i: int, in_group: bool) -> tuple[list[object] | None, int]:
    """Items of `src` from `i` to the end (or to the `}` closing a group); None if not simple."""
    items: list[object] = []
    n = len(src)
    while i < n:
        c = src[i]
        if c == "\\":
            j = i + 1
            while j < n and src[j].isalpha():
                j += 1
            name = src[i + 1 : j]
            shape = _simple_shape(name) if name else None
            if shape is None:
                return None, i
            k = j
            while k < n and src[k] == " ":
                k += 1
            post_space = k > j
            args: list[_Group | None] = []
            stop = k
            for kind in shape:
                p = stop
                while p < n and src[p] == " ":
                    p += 1
                if kind == "[":
                    if p < n and src[p] == "[":
                        return None, i
                    args.append(None)
                    continue
                if p >= n or src[p] != "{":
                    return None, i
                group, q = _simple_items(src, p + 1, True)
                if group is None or q >= n or src[q] != "}":
                    return None, i
                args.append(_Group(group, src[p + 1 : q]))
                stop = q + 1
            items.append(_Macro(name, src[i:stop], args, post_space))
            i = stop
        elif c == "{":
            group, j = _simple_items(src, i + 1, True)
            if group is None or j >= n or src[j] != "}":
                return None, i
            items.append(_Group(group, src[i + 1 : j]))
            i = j + 1
        elif c == "}":
            return (items, i) if in_group else (None, i)
        else:
            items.append(c)
            i += 1
    return items, i


@lru_cache(maxsize=1024)
def _simple_shape(name: str) -> str | None:
    """The walker's argspec for `\\name` when the fast path models it (`{` and `[` only)."""
    if name in SWITCHES or argspec(name) is None:
        return None
    spec = walker_db().get_macro_spec(name)  # type: ignore[attr-defined]
    if spec is None:
        return ""
    from pylatexenc.macrospec import MacroStandardArgsParser

    parser = spec.args_parser
    if type(parser) is not MacroStandardArgsParser:
        return None
    shape = parser.argspec
    return shape if isinstance(shape, str) and not shape.strip("{[") else None


def _simple_walk(items: list[object], out: Out, text: TextMode) -> None:
    """`_math_items` for fast-path items (characters, `_Macro`s, `_Group`s)."""
    i = 0
    n = len(items)
    while i < n:
        item = items[i]
        i += 1
        if isinstance(item, str):
            if item in "^_" and i < n:
                while i < n and items[i] == " ":
                    i += 1
                if i < n:
                    sub = Out()
                    _simple_one(items[i], sub, text)
                    out.add(script(sub.text(), sup=item == "^"))
                    i += 1
                    continue
            out.add(item)
        else:
            _simple_one(item, out, text)
            if isinstance(item, _Macro):
                if item.name in ("left", "right") and i < n and items[i] == ".":
                    i += 1
                    continue
                if item.post_space and not any(item.args):
                    out.add(" ")


def _simple_one(item: object, out: Out, text: TextMode) -> None:
    """`_math_item` for one fast-path item."""
    if isinstance(item, str):
        out.add(item)
    elif isinstance(item, _Group):
        _simple_walk(item.items, out, text)
    elif isinstance(item, _Macro):
        name = item.name
        text_args = name.startswith("text") or name in ("mbox", "hbox", "emph")
        args = [_simple_arg(a, text_args, text) if a is not None else None for a in item.args]
        apply_macro(name, args, item.verbatim, out, math=True)


def _simple_arg(group: _Group, text_args: bool, text: TextMode) -> Arg:
    """`_math_arg` for a fast-path group."""
    source = group.source
    if text_args:
        return Arg(source, lambda o: text(source, o))
    return Arg(source, lambda o: _simple_walk(group.items, o, text))
