"""The conference text's variants: a title above each abstract, and the pasted arXiv listing.

Conference text without either reads exactly as `parse_text` reads it.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.corpus.load import load_corpus
from tui.corpus.paper import Author
from tui.corpus.parse import parse_text
from tui.corpus.readers import ReadResult, read
from tui.corpus.readers import text as text_reader

FIXTURES = Path(__file__).parent / "fixtures"
SEEDS = Path(__file__).resolve().parents[2] / "seeds"

A1 = (
    "We prove bounds on the generalization error of convolutional networks. The bounds are "
    "in terms of the training loss and the number of parameters."
)
A2 = (
    "We present a method that trains large capacity neural networks with improved accuracy. "
    "This is achieved by gating the architecture on a fine-grained level."
)


def read_fixture(name: str) -> ReadResult:
    path = FIXTURES / name
    return read(path.read_bytes().decode("utf-8-sig"), path)


def titles(result: ReadResult) -> list[str | None]:
    assert result.papers is not None
    return [p.title if p is not None else None for p in result.papers]


def test_the_seeds_load_exactly_as_conference_text() -> None:
    for path in sorted(SEEDS.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        result = read(text, path)
        assert result.papers is None, path
        assert result.texts == parse_text(text, path).paragraphs


def test_a_title_line_above_each_wrapped_abstract() -> None:
    result = read_fixture("text-titled-lines.txt")
    assert result.format == "text" and result.error is None and result.warnings == []
    assert result.collection.label == "NeurIPS 2023 Papers"
    assert titles(result) == [
        "Meta Reinforcement Learning with Autonomous Inference of Subtask Dependencies",
        "Towards $\\epsilon$-Optimal Exploration in Multi-Agent Reinforcement Learning",
        "Pre-training Tasks for Embedding-based Large-scale Retrieval",
        "Adversarially Robust Representations with Smooth Encoders",
    ]
    assert result.texts[0].startswith("We propose and address a novel few-shot RL problem")
    assert result.texts[0].endswith("in the test phase.")
    assert result.papers is not None and result.papers[0] is not None
    assert result.papers[0].venue == "NeurIPS" and result.papers[0].year == 2023


def test_titles_as_their_own_paragraphs_in_sentence_case_with_bom_and_crlf() -> None:
    path = FIXTURES / "text-titled-paragraphs.txt"
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\r\n" in data
    corpus = load_corpus([path])
    assert corpus.problems == []
    assert [a.title for a in corpus.abstracts] == [
        "Generalization bounds for deep convolutional neural networks",
        "Batch-shaping for learning conditional channel gated networks",
        "Towards ϵ-Optimal Exploration in Multi-Agent Reinforcement Learning",
    ]
    assert corpus.abstracts[0].text.startswith("We prove bounds on the generalization error")
    # The first title is not taken for the file's header.
    assert corpus.files[0].collection.label == "text-titled-paragraphs"
    assert corpus.files[0].count == 3


def test_wrapped_abstracts_without_titles_read_as_today() -> None:
    path = FIXTURES / "text-wrapped-no-titles.txt"
    text = path.read_text(encoding="utf-8")
    result = read(text, path)
    assert result.papers is None
    assert result.texts == parse_text(text, path).paragraphs and len(result.texts) == 4


def test_an_abstracts_first_sentence_on_its_own_line_is_not_a_title() -> None:
    text = (
        "ICLR 2023 Papers\n\nDeep networks generalize.\nWe show why, with bounds that hold.\n\n"
        "Sparse models are fast.\nWe prune them at initialisation and keep their accuracy.\n"
    )
    result = read(text, Path("a.txt"))
    assert result.papers is None and len(result.texts) == 2


def test_a_wrapped_first_line_that_happens_to_end_before_a_capital_is_not_a_title() -> None:
    # Every paragraph's second line starts with a capital (CIFAR-10, BERT): still prose.
    text = (
        "ICLR 2023 Papers\n\n"
        "We evaluate robustness to corruptions of natural images on\n"
        "CIFAR-10 and ImageNet, finding that augmentation helps a lot.\n\n"
        "We fine-tune large pretrained language models such as\n"
        "BERT on small datasets and observe unstable training runs.\n"
    )
    result = read(text, Path("a.txt"))
    assert result.papers is None
    assert result.texts == parse_text(text, Path("a.txt")).paragraphs


def test_titles_on_only_some_paragraphs_read_the_file_as_today() -> None:
    text = f"ICLR 2023 Papers\n\nGeneralization Bounds for Deep Networks\n{A1}\n\n{A2}\n"
    result = read(text, Path("a.txt"))
    assert result.papers is None and len(result.texts) == 2


def test_a_label_header_above_title_paragraphs_stays_the_label() -> None:
    text = (
        "My reading list\n\nGeneralization Bounds for Deep Networks\n\n"
        f"{A1}\n\nBatch-Shaping for Gated Networks\n\n{A2}\n"
    )
    result = read(text, Path("a.txt"))
    assert result.collection.label == "My reading list"
    assert titles(result) == [
        "Generalization Bounds for Deep Networks",
        "Batch-Shaping for Gated Networks",
    ]


def test_a_title_without_its_abstract_is_kept_and_said() -> None:
    text = (
        "ICLR 2023 Papers\n\nGeneralization Bounds for Deep Networks\n\n"
        f"{A1}\n\nA Title Whose Abstract Is Missing\n\nBatch-Shaping for Gated Networks\n\n{A2}\n"
    )
    result = read(text, Path("a.txt"))
    assert titles(result)[1] == "A Title Whose Abstract Is Missing"
    assert result.texts[1] == ""
    assert result.warnings == ["1 title without an abstract after it"]


def test_short_paragraphs_are_not_taken_for_titles() -> None:
    text = "ICLR 2023 Papers\n\nShort one\n\nShort two\n\nShort three\n"
    result = read(text, Path("a.txt"))
    assert result.papers is None and result.texts == ["Short one", "Short two", "Short three"]


def test_the_arxiv_listing_loads_one_paper_per_entry() -> None:
    corpus = load_corpus([FIXTURES / "text-arxiv-listing.txt"])
    assert len(corpus.abstracts) == 4  # was 8: each entry's header block was an abstract
    [problem] = corpus.problems
    assert not problem.fatal
    assert problem.message.startswith("2 paragraphs outside the arXiv listing's entries")
    first = corpus.abstracts[0]
    assert first.paper is not None
    assert first.paper.title == (
        "Sparse Mixtures of Experts Learn Modular Skills in Continual Reinforcement Learning"
    )
    assert first.paper.authors == (
        Author("Ødegård", "Ingrid"),
        Author("Watanabe", "Kenji"),
        Author("Durand", "Amélie"),
    )
    assert first.paper.id_of("arxiv") == "2412.00001"
    assert first.paper.keywords == ("cs.LG", "cs.AI")
    assert first.paper.year == 2024
    assert first.paper.page_url == "https://arxiv.org/abs/2412.00001"
    assert dict(first.paper.extra)["comment"].startswith("9 pages, 4 figures")
    assert first.text.startswith("Continual reinforcement learning agents forget")
    # The heading between entries is not glued to the third abstract.
    third = corpus.abstracts[2]
    assert third.text.endswith("against an $\\epsilon$-optimal policy.")
    assert third.paper is not None
    assert dict(third.paper.extra)["journal_ref"] == "Proceedings of AAMAS 2025"
    fourth = corpus.abstracts[3]
    assert fourth.paper is not None and dict(fourth.paper.extra)["version"] == "2"
    assert fourth.title == "Diffusion Policies with 𝒪(1)-Step Sampling"


def test_a_listing_entry_with_its_abstract_in_the_same_block_and_one_without() -> None:
    text = (
        "arXiv:2412.00100\nTitle: Sparse Attention at Scale\nAuthors: Ada Lovelace and "
        "Charles Babbage\nSubjects: Machine Learning (cs.LG)\nWe sparsify attention and keep "
        "its accuracy.\nIt runs fast.\n\n"
        "[2] arXiv:2401.00200 (replaced) [pdf]\nTitle: Wrapped Titles Continue\n  On a Second Line\n"
        "Authors: Mary Somerville\nSubjects: Optimization and Control (math.OC)\n"
    )
    result = read(text, Path("paste.txt"))
    assert result.collection.label == "paste"
    assert titles(result) == [
        "Sparse Attention at Scale",
        "Wrapped Titles Continue On a Second Line",
    ]
    assert result.texts == ["We sparsify attention and keep its accuracy. It runs fast.", ""]
    assert result.papers is not None and result.papers[0] is not None
    assert result.papers[0].authors == (Author("Lovelace", "Ada"), Author("Babbage", "Charles"))


WORDS = st.sampled_from(
    [
        "arXiv:2412.00001",
        "[1]",
        "Title:",
        "Authors:",
        "Subjects:",
        "Comments:",
        "Deep",
        "Networks",
        "for",
        "We",
        "show",
        "that.",
        "(cs.LG)",
        "ICLR",
        "2023",
        "A",
        "Paper",
    ]
)
SEPS = st.sampled_from([" ", "\n", "\n\n", "\r\n", ", ", "; "])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(WORDS, SEPS), max_size=40))
def test_the_text_reader_never_raises_and_reads_as_today_without_a_variant(
    pieces: list[tuple[str, str]],
) -> None:
    text = "".join(w + s for w, s in pieces)
    result = text_reader.read(text, Path("t.txt"))
    assert result.papers is None or len(result.papers) == len(result.texts)
    if result.papers is None and result.error is None:
        assert result.texts == parse_text(text, Path("t.txt")).paragraphs
