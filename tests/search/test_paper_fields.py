"""The query fields about papers: author:, title:, id: and has:abstract, and a pasted
title finding its paper first."""

from __future__ import annotations

import pytest

from tests.search.papers import paper_abstract, paper_corpus
from tui.corpus.model import Corpus
from tui.corpus.paper import Author, Paper
from tui.search.index import SearchIndex
from tui.search.query import QueryError, parse_query


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return paper_corpus()


@pytest.fixture(scope="module")
def index(corpus: Corpus) -> SearchIndex:
    return SearchIndex.build(corpus)


def titles(index: SearchIndex, corpus: Corpus, query: str) -> list[str]:
    """The headlines of the full matches, in order."""
    result = index.search(query, corpus)
    return [corpus.abstracts[i].headline for i in result.indices[: result.matched]]


def test_author_matches_the_family_name(index: SearchIndex, corpus: Corpus) -> None:
    assert titles(index, corpus, "author:vaswani ") == ["Attention Is All You Need"]


def test_author_without_diacritics_finds_the_name_with_them(
    index: SearchIndex, corpus: Corpus
) -> None:
    found = titles(index, corpus, "author:muller ")
    assert any(t.startswith("Sparse Recovery") for t in found)  # Jörg Müller
    assert titles(index, corpus, "author:nowak ")[0].startswith("Sparse Recovery")  # Ńowak


def test_author_with_a_typo_still_finds_the_author(index: SearchIndex, corpus: Corpus) -> None:
    assert titles(index, corpus, "author:vaswnai ") == ["Attention Is All You Need"]
    assert titles(index, corpus, "author:polosukin ") == ["Attention Is All You Need"]


def test_author_does_not_match_words_of_titles_or_abstracts(
    index: SearchIndex, corpus: Corpus
) -> None:
    # `attention` is in titles and abstracts, never an author's name.
    assert titles(index, corpus, "author:attention ") == []


def test_author_being_typed_matches_as_a_prefix(index: SearchIndex, corpus: Corpus) -> None:
    assert titles(index, corpus, "author:uszk") == ["Attention Is All You Need"]


def test_author_excluded(index: SearchIndex, corpus: Corpus) -> None:
    found = titles(index, corpus, "attention -author:vaswani ")
    assert "Attention Is All You Need" not in found
    assert found


def test_title_matches_words_of_the_title_only(index: SearchIndex, corpus: Corpus) -> None:
    # `transformer` is in the abstract of "Attention Is All You Need", not its title.
    assert titles(index, corpus, "title:transformers ") == [
        "A Survey of Graph Transformers Without an Abstract"
    ]
    assert titles(index, corpus, "title:difusion ") == ["Denoising Diffusion Probabilistic Models"]


@pytest.mark.parametrize(
    "value",
    [
        "2006.11239",
        "2006.11239v2",
        "arXiv:2006.11239",
        "https://arxiv.org/abs/2006.11239v1",
        "https://arxiv.org/pdf/2006.11239v3.pdf",
        "10.48550/arXiv.2006.11239",
    ],
)
def test_id_finds_an_arxiv_paper_in_every_form(
    value: str, index: SearchIndex, corpus: Corpus
) -> None:
    assert titles(index, corpus, f"id:{value} ") == ["Denoising Diffusion Probabilistic Models"]


@pytest.mark.parametrize(
    "value",
    [
        "10.5555/ICML.2023.1234",
        "doi:10.5555/icml.2023.1234",
        "https://doi.org/10.5555/ICML.2023.1234",
    ],
)
def test_id_finds_a_doi_in_every_form(value: str, index: SearchIndex, corpus: Corpus) -> None:
    found = titles(index, corpus, f"id:{value} ")
    assert len(found) == 1 and found[0].startswith("Sparse Recovery")


def test_id_finds_openreview_ids_and_citekeys(index: SearchIndex, corpus: Corpus) -> None:
    assert titles(index, corpus, "id:https://openreview.net/forum?id=AbCdEf123 ") == [
        "A Survey of Graph Transformers Without an Abstract"
    ]
    assert titles(index, corpus, "id:vaswani2017attention ") == ["Attention Is All You Need"]


