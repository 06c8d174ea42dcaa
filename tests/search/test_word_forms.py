"""A full match holds the word typed or an inflection of it; words that only share its
stem (derivational cousins) are at most close matches, ranked after, and every row says
what it matched through."""

from __future__ import annotations

import pytest

from tests.search.helpers import make_corpus
from tui.search.forms import same_word, spellings
from tui.search.highlight import describe
from tui.search.index import SearchIndex

# Each typed word with a derivational cousin of the same Snowball stem, as abstracts
# use them: the cousin must never make a full match.
COUSINS = [
    ("positional", "position"),
    ("positional", "positive"),
    ("informative", "information"),
    ("continual", "continuous"),
    ("regular", "regularization"),
    ("general", "generalization"),
    ("contrastive", "contrast"),
    ("optimal", "optimization"),
]


def _rows(texts: list[str]) -> SearchIndex:
    return SearchIndex.build(make_corpus([("a.txt", "ICLR", 2023, t) for t in texts]))


def _groups(index: SearchIndex, query: str) -> tuple[list[int], list[int]]:
    result = index.search(query)
    return result.indices[: result.matched], result.indices[result.matched :]


@pytest.mark.parametrize(("typed", "cousin"), COUSINS)
@pytest.mark.parametrize("end", ["", " "])  # being typed, and finished
def test_a_derivational_cousin_is_a_close_match_never_a_full_one(
    typed: str, cousin: str, end: str
) -> None:
    index = _rows(
        [
            f"We study a {cousin} signal in deep models.",
            f"We study a {typed} signal in deep models.",
            "Kernels for protein folding.",
        ]
    )
    full, close = _groups(index, typed + end)
    assert full == [1]
    assert close == [0]


@pytest.mark.parametrize(
    ("typed", "written"),
    [
        ("network", "networks"),
        ("networks", "network"),
        ("trained", "training"),
        ("training", "trains"),
        ("studies", "studied"),
        ("study", "studies"),
        ("modelling", "modeled"),
        ("labels", "labelled"),
        ("optimisation", "optimization"),
        ("optimization", "optimisations"),
        ("behaviour", "behaviors"),
        ("analyse", "analyzing"),
    ],
)
def test_inflections_and_other_spellings_are_the_word(typed: str, written: str) -> None:
    index = _rows([f"A {written} result.", "Kernels for protein folding."])
    full, _ = _groups(index, typed + " ")
    assert full == [0]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("graph", "graphs", True),
        ("learn", "learning", True),
        ("learning", "learned", True),
        ("encoding", "encoded", True),
        ("stopped", "stopping", True),
        ("learner", "learning", False),  # an agent noun is another word
        ("encoder", "encoding", False),
        ("general", "generally", False),  # an adverb too
        ("positional", "position", False),
        ("contrastive", "contrast", False),
    ],
)
def test_same_word_takes_off_inflections_only(a: str, b: str, same: bool) -> None:
    assert same_word(a, b) is same
    assert same_word(b, a) is same


def test_spellings_pair_british_and_american_endings() -> None:
    assert "optimization" in spellings("optimisation")
    assert "optimisation" in spellings("optimization")
    assert "behavior" in spellings("behaviour")
    assert "analyze" in spellings("analyse")
    assert spellings("graph") == ("graph",)


def test_a_row_holding_the_word_ranks_above_one_holding_only_its_cousin() -> None:
    # `learning` is in most abstracts, so not required: both rows are full matches of
    # `graph learning`. The second row says `graph` more often (a higher score) but has
    # only `learner`, a cousin of `learning`: it still comes after the first.
    filler = [f"Learning item {i} of a long list." for i in range(20)]
    index = _rows(
        [
            "We study graph learning.",
            "A graph learner for graph data and graph queries.",
            *filler,
        ]
    )
    full, _ = _groups(index, "graph learning ")
    assert full[:2] == [0, 1]


def test_a_whole_words_completions_are_close_matches() -> None:
    # `graph` is a word: `graphical` is another one, while `graphs` is the word.
    index = _rows(["Graphical models.", "Graphs of proteins.", "A graph of folds."])
    full, close = _groups(index, "graph")
    assert sorted(full) == [1, 2]
    assert close == [0]
    # A word not yet whole is completed as before (and its near spellings follow).
    full, _ = _groups(index, "graphi")
    assert full[0] == 0


def test_each_row_says_what_it_matched_through() -> None:
    texts = [
        "Contrastive learning of networks.",
        "In contrast, networks learn.",
        "Contrastive network pruning.",
    ]
    index = _rows(texts)
    highlighter = index.highlighter("contrastive networks ")
    assert [describe(highlighter.matched(t)) for t in texts] == [
        "",
        "matched: contrast ≈ contrastive (related)",
        "matched: network ≈ networks",
    ]
    typo = index.highlighter("contrastve ")
    assert describe(typo.matched(texts[0])) == "matched: contrastive ≈ contrastve (spelling)"
    assert [m.as_json() for m in typo.matched(texts[0])] == [
        {"typed": "contrastve", "found": ["contrastive"], "as": "spelling"}
    ]


def test_the_highlight_paints_the_forms_matched() -> None:
    index = _rows(["In contrast, contrastive networks learn."])
    text = "In contrast, contrastive networks learn."
    painted = [text[s:e] for s, e in index.highlighter("contrastive network ").spans(text)]
    assert painted == ["contrast", "contrastive", "networks"]


def test_the_detail_pane_says_what_a_row_matched_through() -> None:
    from tui.ui.view import matched_line
    from tui.ui.widgets.detail_text import DetailView, meta_text

    corpus = make_corpus([("a.txt", "ICLR", 2023, "In contrast, networks learn.")])
    index = SearchIndex.build(corpus)
    abstract = corpus.abstracts[0]
    line = matched_line(index.highlighter("contrastive ").spans, abstract)
    assert line == "matched: contrast ≈ contrastive (related)"
    assert line in meta_text(DetailView(abstract, matched=line)).plain
    # Held as typed, or no filter: no line.
    assert matched_line(index.highlighter("contrast ").spans, abstract) == ""
    assert matched_line(None, abstract) == ""


def test_a_row_names_its_forms_the_plainest_way_and_none_beside_the_typed_word() -> None:
    texts = [
        "Training a model; it trains.",  # two inflections
        "A trainer trains.",  # a spelling and an inflection: the inflection is plainer
        "A trained trainer trains.",  # the word typed itself
    ]
    index = _rows(texts)
    assert [describe(index.highlighter("train ").matched(t)) for t in texts[:1]] == [
        "matched: training/trains ≈ train"
    ]
    trained = index.highlighter("trained ")
    assert [describe(trained.matched(t)) for t in texts[1:]] == ["matched: trains ≈ trained", ""]
