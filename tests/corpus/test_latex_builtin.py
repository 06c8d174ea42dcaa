"""Text mode's built-in tables agree with pylatexenc, and spare importing it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tui.corpus import latex_symbols
from tui.corpus.latex import render
from tui.corpus.latex_builtin import BUILTIN_ACCENTS, BUILTIN_SPECIALS, BUILTIN_SYMBOLS
from tui.corpus.latex_symbols import accent_mark_l2t, special_l2t, symbol_l2t, walker_db


@pytest.mark.parametrize("chars", sorted(BUILTIN_SPECIALS))
def test_builtin_special_agrees_with_pylatexenc(chars: str) -> None:
    assert BUILTIN_SPECIALS[chars] == special_l2t(chars)


@pytest.mark.parametrize("char", sorted(BUILTIN_SYMBOLS))
def test_builtin_symbol_agrees_with_pylatexenc(char: str) -> None:
    assert BUILTIN_SYMBOLS[char] == symbol_l2t(char)
    # accent_mark() answers None for these without asking: pylatexenc must agree.
    assert accent_mark_l2t(char) is None


@pytest.mark.parametrize("name", sorted(BUILTIN_ACCENTS))
def test_builtin_accent_agrees_with_pylatexenc(name: str) -> None:
    assert BUILTIN_ACCENTS[name] == accent_mark_l2t(name)
    # argspec() gives these one mandatory argument without asking the walker.
    spec = walker_db().get_macro_spec(name)  # type: ignore[attr-defined]
    assert spec.args_parser.argspec == "{"


SAMPLES = [
    "``quoted'' and `single' -- a range --- a dash, a~tie",
    r"10\% of \$5 \& R\&D, snake\_case, \#1, \{set\}",
    r"thin\,space\;more\:here\ and\!none, hy\-phen, line\\break",
    r"\'e \`a \^o \"u \~n \=a \.z \c{c} \v{s} \u{g} \H{o} \k{a} \r{a} \d{s} \b{b}",
    r"Erd\H{o}s and G\"{o}del and Poincar\'{e} and \c c",
]


@pytest.mark.parametrize("src", SAMPLES)
def test_render_is_the_same_without_the_builtin_tables(
    src: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = render(src)
    monkeypatch.setattr(latex_symbols, "BUILTIN_SPECIALS", {})
    monkeypatch.setattr(latex_symbols, "BUILTIN_SYMBOLS", {})
    monkeypatch.setattr(latex_symbols, "BUILTIN_ACCENTS", {})
    latex_symbols.argspec.cache_clear()
    try:
        slow = render(src)
    finally:
        latex_symbols.argspec.cache_clear()
    assert fast == slow
    assert "\\" not in fast.plain


def test_common_text_latex_does_not_import_pylatexenc() -> None:
    code = (
        "import sys\n"
        "from tui.corpus.latex import render\n"
        + "".join(f"render({s!r})\n" for s in SAMPLES)
        + "print(sorted(m for m in sys.modules if m.startswith('pylatexenc')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