def test_id_finds_a_citekey_holding_colons() -> None:
    """DBLP's citekeys hold colons (`DBLP:conf/nips/VaswaniSPUJGKP17`): found whole."""
    key = "DBLP:conf/nips/VaswaniSPUJGKP17"
    paper = Paper(title="Attention Is All You Need", ids=(("citekey", key),))
    corpus = Corpus([paper_abstract(paper, "We propose the Transformer.", 1)], [], [])
    index = SearchIndex.build(corpus)
    assert titles(index, corpus, f"id:{key} ") == ["Attention Is All You Need"]


def test_paper_fields_find_the_papers_listed_after_conference_text() -> None:
    papers = paper_corpus()
    corpus = Corpus(papers.abstracts[5:] + papers.abstracts[:5], papers.files[::-1], [])
    index = SearchIndex.build(corpus)
    assert titles(index, corpus, "author:vaswani ") == ["Attention Is All You Need"]
    assert titles(index, corpus, "id:1706.03762 ") == ["Attention Is All You Need"]


def test_id_being_typed_matches_ids_it_starts(index: SearchIndex, corpus: Corpus) -> None:
    assert titles(index, corpus, "id:1706.03") == ["Attention Is All You Need"]
    assert titles(index, corpus, "id:1706.03 ") == []  # finished: the whole id only


def test_has_abstract_and_its_negation(index: SearchIndex, corpus: Corpus) -> None:
    without = titles(index, corpus, "-has:abstract")
    assert without == ["A Survey of Graph Transformers Without an Abstract"]
    assert len(titles(index, corpus, "has:abstract")) == len(corpus) - 1


def test_has_still_knows_note_and_tag() -> None:
    assert parse_query("has:note").fields[0].arg == "note"
    with pytest.raises(QueryError, match="has:abstract"):
        parse_query("has:pdf")


@pytest.mark.parametrize("query", ["author: ", "title:", "id:"])
def test_a_paper_field_without_value_says_what_it_needs(query: str) -> None:
    with pytest.raises(QueryError, match="needs"):
        parse_query(query)


def test_paper_fields_match_nothing_without_the_corpus(index: SearchIndex) -> None:
    # The index alone (a saved search counted without the corpus) cannot know authors.
    assert index.search("author:vaswani ").indices == []
    assert index.search("has:abstract").indices == []


def test_a_pasted_title_finds_its_paper_first() -> None:
    target = Paper(
        title="Sparse Attention for Long Document Retrieval",
        authors=(Author("Lee", "Min"),),
        year=2023,
    )
    body = "We index passages with a learned retriever and compare rankers."
    # Others say the title's words in their abstracts, often; only one has them as title.
    decoys = [
        (
            Paper(title=f"Efficient Rankers, Part {k}", authors=(Author("Kim", "Ji"),), year=2022),
            "Sparse attention helps long document retrieval: sparse attention over long "
            "documents makes retrieval of long documents fast, and sparse attention is cheap.",
        )
        for k in range(8)
    ]
    abstracts = [paper_abstract(p, t, k) for k, (p, t) in enumerate([*decoys, (target, body)])]
    corpus = Corpus(abstracts, [], [])
    result = SearchIndex.build(corpus).search(
        "Sparse Attention for Long Document Retrieval", corpus
    )
    assert corpus.abstracts[result.indices[0]].paper is target


def test_paper_fields_on_conference_text_only_match_nothing_and_never_fail() -> None:
    corpus = paper_corpus()
    paragraphs = Corpus(corpus.abstracts[5:], [], [])
    index = SearchIndex.build(paragraphs)
    assert index.search("author:vaswani ", paragraphs).indices == []
    assert index.search("id:2006.1", paragraphs).indices == []
    assert len(index.search("has:abstract", paragraphs).indices) == 2
    assert titles(index, paragraphs, "title:graph ") == [paragraphs.abstracts[0].headline]
