from __future__ import annotations

import pytest

from tests.search.helpers import (
    MIXED,
    FakePersonal,
    Row,
    full_matches,
    hits,
    index_of,
    make_corpus,
)
from tui.search.index import SearchIndex
from tui.search.query import QueryError

ROWS: list[Row] = [
    ("a.txt", "ICLR", 2022, "Contrastive learning of visual features. We pretrain encoders."),
    ("a.txt", "ICLR", 2022, "A survey of image enhancement. Contrast matters for images."),
    ("b.txt", "NeurIPS", 2023, "Vision-language models at scale. We align text and images."),
    (
        "b.txt",
        "NeurIPS",
        2023,
        "Graph networks for molecules. A contrastive objective helps graphs.",
    ),
    (
        "c.txt",
        "ICML",
        2024,
        "Fast attention kernels. We get 3× speedups and error √m.",
        r"Fast attention kernels. We get $3\times$ speedups and error $\sqrt m$.",
    ),
]


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    return SearchIndex.build(make_corpus(ROWS))


def test_empty_query_returns_all_in_file_order(index: SearchIndex) -> None:
    result = index.search("")
    assert result.indices == [0, 1, 2, 3, 4]
    assert result.total == 5


def test_exact_word(index: SearchIndex) -> None:
    assert sorted(hits(index, "molecules ")) == [3]


def test_typo_finds_word(index: SearchIndex) -> None:
    # `contrastive` first; `contrast` (the same stem) after it.
    assert sorted(hits(index, "contrastve ")[:2]) == [0, 3]
    assert hits(index, "contrastve ")[2:] == [1]
    assert full_matches(index, "vison langage ") == [2]


def test_prefix_only_for_the_word_being_typed(index: SearchIndex) -> None:
    assert sorted(hits(index, "molec")) == [3]
    assert hits(index, "molec ") == []


def test_half_typed_word_with_a_typo(index: SearchIndex) -> None:
    assert 3 in hits(index, "moleq")


def test_short_terms_are_prefix_only(index: SearchIndex) -> None:
    # "gr" is never fuzzy: "or"/"ar" words must not appear, only gr* words.
    assert hits(index, "gr") == [3]
    assert hits(index, "gx ") == []


def test_every_term_first_then_the_closest_matches(index: SearchIndex) -> None:
    result = index.search("contrastive graph ")
    assert result.indices[: result.matched] == [3]
    # Then abstracts sharing one of the two words, best first, marked as close.
    assert result.indices[0] == 3 and result.matched == 1
    assert result.close == len(result.indices) - 1 and result.close > 0
    assert result.is_close(1) and not result.is_close(0)
    assert result.total == result.matched + result.close
    # Nothing has both: no full match, but never an empty list.
    result = index.search("contrastive vision ")
    assert result.matched == 0 and result.indices
    assert set(result.indices) == {0, 1, 2, 3}


def test_phrase_requires_adjacent_words_in_order(index: SearchIndex) -> None:
    assert hits(index, '"contrastive learning"') == [0]
    assert full_matches(index, '"learning contrastive"') == []
    assert hits(index, '"vision language models"') == [2]


def test_negation(index: SearchIndex) -> None:
    assert hits(index, "contrastive -graph ") == [0, 1]  # 1 says `contrast`
    assert sorted(hits(index, '-"contrastive learning"')) == [1, 2, 3, 4]


def test_fields(index: SearchIndex) -> None:
    assert sorted(hits(index, "venue:neur")) == [2, 3]
    assert sorted(hits(index, "year:2023..2024")) == [2, 3, 4]
    assert hits(index, "year:2024") == [4]
    assert sorted(hits(index, "file:A.TXT")) == [0, 1]
    assert sorted(hits(index, "-venue:iclr -year:2024")) == [2, 3]
    assert hits(index, "venue:iclr graph ") == []


def test_latex_symbols_and_macro_names(index: SearchIndex) -> None:
    for query in ("times ", "× ", "sqrt ", "√"):
        assert hits(index, query) == [4], query


