"""Search behaviour the other tests left unchecked, found by mutation testing (mutmut).

Each test states what a user relies on; a one-line change to the code that breaks
it makes the test fail.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.search.helpers import FakePersonal, Row, make_corpus
from tui.corpus.model import Collection
from tui.corpus.tokens import tokenize
from tui.search import cache as search_cache
from tui.search.build import HEADLINE_BONUS, K1, B
from tui.search.expand import COMPLETE_PREFIX_WEIGHT, FUZZY_WEIGHT, Expander, subtract
from tui.search.highlight import Highlighter
from tui.search.index import FORM_WEIGHT, SearchIndex, SearchResult
from tui.search.positions import NEAR_BONUS, PROXIMITY_BONUS, WINDOW, proximity
from tui.search.query import Phrase, QueryError, Term, parse_query


def _index(texts: list[str]) -> SearchIndex:
    return SearchIndex.build(make_corpus([("a.txt", "ICLR", 2023, t) for t in texts]))


def _full(index: SearchIndex, text: str) -> list[int]:
    """Abstracts with every term and phrase (an unmatched phrase gives only close matches)."""
    result = index.search(text)
    return result.indices[: result.matched]


def _hits(index: SearchIndex, text: str, **kwargs: object) -> list[int]:
    return index.search(text, **kwargs).indices  # type: ignore[arg-type]


# The query language


@pytest.mark.parametrize(
    ("value", "years"),
    [
        ("2023", (2023, 2023)),
        ("2022..2024", (2022, 2024)),
        ("2022..", (2022, 9999)),
        ("..2024", (0, 2024)),
        ("2023..2023", (2023, 2023)),
    ],
)
def test_year_ranges_may_be_open_at_either_end(value: str, years: tuple[int, int]) -> None:
    [clause] = parse_query(f"year:{value} ").fields
    assert clause.arg == years


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("year:20x3", "year: expects a year like 2023 or a range like 2022..2024, not '20x3'"),
        ("year:", "year: expects a year like 2023 or a range like 2022..2024"),
        ("year:..", "year: expects a year like 2023 or a range like 2022..2024, not '..'"),
        (
            "year:2022..20",
            "year: expects a year like 2023 or a range like 2022..2024, not '2022..20'",
        ),
        (
            "is:happy",
            "unknown value is:happy; try is:bookmarked, is:read, is:unread, is:dismissed, is:new",
        ),
        ("has:notes", "unknown value has:notes; try has:abstract, has:note, has:tag"),
        ("venue: ", "venue: needs a value, for example venue:iclr"),
        ("file:", "file: needs a value, for example file:iclr"),
        ("note:!!", "note: needs a word, for example note:revisit"),
        ('graph "abc', 'unclosed quote: "abc (add a closing ")'),
        ('graph ab"cd', 'a quote inside a word: ab"cd (put a space before the opening ")'),
        ("tag:##", "tag: needs a tag name, for example tag:to-cite"),
        ("topic:", "topic: expects a topic number like topic:3 (T lists them)"),
        ("topic:x", "topic: expects a topic number like topic:3 (T lists them), not 'x'"),
        ("topic:0", "topic: expects a topic number like topic:3 (T lists them), not '0'"),
    ],
)
def test_a_bad_query_is_explained_quoting_only_the_bad_part(text: str, message: str) -> None:
    with pytest.raises(QueryError) as info:
        parse_query(text)
    assert str(info.value) == message


def test_choice_values_are_case_blind() -> None:
    assert [f.arg for f in parse_query("is:Read HAS:Note").fields] == ["read", "note"]


def test_field_values_are_trimmed_and_folded() -> None:
    assert parse_query('venue:" ICLR "').fields[0].arg == "iclr"


def test_a_field_name_one_letter_off_is_an_error_listing_the_fields() -> None:
    with pytest.raises(QueryError) as info:
        parse_query("venu:iclr")
    assert str(info.value) == (
        "unknown field venu: (did you mean venue:? fields: author:, file:, has:, id:, is:, "
        "new:, note:, tag:, title:, topic:, venue:, year:)"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Mixup: Beyond empirical risk",  # a pasted title: the name has no value after it
        "yearly:2023",  # two letters off `year`, and no word after it
        "arXiv:2301.00001",  # a number after it: an identifier pasted
        "https://example.org/paper",  # no word after it: an address
        "a:b",  # one letter: a ratio or a label, not a field's name
        "vanue:",  # no value after it
    ],
)
def test_other_names_with_a_colon_are_text(text: str) -> None:
    q = parse_query(text)
    assert q.fields == () and q.terms


def test_a_three_letter_name_one_letter_off_a_field_is_an_error() -> None:
    with pytest.raises(QueryError, match="did you mean has:"):
        parse_query("haz:note")


# Field selectors


def test_personal_fields_without_personal_data_match_no_notes() -> None:
    index = _index(["Graph networks for molecules.", "Vision models at scale."])
    assert _hits(index, "has:note") == []
    assert _hits(index, "note:graph") == []
    assert _hits(index, "-has:note") == [0, 1]


def test_venue_and_file_select_by_prefix_and_part() -> None:
    rows: list[Row] = [
        ("iclr2023.txt", "ICLR", 2023, "Graph networks for molecules."),
        ("neurips2022.txt", "NeurIPS", 2022, "Graph models for proteins."),
        ("iclr2024.txt", "ICLR", 2024, "Vision models at scale."),
    ]
    index = SearchIndex.build(make_corpus(rows))
    assert _hits(index, "venue:icl ") == [0, 2]
    assert _hits(index, "venue:neur graph ") == [1]
    assert _hits(index, "venue:cvpr ") == []
    assert _hits(index, "file:2023 ") == [0]
    assert _hits(index, "file:iclr ") == [0, 2]
    assert _hits(index, "-file:iclr ") == [1]
    assert _hits(index, "year:..2023 graph ") == [0, 1]


def test_note_selector_reads_the_personal_notes() -> None:
    index = _index(["Graph networks for molecules.", "Vision models at scale."])
    a, b = index.data.ids
    personal = FakePersonal(notes={a: "read again later", b: "cite in chapter two"})
    assert _hits(index, "has:note", personal=personal) == [0, 1]
    assert _hits(index, "note:chapter ", personal=personal) == [1]


# Phrases at the edges of abstracts and of the corpus

EDGES = [
    "Graph neural networks learn on molecules.",  # the phrase opens the first abstract
    "We study vision models and graph kernels.",  # the first word only
    "Protein design with graph neural networks",  # the phrase closes an abstract
    "Neural graph models are not graph neural ones, and graph models differ.",
    "Molecules meet deep learning: graph neural",  # the phrase closes the last abstract
]


def test_a_phrase_is_found_at_the_start_and_end_of_any_abstract() -> None:
    index = _index(EDGES)
    assert sorted(_hits(index, '"graph neural"')) == [0, 2, 3, 4]
    assert sorted(_hits(index, '"graph neural networks"')) == [0, 2]
    assert sorted(_hits(index, '"neural graph"')) == [3]
    assert sorted(_hits(index, '-"graph neural" graph ')) == [1]


def test_every_word_of_a_phrase_must_be_in_place() -> None:
    index = _index(
        [
            "Graph convolution networks for molecules.",
            "Graph neural networks for molecules.",
            "Graph networks networks, a stutter.",
        ]
    )
    assert _hits(index, '"graph neural networks"') == [1]


def test_a_phrase_whose_rarest_word_ends_the_corpus_is_found_or_not_without_error() -> None:
    # `zebra` is the rarest word and the last token of all: nothing may read past it.
    index = _index(["A crossing for horses, crossing twice.", "Crossing the plains: the zebra"])
    assert _full(index, '"zebra crossing"') == []
    assert _hits(index, '"the zebra"') == [1]


# Ranking


def test_equal_scores_keep_file_order() -> None:
    # More than sixteen equal scores: an unstable sort would shuffle them.
    texts = [f"Graph methods, study number {i}." for i in range(40)]
    index = _index(texts)
    result = index.search("graph ")
    assert result.indices == list(range(40))
    assert len(set(result.scores)) == 1


def test_query_words_near_each_other_rank_first() -> None:
    filler = " ".join(f"w{i}" for i in range(30))
    texts = [
        f"Kernels for graph data. {filler} Neural methods.",  # far apart
        f"Neural methods and graph data. {filler}",  # within a few words, reversed
        f"Graph neural methods. {filler}",  # adjacent, as typed
        f"Graph and neural methods. {filler}",  # one word apart, as typed
    ]
    index = _index(texts)
    order = _hits(index, "graph neural ")
    assert order[:2] in ([2, 3], [3, 2])
    assert order[2:] == [1, 0]
    scores = dict(zip(order, index.search("graph neural ").scores, strict=True))
    assert scores[2] > scores[1] > scores[0]
    assert scores[3] > scores[1]


def test_nearness_does_not_reach_into_the_next_abstract() -> None:
    filler = " ".join(f"w{i}" for i in range(30))
    texts = [
        f"{filler} ends with graph",  # `graph` at the very end...
        f"neural starts this one. {filler}",  # ...`neural` at the very start of the next
        f"{filler} graph {filler} neural",
        f"{filler} neural {filler} graph",
    ]
    index = _index(texts)
    result = index.search("graph neural ")
    scores = dict(zip(result.indices, result.scores, strict=True))
    assert scores.get(0, 0.0) < scores[2] or 0 not in scores
    assert scores[2] == scores[3]


# Highlighting


def test_highlight_paints_phrases_words_and_prefixes_together() -> None:
    h = Highlighter(frozenset({"graph"}), ("mol",), (("neural", "networks"),))
    text = "Graph neural networks on molecules; neural nets."
    assert [text[s:e] for s, e in h.spans(text)] == ["Graph", "neural", "networks", "molecules"]


def test_highlight_of_a_phrase_at_the_end_of_the_text() -> None:
    h = Highlighter(frozenset(), (), (("neural", "networks"),))
    text = "We train neural networks"
    assert [text[s:e] for s, e in h.spans(text)] == ["neural", "networks"]


def test_highlight_paints_symbols_only_in_text_that_has_them() -> None:
    h = Highlighter(frozenset({"\\times", "speed"}))
    text = "X-ray: a 3× speed up, 3 times."  # `X` is a letter, never a symbol
    assert [text[s:e] for s, e in h.spans(text)] == ["×", "speed"]
    plain = Highlighter(frozenset({"speed", "unknownmacro"}))
    assert [text[s:e] for s, e in plain.spans(text)] == ["speed"]


def test_highlighter_of_a_query_paints_what_the_search_matched() -> None:
    index = _index(["Graph networks for molecules.", "Contrastive networking of images."])
    h = index.highlighter("network graph")
    text = "Graph networks, a network of networking."
    painted = [text[s:e] for s, e in h.spans(text)]
    assert painted[:3] == ["Graph", "networks", "network"]
    assert index.highlighter("-graph").spans(text) == []


# Exclusions, phrases and fields together

MIX = [
    "Graph neural networks for molecules.",
    "Graph kernels for proteins.",
    "Graph models for molecules and proteins, a survey.",
    "Vision models at scale.",
]


def test_every_exclusion_applies() -> None:
    index = _index(MIX)
    assert _hits(index, "graph -molecules -proteins ") == []
    assert _hits(index, "graph -proteins -molecules ") == []
    assert sorted(_hits(index, "-survey -vision ")) == [0, 1]


def test_an_exclusion_is_the_whole_word_as_typed() -> None:
    index = _index(["Graph networks.", "Graph net sizes.", "Modal logic for graphs."])
    assert _hits(index, "graph -net ") == [0, 2]  # `networks` starts with `net`: still shown
    assert sorted(_hits(index, "-model ")) == [0, 1, 2]  # `modal` is one letter off


def test_every_phrase_applies_negated_or_not() -> None:
    index = _index(MIX)
    assert _hits(index, '-"graph kernels" "for molecules"') == [0, 2]
    assert _hits(index, '"for molecules" -"graph models"') == [0]
    assert _full(index, '"graph neural" "for proteins"') == []
    assert _hits(index, '-"vision models" -"graph kernels" graph ') == [0, 2]


def test_a_phrase_ranks_the_abstract_that_repeats_it_first() -> None:
    index = _index(
        [
            "Graph neural methods, a study of many other things entirely.",
            "Graph neural nets: graph neural layers and graph neural pooling.",
        ]
    )
    result = index.search('"graph neural"')
    assert result.indices == [1, 0]
    assert result.scores[0] > result.scores[1] > 0


def test_file_order_is_kept_when_asked() -> None:
    index = _index(
        [
            "Graph neural methods, a study of many other things entirely.",
            "Graph neural nets: graph neural layers and graph neural pooling.",
        ]
    )
    assert index.search("graph neural ", order="file").indices == [0, 1]
    assert index.search("graph neural ").indices == [1, 0]


def test_a_stop_word_being_typed_may_start_the_next_word() -> None:
    index = _index(["Graph kernels.", "Graph theory basics."])
    # `the` is still being typed: it may be `theory`, which ranks that abstract first.
    assert _hits(index, "graph the") == [1, 0]
    assert _hits(index, "graph the ") == [0, 1]  # finished: a stop word, no help


def test_words_written_together_are_found_from_the_words_apart() -> None:
    index = _index(
        [
            "Graph pretraining at scale.",
            "Training graph models.",
            "Self supervised pretraining.",
        ]
    )
    assert _hits(index, "graph pre training ")[:1] == [0]
    result = index.search("graph pre training ")
    assert result.indices[: result.matched] == [0]
    assert _hits(index, "pre training ")[:2] in ([0, 2], [2, 0])
    h = index.highlighter("pre training ")
    text = "Pretraining and training."
    assert [text[s:e] for s, e in h.spans(text)] == ["Pretraining", "training"]


def test_with_nothing_close_the_abstracts_sharing_any_word_are_offered() -> None:
    texts = [f"A model of thing {i}." for i in range(24)]
    index = _index(texts)
    result = index.search("model zebra quokka ")
    assert result.matched == 0 and result.close == 24
    assert index.search("venue:cvpr zebra ").indices == []


def test_an_empty_query_returns_everything_in_file_order() -> None:
    index = _index(MIX)
    result = index.search("")
    assert result.indices == [0, 1, 2, 3] and result.scores == [0.0] * 4
    assert (result.total, result.matched, result.close) == (4, 4, 0)
    assert not result.is_close(3)
    limited = index.search("", limit=2)
    assert limited.indices == [0, 1] and limited.total == 4


def test_an_index_refuses_a_different_corpus() -> None:
    index = _index(MIX)
    other = make_corpus([("a.txt", "ICLR", 2023, "Only one.")])
    with pytest.raises(ValueError, match="built for a different corpus"):
        index.search("graph", corpus=other)


def test_a_word_in_the_headline_ranks_above_the_same_word_in_the_body() -> None:
    index = _index(
        [
            "Methods for proteins. We also study graph data here.",
            "Graph methods for proteins. We also study other data here.",
        ]
    )
    assert index.search("graph ").indices == [1, 0]


# Expansion: near spellings and completions


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


def test_year_selects_by_the_collection_year() -> None:
    rows: list[Row] = [
        ("a.txt", "ICLR", 2022, "Graph networks for molecules."),
        ("b.txt", "ICLR", 2023, "Graph models for proteins."),
        ("c.txt", "ICLR", 2024, "Vision models at scale."),
    ]
    index = SearchIndex.build(make_corpus(rows))
    assert _hits(index, "year:2023 ") == [1]
    assert _hits(index, "year:2023.. ") == [1, 2]
    assert _hits(index, "-year:2022..2023 ") == [2]


def test_abstracts_without_a_year_are_found_by_year_0000() -> None:
    rows: list[Row] = [
        ("a.txt", "ICLR", 2022, "Graph networks for molecules."),
        ("b.txt", "ICLR", 2023, "Graph models for proteins."),
    ]
    corpus = make_corpus(rows)
    corpus.abstracts[1].collection = Collection("Workshop Papers")  # its header has no year
    index = SearchIndex.build(corpus)
    assert _hits(index, "year:0000 ") == [1]
    assert _hits(index, "year:0001.. ") == [0]


def test_a_macro_and_a_symbol_are_found_only_where_written() -> None:
    rows: list[Row] = [
        ("a.txt", "ICLR", 2023, "The λ calculus of types.", r"The $\lambda$ calculus of types."),
        ("a.txt", "ICLR", 2023, "A 3× speedup.", r"A $3\times$ speedup."),
        ("a.txt", "ICLR", 2023, "Bounds of order √n.", r"Bounds of order $\sqrt n$."),
        ("a.txt", "ICLR", 2023, "Plain text, no symbols."),
    ]
    index = SearchIndex.build(make_corpus(rows))
    assert _hits(index, "\\lambda ") == [0]
    assert _hits(index, "× ") == [1]
    assert _hits(index, "∞ ") == []
    assert _hits(index, "√ ") == [2]


# Parsing details


def test_quotes_and_negations_parse_as_written() -> None:
    assert parse_query("graph").text == "graph"
    assert parse_query("-vision-language").phrases == (
        Phrase(("vision", "language"), negated=True),
    )
    assert parse_query('-"×"').phrases == (Phrase(("\\times",), negated=True),)
    assert parse_query('"graph neural"x ').terms == (Term("x"),)
    q = parse_query('"" graph ')
    assert q.terms == (Term("graph"),) and q.phrases == ()
    assert parse_query("$ graph ").terms == (Term("graph"),)


# Phrase and joined-word scoring


def test_a_phrase_needs_its_middle_word_too() -> None:
    index = _index(["Deep neural networks.", "Graph networks.", "Graph networks again."])
    assert _full(index, '"graph neural networks"') == []


def test_a_phrase_scores_all_its_words_and_only_them() -> None:
    # Equal length; the second repeats `graph`, which must count.
    index = _index(["Graph neural kernels other other.", "Graph neural graph graph kernels."])
    assert _hits(index, '"graph neural"') == [1, 0]
    # Words that only start like a phrase word, or are a typo of one, do not count.
    index = _index(["Graph neural kernels other other.", "Graph neural graphical graps grapes."])
    result = index.search('"graph neural"')
    assert result.indices == [0, 1] and result.scores[0] == result.scores[1]


def test_a_joined_word_being_typed_completes() -> None:
    index = _index(["Graph pretraining at scale.", "Training graph models."])
    result = index.search("graph pre train")
    assert result.indices[: result.matched] == [0]
    result = index.search("graph pre trai")  # not yet a form of `pretraining`
    assert result.indices[: result.matched] == [0]


def test_the_highlighter_paints_what_a_misspelt_word_being_typed_found() -> None:
    index = _index(["Deep learning of graphs.", "Kernels for proteins."])
    text = "Deep learning of graphs."
    assert [text[s:e] for s, e in index.highlighter("lerni").spans(text)] == ["learning"]
    both = index.highlighter('-"deep learning" "of graphs"')
    assert [text[s:e] for s, e in both.spans(text)] == ["of", "graphs"]


def test_another_form_of_a_word_finds_it() -> None:
    index = _index(["We study graphs.", "Kernels for proteins."])
    assert _hits(index, "studies ") == [0]


def test_the_cache_file_changes_with_the_format_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = make_corpus([("a.txt", "ICLR", 2023, "Graph networks.")])
    before = search_cache.cache_path(corpus, tmp_path)
    monkeypatch.setattr(search_cache, "FORMAT_VERSION", search_cache.FORMAT_VERSION + 1)
    assert search_cache.cache_path(corpus, tmp_path) != before


# Proximity: the bonus for query words standing near each other


class _Near:
    """A matched term as proximity sees it: one vocabulary word, a chosen idf."""

    def __init__(self, index: SearchIndex, word: str, idf: float) -> None:
        self.idf = idf
        self._mask = np.asarray([w == word for w in index.data.vocab])

    def word_mask(self, vocab_size: int) -> npt.NDArray[np.bool_]:
        return self._mask


def _bonus(index: SearchIndex, terms: list[tuple[str, float]], docs: list[int]) -> list[float]:
    near = [_Near(index, w, idf) for w, idf in terms]
    return proximity(index.data, np.asarray(docs, dtype=np.int64), near).tolist()


def test_the_proximity_bonus_is_the_rarer_words_idf_per_pair() -> None:
    gap = " ".join(f"v{i}" for i in range(WINDOW - 1))  # WINDOW - 1 words
    texts = [
        "Graph neural nets.",  # adjacent as typed, at the very start
        "We use graph and neural ones.",  # one word apart, as typed
        "We use graph a b neural ones.",  # three apart: near, not as typed
        "We use neural graph ones.",  # adjacent, reversed: near only
        f"Graph {gap} neural",  # WINDOW apart, the second word ends the abstract
        f"Graph {gap} x neural",  # WINDOW + 1 apart: not near
        "Ends with graph",  # ...and the next abstract starts with neural:
        "neural starts here.",  # nothing reaches across abstracts
        "Only graph here.",
    ]
    index = _index(texts)
    near, tight = NEAR_BONUS * 2.0, (NEAR_BONUS + PROXIMITY_BONUS) * 2.0
    got = _bonus(index, [("graph", 2.0), ("neural", 3.0)], list(range(len(texts))))
    assert got == [tight, tight, near, near, near, 0.0, 0.0, 0.0, 0.0]
    # The same abstracts one at a time, or in another order, get the same bonus.
    assert [_bonus(index, [("graph", 2.0), ("neural", 3.0)], [d])[0] for d in range(9)] == got
    assert _bonus(index, [("graph", 2.0), ("neural", 3.0)], [4, 0]) == [near, tight]


def test_the_proximity_bonus_adds_every_pair_of_three_words() -> None:
    index = _index(["Graph neural networks.", "Networks of graphs."])
    terms = [("graph", 2.0), ("neural", 3.0), ("networks", 5.0)]
    # graph-neural: near and as typed (2 + 2); graph-networks: near only, as the two are
    # not neighbours in the query (2); neural-networks: near and as typed (3 + 3).
    assert _bonus(index, terms, [0]) == [12.0]
    assert _bonus(index, terms, [1, 0]) == [0.0, 12.0]


def test_two_terms_matching_one_word_stand_together_wherever_it_occurs() -> None:
    # `graph graphs`: both terms match `graph`, so every abstract with it has them near.
    index = _index(["Graph", "Graph theory."])
    terms = [("graph", 2.0), ("graph", 3.0)]
    assert _bonus(index, terms, [0]) == [NEAR_BONUS * 2.0]
    assert _bonus(index, terms, [1, 0]) == [NEAR_BONUS * 2.0] * 2


# Ranking: equal scores keep file order, before and after the proximity bonus

FILLER = " ".join(f"f{i}" for i in range(20))


def test_abstracts_of_equal_score_keep_file_order_among_others() -> None:
    # Two levels of score, interleaved: each level keeps file order.
    texts = [f"Graph graph {FILLER} {i}." if i % 3 else f"Graph f {FILLER} {i}." for i in range(60)]
    result = _index(texts).search("graph ")
    twice = [i for i in range(60) if i % 3]
    assert result.indices == twice + [i for i in range(60) if not i % 3]
    assert len(set(result.scores)) == 2


def test_abstracts_of_equal_score_after_the_proximity_bonus_keep_file_order() -> None:
    # The same words in each abstract; the query's words are adjacent in some only.
    texts = [
        f"Graph neural {FILLER} {i}." if i % 3 else f"Graph {FILLER} neural {i}." for i in range(60)
    ]
    result = _index(texts).search("graph neural ")
    near = [i for i in range(60) if i % 3]
    assert result.indices == near + [i for i in range(60) if not i % 3]
    assert len(set(result.scores)) == 2


def test_a_one_word_phrase_is_that_word_exactly() -> None:
    index = _index([*MIX, "A protein, not proteins plural."])
    assert sorted(_full(index, '"proteins"')) == [1, 2, 4]
    assert _full(index, '"protein"') == [4]  # no other forms, no typos
    assert _hits(index, '-"proteins" graph ') == [0]


def test_the_word_being_typed_counts_for_nearness_through_its_completions() -> None:
    texts = [f"Graph {FILLER} neural.", f"Graph neural {FILLER}."]
    index = _index(texts)
    result = index.search("graph neu")
    assert result.indices == [1, 0] and result.scores[0] > result.scores[1]


# Expansion and highlighting of the words being typed


def test_an_expansion_is_asked_for_prefixes_and_typos_apart() -> None:
    index = _index(["Graph networks.", "Graphical models.", "Grape juice."])
    vocab = index.data.vocab
    assert index.expansion("graph", fuzzy=False).all_words(vocab) == {"graph"}
    assert index.expansion("graph").all_words(vocab) == {"graph", "grape"}  # one letter off
    both = index.expansion("graph", prefix=True, fuzzy=False).all_words(vocab)
    assert both == {"graph", "graphical"}
    assert index.expansion("grap", fuzzy=False).all_words(vocab) == set()


def test_the_highlighter_paints_only_what_the_word_being_typed_matched() -> None:
    index = _index(["A graph with a gap.", "Another graph."])
    text = "A graph with a gap."
    # `grap` being typed completes to `graph`; `gap` is a typo away, but the search
    # reads a short word that completes to something as that, not as a typo.
    assert sorted(_full(index, "grap")) == [0, 1]
    assert [text[s:e] for s, e in index.highlighter("grap").spans(text)] == ["graph"]


def test_the_highlighter_paints_completions_only_of_the_word_being_typed() -> None:
    index = _index(["Graph and graphical models.", "Other things."])
    text = "Graph and graphical models."
    assert [text[s:e] for s, e in index.highlighter("graph ").spans(text)] == ["Graph"]
    assert [text[s:e] for s, e in index.highlighter("graph").spans(text)] == [
        "Graph",
        "graphical",
    ]


def test_the_highlighter_paints_a_stop_word_being_typed_as_the_search_reads_it() -> None:
    index = _index(["Graph theory, whether or not.", "Other things."])
    text = "Graph theory, whether or not."
    # `the` being typed may become `theory`; `when` completes to nothing here, and a stop
    # word is never read as a typo (`whet...` is one letter off).
    assert [text[s:e] for s, e in index.highlighter("graph the").spans(text)] == [
        "Graph",
        "theory",
    ]
    assert [text[s:e] for s, e in index.highlighter("graph when").spans(text)] == ["Graph"]


def test_a_macro_is_found_only_as_written_not_by_its_stem() -> None:
    rows: list[Row] = [
        ("a.txt", "ICLR", 2023, "A ∑ of terms.", r"A $\sum$ of terms."),
        ("a.txt", "ICLR", 2023, "Plain sums."),
    ]
    index = SearchIndex.build(make_corpus(rows))
    assert _hits(index, "\\sum ") == [0]
    assert _hits(index, "\\sums ") == []


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


# Scores: BM25 over every form of a word, and a headline bonus


def _bm25(texts: list[str], tf: float, doc: int, df: int, head: float) -> float:
    lengths = [len(tokenize(t)) for t in texts]
    norm = K1 * (1 - B + B * lengths[doc] / (sum(lengths) / len(lengths)))
    idf = math.log(1 + (len(texts) - df + 0.5) / (df + 0.5))
    return idf * (tf * (K1 + 1) / (tf + norm) + HEADLINE_BONUS * min(head, 1.0))


def test_a_words_score_is_bm25_with_a_headline_bonus() -> None:
    texts = [
        "Graph methods. We study graph data and more graph data.",  # 3 times, in the headline
        "Kernels for data. A graph here.",  # once, in the body only
        "Networks of proteins.",
        "Vision models.",
        "Other text entirely here.",
    ]
    result = _index(texts).search("graph ")
    scores = dict(zip(result.indices, result.scores, strict=True))
    assert scores[0] == pytest.approx(_bm25(texts, 3, 0, df=2, head=1), rel=1e-5)
    assert scores[1] == pytest.approx(_bm25(texts, 1, 1, df=2, head=0), rel=1e-5)


def test_other_forms_of_a_word_count_a_little_less_and_the_headline_once() -> None:
    texts = [
        "Network and networks. One network here.",  # 2 + 0.9 occurrences, both in the headline
        "Networks of proteins. Other words.",  # 0.9, in the headline
        "Vision models.",
        "Other text entirely here.",
    ]
    result = _index(texts).search("network ")
    scores = dict(zip(result.indices, result.scores, strict=True))
    assert scores[0] == pytest.approx(_bm25(texts, 2 + FORM_WEIGHT, 0, df=2, head=1), rel=1e-5)
    assert scores[1] == pytest.approx(
        _bm25(texts, FORM_WEIGHT, 1, df=2, head=FORM_WEIGHT), rel=1e-5
    )


def test_a_near_spelling_of_a_known_word_adds_little_and_is_no_match() -> None:
    texts = [f"Graph {FILLER} models.", f"Graph {FILLER} modal.", f"Graph {FILLER} other."]
    result = _index(texts).search("graph model ")
    assert result.indices == [0, 1, 2] and result.matched == 1  # `modal` is not `model`
    full, typo, none = result.scores
    assert none < typo < none + 0.2 * (full - none)


def test_a_short_word_being_typed_is_read_as_a_typo_of_a_far_commoner_start() -> None:
    texts = [f"Learning methods, part {i}." for i in range(120)] + ["Lerp of vectors."]
    index = _index(texts)
    # `ler` completes to `lerp` (once), but `lea` starts a word 120 times as often.
    result = index.search("ler")
    assert result.matched == 121 and result.indices[0] == 120


def test_a_tag_name_may_be_any_letters() -> None:
    assert parse_query("tag:X").fields[0].arg == "x"
    assert parse_query("tag:#to-cite").fields[0].arg == "to-cite"


def test_tags_without_personal_data_match_nothing() -> None:
    index = _index(["Graph networks for molecules.", "Vision models at scale."])
    assert _hits(index, "tag:x") == [] and _hits(index, "has:tag") == []
    assert _hits(index, "-tag:x") == [0, 1]


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
    result = _index(texts).search(typed)
    assert result.matched == own + (sum(others.values()) if rescued else 0)


# Full and close matches


def _numbered(words_of: list[str]) -> list[str]:
    return [f"Doc number {i} about {words}." for i, words in enumerate(words_of)]


@pytest.mark.parametrize(("with_model", "matched"), [(11, 3), (10, 1)])
def test_a_word_in_more_than_half_of_twenty_abstracts_is_not_required(
    with_model: int, matched: int
) -> None:
    # `graph` in three abstracts, one of them with `model`; `model` in `with_model` of 20.
    words = ["graph model", "graph", "graph"] + ["model"] * (with_model - 1)
    index = _index(_numbered(words + ["other"] * (20 - len(words))))
    assert index.search("graph model ").matched == matched


def test_with_nothing_close_one_informative_word_is_enough() -> None:
    words = ["alpha delta", "beta", "gamma"] + ["delta"] * 17
    result = _index(_numbered(words)).search("alpha beta gamma delta ")
    assert (result.matched, sorted(result.indices)) == (0, [0, 1, 2])


def test_with_nothing_close_the_most_informative_words_decide() -> None:
    # `delta` is common (18 of 20); five rare words are asked for, and no abstract has
    # half of them: the one with the most rare words is offered, `delta` does not count.
    words = ["alpha beta", "gamma delta"] + ["delta"] * 17 + ["other"]
    index = _index(_numbered(words))
    result = index.search("alpha beta gamma epsilon kappa delta ")
    assert (result.matched, result.indices) == (0, [0])


def test_with_only_common_words_the_abstracts_sharing_most_of_them_are_offered() -> None:
    words = ["model"] * 5 + ["model method"] * 10 + ["method"] * 5
    index = _index(_numbered(words))
    result = index.search("zebra model method ")
    assert result.matched == 0 and sorted(result.indices) == list(range(5, 15))


def test_an_unmatched_phrase_falls_back_to_its_words_with_every_other_clause() -> None:
    texts = [
        "Graph kernels, a graph study of graph things.",
        "Graph networks.",
        "Zebra graph networks.",
    ]
    index = _index(texts)
    a, _, c = index.data.ids
    personal = FakePersonal(bookmarked={a, c})
    result = index.search('"graph zebra" is:bookmarked', personal=personal)
    # Both words, and the bookmarks still: close matches only.
    assert (result.indices, result.total, result.matched, result.close) == ([2, 0], 2, 0, 2)
    assert len(result.scores) == 2
    assert index.search('"zebra graph networks kernels"', order="file").indices == [0, 1, 2]
    ranked = index.search('"zebra graph networks kernels"')
    assert ranked.indices != [0, 1, 2]
    limited = index.search('"graph zebra"', limit=1)
    assert (len(limited.indices), limited.total, limited.close) == (1, 3, 3)


def test_a_joined_pair_counts_with_every_abstract_count() -> None:
    # Twenty abstracts or more: the common-word rule reads each term's abstract count.
    texts = ["Graph pretraining at scale.", "Training data.", "Pre and post."]
    texts += [f"Other text {i}." for i in range(22)]
    result = _index(texts).search("pre training ")
    assert result.indices[: result.matched] == [0]


def test_the_joined_word_is_near_only_where_it_stands() -> None:
    texts = [f"Graph {FILLER} pretraining.", f"Graph pretraining {FILLER}.", "Training, pre."]
    result = _index(texts).search("graph pre training ")
    assert result.indices[: result.matched] == [1, 0] and result.scores[0] > result.scores[1]


def test_a_stop_word_being_typed_adds_only_its_completions() -> None:
    texts = ["Graph theory other not.", "Graph theory whether not."]
    # `when` completes to nothing here; `whether` is a typo away, but a stop word being
    # typed is never read as a typo: the two abstracts score the same.
    result = _index(texts).search("graph when")
    assert result.indices == [0, 1] and result.scores[0] == result.scores[1]


def test_a_word_being_typed_counts_once() -> None:
    index = _index(["Graph kernels.", "Vision models."])
    assert index.search("graph").scores == index.search("graph ").scores


def test_a_phrase_keeps_its_boost_beside_a_stop_word_being_typed() -> None:
    index = _index(
        [
            "Graph neural kernels then other words here.",
            "Graph neural kernels then graph neural here.",
        ]
    )
    result = index.search('"graph neural" kernels the')
    assert result.indices == [1, 0]


def test_the_result_counts_its_full_matches() -> None:
    result = SearchResult([4, 2, 0, 1, 3], [0.0] * 5, 5, close=2)
    assert result.matched == 3 and not result.is_close(2) and result.is_close(3)


def test_an_index_names_the_corpus_mismatch() -> None:
    index = _index(MIX)
    with pytest.raises(ValueError) as info:
        index.search("graph", corpus=make_corpus([("a.txt", "ICLR", 2023, "Only one.")]))
    assert str(info.value) == "this index was built for a different corpus"


def test_a_field_without_a_selector_matches_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from tui.search import query

    monkeypatch.setitem(query._FIELDS, "shelf", query.FieldSpec("shelf", lambda v: v))
    index = _index(MIX)
    assert _hits(index, "shelf:x ") == []
    assert _hits(index, "-shelf:x ") == [0, 1, 2, 3]


def test_a_common_joined_pair_is_not_required() -> None:
    texts = ["Graph pretraining at scale.", "Graph only here.", "Training data.", "Pre and post."]
    texts += [f"Pretraining of models {i}." for i in range(16)] + ["Other.", "Other two."]
    result = _index(texts).search("graph pre training ")
    assert sorted(result.indices[: result.matched]) == [0, 1]


def test_the_word_being_typed_ranks_above_its_other_forms() -> None:
    # `models` is both a completion of `model` and another form of it: it counts once.
    index = _index(["Graph models here.", "Graph model here."])
    assert index.search("graph model").indices == [1, 0]


def test_the_word_being_typed_finds_other_forms_sorted_after_its_completions() -> None:
    # `study` (a form of `studie`) comes right after `studied`, the one completion.
    index = _index(["We studied graphs.", "A study of graphs.", "Kernels for proteins."])
    assert _full(index, "studie") == [0, 1]


def test_words_written_together_are_found_only_as_spelt() -> None:
    # `autoencodre` is a typo away from `autoencoder`, but neither `auto` nor `encoder`.
    index = _index(["An autoencodre for images.", "An auto encoder for text.", "Kernels only."])
    assert _full(index, "auto encoder ") == [1]
