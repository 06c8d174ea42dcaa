"""A small hand-made corpus with known neighbours, built directly from model objects."""

from __future__ import annotations

from pathlib import Path

from tui.corpus.model import Abstract, Collection, Corpus, FileInfo, SourceRef, abstract_id

GRAPH = (
    "We propose a graph neural network for molecular property prediction. Message passing "
    "over atoms and bonds learns molecular representations that improve property prediction "
    "on quantum chemistry benchmarks."
)
GRAPH_NEIGHBOUR = (
    "Message passing graph neural networks learn representations of molecules. We study "
    "molecular graphs and show improved prediction of chemical properties of atoms and bonds."
)
GRAPH_REWORDED = (
    "We introduce a graph neural network for molecular property prediction. Message passing "
    "over atoms and bonds learns molecular representations which improve property prediction "
    "on quantum chemistry benchmarks."
)
VISION = (
    "Convolutional networks for image classification are trained with data augmentation. "
    "We evaluate robustness of image classifiers to corruptions on ImageNet."
)
VISION_NEIGHBOUR = (
    "Image classifiers trained on ImageNet are brittle under corruptions. Data augmentation "
    "improves the robustness of convolutional image classification networks."
)
LANGUAGE = (
    "Large language models follow instructions after fine-tuning. We study instruction tuning "
    "of language models and evaluate reasoning on question answering benchmarks."
)
LANGUAGE_NEIGHBOUR = (
    "Instruction tuning of large language models improves question answering and reasoning. "
    "We fine-tune language models on instructions."
)
RL = (
    "Reinforcement learning agents explore sparse reward environments. We propose an "
    "exploration bonus for policy optimisation in Atari games."
)
UNRELATED = "Zebras gallop across savannahs while giraffes browse acacia trees at dusk."

TEXTS = [
    GRAPH,
    VISION,
    GRAPH_NEIGHBOUR,
    LANGUAGE,
    VISION_NEIGHBOUR,
    RL,
    LANGUAGE_NEIGHBOUR,
    GRAPH_REWORDED,
    UNRELATED,
]
(I_GRAPH, I_VISION, I_GRAPH_NB, I_LANG, I_VISION_NB, I_RL, I_LANG_NB, I_GRAPH_RW, I_ZEBRA) = range(
    len(TEXTS)
)


def make_corpus(texts: list[str] | None = None, years: list[int] | None = None) -> Corpus:
    """A corpus of `texts` (default: the fixture texts) in one fake file per year."""
    texts = TEXTS if texts is None else texts
    years = years or [2023] * len(texts)
    abstracts = []
    positions: dict[int, int] = {}
    for text, year in zip(texts, years, strict=True):
        path = Path(f"/fixture/iclr{year}.txt")
        positions[year] = positions.get(year, 0) + 1
        collection = Collection(f"ICLR {year} Papers", "ICLR", year)
        abstract = Abstract(abstract_id(text), text, collection, [SourceRef(path, positions[year])])
        abstract._plain = text
        abstracts.append(abstract)
    files = [
        FileInfo(
            Path(f"/fixture/iclr{y}.txt"), Collection(f"ICLR {y} Papers", "ICLR", y), n, f"d{y}"
        )
        for y, n in sorted(positions.items())
    ]
    return Corpus(abstracts, files, [])
