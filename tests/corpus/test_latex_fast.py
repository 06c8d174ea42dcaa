"""The math fast path (no pylatexenc) renders exactly as the LatexWalker path does."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.corpus import latex_math
from tui.corpus.latex import _text_argument, render
from tui.corpus.model import Collection, FileInfo, SourceRef

SIMPLE = [
    "k",
    "\\epsilon",
    "\\ell_2",
    "\\ell_\\infty",
    "^2",
    "\\mathbb{R}^d",
    "O(n^{2})",
    "\\log n",
    "\\alpha  x\\beta_1 \\gamma",
    "\\left. x \\right|",
    "\\mathcal{O}(n \\log n)",
    "\\frac{a}{b+c}",
    "\\sqrt{d}",
    "\\text{s.t. } x",
    "\\textit{word}",
    "\\hat{x}_t^{(i)}",
    "x^ ",
    "{a b}^{\\pi 2}",
]
NOT_SIMPLE = ["a -- b", "x \\, y", "\\bf K", "\\frac12", "\\sqrt[3]{x}", "a & b", "\\foo{x}", "α"]

_PIECES = [
    *"xyn2 ^_{}().,+-=<>|'*/![]",
    "  ",
    "\\alpha",
    "\\log",
    "\\left",
    "\\right",
    "\\infty",
    "\\foo",
    "\\bf",
    "\\,",
    "\\mathcal{",
    "\\frac{",
    "\\sqrt{",
    "\\sqrt[",
    "\\text{",
    "\\hat{",
    "\\widetilde{",
    "\\url{",
    "\\unicode{",
    "\\displaystyle",
]


@pytest.mark.parametrize("content", SIMPLE)
def test_simple_fragments_take_the_fast_path_and_agree(content: str) -> None:
    fast = latex_math._render_simple(content, _text_argument)
    assert fast is not None
    assert fast == latex_math._render_walked(content, _text_argument)


@pytest.mark.parametrize("content", NOT_SIMPLE)
def test_other_fragments_go_through_the_walker(content: str) -> None:
    assert latex_math._render_simple(content, _text_argument) is None


def test_render_math_uses_either_path_with_the_same_result() -> None:
    latex_math.render_math.cache_clear()
    assert render("$\\mathbb{R}^d$ and $a -- b$").plain == "ℝᵈ and a – b"


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=14))
def test_fast_path_agrees_with_the_walker(pieces: list[str]) -> None:
    content = "".join(pieces)
    fast = latex_math._render_simple(content, _text_argument)
    if fast is not None:
        assert fast == latex_math._render_walked(content, _text_argument)


def test_records_behave_like_frozen_dataclasses() -> None:
    c = Collection("ICLR 2023 Papers", "ICLR", 2023)
    assert c == Collection("ICLR 2023 Papers", "ICLR", 2023)
    assert hash(c) == hash(Collection("ICLR 2023 Papers", "ICLR", 2023))
    assert c != Collection("ICLR 2023 Papers")
    assert c != ("ICLR 2023 Papers", "ICLR", 2023)
    assert repr(c) == "Collection(label='ICLR 2023 Papers', venue='ICLR', year=2023)"
    with pytest.raises(AttributeError):
        c.year = 2024  # type: ignore[misc]
    info = FileInfo(Path("a.txt"), c, 2, "d")
    assert pickle.loads(pickle.dumps(info)) == info
    assert SourceRef(Path("a.txt"), 1) != SourceRef(Path("a.txt"), 2)
