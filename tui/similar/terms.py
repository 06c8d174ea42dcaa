"""Term counts of every abstract: the shared input of similarity and distinctive terms.

Built once from the abstracts' source text with the program's one tokenizer
(`tui.corpus.tokens.tokenize`). LaTeX command names are dropped before
tokenizing so `\\mathcal{O}` does not make two abstracts look alike, and pure
numbers, one-letter tokens and stop words (`tui.corpus.stopwords`) are dropped
because they say nothing of what an abstract is about. The source text is used
rather than the rendered `plain` text because rendering every abstract costs far
more than the whole build budget.

A term is a word's Snowball stem (`parameter` and `parameters` are one term) or
two content words written next to each other in one clause (`graph neural`,
`diffusion models`; none across a stop word, number or punctuation). Each term
is shown as its most common written form. A pair found in one abstract only can
match nothing and is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tui.corpus.stem import stem_words
from tui.corpus.stopwords import STOPWORDS
from tui.corpus.tokens import tokenize

_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
# Where a clause ends: two words on either side of these are not a pair.
_CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]{}$\"“”]")
# A pair (bigram) must be in at least this many abstracts to be a term.
_MIN_PAIR_DOCS = 2

IntArray = npt.NDArray[np.int32]
OffsetArray = npt.NDArray[np.int64]


def _is_content(token: str) -> bool:
    return len(token) > 1 and token not in STOPWORDS and not token.isdigit()


def content_tokens(text: str) -> list[str]:
    """The tokens of `text` that carry meaning: no stopwords, numbers, single letters or LaTeX."""
    return [t for t in tokenize(_LATEX_COMMAND.sub(" ", text)) if _is_content(t)]


@dataclass(frozen=True, slots=True)
class TermMatrix:
    """Sparse document-term counts in CSR form.

    Row `i` (abstract `i`) holds term ids `indices[indptr[i]:indptr[i+1]]`
    (sorted) with counts `counts[...]` at the same positions; `vocab[t]` is the
    term as shown (its most common written form; a pair has a space). `parts[t]` is
    (t, -1) for a word and the ids of its two words for a pair.
    """

    vocab: list[str]
    indptr: OffsetArray
    indices: IntArray
    counts: IntArray
    parts: IntArray

    @property
    def n_docs(self) -> int:
        return len(self.indptr) - 1

    @property
    def n_terms(self) -> int:
        return len(self.vocab)

    def document_frequency(self) -> IntArray:
        """How many abstracts contain each term."""
        return np.bincount(self.indices, minlength=self.n_terms).astype(np.int32)


def _content_runs(text: str) -> tuple[list[str], list[bool]]:
    """The content words of `text`, and for each whether it directly follows another
    content word of the same clause (so the two make a pair)."""
    # A clause break becomes the token `0`: a number, so no content word, so no pair
    # spans it (one tokenize call per text instead of one per clause).
    tokens = tokenize(_CLAUSE_BREAK.sub(" 0 ", _LATEX_COMMAND.sub(" ", text)))
    content = [len(t) > 1 and t not in STOPWORDS and not t.isdigit() for t in tokens]
    words = [t for t, keep in zip(tokens, content, strict=True) if keep]
    follows = [after for after, keep in zip([False, *content], content, strict=False) if keep]
    return words, follows


def count_terms(texts: Iterable[str]) -> TermMatrix:
    """Count the terms of each text (stems and pairs, see the module) into a `TermMatrix`.

    Words are numbered in Python, one dictionary look-up per word; pairs, counting and
    the rows are then made with NumPy over the whole corpus at once.
    """
    form_ids: dict[str, int] = {}  # each written word, numbered as first seen
    stem_of_form: list[int] = []
    stem_ids: dict[str, int] = {}
    occurrences: list[int] = []  # the form id of every word, text after text
    follows: list[bool] = []
    lengths: list[int] = []
    for text in texts:
        words, after = _content_runs(text)
        new = [w for w in dict.fromkeys(words) if w not in form_ids]
        for word, key in zip(new, stem_words(new), strict=True):
            form_ids[word] = len(stem_of_form)
            stem_of_form.append(stem_ids.setdefault(key, len(stem_ids)))
        occurrences.extend(map(form_ids.__getitem__, words))
        follows.extend(after)
        lengths.append(len(words))
    n_docs, n_stems = len(lengths), len(stem_ids)
    forms = np.asarray(occurrences, dtype=np.int64)
    form_stem = np.asarray(stem_of_form, dtype=np.int64)
    stems = form_stem[forms]
    doc = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
    # Pairs: a word and the one before it, when it follows it (never across texts:
    # a text's first word follows nothing). Numbered after the stems.
    paired = np.flatnonzero(np.asarray(follows, dtype=bool))
    pair_code = stems[paired - 1] * n_stems + stems[paired]
    codes, pair_of = np.unique(pair_code, return_inverse=True)
    terms = np.concatenate([stems, n_stems + pair_of.reshape(-1)])
    term_doc = np.concatenate([doc, doc[paired]])
    n_terms = n_stems + len(codes)
    # (text, term) cells, sorted and counted: the CSR rows in order.
    cells, counts = np.unique(term_doc * max(n_terms, 1) + terms, return_counts=True)
    indptr = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(np.bincount(cells // max(n_terms, 1), minlength=n_docs), out=indptr[1:])
    # Each term is shown as its most frequent written form (ties: the first seen).
    names = list(form_ids)
    shown = [names[f] for f in _most_frequent(form_stem, np.bincount(forms)).tolist()]
    n_forms = max(len(names), 1)
    written_pair = forms[paired - 1] * n_forms + forms[paired]
    pair_forms, pair_written = np.unique(written_pair, return_counts=True)
    pair_term = np.searchsorted(
        codes, form_stem[pair_forms // n_forms] * n_stems + form_stem[pair_forms % n_forms]
    )
    for code in pair_forms[_most_frequent(pair_term, pair_written)].tolist():
        shown.append(f"{names[code // n_forms]} {names[code % n_forms]}")
    parts = np.full((n_terms, 2), -1, dtype=np.int32)
    parts[:n_stems, 0] = np.arange(n_stems)
    parts[n_stems:, 0], parts[n_stems:, 1] = codes // max(n_stems, 1), codes % max(n_stems, 1)
    indices = (cells % max(n_terms, 1)).astype(np.int32)
    return _without_rare_pairs(shown, parts, indptr, indices, counts.astype(np.int32))


def _most_frequent(group: npt.NDArray[np.int64], count: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """For groups numbered 0..n-1 (`group[i]` is item i's), the item of each group with
    the largest `count`, the first item on ties; in group order."""
    order = np.lexsort((np.arange(len(group)), -count[: len(group)], group))
    if not len(order):
        return order
    starts = np.r_[True, group[order][1:] != group[order][:-1]]
    chosen: npt.NDArray[np.int64] = order[starts]
    return chosen


def _without_rare_pairs(
    vocab: list[str], parts: IntArray, indptr: OffsetArray, indices: IntArray, counts: IntArray
) -> TermMatrix:
    """Drop the pairs found in fewer than `_MIN_PAIR_DOCS` abstracts, renumbering the
    rest in the same order (so every row stays sorted; words, numbered first, keep theirs)."""
    df = np.bincount(indices, minlength=len(vocab))
    keep = (parts[:, 1] < 0) | (df >= _MIN_PAIR_DOCS)
    new_id = np.cumsum(keep, dtype=np.int64) - 1
    kept_entry = keep[indices]
    row_of = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    new_indptr = np.zeros_like(indptr)
    np.cumsum(np.bincount(row_of[kept_entry], minlength=len(indptr) - 1), out=new_indptr[1:])
    return TermMatrix(
        vocab=[v for v, k in zip(vocab, keep.tolist(), strict=True) if k],
        indptr=new_indptr,
        indices=new_id[indices[kept_entry]].astype(np.int32),
        counts=counts[kept_entry],
        parts=parts[keep],
    )


# A pair stands for a word already shown when at least this share of the abstracts
# using the word use it in that pair (`fine` is nearly always `fine tuning`).
_PAIR_SHARE = 0.5


def pick_terms(
    terms: TermMatrix, ranked: Iterable[int], top: int, df: npt.NDArray[Any]
) -> list[str]:
    """The first `top` distinct terms of `ranked` (term ids, best first), as shown.

    One entry per meaning: a word already shown (alone or in a pair) is skipped. A
    pair is shown only where it is how one of its words is mostly written (in at
    least half of the abstracts using that word, by the document frequencies `df`:
    `fine tuning`, `diffusion models`; not `networks tend`); it takes the place of
    its words already shown, and is skipped when it overlaps a pair already shown.
    """
    chosen: list[int] = []
    if top <= 0:
        return []
    for t in ranked:
        first, second = (int(p) for p in terms.parts[t])
        words = {first} if second < 0 else {first, second}
        overlap = [k for k, c in enumerate(chosen) if words & set(terms.parts[c].tolist())]
        if second < 0:
            if overlap:
                continue
            chosen.append(t)
        elif df[t] < _PAIR_SHARE * min(df[first], df[second]) or any(
            terms.parts[chosen[k]][1] >= 0 for k in overlap
        ):
            continue  # not how either word is mostly written, or overlapping a pair shown
        elif overlap:
            chosen[overlap[0]] = t
            for k in reversed(overlap[1:]):
                del chosen[k]
        else:
            chosen.append(t)
        if len(chosen) >= top:
            break
    return [terms.vocab[t] for t in chosen]
