"""A small library of papers built in-process (no reader), as a BibTeX library or an arXiv
feed would give them: titles with LaTeX, authors with diacritics, long venue names, a
paper without abstract, one without any link, and two conference paragraphs."""

from __future__ import annotations

from pathlib import Path

from tui.corpus.model import Abstract, Collection, Corpus, FileInfo, SourceRef, abstract_id
from tui.corpus.paper import Author, Paper, id_from_ids

LIBRARY = Path("library.bib")
CONFERENCE = Path("iclr2023.txt")

PAPERS: list[tuple[Paper, str]] = [
    (
        Paper(
            title="Attention Is All You Need",
            authors=(
                Author("Vaswani", "Ashish"),
                Author("Shazeer", "Noam"),
                Author("Parmar", "Niki"),
                Author("Uszkoreit", "Jakob"),
                Author("Jones", "Llion"),
                Author("Gomez", "Aidan N."),
                Author("Kaiser", "Łukasz"),
                Author("Polosukhin", "Illia"),
            ),
            venue="Advances in Neural Information Processing Systems",
            year=2017,
            ids=(("arxiv", "1706.03762v7"), ("citekey", "vaswani2017attention")),
            kind="inproceedings",
            extra=(("pages", "5998--6008"),),
        ),
        "The dominant sequence transduction models are based on complex recurrent or "
        "convolutional neural networks that include an encoder and a decoder. We propose "
        "a new simple network architecture, the Transformer, based solely on attention.",
    ),
    (
        Paper(
            title=r"Sparse Recovery with $\ell_1$ Penalties and {BERT} Features",
            authors=(Author("Müller", "Jörg"), Author("Ńowak", "Zofia")),
            venue="Proceedings of the 40th International Conference on Machine Learning",
            year=2023,
            ids=(("doi", "https://doi.org/10.5555/ICML.2023.1234"),),
            links=(("page", "https://proceedings.mlr.press/v202/muller23a.html"),),
        ),
        "We study sparse recovery of signals under heavy-tailed noise and show that "
        "penalised estimators recover the support with fewer samples than expected.",
    ),
    (
        Paper(
            title="Denoising Diffusion Probabilistic Models",
            authors=(Author("Ho", "Jonathan"), Author("Jain", "Ajay"), Author("Abbeel", "Pieter")),
            venue="Advances in Neural Information Processing Systems",
            year=2020,
            ids=(("arxiv", "arXiv:2006.11239"),),
        ),
        "We present high quality image synthesis results using diffusion probabilistic "
        "models, a class of latent variable models inspired by nonequilibrium thermodynamics.",
    ),
    (
        Paper(
            title="A Survey of Graph Transformers Without an Abstract",
            authors=(Author("Mueller", "Anna"),),
            venue="Transactions on Machine Learning Research",
            year=2024,
            ids=(("openreview", "AbCdEf123"),),
        ),
        "",
    ),
    (
        Paper(
            title="Learning Without Links: Attention over Sparse Graphs",
            authors=(Author("Schmidt", "Karl"), Author("Weber", "Lena")),
            venue="Proceedings of the Workshop on Efficient Systems for Foundation Models",
            year=2023,
        ),
        "We study attention restricted to sparse graphs and show that it matches dense "
        "attention on long documents at a fraction of the memory.",
    ),
]

PARAGRAPHS = [
    "Graph neural networks learn representations of nodes by passing messages along "
    "edges. We show that attention over neighbours improves node classification.",
    "Reinforcement learning agents struggle with sparse rewards. We propose curiosity "
    "bonuses computed from a learned model of the environment.",
]


def paper_abstract(paper: Paper, text: str, position: int) -> Abstract:
    """An abstract as the loader makes one from a library entry: its id from its ids
    (else its text), its collection from its venue and year."""
    aid = id_from_ids(paper.ids) or abstract_id(text or paper.title or "")
    label = f"{paper.venue or ''} {paper.year or ''}".strip() or "library"
    collection = Collection(label, paper.venue, paper.year)
    return Abstract(aid, text, collection, [SourceRef(LIBRARY, position)], paper=paper)


def paper_corpus(*, with_paragraphs: bool = True) -> Corpus:
    """The library's papers, then (unless told not to) two conference paragraphs."""
    abstracts = [paper_abstract(p, text, k) for k, (p, text) in enumerate(PAPERS, start=1)]
    files = [FileInfo(LIBRARY, Collection("library"), len(PAPERS), "0" * 16, format="bibtex")]
    if with_paragraphs:
        iclr = Collection("ICLR 2023 Papers", "ICLR", 2023)
        abstracts += [
            Abstract(abstract_id(t), t, iclr, [SourceRef(CONFERENCE, k)])
            for k, t in enumerate(PARAGRAPHS, start=1)
        ]
        files.append(FileInfo(CONFERENCE, iclr, len(PARAGRAPHS), "1" * 16))
    return Corpus(abstracts, files, [])
