"""The tokenizer: words as search sees them, and its ASCII fast path equal to the general path."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tui.corpus.tokens import (
    _WORD,
    _tokenize_general,
    fold,
    token_spans,
    tokenize,
    tokenize_with_compounds,
)

# ASCII with every kind of character the word pattern must split on (controls included).
ASCII = st.text(st.characters(max_codepoint=127), max_size=200)
# Words and separators that tend to expose a difference: case, digits, underscores, accents.
MIXED = st.lists(
    st.sampled_from(
        ["Café", "ÉTÉ", "x_y", "İ", "ß", "ﬁ", "Σ", "n²", "α-β", "AbC", "42", " ", "-", "_"]
    ),
    max_size=20,
).map("".join)


def test_words_are_folded_runs_of_letters_and_digits() -> None:
    text = "Vision-Language models (ViT_B/16) reach 87.5% on CIFAR-10; café ÉTÉ"
    assert tokenize(text) == [
        "vision", "language", "models", "vit", "b", "16", "reach", "87", "5", "on",
        "cifar", "10", "cafe", "ete",
    ]  # fmt: skip


@given(ASCII)
@settings(max_examples=400)
@example("Hello_World 3D x\x00y ABC-def")
def test_ascii_fast_path_equals_general_path(text: str) -> None:
    assert text.isascii()
    assert tokenize(text) == _tokenize_general(text)


@given(st.one_of(st.text(max_size=200), MIXED, ASCII))
@settings(max_examples=400)
def test_tokenize_equals_general_path_for_any_text(text: str) -> None:
    assert tokenize(text) == _tokenize_general(text)


@given(st.one_of(st.text(max_size=200), MIXED))
def test_token_spans_give_the_same_words_at_their_offsets(text: str) -> None:
    spans = list(token_spans(text))
    assert [w for _, _, w in spans] == tokenize(text)
    assert all(fold(text[a:b]) == w for a, b, w in spans)


def test_word_pattern_stays_importable() -> None:
    # tui.search.build uses it for its own ASCII path until it calls tokenize().
    assert _WORD.findall("a_b c1") == ["a", "b", "c1"]


@given(st.one_of(st.text(max_size=200), MIXED, ASCII))
@settings(max_examples=400)
@example("Pre-training of self-supervised state-of-the-art 2020-2024 Café-Bar x--y -a-")
def test_tokenize_with_compounds_gives_the_same_tokens(text: str) -> None:
    tokens, compounds = tokenize_with_compounds(text)
    assert tokens == tokenize(text)
    # Each compound is adjacent tokens written together.
    joined = "".join(tokens)
    for compound in compounds:
        assert compound in joined and not compound.isdigit()


def test_compounds_of_hyphenated_words() -> None:
    text = "Pre-training of Self-Supervised state-of-the-art models, 2020-2024, GPT-4."
    assert tokenize_with_compounds(text)[1] == [
        "pretraining",
        "selfsupervised",
        "stateoftheart",
        "gpt4",
    ]
