"""Term counts of every abstract: the shared input of similarity and distinctive terms.

Built once from the abstracts' source text with the program's one tokenizer
(`tui.corpus.tokens.tokenize`). LaTeX command names are dropped before
tokenizing so `\\mathcal{O}` does not make two abstracts look alike, and pure
numbers and one-letter tokens are dropped because they are mostly maths debris.
The source text is used rather than the rendered `plain` text because rendering
every abstract costs far more than the whole build budget.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.corpus.stopwords import STOPWORDS
from tui.corpus.tokens import tokenize

_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")

IntArray = npt.NDArray[np.int32]
OffsetArray = npt.NDArray[np.int64]


def content_tokens(text: str) -> list[str]:
    """The tokens of `text` that carry meaning: no stopwords, numbers, single letters or LaTeX."""
    return [
        t
        for t in tokenize(_LATEX_COMMAND.sub(" ", text))
        if len(t) > 1 and t not in STOPWORDS and not t.isdigit()
    ]


@dataclass(frozen=True, slots=True)
class TermMatrix:
    """Sparse document-term counts in CSR form.

    Row `i` (abstract `i`) holds term ids `indices[indptr[i]:indptr[i+1]]`
    (sorted) with counts `counts[...]` at the same positions; `vocab[t]` is the
    word of term id `t`.
    """

    vocab: list[str]
    indptr: OffsetArray
    indices: IntArray
    counts: IntArray

    @property
    def n_docs(self) -> int:
        return len(self.indptr) - 1

    @property
    def n_terms(self) -> int:
        return len(self.vocab)

    def document_frequency(self) -> IntArray:
        """How many abstracts contain each term."""
        return np.bincount(self.indices, minlength=self.n_terms).astype(np.int32)


def count_terms(texts: Iterable[str]) -> TermMatrix:
    """Count the content tokens of each text into a `TermMatrix`."""
    term_ids: dict[str, int] = {}
    row_terms: list[int] = []
    row_counts: list[int] = []
    indptr = [0]
    for text in texts:
        counted = Counter(content_tokens(text))
        ids = [term_ids.setdefault(word, len(term_ids)) for word in counted]
        order = sorted(range(len(ids)), key=ids.__getitem__)
        counts = list(counted.values())
        row_terms.extend(ids[j] for j in order)
        row_counts.extend(counts[j] for j in order)
        indptr.append(len(row_terms))
    return TermMatrix(
        vocab=list(term_ids),
        indptr=np.asarray(indptr, dtype=np.int64),
        indices=np.asarray(row_terms, dtype=np.int32),
        counts=np.asarray(row_counts, dtype=np.int32),
    )
