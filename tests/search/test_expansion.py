"""Expansion: near spellings and completions of the words typed, their weights, and the
word being typed counted once."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.search.helpers import (
    FILLER,
    full_matches,
    hits,
    index_of,
)
from tui.search.expand import COMPLETE_PREFIX_WEIGHT, FUZZY_WEIGHT, Expander, subtract


def test_a_stop_word_being_typed_may_start_the_next_word() -> None:
    index = index_of(["Graph kernels.", "Graph theory basics."])
    # `the` is still being typed: it may be `theory`, which ranks that abstract first.
    assert hits(index, "graph the") == [1, 0]
    assert hits(index, "graph the ") == [0, 1]  # finished: a stop word, no help


@given(
    st.integers(0, 30),
    st.integers(1, 30),
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=5),
)
def test_subtract_leaves_exactly_the_uncovered_part(
    lo: int, size: int, covered: list[tuple[int, int]]
) -> None:
    hi = lo + size  # a prefix range of the vocabulary is never empty
    covered = [(min(a, b), max(a, b)) for a, b in covered]
    parts = subtract(lo, hi, covered)
    got = [i for p_lo, p_hi in parts for i in range(p_lo, p_hi)]
    want = [i for i in range(lo, hi) if not any(c_lo <= i < c_hi for c_lo, c_hi in covered)]
    assert sorted(got) == want and len(got) == len(set(got))
    assert all(p_lo < p_hi for p_lo, p_hi in parts)


VOCAB = sorted(
    {
        "contrast",
        "contrastive",
        "contrasting",
        "learn",
        "learned",
        "learning",
        "lease",
        "least",
        "leather",
        "leave",
        "model",
        "models",
        "modal",
        "transformer",
        "transformers",
        "transform",
    }
)


@pytest.mark.parametrize(
    ("word", "prefix", "found", "not_found"),
    [
        ("transfomer", False, {"transformer", "transformers"}, {"transform"}),
        ("contrastve", False, {"contrastive"}, {"contrast"}),
        ("modle", False, {"model"}, set()),
        ("lerni", True, {"learning"}, {"lease", "leave"}),
        ("learnin", True, {"learning"}, {"learned"}),
    ],
)
def test_near_spellings_and_completions(
    word: str, prefix: bool, found: set[str], not_found: set[str]
) -> None:
    expansion = Expander(VOCAB).expand(word, prefix)
    matched = expansion.all_words(VOCAB)
    assert found <= matched and not (not_found & matched)


@given(
    st.sampled_from(["lerni", "learn", "lea", "modle", "contr", "transf", "mod", "xyz", "le"]),
    st.booleans(),
)
def test_an_expansion_counts_no_word_twice(word: str, prefix: bool) -> None:
    expansion = Expander(VOCAB).expand(word, prefix)
    covered = [i for r in expansion.ranges for i in range(r.lo, r.hi)]
    assert len(covered) == len(set(covered))
    assert all(0 < r.weight <= 1 for r in expansion.ranges)


def test_a_joined_word_being_typed_completes() -> None:
    index = index_of(["Graph pretraining at scale.", "Training graph models."])
    result = index.search("graph pre train")
    assert result.indices[: result.matched] == [0]
    result = index.search("graph pre trai")  # not yet a form of `pretraining`
    assert result.indices[: result.matched] == [0]


def test_another_form_of_a_word_finds_it() -> None:
    index = index_of(["We study graphs.", "Kernels for proteins."])
    assert hits(index, "studies ") == [0]


def test_an_expansion_is_asked_for_prefixes_and_typos_apart() -> None:
    index = index_of(["Graph networks.", "Graphical models.", "Grape juice."])
    vocab = index.data.vocab
    assert index.expansion("graph", fuzzy=False).all_words(vocab) == {"graph"}
    assert index.expansion("graph").all_words(vocab) == {"graph", "grape"}  # one letter off
    both = index.expansion("graph", prefix=True, fuzzy=False).all_words(vocab)
    assert both == {"graph", "graphical"}
    assert index.expansion("grap", fuzzy=False).all_words(vocab) == set()


@pytest.mark.parametrize(
    ("vocab", "typed", "found"),
    [
        # A short word being typed is widened only to heads as long as it: `copm` may be
        # `com`, but not every word starting with `com`; `hro` is not `ro...`.
        (["com", "combining"], "copm", {"com"}),
        (["routing"], "hro", set()),
        # A longer one to heads one letter shorter or longer, no more: `heaiv` is `heav...`,
        # `revisitin` is not `revisit`, `distribut` is not `indistribut...`.
        (["heavy"], "heaiv", {"heavy"}),
        (["revisit"], "revisitin", set()),
        (["indistribution"], "distribut", set()),
        # Heads are looked for under the first two letters typed: a stray first letter is
        # forgiven, a missing one is not.
        (["having"], "xhavi", {"having"}),
        (["especially"], "specia", set()),
        # Heads found inside one another, or next to one another, all count.
        (["heaviside", "heavy"], "heaiv", {"heaviside", "heavy"}),
        (["mapped", "mapping"], "mape", {"mapped", "mapping"}),
        (["methods", "meticulously"], "methc", {"methods", "meticulously"}),
        # A short word that neither is nor starts a word is read as a typo of what is typed.
        (["itself"], "ites", {"itself"}),
    ],
)
def test_a_word_being_typed_completes_through_near_heads(
    vocab: list[str], typed: str, found: set[str]
) -> None:
    assert Expander(vocab).expand(typed, prefix=True).all_words(vocab) == found


@pytest.mark.parametrize("vocab", [["nonuniform"], ["nonstationarity", "nonuniform"]])
def test_a_typo_weighs_by_the_share_of_the_word_it_changes(vocab: list[str]) -> None:
    # One letter of ten is off: the nearest head (the whole word) sets the weight.
    [match] = Expander(vocab).expand("nonunidorm", prefix=True).ranges
    assert match.weight == pytest.approx(FUZZY_WEIGHT * (1 - 1 / 10))


def test_a_near_spelling_of_a_known_word_adds_little_and_is_no_match() -> None:
    texts = [f"Graph {FILLER} models.", f"Graph {FILLER} modal.", f"Graph {FILLER} other."]
    result = index_of(texts).search("graph model ")
    assert result.indices == [0, 1, 2] and result.matched == 1  # `modal` is not `model`
    full, typo, none = result.scores
    assert none < typo < none + 0.2 * (full - none)


def test_a_short_word_being_typed_is_read_as_a_typo_of_a_far_commoner_start() -> None:
    texts = [f"Learning methods, part {i}." for i in range(120)] + ["Lerp of vectors."]
    index = index_of(texts)
    # `ler` completes to `lerp` (once), but `lea` starts a word 120 times as often.
    result = index.search("ler")
    assert result.matched == 121 and result.indices[0] == 120


@pytest.mark.parametrize(
    ("vocab", "typed", "found"),
    [
        (["no"], "nh", set()),  # no typo in a word under three letters
        (["come", "core"], "core", {"core"}),  # a short word that exists is that word
        (["improve", "improved"], "improve", {"improve", "improved"}),  # a longer one may not be
        (["duplicated"], "duplicat", set()),  # one typo up to eight letters...
        (["introduced"], "inroduces", {"introduced"}),  # ...two from nine
    ],
)
def test_a_finished_word_finds_its_near_spellings(
    vocab: list[str], typed: str, found: set[str]
) -> None:
    assert Expander(vocab).expand(typed, prefix=False).all_words(vocab) == found


def test_the_weights_of_completions_and_typos() -> None:
    vocab = ["we", "weak"]
    assert [r.weight for r in Expander(vocab).expand("we", prefix=True).ranges] == [
        1.0,
        COMPLETE_PREFIX_WEIGHT,  # `we` is a word already: more likely finished than not
    ]
    [typo] = Expander(["understand"]).expand("undrstand", prefix=False).ranges
    assert typo.weight == pytest.approx(FUZZY_WEIGHT * (1 - 1 / 10))
    # `mid` occurs once, words starting `mod` a hundred times: read as a typo of them.
    post_ptr = np.asarray([0, 1, 101], dtype=np.int64)
    ranges = Expander(["mid", "models"], post_ptr=post_ptr).expand("mid", prefix=True).ranges
    assert [(r.lo, r.hi, r.prefix) for r in ranges] == [(0, 1, None), (1, 2, "mod")]
    assert ranges[1].weight == pytest.approx(FUZZY_WEIGHT * (1 - 1 / 3))


@pytest.mark.parametrize(
    ("typed", "own", "others", "rescued"),
    [
        ("mid", 1, {"Models": 100}, True),  # a hundred times as common: a typo of it
        ("mid", 2, {"Models": 100}, False),  # fifty times: what was typed
        ("law", 1, {"Labels": 60, "Large": 60}, False),  # `la` is no nearer than `lab`, `lar`
        ("ler", 1, {"Learning": 120, "Lord": 120}, True),  # several starts at once
    ],
)
def test_a_short_word_being_typed_is_a_typo_only_of_a_far_commoner_start(
    typed: str, own: int, others: dict[str, int], rescued: bool
) -> None:
    texts = [f"{typed.title()} number {i}." for i in range(own)]
    texts += [f"{word} number {i}." for word, k in others.items() for i in range(k)]
    result = index_of(texts).search(typed)
    assert result.matched == own + (sum(others.values()) if rescued else 0)


def test_a_stop_word_being_typed_adds_only_its_completions() -> None:
    texts = ["Graph theory other not.", "Graph theory whether not."]
    # `when` completes to nothing here; `whether` is a typo away, but a stop word being
    # typed is never read as a typo: the two abstracts score the same.
    result = index_of(texts).search("graph when")
    assert result.indices == [0, 1] and result.scores[0] == result.scores[1]


def test_a_word_being_typed_counts_once() -> None:
    index = index_of(["Graph kernels.", "Vision models."])
    assert index.search("graph").scores == index.search("graph ").scores


def test_the_word_being_typed_finds_other_forms_sorted_after_its_completions() -> None:
    # `study` (a form of `studie`) comes right after `studied`, the one completion.
    index = index_of(["We studied graphs.", "A study of graphs.", "Kernels for proteins."])
    assert full_matches(index, "studie") == [0, 1]


class _WholeTables(Expander):
    """The expander as it was: every length's words and every head table of a length
    built over the whole vocabulary at once (the reference for the lazy tables)."""

    def _band(self, length: int) -> tuple[list[str], np.ndarray]:
        ids = [i for i, w in enumerate(self._vocab) if len(w) == length and w[:1] != "\\"]
        return [self._vocab[i] for i in ids], np.asarray(ids, dtype=np.int64)

    def _heads(self, length: int, letter: str) -> list[str]:
        heads: dict[str, list[str]] = {}
        last = ""
        for w in self._vocab:
            if len(w) >= length and not w.startswith("\\"):
                head = w[:length]
                if head != last:
                    heads.setdefault(head[0], []).append(head)
                    last = head
        return heads.get(letter, [])


_WORDS = st.text(alphabet="abcdeno\\", min_size=1, max_size=9)


@given(st.lists(_WORDS, min_size=1, max_size=60, unique=True), st.lists(_WORDS, max_size=6))
def test_tables_built_per_length_and_letter_expand_as_whole_ones(
    vocab: list[str], typed: list[str]
) -> None:
    vocab.sort()
    post_ptr = np.arange(len(vocab) + 1, dtype=np.int64) * 3
    lazy, whole = Expander(vocab, post_ptr=post_ptr), _WholeTables(vocab, post_ptr=post_ptr)
    for word in [*typed, *vocab[:6]]:
        for prefix in (False, True):
            assert lazy.expand(word, prefix) == whole.expand(word, prefix)


def test_the_first_fuzzy_search_tables_only_the_lengths_and_letters_it_needs() -> None:
    vocab = sorted(["graph", "grape", "neural", "neuron", "network", "zebra", "zero", "\\alpha"])
    expander = Expander(vocab)
    expander.expand("nerual", prefix=True)
    assert set(expander._bands) == {5, 6, 7}  # one letter shorter, up to one typo longer
    assert {letter for _, letter in expander._heads_of} == {"n", "e"}
    assert expander._heads(6, "n") == ["networ", "neural", "neuron"]