def test_bad_query_raises_query_error(index: SearchIndex) -> None:
    with pytest.raises(QueryError):
        index.search('"open')


def test_personal_fields() -> None:
    corpus = make_corpus(ROWS)
    index = SearchIndex.build(corpus)
    ids = [a.id for a in corpus.abstracts]
    personal = FakePersonal(
        bookmarked={ids[1], "unknown-id"},
        read={ids[0], ids[1]},
        notes={ids[3]: "Revisit the objective", ids[2]: "weak baseline"},
        dismissed={ids[4], "gone-id"},
    )
    assert hits(index, "is:dismissed", personal=personal) == [4]
    assert hits(index, "-is:dismissed is:unread", personal=personal) == [2, 3]
    assert hits(index, "is:bookmarked", personal=personal) == [1]
    assert hits(index, "is:read", personal=personal) == [0, 1]
    assert hits(index, "is:unread", personal=personal) == [2, 3, 4]
    assert hits(index, "has:note", personal=personal) == [2, 3]
    assert hits(index, "note:revis", personal=personal) == [3]
    assert hits(index, "-has:note contrastive ", personal=personal) == [0, 1]
    # Without personal data the sets are empty.
    assert hits(index, "is:bookmarked") == [] and hits(index, "is:dismissed") == []
    assert hits(index, "is:unread") == [0, 1, 2, 3, 4]


def test_exact_ranks_above_fuzzy() -> None:
    index = SearchIndex.build(
        make_corpus(
            [
                ("a.txt", "X", 2020, "Intro. We study modal logic here."),
                ("a.txt", "X", 2020, "Intro. We study model logic here."),
            ]
        )
    )
    # `model` exists as typed: `modal` is another word, not a typo of it.
    assert hits(index, "model ") == [1]
    # `modl` is no word: both near spellings are found, neither as a full word.
    assert sorted(hits(index, "modl ")) == [0, 1]
    assert max(index.search("modl ").scores) < max(index.search("model ").scores)


def test_headline_ranks_above_body() -> None:
    index = SearchIndex.build(
        make_corpus(
            [
                ("a.txt", "X", 2020, "Intro to things. We study diffusion here."),
                ("a.txt", "X", 2020, "Diffusion for things. We study here."),
            ]
        )
    )
    assert hits(index, "diffusion ") == [1, 0]


def test_rarer_terms_weigh_more() -> None:
    rows = [("a.txt", "X", 2020, f"Filler {i}. Common words only.") for i in range(8)]
    rows.append(("a.txt", "X", 2020, "Intro. Common words and a rare kernel."))
    index = SearchIndex.build(make_corpus(rows))
    # Doc 8 has each word once; the rare word gives it the higher score.
    common = dict(zip(*(lambda r: (r.indices, r.scores))(index.search("common ")), strict=True))
    rare = index.search("kernel ")
    assert rare.indices == [8]
    assert rare.scores[0] > common[8]


def test_more_matched_terms_rank_higher_than_one() -> None:
    index = SearchIndex.build(
        make_corpus(
            [
                ("a.txt", "X", 2020, "Intro. Sparse attention layers."),
                ("a.txt", "X", 2020, "Intro. Sparse sparse sparse models."),
            ]
        )
    )
    # Both match "sparse"; only the first also matches the being-typed "att".
    assert full_matches(index, "sparse att") == [0]
    assert hits(index, "sparse att") == [0, 1]
    assert hits(index, "sparse ") == [1, 0]


def test_file_order_option(index: SearchIndex) -> None:
    relevance = hits(index, "contr")
    assert sorted(relevance) == hits(index, "contr", order="file")


def test_limit_keeps_total(index: SearchIndex) -> None:
    result = index.search("", limit=2)
    assert result.indices == [0, 1]
    assert result.total == 5


def test_highlight_spans_cover_expansions(index: SearchIndex) -> None:
    text = "Contrastive contrast, CONTRASTIVE vision-language; imaging"
    spans = index.highlighter("contrastve ima").spans(text)
    words = [text[s:e] for s, e in spans]
    # Other forms of the matched word (`contrast`) are painted too.
    assert words == ["Contrastive", "contrast", "CONTRASTIVE", "imaging"]


