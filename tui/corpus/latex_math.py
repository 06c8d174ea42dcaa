r"""Math mode: the inside of `$...$`, `$$...$$`, `\(...\)` and `\[...\]` as readable text.

Internal to `tui.corpus.latex`. The boundary: text mode (latex.py) finds a math
fragment and calls `render_math(content)`; this module parses it with
pylatexenc's LatexWalker and walks the nodes, joining `^`/`_` with what follows
them as Unicode scripts. Macros are turned into text by
`latex_symbols.apply_macro`, as in text mode. The one call back into text mode
is for `\text{...}`-like arguments, imported at call time because latex.py
imports this module.
"""

from __future__ import annotations

from functools import lru_cache

from tui.corpus.latex_symbols import (
    SWITCHES,
    Arg,
    Out,
    Rendered,
    apply_macro,
    argspec,
    script,
    special,
    walker_db,
)


@lru_cache(maxsize=8192)
def render_math(content: str) -> Rendered:
    """Render the inside of one `$...$` (cached: the same fragments recur across abstracts)."""
    try:
        from pylatexenc import latexwalker

        walker = latexwalker.LatexWalker(content, latex_context=walker_db(), tolerant_parsing=True)
        state = walker.make_parsing_state(in_math_mode=True)
        nodes, _, _ = walker.get_latex_nodes(parsing_state=state)
        out = Out()
        _math_nodes(nodes, out)
        return Rendered(out.text(), tuple(out.spans))
    except Exception:
        # Whatever pylatexenc or the tables could not handle is shown as written.
        return Rendered("$" + content + "$")


def _math_nodes(nodes: list[object], out: Out) -> None:
    """Render a math node list, joining `^`/`_` with the item after them."""
    from pylatexenc import latexwalker as lw

    items: list[object] = []
    for node in nodes:
        if isinstance(node, lw.LatexCharsNode):
            items.extend(node.chars)
        elif node is not None:
            items.append(node)
    _math_items(items, out)


def _math_items(items: list[object], out: Out) -> None:
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
                    _math_item(items[i], sub)
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
                style = SWITCHES[name]
                if style is not None:
                    out.span(start, style)
            return
        elif isinstance(item, lw.LatexMacroNode) and argspec(item.macroname) is None:
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


def _math_item(item: object, out: Out) -> None:
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
        apply_macro(name, out_args, item.latex_verbatim(), out, math=True)
    elif isinstance(item, lw.LatexSpecialsNode):
        out.add(special(item.specials_chars))
    elif isinstance(item, lw.LatexCommentNode):
        # `%` in math is rarely a comment in an abstract; show it all.
        out.add("%" + item.comment + item.comment_post_space)
    else:
        out.add(item.latex_verbatim())  # type: ignore[attr-defined]


def _math_arg(node: object, text_mode: bool) -> Arg:
    """A macro argument node as an `Arg`; `\\text{...}` arguments render in text mode."""
    from pylatexenc import latexwalker as lw

    source: str = node.latex_verbatim()  # type: ignore[attr-defined]
    if isinstance(node, lw.LatexGroupNode) and source.startswith("{") and source.endswith("}"):
        source = source[1:-1]
    if text_mode:
        return Arg(source, lambda o: _text_mode(source, o))
    if isinstance(node, lw.LatexGroupNode):
        return Arg(source, lambda o: _math_nodes(node.nodelist, o))
    return Arg(source, lambda o: _math_item(node, o))


def _text_mode(source: str, out: Out) -> None:
    """Render `\\text{...}`-like argument `source` in text mode (it may hold `$...$` again)."""
    # Imported here: latex.py imports this module, so a top-level import would be circular.
    from tui.corpus.latex import text_mode

    text_mode(source, 0, len(source), out, 1)
