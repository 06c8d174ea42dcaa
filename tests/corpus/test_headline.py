"""Headlines: the first sentence, cut on a word boundary."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.corpus.headline import first_sentence, make_headline


@pytest.mark.parametrize(
    ("plain", "headline"),
    [
        ("We propose X. Then more.", "We propose X."),
        ("Models (e.g. CLIP) are big. More.", "Models (e.g. CLIP) are big."),
        ("That is, i.e. Foo works. More.", "That is, i.e. Foo works."),
        ("Smith et al. Showed it. More.", "Smith et al. Showed it."),
        ("A vs. B matters. More.", "A vs. B matters."),
        ("It is 3.5 times faster. More.", "It is 3.5 times faster."),
        ("As Fig. 2 shows, it works. More.", "As Fig. 2 shows, it works."),
        ("Is it? Yes.", "Is it?"),
        ("No full stop at all", "No full stop at all"),
        ("  spaced\n out.  Next.", "spaced out."),
    ],
)
def test_first_sentence(plain: str, headline: str) -> None:
    assert make_headline(plain) == headline


def test_cut_on_word_boundary_with_ellipsis() -> None:
    text = "word " * 50
    h = make_headline(text, limit=30)
    assert h.endswith("…") and len(h) <= 30
    assert h[:-1].split() == ["word"] * len(h[:-1].split())


def test_long_single_word_is_cut_hard() -> None:
    h = make_headline("x" * 300, limit=40)
    assert h == "x" * 39 + "…"


@given(st.text(min_size=1), st.integers(min_value=1, max_value=200))
def test_never_empty_and_within_limit(text: str, limit: int) -> None:
    h = make_headline(text, limit)
    assert h
    assert len(h) <= max(limit, 2)


@given(
    st.lists(
        st.one_of(
            st.sampled_from(["word", "e.g.", "Fig.", "A.", "end.", "Next", "x?", "  ", "\n", "—"]),
            st.text(alphabet=" .!?aB\n", max_size=8),
        ),
        max_size=700,
    ).map(" ".join),
    st.integers(min_value=2, max_value=300),
)
@settings(max_examples=300)
def test_reading_only_the_start_gives_the_whole_texts_headline(text: str, limit: int) -> None:
    from tui.corpus.headline import _cut

    assert make_headline(text, limit) == _cut(first_sentence(text), text, limit)
