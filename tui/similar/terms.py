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

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tui.corpus.stem import stem_words
from tui.corpus.stopwords import STOPWORDS
from tui.corpus.tokens import tokenize
from tui.search.bulk import Vocabulary, tokenize_texts

_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
# Where a clause ends: two words on either side of these are not a pair.
_CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]{}$\"“”]")
# A pair (bigram) must be in at least this many abstracts to be a term.
_MIN_PAIR_DOCS = 2
# Texts tokenized at once: bounds the memory of the joined text (UTF-32 when not ASCII).
_BLOCK_TEXTS = 4096

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


def count_terms(texts: Iterable[str]) -> TermMatrix:
    """Count the terms of each text (stems and pairs, see the module) into a `TermMatrix`.

    Texts are tokenized a block at a time by the search index's tokenizer
    (`tui.search.bulk`: words numbered with NumPy, one Python string per distinct
    word rather than per token); pairs, counting and the rows are then made with
    NumPy over the whole corpus at once.
    """
    vocab = Vocabulary()
    content: list[bool] = []  # whether each word of `vocab` carries meaning
    blocks: list[tuple[IntArray, npt.NDArray[np.bool_], OffsetArray]] = []
    batch: list[str] = []
    for text in texts:
        batch.append(_clauses(text))
        if len(batch) == _BLOCK_TEXTS:
            blocks.append(_content_block(batch, vocab, content))
            batch = []
    if batch or not blocks:
        blocks.append(_content_block(batch, vocab, content))
    words = np.concatenate([b[0] for b in blocks])
    follows = np.concatenate([b[1] for b in blocks])
    lengths = np.concatenate([b[2] for b in blocks])
    del blocks
    # Words numbered as first met among the content words, text after text, and each
    # stem as its first word is: term numbers do not depend on how texts were batched.
    seen, first = np.unique(words, return_index=True)
    by_sighting = seen[np.argsort(first, kind="stable")]
    form_of_word = np.full(len(content), -1, dtype=np.int64)
    form_of_word[by_sighting] = np.arange(len(by_sighting))
    forms = form_of_word[words]
    del words
    spelled = list(vocab.ids)  # by word number: numbers are given in insertion order
    names = [spelled[w] for w in by_sighting.tolist()]
    stem_ids: dict[str, int] = {}
    stem_of_form = [stem_ids.setdefault(key, len(stem_ids)) for key in stem_words(names)]
    return _matrix(names, stem_of_form, len(stem_ids), forms, follows, lengths)


def _clauses(text: str) -> str:
    """`text` without LaTeX command names, each clause break made the token `0`: a number,
    so no content word, so no pair spans it."""
    if "\\" in text:
        text = _LATEX_COMMAND.sub(" ", text)
    return _CLAUSE_BREAK.sub(" 0 ", text)


def _content_block(
    texts: list[str], vocab: Vocabulary, content: list[bool]
) -> tuple[IntArray, npt.NDArray[np.bool_], OffsetArray]:
    """The content words of `texts` (numbered in `vocab`), whether each follows another
    content word of its clause, and how many each text has."""
    if not texts:
        return np.zeros(0, np.int32), np.zeros(0, np.bool_), np.zeros(0, np.int64)
    tokens = tokenize_texts(texts, vocab, compounds=False)
    if len(vocab.ids) > len(content):
        content.extend(map(_is_content, itertools.islice(vocab.ids, len(content), None)))
    keep = np.asarray(content, dtype=np.bool_)[tokens.ids]
    # A text's first token follows nothing (never a word of the text before).
    after = np.zeros(len(keep), dtype=np.bool_)
    after[1:] = keep[:-1]
    text_starts = np.cumsum(tokens.lengths[:-1])
    after[text_starts[text_starts < len(after)]] = False  # texts after the last token: none
    owner = np.repeat(np.arange(len(texts)), tokens.lengths)[keep]
    lengths = np.bincount(owner, minlength=len(texts)).astype(np.int64)
    return tokens.ids[keep], after[keep], lengths