def test_highlight_phrase_words_and_symbols(index: SearchIndex) -> None:
    text = "We get 3× speedups, three times."
    spans = index.highlighter('"speedups" times ').spans(text)
    assert [text[s:e] for s, e in spans] == ["×", "speedups", "times"]


def test_highlight_ignores_negated_and_empty(index: SearchIndex) -> None:
    assert index.highlighter("-graph ").spans("graph graph") == []
    assert index.highlighter("").spans("anything") == []


SYMBOL_ROWS: list[Row] = [
    ("s.txt", "ICLR", 2022, "Test-time adaptation at inference times. We adapt at test time."),
    ("s.txt", "ICLR", 2022, "Many times faster. Training is five times cheaper."),
    (
        "s.txt",
        "ICLR",
        2022,
        "Faster kernels. We get 3× speedups.",
        r"Faster kernels. We get $3\times$ speedups.",
    ),
    ("s.txt", "ICLR", 2022, "A plain abstract. Nothing symbolic here, no x at all."),
]


def test_symbol_query_finds_symbol_occurrences_not_the_word() -> None:
    index = SearchIndex.build(make_corpus(SYMBOL_ROWS))
    # The symbol, the typed macro and a macro being typed reach only `$3\times$`.
    for query in ("×", "× ", "\\times", "\\times ", "\\tim", '"×"'):
        assert hits(index, query) == [2], query
    # The word still finds the symbol too (its macro name), after the word itself.
    assert sorted(hits(index, "times ")) == [0, 1, 2]
    assert sorted(hits(index, "-× times ")) == [0, 1]
    # No typo of a word reaches a marked word, nor the other way round.
    assert hits(index, "\\timse ") == []
    assert all(not w.startswith("\\") for w in index.expansion("tmes").words(index.data.vocab))
    text = "We get 3× speedups, five times cheaper."
    assert [text[s:e] for s, e in index.highlighter("×").spans(text)] == ["×"]


PLURAL_ROWS: list[Row] = [
    ("p.txt", "ICLR", 2022, "A transformer for text. One transformer."),
    ("p.txt", "ICLR", 2022, "Vision transformers at scale. Many transformers."),
    ("p.txt", "ICLR", 2022, "Learned transforms of images. Fourier transforms."),
    ("p.txt", "ICLR", 2022, "Contrast enhancement. Contrast matters."),
    ("p.txt", "ICLR", 2022, "Contrastive learning. Contrastive views."),
]


def test_typo_budget_covers_longer_words() -> None:
    index = SearchIndex.build(make_corpus(PLURAL_ROWS))
    # `transfomer` (10 letters, 2 edits): `transformer` is one letter longer,
    # `transformers` two; `transforms` is three edits away, so not a typo of it.
    for query in ("transfomer", "transfomer ", "trasnformer "):
        # `transforms` shares the stem `transform`: after the transformers.
        assert sorted(hits(index, query)[:2]) == [0, 1], query
    assert index.expansion("transfomer").words(index.data.vocab) == {
        "transformer",
        "transformers",
    }
    # The exact word still ranks first.
    assert hits(index, "transformer ")[0] == 0
    # Shorter words stay within one letter: two dropped letters make a stem.
    assert hits(index, "contrastve ") == [4, 3]  # then `contrast`, the same stem
    # `learned` and `learning` are forms of one word (`learn`).
    assert sorted(hits(index, "learned ")) == [2, 4]


def test_note_words_are_typo_tolerant() -> None:
    corpus = make_corpus(ROWS)
    index = SearchIndex.build(corpus)
    ids = [a.id for a in corpus.abstracts]
    personal = FakePersonal(
        notes={ids[0]: "note on first revisit later", ids[2]: "Second thoughts"}
    )
    for query, expected in [
        ("note:revisit", [0]),
        ("note:revist", [0]),
        ("note:fisrt", [0]),
        ("note:frist", [0]),
        ("note:secnd", [2]),
        ("note:secnd ", [2]),
        ("note:seco", [2]),  # being typed: a prefix
        ("note:seco ", []),  # finished: a word, and `seco` is too far from `second`
        ('note:"thoughts second"', [2]),
        ("note:revist note:secnd", []),
        ("-note:revist", [1, 2, 3, 4]),
        ("note:zebra", []),
    ]:
        assert hits(index, query, personal=personal) == expected, query


