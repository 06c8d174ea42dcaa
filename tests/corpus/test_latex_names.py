"""Decoding the LaTeX of bibliography titles and names: accents, letters, braces."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.corpus.latex import to_plain
from tui.corpus.latex_names import decode


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ('M{\\"u}ller', "Müller"),
        ('M\\"uller', "Müller"),
        ('\\"{U}ber', "Über"),
        ("J{\\'e}r{\\^o}me", "Jérôme"),
        ("{\\'E}cole", "École"),
        ("Stra{\\ss}e", "Straße"),
        ("Stra\\ss e", "Straße"),
        ("\\v{S}tefan \\c{C}a\\u{g}lar", "Štefan Çağlar"),
        ('Na{\\"\\i}ve', "Naïve"),
        ("Garc{\\'\\i}a", "García"),
        ("Fran\\c cois", "François"),
        ("Erd\\H{o}s", "Erdős"),
        ('{\\L}ukasz Bj{\\o}rn {\\AA}ngstr{\\"o}m', "Łukasz Bjørn Ångström"),
        (
            "{BERT}: Pre-training of {D}eep {B}idirectional",
            "BERT: Pre-training of Deep Bidirectional",
        ),
        ("D.~E. Knuth", "D. E. Knuth"),
        ("Pages 1--10 and ``quoted'' --- aside", "Pages 1–10 and “quoted” — aside"),
        ("R\\&D at 50\\%", "R&D at 50%"),
        ("Plain   title\n  on two lines", "Plain title on two lines"),
    ],
)
def test_accents_letters_and_braces_are_decoded(source: str, shown: str) -> None:
    assert decode(source) == shown


@pytest.mark.parametrize(
    "source",
    [
        "Sparse $\\ell_1$ {R}ecovery",
        "\\emph{Deep} {N}ets",
        "Costs \\$5 and $x^{2}$",
        "\\textbf{Bold {and} more}",
    ],
)
def test_math_and_unknown_macros_are_left_for_the_renderer_which_then_agrees(source: str) -> None:
    kept = decode(source)
    assert ("$" in source) == ("$" in kept)
    assert to_plain(kept) == to_plain(source)


@given(st.text(alphabet=st.sampled_from(list("\\{}$'\"`~-^=.uvHckrdbloiAsSj ")) | st.characters()))
def test_decode_never_raises(text: str) -> None:
    assert isinstance(decode(text), str)


@given(st.text(alphabet=st.characters(blacklist_characters="\\{}~$-`'")))
def test_text_without_latex_comes_back_with_whitespace_collapsed(text: str) -> None:
    assert decode(text) == " ".join(text.split())