def _matrix(
    names: list[str],
    stem_of_form: list[int],
    n_stems: int,
    forms: npt.NDArray[np.int64],
    follows: npt.NDArray[np.bool_],
    lengths: OffsetArray,
) -> TermMatrix:
    """The term matrix of the content words `forms` (numbered as `names`), text after
    text (`lengths` of each); `follows[k]`: word k makes a pair with the one before.

    Stems are terms 0..n_stems-1, pairs come after them in the order of their stems'
    numbers; a pair of one abstract only is dropped. Words and pairs are counted apart
    (two sorts of their own size rather than one of both) and each row is its words
    then its pairs, so sorted.
    """
    n_docs = len(lengths)
    form_stem = np.asarray(stem_of_form, dtype=np.int64)
    doc = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
    # Each term is shown as its most frequent written form (ties: the first seen).
    shown = [names[f] for f in _most_frequent(form_stem, np.bincount(forms)).tolist()]
    word_cells, word_counts = np.unique(
        doc * max(n_stems, 1) + form_stem[forms], return_counts=True
    )
    word_rows = np.bincount(word_cells // max(n_stems, 1), minlength=n_docs)
    word_terms = word_cells % max(n_stems, 1)
    del word_cells

    # Pairs: a word and the one before it, when it follows it (never across texts:
    # a text's first word follows nothing). Each distinct written pair once, then
    # the pairs of stems they write.
    paired = np.flatnonzero(follows)
    n_forms = max(len(names), 1)
    written, written_of, written_count = np.unique(
        forms[paired - 1] * n_forms + forms[paired], return_inverse=True, return_counts=True
    )
    written_code = form_stem[written // n_forms] * n_stems + form_stem[written % n_forms]
    codes, pair_of_written = np.unique(written_code, return_inverse=True)
    n_pairs = max(len(codes), 1)
    pair_cells, pair_counts = np.unique(
        doc[paired] * n_pairs + pair_of_written[written_of.reshape(-1)], return_counts=True
    )
    del doc, written_of
    pair_docs = np.bincount(pair_cells % n_pairs, minlength=len(codes))
    keep = pair_docs >= _MIN_PAIR_DOCS
    kept_cell = keep[pair_cells % n_pairs]
    pair_cells, pair_counts = pair_cells[kept_cell], pair_counts[kept_cell]
    pair_rows = np.bincount(pair_cells // n_pairs, minlength=n_docs)
    pair_terms = n_stems + (np.cumsum(keep, dtype=np.int64) - 1)[pair_cells % n_pairs]
    del pair_cells
    best_written = written[_most_frequent(pair_of_written, written_count)][keep]
    for code in best_written.tolist():
        shown.append(f"{names[code // n_forms]} {names[code % n_forms]}")
    kept_codes = codes[keep]
    parts = np.full((n_stems + len(kept_codes), 2), -1, dtype=np.int32)
    parts[:n_stems, 0] = np.arange(n_stems)
    parts[n_stems:, 0] = kept_codes // max(n_stems, 1)
    parts[n_stems:, 1] = kept_codes % max(n_stems, 1)

    # Each row: its words, then its pairs.
    indptr = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(word_rows + pair_rows, out=indptr[1:])
    word_at = np.arange(len(word_terms)) + np.repeat(
        indptr[:-1] - np.cumsum(word_rows) + word_rows, word_rows
    )
    pair_at = np.arange(len(pair_terms)) + np.repeat(
        indptr[:-1] + word_rows - np.cumsum(pair_rows) + pair_rows, pair_rows
    )
    indices = np.empty(int(indptr[-1]), dtype=np.int32)
    counts = np.empty(int(indptr[-1]), dtype=np.int32)
    indices[word_at], counts[word_at] = word_terms, word_counts
    indices[pair_at], counts[pair_at] = pair_terms, pair_counts
    return TermMatrix(shown, indptr, indices, counts, parts)


def _most_frequent(group: npt.NDArray[np.int64], count: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """For groups numbered 0..n-1 (`group[i]` is item i's), the item of each group with
    the largest `count`, the first item on ties; in group order."""
    order = np.lexsort((np.arange(len(group)), -count[: len(group)], group))
    if not len(order):
        return order
    starts = np.r_[True, group[order][1:] != group[order][:-1]]
    chosen: npt.NDArray[np.int64] = order[starts]
    return chosen


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