def test_note_without_notes_matches_nothing(index: SearchIndex) -> None:
    assert hits(index, "note:revisit", personal=FakePersonal()) == []


def test_highlight_phrase_only_inside_the_phrase(index: SearchIndex) -> None:
    text = (
        "Contrastive learning helps. Deep learning, and contrastive losses. Contrastive  Learning!"
    )
    spans = index.highlighter('"contrastive learning"').spans(text)
    assert [(s, text[s:e]) for s, e in spans] == [
        (0, "Contrastive"),
        (12, "learning"),
        (text.rindex("Contrastive"), "Contrastive"),
        (text.rindex("Learning"), "Learning"),
    ]
    # A term of the same query is still painted everywhere.
    spans = index.highlighter('"contrastive learning" deep ').spans(text)
    assert [text[s:e] for s, e in spans] == [
        "Contrastive",
        "learning",
        "Deep",
        "Contrastive",
        "Learning",
    ]
    # And a word that is both a term and a phrase word, everywhere.
    spans = index.highlighter('"contrastive learning" learning ').spans(text)
    assert [text[s:e] for s, e in spans].count("learning") == 2


FORM_ROWS: list[Row] = [
    ("f.txt", "ICLR", 2022, "Pre-training of graph networks. We learned a self-supervised model."),
    ("f.txt", "ICLR", 2022, "Pretraining language models. Learning is fast."),
    ("f.txt", "ICLR", 2022, "A network for images. Self supervised features."),
    ("f.txt", "ICLR", 2022, "Café au lait. Nothing else here."),
]


@pytest.fixture(scope="module")
def forms() -> SearchIndex:
    return SearchIndex.build(make_corpus(FORM_ROWS))


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("networks ", {0, 2}),  # plural finds singular and the reverse
        ("network ", {0, 2}),
        ("learn ", {0, 1}),  # learn / learned / learning
        ("pretraining ", {0, 1}),  # pre-training is also one word
        ("pre-training ", {0, 1}),
        ("pre training ", {0, 1}),
        ("selfsupervised ", {0}),
        ("self-supervised ", {0, 2}),  # `self supervised` has both words
        ("CAFÉ ", {3}),  # case and accents folded
    ],
)
def test_word_forms_match(forms: SearchIndex, query: str, expected: set[int]) -> None:
    assert set(full_matches(forms, query)) == expected, query


def test_stop_words_are_never_required(forms: SearchIndex) -> None:
    # `towards`, `via`, `of` and `the` are in no abstract but 1: still a full match.
    result = forms.search("towards the language models via pretraining ")
    assert result.indices[: result.matched] == [1]


def test_only_stop_words_are_searched_as_words(forms: SearchIndex) -> None:
    assert set(full_matches(forms, "for ")) == {2}
    assert set(full_matches(forms, "of ")) == {0}


def test_nothing_shared_is_the_only_empty_result(forms: SearchIndex) -> None:
    assert forms.search("zebra quokka ").indices == []
    result = forms.search("zebra quokka images ")
    assert result.indices == [2] and result.matched == 0 and result.close == 1


def test_close_matches_need_most_terms(forms: SearchIndex) -> None:
    # Four terms: abstracts with two or more are close; with one only, not.
    result = forms.search("graph language images lait ")
    assert result.matched == 0
    # Each abstract has exactly one of the words: the fallback shows them all.
    assert sorted(result.indices) == [0, 1, 2, 3]
    result = forms.search("graph networks learned images ")
    full_set = result.indices[: result.matched]
    assert full_set == []
    assert set(result.indices) == {0, 2}  # 0 has three, 2 has two; 1 has one only


