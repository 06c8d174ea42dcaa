"""The word being typed matches typo-tolerantly as a prefix, so counts never collapse mid-word."""

from __future__ import annotations

import numpy as np
import pytest

from tests.search.helpers import Row, make_corpus
from tui.search.expand import Expander
from tui.search.index import SearchIndex

ROWS: list[Row] = [
    ("a.txt", "ICLR", 2022, "Contrastive learning of visual features. We pretrain encoders."),
    ("a.txt", "ICLR", 2022, "Learning rates for deep networks. Learned schedules help."),
    ("b.txt", "ICLR", 2023, "A survey of image enhancement. Contrast matters for images."),
    ("b.txt", "ICLR", 2023, "Control of robots. Controllers for legged robots."),
    ("c.txt", "ICLR", 2024, "Lerner's theorem revisited. A note on the lerp operator."),
    ("c.txt", "ICLR", 2024, "Graph networks for molecules. Message passing on graphs."),
]
LEARNING = {0, 1}


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    return SearchIndex.build(make_corpus(ROWS))


def found(index: SearchIndex, text: str) -> set[int]:
    return set(index.search(text).indices)


@pytest.mark.parametrize("typed", ["lerni", "lernin", "lerning", "laerni", "learnig"])
def test_misspelled_word_being_typed_finds_learning(index: SearchIndex, typed: str) -> None:
    assert found(index, typed) >= LEARNING


def test_fuzzy_prefix_is_only_for_the_word_being_typed(index: SearchIndex) -> None:
    # With a space after it the word is complete: `lerni` is no word's typo.
    assert found(index, "lerni ") == set()


def test_exact_prefix_ranks_above_fuzzy_prefix(index: SearchIndex) -> None:
    # `lerne` starts `lerner`; `learned` is one typo away and comes after it.
    result = index.search("lerne").indices
    assert result == [4, 1]


def test_contrs_finds_contrast_and_control(index: SearchIndex) -> None:
    hits = found(index, "contrs")
    assert {0, 2} <= hits  # contrastive, contrast (`contras` with one letter missing)
    assert 3 in hits  # control (`contr` and one letter too many)
    assert 5 not in hits


def test_short_terms_stay_exact_prefix(index: SearchIndex) -> None:
    assert found(index, "le") == {0, 1, 3, 4}  # learning, learned, legged, lerner
    assert found(index, "mo") == {5}


def typed_counts(index: SearchIndex, text: str) -> list[int]:
    return [index.search(text[:k]).total for k in range(1, len(text) + 1)]


@pytest.mark.parametrize(
    "text", ["contrastve lerning", "lerning rates", "grap netwroks", "contrastve"]
)
def test_counts_never_drop_to_zero_while_typing_a_word_that_matches(
    index: SearchIndex, text: str
) -> None:
    counts = typed_counts(index, text)
    assert counts[-1] > 0
    # From five letters on (shorter words are only read as typos of much
    # commoner prefixes, which a corpus this small has none of), every letter
    # of the word keeps a match.
    word_start = text.rfind(" ") + 1
    tail = counts[word_start + 4 :]
    assert all(c > 0 for c in tail), counts


def test_short_typed_word_widens_only_towards_much_commoner_prefixes() -> None:
    vocab = sorted(["gan", "gans", "can", "cannot", "ler", "learn", "learning", "lear"])
    # Postings offsets: `gan*` and `ler` rare, `can*` and `lea*` common.
    counts = {"gan": 5, "gans": 5, "can": 20, "cannot": 20, "ler": 1, "learn": 300}
    counts |= {"learning": 300, "lear": 10}
    ptr = [0]
    for w in vocab:
        ptr.append(ptr[-1] + counts[w])
    ex = Expander(vocab, post_ptr=np.asarray(ptr, dtype=np.int64))
    assert ex.expand("gan", prefix=True).all_words(vocab) == {"gan", "gans"}
    assert {"learn", "learning"} <= ex.expand("ler", prefix=True).all_words(vocab)
    # Without postings a short word that matches stays as it is.
    plain = Expander(vocab)
    assert plain.expand("ler", prefix=True).all_words(vocab) == {"ler"}
