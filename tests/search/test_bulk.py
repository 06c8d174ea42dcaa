"""The index build's bulk tokenizer gives exactly the tokens of tui.corpus.tokens."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.corpus.tokens import tokenize, tokenize_with_compounds
from tui.search.bulk import Vocabulary, tokenize_texts

# Pieces that exercise every path: ASCII words and digits, long words (past the
# 12 letters of one code), hyphens, underscores, accents, Greek, superscripts,
# dashes and quotes that only separate words, and odd case mappings.
PIECES = st.sampled_from(
    [
        "a",
        "Pre",
        "training",
        "-",
        "--",
        " ",
        "  ",
        "\n",
        "_",
        "x",
        "2020",
        "19",
        "Covid",
        "representations",
        "supercalifragilistic",
        "abcdefghijkl",
        "abcdefghijklm",
        "é",
        "Café",
        "α",
        "²",
        "ﬁ",
        "İ",
        "ß",
        "—",
        "–",
        "“",
        "’",
        "×",
        "\xa0",
        ".",
        ",",
        "0",
        "zz",
        "Z",
        "ǅ",
        "Ⅻ",
        "𝒪",
        "\x7f",
    ]
)
TEXTS = st.lists(st.lists(PIECES, max_size=30).map("".join), max_size=8)


def decode(words: dict[str, int]) -> list[str]:
    names = [""] * len(words)
    for w, i in words.items():
        names[i] = w
    return names


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_equal_to_the_tokenizer(texts: list[str]) -> None:
    vocab = Vocabulary()
    got = tokenize_texts(texts, vocab)
    names = decode(vocab.ids)
    at = 0
    for k, text in enumerate(texts):
        body, compounds = tokenize_with_compounds(text)
        assert body == tokenize(text)
        n = int(got.lengths[k])
        assert [names[i] for i in got.ids[at : at + n].tolist()] == body
        at += n
        mine = [
            names[i] for t, i in zip(got.compound_text, got.compound_ids, strict=True) if t == k
        ]
        assert sorted(mine) == sorted(compounds)
    assert at == got.ids.size
    # Again with every word known (numbered from the cache of short words).
    again = tokenize_texts(texts, vocab)
    assert again.ids.tolist() == got.ids.tolist()


def test_unknown_words_are_minus_one_without_adding() -> None:
    vocab = Vocabulary({"graph": 0})
    got = tokenize_texts(["Graph networks", "grün graph"], vocab, add=False, compounds=False)
    assert got.ids.tolist() == [0, -1, -1, 0] and vocab.ids == {"graph": 0}


def test_a_word_seen_in_both_paths_has_one_number() -> None:
    vocab = Vocabulary()
    got = tokenize_texts(["the model", "the modèle α model"], vocab)
    assert got.ids.tolist()[:2] == got.ids.tolist()[2:3] + got.ids.tolist()[-1:]
    assert len(vocab.ids) == 4


def test_words_alike_but_for_their_last_letters_are_told_apart() -> None:
    # Over eight letters a word is read as two integers; the second tells these apart.
    words = ["normalized", "normalizes", "normalizer", "normalizes"]
    ids = tokenize_texts([" ".join(words)], Vocabulary()).ids.tolist()
    assert ids[1] == ids[3] and len({ids[0], ids[1], ids[2]}) == 3


def test_words_whose_ninth_letters_are_neighbours_are_told_apart() -> None:
    # The second integer of `optimiser` and `optimises` differs by one.
    ids = tokenize_texts(["optimiser optimises optimiser"], Vocabulary()).ids.tolist()
    assert ids[0] == ids[2] != ids[1]


def test_a_hyphenated_run_of_digits_is_no_word_but_one_letter_makes_one() -> None:
    text = "From 2020-2024, 3-D scans and x-ray images."
    vocab = Vocabulary()
    got = tokenize_texts([text], vocab)
    names = decode(vocab.ids)
    assert [names[i] for i in got.compound_ids.tolist()] == ["3d", "xray"]
    assert tokenize_with_compounds(text)[1] == ["3d", "xray"]


def test_texts_tokenized_in_pieces_are_tokenized_as_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Pieces of 3 texts: compounds and non-ASCII words in every piece, numbered by text.
    from tui.search import bulk

    monkeypatch.setattr(bulk, "PIECE_TEXTS", 3)
    texts = [
        f"Pre-training {k} café-au-lait models, x² and self-{'supervised' * (k % 3)} runs {k}"
        for k in range(11)
    ]
    whole_vocab, piece_vocab = bulk.Vocabulary(), bulk.Vocabulary()
    whole = bulk.tokenize_texts(texts, whole_vocab)
    pieces = bulk.tokenize_in_pieces(texts, piece_vocab)
    words_whole = {v: k for k, v in whole_vocab.ids.items()}
    words_piece = {v: k for k, v in piece_vocab.ids.items()}
    assert [words_piece[i] for i in pieces.ids.tolist()] == [
        words_whole[i] for i in whole.ids.tolist()
    ]
    assert pieces.lengths.tolist() == whole.lengths.tolist()

    def compounds(tokens: bulk.Tokens, words: dict[int, str]) -> list[tuple[int, str]]:
        named = [words[i] for i in tokens.compound_ids.tolist()]
        return sorted(zip(tokens.compound_text.tolist(), named, strict=True))

    assert compounds(pieces, words_piece) == compounds(whole, words_whole)
    assert len(whole.compound_ids) >= 11
