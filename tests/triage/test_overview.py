from __future__ import annotations

from tests.similar.fixtures import TEXTS, make_corpus
from tui.corpus.model import Corpus
from tui.similar import SimilarityModel
from tui.triage.overview import bar, collection_rows, distinctive_terms, file_rows

VISION_2020 = [
    "Convolutional networks classify images; we study image augmentation for convolutional nets.",
    "Image classification with convolutional networks and pooling layers on image benchmarks.",
    "We train convolutional image classifiers with less labelled image data.",
    "Robust convolutional networks for image recognition under image corruptions.",
]
LLM_2024 = [
    "Large language models follow instructions; we study prompting of language models.",
    "Prompting large language models improves reasoning; language models solve tasks.",
    "We align language models with instructions and evaluate prompting of language models.",
    "Language models hallucinate; retrieval reduces hallucination in large language models.",
]


def corpus_two_years() -> Corpus:
    return make_corpus(VISION_2020 + LLM_2024, [2020] * 4 + [2024] * 4)


def test_counts_per_collection_and_file() -> None:
    corpus = corpus_two_years()
    ids = [a.id for a in corpus.abstracts]
    read = {ids[0], ids[1], ids[5]}
    starred = {ids[4]}
    rows = collection_rows(corpus, read, starred)
    assert [(r.label, r.total, r.read, r.bookmarked) for r in rows] == [
        ("ICLR 2020", 4, 2, 0),
        ("ICLR 2024", 4, 1, 1),
    ]
    assert rows[0].read_fraction == 0.5
    files = file_rows(corpus, read, starred)
    assert [(r.label, r.total, r.read, r.bookmarked) for r in files] == [
        ("iclr2020.txt", 4, 2, 0),
        ("iclr2024.txt", 4, 1, 1),
    ]
    assert files[0].path is not None and files[0].path.name == "iclr2020.txt"


def test_abstract_in_two_files_counts_in_both() -> None:
    corpus = corpus_two_years()
    corpus.abstracts[0].sources.append(corpus.abstracts[4].sources[0])
    files = file_rows(corpus, set(), set())
    assert [r.total for r in files] == [4, 5]


def test_distinctive_terms_separate_the_collections() -> None:
    corpus = corpus_two_years()
    terms = distinctive_terms(corpus, SimilarityModel.build(corpus).terms, top=3)
    assert set(terms) == {"ICLR 2020", "ICLR 2024"}
    words_2020 = " ".join(terms["ICLR 2020"]).split()
    assert "convolutional" in words_2020 and "image" in words_2020
    assert "language" in " ".join(terms["ICLR 2024"]).split()
    assert not set(terms["ICLR 2020"]) & set(terms["ICLR 2024"])
    assert 2 <= len(terms["ICLR 2020"]) <= 3


def test_distinctive_terms_of_a_single_collection() -> None:
    corpus = make_corpus(TEXTS)
    terms = distinctive_terms(corpus, SimilarityModel.build(corpus).terms)
    assert list(terms) == ["ICLR 2023"]
    assert 0 < len(terms["ICLR 2023"]) <= 8
    assert "we" not in terms["ICLR 2023"]


def test_bar_fills_with_eighths_and_keeps_its_width() -> None:
    assert bar(0.0, 4) == "    "
    assert bar(1.0, 4) == "████"
    assert bar(0.5, 4) == "██  "
    assert bar(1 / 32, 4) == "▏   "
    assert bar(0.3, 10) == "███" + " " * 7
    assert bar(2.0, 3) == "███"
    assert bar(-1.0, 3) == "   "
    assert bar(float("nan"), 2) == "  "
    assert bar(0.5, 0) == ""
    for width in range(1, 12):
        for step in range(0, 101):
            assert len(bar(step / 100, width)) == width


def test_distinctive_terms_are_stems_shown_once_and_pairs() -> None:
    texts = [
        "Diffusion models generate images; we train diffusion models with a new parameter.",
        "We sample diffusion models faster, tuning one parameter of diffusion models.",
        "Diffusion models denoise images step by step with learned parameters.",
        "Graph neural networks pass messages; the parameters of graph neural networks vary.",
        "We study graph neural networks and the parameter count of message passing.",
        "Oversmoothing in graph neural networks grows with depth and with parameters.",
    ]
    corpus = make_corpus(texts, [2022] * 3 + [2023] * 3)
    terms = distinctive_terms(corpus, SimilarityModel.build(corpus).terms, top=4)
    assert terms["ICLR 2022"][0] in ("diffusion", "diffusion models")
    assert "graph neural" in terms["ICLR 2023"] or "neural networks" in terms["ICLR 2023"]
    for words in terms.values():
        shown = " ".join(words).split()
        # No word twice, in any form: `parameter` and `parameters` are one term.
        assert not {"parameter", "parameters"} <= set(shown)
        assert len(shown) == len(set(shown))