def test_typo_weighs_less_than_exact(forms: SearchIndex) -> None:
    result = forms.search("netwrk ")
    assert set(result.indices[: result.matched]) == {0, 2}
    exact = forms.search("network ")
    assert max(result.scores) < max(exact.scores)


def test_words_next_to_each_other_rank_first() -> None:
    index = SearchIndex.build(
        make_corpus(
            [
                ("n.txt", "X", 2020, "Neural methods. Graph data with a neural twist and more."),
                ("n.txt", "X", 2020, "Methods. We study graph neural models here and more."),
            ]
        )
    )
    assert hits(index, "graph neural ") == [1, 0]


def test_a_phrase_never_spans_two_abstracts() -> None:
    index = SearchIndex.build(
        make_corpus(
            [
                ("p.txt", "X", 2020, "Ends with the word graph"),
                ("p.txt", "X", 2020, "Neural starts this one."),
            ]
        )
    )
    assert full_matches(index, '"graph neural"') == []


def test_a_word_in_most_abstracts_is_not_required() -> None:
    rows: list[Row] = [
        ("c.txt", "X", 2020, "Robust initialization helps. Models are fragile."),
        ("c.txt", "X", 2020, "Learning with noise. Noisy labels are common."),
    ] + [("c.txt", "X", 2020, f"Learning topic number {k}. Nothing else.") for k in range(20)]
    index = SearchIndex.build(make_corpus(rows))
    # `learning` is in 21 of 22 abstracts: `robust initialization learning` needs the rarer two.
    result = index.search("robust initialization learning ")
    assert result.indices[: result.matched] == [0]
    # A query of common words only still requires them all.
    assert len(full_matches(index, "learning ")) == 21


def test_a_phrase_no_abstract_has_gives_the_closest_matches(index: SearchIndex) -> None:
    # A pasted title quoting another title: nothing has the phrase, its words are shared.
    result = index.search('A study of "contrastive graph models" ')
    assert result.matched == 0 and result.indices
    assert result.indices[0] == 3  # "Graph networks ... contrastive objective"
    # A phrase that is found is still required.
    assert hits(index, '"contrastive learning" ') == [0]


def test_tag_fields() -> None:
    corpus = make_corpus(ROWS)
    index = SearchIndex.build(corpus)
    ids = [a.id for a in corpus.abstracts]
    personal = FakePersonal(
        tags={
            "to-cite": {ids[0], ids[3]},
            "to-read": {ids[1]},
            "reading-group": {ids[2], "orphan-id"},
        }
    )
    assert hits(index, "tag:to-cite ", personal=personal) == [0, 3]
    assert hits(index, "tag:#To-Cite ", personal=personal) == [0, 3]  # as tags are typed
    # Being typed: every tag it starts; finished: only the tag itself.
    assert hits(index, "tag:to-", personal=personal) == [0, 1, 3]
    assert hits(index, "tag:to- ", personal=personal) == []
    # A typo finds the tag when no tag is spelled so.
    assert hits(index, "tag:to-cyte ", personal=personal) == [0, 3]
    assert hits(index, "-tag:to-cite ", personal=personal) == [1, 2, 4]
    assert hits(index, "tag:to-cite graph ", personal=personal) == [3]
    assert hits(index, "has:tag", personal=personal) == [0, 1, 2, 3]
    assert hits(index, "-has:tag", personal=personal) == [4]
    assert hits(index, "tag:nothing-like-it ", personal=personal) == []
    assert hits(index, "has:tag") == []


def test_an_index_refuses_a_different_corpus() -> None:
    index = index_of(MIXED)
    other = make_corpus([("a.txt", "ICLR", 2023, "Only one.")])
    with pytest.raises(ValueError, match="built for a different corpus"):
        index.search("graph", corpus=other)


def test_an_index_names_the_corpus_mismatch() -> None:
    index = index_of(MIXED)
    with pytest.raises(ValueError) as info:
        index.search("graph", corpus=make_corpus([("a.txt", "ICLR", 2023, "Only one.")]))
    assert str(info.value) == "this index was built for a different corpus"
