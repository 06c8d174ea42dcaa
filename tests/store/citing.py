"""Papers for the citation tests: one of each kind a library holds, with what makes them hard.

`PAPER` (helpers) is a conference paper with a DOI, an arXiv id and an original
citekey; `PREPRINT` an arXiv preprint with a category and no venue; `ARTICLE` a
journal article known by its text only (no DOI, arXiv or OpenReview id), its abstract
LaTeX with escaped specials; `ORGANISATION` a report whose author is an organisation.
"""

from __future__ import annotations

from tests.store.helpers import PAPER, PAPER_TEXT, PARAGRAPHS, make_abstract, make_paper_abstract
from tui.corpus.model import Abstract
from tui.corpus.paper import Author, Paper

PREPRINT = Paper(
    title="Scaling Laws for Neural Language Models",
    authors=(Author("Kaplan", "Jared"), Author("McCandlish", "Sam")),
    year=2020,
    date="2020-01-23",
    ids=(("arxiv", "2001.08361v1"),),
    links=(("page", "https://arxiv.org/abs/2001.08361v1"),),
    keywords=("cs.LG", "stat.ML"),
)
PREPRINT_TEXT = "We study empirical scaling laws for language model performance on the loss."

ARTICLE = Paper(
    title="Ölçek: Sparse {GP} Regression in $\\mathcal{O}(n)$",
    authors=(Author("Çelik", "Ayşe"), Author("de la Fuente", "José María")),
    venue="Journal of Machine Learning Research",
    year=2021,
    kind="article",
    extra=(("volume", "22"), ("number", "5"), ("pages", "1--40")),
)
ARTICLE_TEXT = (
    "We reduce the cost of Gaussian process regression by 90\\% with inducing points "
    "$u_1, \\dots, u_m$, keeping $x^2$ terms exact."
)

ORGANISATION = Paper(
    title="Gemini: A Family of Highly Capable Multimodal Models",
    authors=(Author("Gemini Team"), Author("Anil", "Rohan")),
    year=2023,
    kind="techreport",
    ids=(("url", "https://example.org/gemini?x={1}"),),
)
ORGANISATION_TEXT = "This report introduces a new family of multimodal models."


def library() -> list[Abstract]:
    """The papers as the loader makes them, then a conference paragraph."""
    return [
        make_paper_abstract(PAPER, PAPER_TEXT, position=1),
        make_paper_abstract(PREPRINT, PREPRINT_TEXT, position=2),
        make_paper_abstract(ARTICLE, ARTICLE_TEXT, position=3),
        make_paper_abstract(ORGANISATION, ORGANISATION_TEXT, position=4),
        make_abstract(PARAGRAPHS[0]),
    ]
