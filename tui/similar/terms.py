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
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from tui.corpus.stem import stem_words
from tui.corpus.stopwords import STOPWORDS
from tui.corpus.tokens import tokenize
from tui.search.blocks import release_memory
from tui.search.bulk import Tokens, Vocabulary, numbered, tokenize_texts
from tui.search.parallel import ForkedHelper, read_head_and_words, read_into

_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
# Where a clause ends: two words on either side of these are not a pair.
_CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]{}$\"“”]")
# A pair (bigram) must be in at least this many abstracts to be a term.
_MIN_PAIR_DOCS = 2
# Texts tokenized at once: bounds the memory of the joined text (UTF-32 when not ASCII).
_BLOCK_TEXTS = 1024

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
        return summed_by(self.indices, self.n_terms).astype(np.int32)


# Entries counted at once by `summed_by`.
_SUM_CHUNK = 1 << 21


def summed_by(
    keys: npt.NDArray[np.integer[Any]],
    length: int,
    weights: npt.NDArray[np.number[Any]] | None = None,
) -> npt.NDArray[Any]:
    """`np.bincount(keys, weights, minlength=length)` a piece at a time: bincount copies
    its whole input as 64-bit numbers first (100 MB each for the 13 million entries of
    100,000 abstracts). Counts are exact; weighted sums differ only by rounding."""
    out = np.zeros(length, dtype=np.int64 if weights is None else np.float64)
    for lo in range(0, len(keys), _SUM_CHUNK):
        piece = None if weights is None else weights[lo : lo + _SUM_CHUNK]
        out += np.bincount(keys[lo : lo + _SUM_CHUNK], piece, minlength=length)
    return out


def count_terms(
    texts: Iterable[str], helped: Callable[[], Iterable[str]] | None = None
) -> TermMatrix:
    """Count the terms of each text (stems and pairs, see the module) into a `TermMatrix`.

    Texts are counted a block at a time (`TermCounter`): only each block's counts are
    kept, never its tokens, so the memory of a count is about that of its result.
    `helped()`: more texts, counted after `texts`, whose tokenizing (most of a count)
    a forked helper does while this process counts `texts` (see `_Tokenizer`); the
    matrix is the one `count_terms` of all the texts in one go makes.
    """
    counter = TermCounter()
    helper = None if helped is None else _Tokenizer.start(helped)
    received = None
    try:
        for batch in _batches(texts):
            counter.add(batch)
        if helper is not None:
            received = helper.receive()
    finally:
        if helper is not None:
            helper.close()
    if received is not None:
        words, ids, lengths = received
        counter.add_tokenized(words, ids, lengths)
    elif helped is not None:  # no helper, or it failed: tokenized here
        for batch in _batches(helped()):
            counter.add(batch)
    return counter.matrix()


def _batches(texts: Iterable[str]) -> Iterator[list[str]]:
    """`texts` in lists of `_BLOCK_TEXTS` (the last one shorter, never empty)."""
    batch: list[str] = []
    for text in texts:
        batch.append(text)
        if len(batch) == _BLOCK_TEXTS:
            yield batch
            batch = []
    if batch:
        yield batch


class _Tokenizer(ForkedHelper):
    """A forked helper tokenizing texts as `TermCounter.add` does, in a vocabulary of its
    own, and sending back its words and every text's tokens numbered in it.

    Once the counter has counted its own texts it takes in the helper's tokens
    (`TermCounter.add_tokenized`): what a counter makes of a text depends on its
    tokens' words, not on their numbers, so the matrix is the same as if this process
    had tokenized them. The tokens wait in the helper until then (4 bytes each: 40 MB
    for 60,000 abstracts, the helper's vocabulary aside).
    """

    @classmethod
    def start(cls, texts: Callable[[], Iterable[str]]) -> _Tokenizer | None:
        """The helper tokenizing `texts()`; None when no process can be forked."""
        try:
            return cls(lambda out: _send_tokens(out, texts()))
        except OSError:
            return None

    def receive(self) -> tuple[list[str], IntArray, OffsetArray] | None:
        """The helper's words (by number), tokens and tokens per text; None when it failed."""
        pipe = self.pipe
        assert pipe is not None
        try:
            head, words = read_head_and_words(pipe)
            ids = np.empty(int(head["tokens"]), dtype=np.int32)
            read_into(pipe, ids.data.cast("B"))
            lengths = np.empty(int(head["texts"]), dtype=np.int64)
            read_into(pipe, lengths.data.cast("B"))
        except (OSError, ValueError, EOFError, KeyError, TypeError):
            return None
        if int(lengths.sum()) != len(ids) or (len(ids) and int(ids.max()) >= len(words)):
            return None
        return words, ids, lengths


def _send_tokens(out: BinaryIO, texts: Iterable[str]) -> None:
    """Helper side: tokenize `texts` a block at a time, then write a header line, the
    words (NUL-separated: no word holds one), the tokens and each text's token count."""
    vocab = Vocabulary()
    ids: list[IntArray] = []
    lengths: list[OffsetArray] = []
    for batch in _batches(texts):
        tokens = tokenize_texts([_clauses(t) for t in batch], vocab, compounds=False)
        ids.append(tokens.ids)
        lengths.append(tokens.lengths)
        del tokens
        release_memory()
    words = "\0".join(vocab.ids).encode("utf-8", "surrogatepass")
    head = {
        "words": len(vocab.ids),
        "bytes": len(words),
        "tokens": sum(len(i) for i in ids),
        "texts": sum(len(n) for n in lengths),
    }
    out.write(json.dumps(head).encode("ascii") + b"\n")
    out.write(words)
    for part in ids:
        out.write(np.ascontiguousarray(part, dtype=np.int32).data)
    for count in lengths:
        out.write(np.ascontiguousarray(count, dtype=np.int64).data)


def _clauses(text: str) -> str:
    """`text` without LaTeX command names, each clause break made the token `0`: a number,
    so no content word, so no pair spans it."""
    if "\\" in text:
        text = _LATEX_COMMAND.sub(" ", text)
    return _CLAUSE_BREAK.sub(" 0 ", text)


# A pair of stems (or of written words) as one number: the first's number in the high half.
_SHIFT = 32
_LOW = (1 << _SHIFT) - 1


@dataclass(slots=True)
class _Cells:
    """One block's counts: its texts' terms (`keys`, ascending within a text) with their
    `counts`, `rows[i]` of them for the block's i-th text."""

    rows: OffsetArray
    keys: npt.NDArray[np.integer[Any]]
    counts: IntArray


class TermCounter:
    """Term counts made a block of texts at a time (`add`), then the matrix (`matrix`).

    Texts are tokenized by the search index's tokenizer (`tui.search.bulk`: words
    numbered with NumPy, one Python string per distinct word rather than per token).
    Words are numbered as first met among the content words, text after text, and each
    stem as its first word is, so numbers never change once given and do not depend
    on how texts were batched. Between blocks only each text's distinct stems and stem
    pairs with their counts are kept (and the counts of each written pair, for how a
    pair is shown); a pair's document frequency, which decides whether it is a term,
    is known only at the end.
    """

    def __init__(self) -> None:
        self._vocab = Vocabulary()
        self._spelled: list[str] = []  # the vocabulary's words by number
        self._content = np.zeros(0, dtype=np.bool_)  # whether each carries meaning
        self._form_of_word = np.zeros(0, dtype=np.int64)  # its content-word number, or -1
        self._names: list[str] = []  # content words by number
        self._form_stem = np.zeros(0, dtype=np.int64)
        self._form_count = np.zeros(0, dtype=np.int64)  # occurrences of each content word
        self._stem_ids: dict[str, int] = {}
        self._words: list[_Cells] = []
        self._pairs: list[_Cells] = []
        # Each block's distinct pairs of stems, with the number of its texts using each.
        self._pair_docs: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = []
        self._written: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = []

    def add(self, texts: Sequence[str]) -> None:
        """Count the next texts (the rows after those counted so far)."""
        if not texts:
            return
        self._add(tokenize_texts([_clauses(t) for t in texts], self._vocab, compounds=False))

    def add_tokenized(self, words: list[str], ids: IntArray, lengths: OffsetArray) -> None:
        """Count the next texts, tokenized elsewhere as `add` tokenizes them: each one's
        tokens (`lengths[i]` of `ids` for the i-th) numbered in another vocabulary whose
        words by number are `words`. The words new to this counter are numbered in the
        order of their numbers there, as if this counter had met them."""
        mapping = numbered(words, self._vocab.ids)
        ends = np.cumsum(lengths)
        for lo in range(0, len(lengths), _BLOCK_TEXTS):
            hi = min(lo + _BLOCK_TEXTS, len(lengths))
            start = int(ends[lo - 1]) if lo else 0
            block = mapping[ids[start : int(ends[hi - 1])]]
            empty = np.zeros(0, dtype=np.int64)
            self._add(Tokens(block, lengths[lo:hi], empty, empty.astype(np.int32)))

    def _add(self, tokens: Tokens) -> None:
        """Count the texts whose tokens (numbered in this counter's vocabulary) are `tokens`."""
        m = len(tokens.lengths)  # texts
        self._grow_vocabulary()
        keep = self._content[tokens.ids]
        # Whether each content word follows another of its clause: a text's first token
        # follows nothing (never a word of the text before).
        after = np.zeros(len(keep), dtype=np.bool_)
        after[1:] = keep[:-1]
        text_starts = np.cumsum(tokens.lengths[:-1])
        after[text_starts[text_starts < len(after)]] = False
        doc = np.repeat(np.arange(m, dtype=np.int64), tokens.lengths)[keep]
        follows = after[keep]
        forms = self._forms(tokens.ids[keep])
        del tokens, keep, after
        self._form_count += np.bincount(forms, minlength=len(self._form_count))
        stems = self._form_stem[forms]
        words = _cells(doc, stems, m, span=len(self._stem_ids))
        words.keys = words.keys.astype(np.int32)  # term numbers already
        self._words.append(words)
        paired = np.flatnonzero(follows)
        written = (forms[paired - 1] << _SHIFT) | forms[paired]
        _settled(self._written, _tally(written))
        pairs = _cells(doc[paired], (stems[paired - 1] << _SHIFT) | stems[paired], m)
        self._pairs.append(pairs)
        # A text's pairs are distinct cells.
        _settled(self._pair_docs, _tally(pairs.keys.astype(np.int64)))
        del doc, follows, forms, stems, paired, written
        release_memory()

    def _grow_vocabulary(self) -> None:
        """Take in the words the tokenizer has numbered since the last block."""
        new = list(itertools.islice(self._vocab.ids, len(self._spelled), None))
        if new:
            self._spelled += new
            flags = np.fromiter(map(_is_content, new), dtype=np.bool_, count=len(new))
            self._content = np.concatenate([self._content, flags])
            unseen = np.full(len(new), -1, dtype=np.int64)
            self._form_of_word = np.concatenate([self._form_of_word, unseen])

    def _forms(self, words: IntArray) -> npt.NDArray[np.int64]:
        """The content-word numbers of `words` (vocabulary numbers), numbering those met
        for the first time in the order they are met."""
        fresh = words[self._form_of_word[words] < 0]
        if len(fresh):
            seen, first = np.unique(fresh, return_index=True)
            new = seen[np.argsort(first)]
            start = len(self._names)
            self._form_of_word[new] = np.arange(start, start + len(new))
            names = [self._spelled[w] for w in new.tolist()]
            self._names += names
            stem_ids = self._stem_ids
            stems = [stem_ids.setdefault(key, len(stem_ids)) for key in stem_words(names)]
            self._form_stem = np.concatenate([self._form_stem, np.asarray(stems, np.int64)])
            self._form_count = np.concatenate([self._form_count, np.zeros(len(new), np.int64)])
        forms: npt.NDArray[np.int64] = self._form_of_word[words]
        return forms

    def matrix(self) -> TermMatrix:
        """The term matrix of every text added (this counter's counts are used up).

        Stems are terms 0..n_stems-1, pairs come after them in the order of their stems'
        numbers; a pair of one abstract only is dropped. Each term is shown as its most
        frequent written form (ties: the first met); each row is its words, then its
        pairs, so sorted.
        """
        n_stems = len(self._stem_ids)
        names = self._names
        shown = [names[f] for f in _most_frequent(self._form_stem, self._form_count).tolist()]
        codes, docs = _tally(
            _joined([c for c, _ in self._pair_docs]), _joined([d for _, d in self._pair_docs])
        )
        self._pair_docs = []
        kept = codes[docs >= _MIN_PAIR_DOCS]
        del codes, docs
        for first, second in self._most_written(kept).tolist():
            shown.append(f"{names[first]} {names[second]}")
        parts = np.full((n_stems + len(kept), 2), -1, dtype=np.int32)
        parts[:n_stems, 0] = np.arange(n_stems)
        parts[n_stems:, 0] = kept >> _SHIFT
        parts[n_stems:, 1] = kept & _LOW
        # Pairs renumbered as terms, those of one abstract dropped, block by block.
        for block in self._pairs:
            at = np.searchsorted(kept, block.keys)
            found = at < len(kept)
            found[found] = kept[at[found]] == block.keys[found]
            doc = np.repeat(np.arange(len(block.rows)), block.rows)[found]
            block.rows = np.bincount(doc, minlength=len(block.rows))
            block.keys = n_stems + at[found]
            block.counts = block.counts[found]
            release_memory()
        return self._rows(shown, parts)

    def _most_written(self, kept: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """For each pair of stems in `kept` (ascending codes), the two content words most
        often written for it (ties: the first-met words), as rows of (first, second)."""
        written, count = _tally(
            _joined([w for w, _ in self._written]), _joined([c for _, c in self._written])
        )
        self._written = []
        stems = (self._form_stem[written >> _SHIFT] << _SHIFT) | self._form_stem[written & _LOW]
        pair = np.searchsorted(kept, stems)
        used = pair < len(kept)
        used[used] = kept[pair[used]] == stems[used]
        best = written[used][_most_frequent(pair[used], count[used])]
        return np.stack([best >> _SHIFT, best & _LOW], axis=1)

    def _rows(self, shown: list[str], parts: IntArray) -> TermMatrix:
        """The matrix from each block's word and (renumbered) pair counts, which are let
        go of block by block as they are copied in: the matrix's pages are only taken
        as they are written, so the counts and the matrix are not both whole at once."""
        word_rows = _joined([c.rows for c in self._words])
        pair_rows = _joined([c.rows for c in self._pairs])
        n_docs = len(word_rows)
        indptr = np.zeros(n_docs + 1, dtype=np.int64)
        np.cumsum(word_rows + pair_rows, out=indptr[1:])
        indices = np.empty(int(indptr[-1]), dtype=np.int32)
        counts = np.empty(int(indptr[-1]), dtype=np.int32)
        first = 0
        self._words.reverse()
        self._pairs.reverse()
        while self._words:
            words, pairs = self._words.pop(), self._pairs.pop()
            m = len(words.rows)
            starts = indptr[first : first + m]
            word_at = np.arange(len(words.keys)) + np.repeat(
                starts - np.cumsum(words.rows) + words.rows, words.rows
            )
            pair_at = np.arange(len(pairs.keys)) + np.repeat(
                starts + words.rows - np.cumsum(pairs.rows) + pairs.rows, pairs.rows
            )
            indices[word_at], counts[word_at] = words.keys, words.counts
            indices[pair_at], counts[pair_at] = pairs.keys, pairs.counts
            first += m
            del words, pairs, word_at, pair_at
            release_memory()
        return TermMatrix(shown, indptr, indices, counts, parts)


def _settled(
    tallies: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]],
    tally: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]],
) -> None:
    """Add one block's `tally` to `tallies`, merging the last ones (`_tally` of their
    keys and sums) while the last is at least half as long as the one before: the list
    then holds a few tallies of geometrically shrinking lengths, about the distinct
    keys met so far, not every block's (most pairs recur from block to block: 94 MB of
    block tallies at 100,000 abstracts, 5 MB merged). The sums are exact, so the final
    `_tally` of the list is the same whenever merges happened."""
    tallies.append(tally)
    while len(tallies) > 1 and 2 * len(tallies[-1][0]) >= len(tallies[-2][0]):
        (keys, sums), (more, extra) = tallies[-2], tallies.pop()
        tallies[-1] = _tally(np.concatenate([keys, more]), np.concatenate([sums, extra]))


def _joined(arrays: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)


def _tally(
    keys: npt.NDArray[np.int64],
    weights: npt.NDArray[np.int64] | None = None,
    by_text: bool = False,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The distinct `keys`, ascending, and how often each occurs (or the sum of its
    `weights`). `by_text`: the keys are already in order of their high part (a text's),
    so a stable sort, which merges what is in order, sorts them twice as quickly."""
    order = np.argsort(keys, kind="stable") if weights is not None else None
    if order is not None:
        ordered = keys[order]
    else:
        ordered = np.sort(keys, kind="stable" if by_text else None)
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(ordered) else ordered
    distinct: npt.NDArray[np.int64] = ordered[starts]
    if weights is None or order is None:
        return distinct, np.diff(np.r_[starts, len(ordered)]).astype(np.int64)
    summed = np.add.reduceat(weights[order], starts) if len(starts) else weights[:0]
    return distinct, summed.astype(np.int64)


def _cells(
    doc: npt.NDArray[np.int64], keys: npt.NDArray[np.int64], m: int, span: int | None = None
) -> _Cells:
    """The distinct (doc, key) of `m` texts with their counts, by doc then key. `span`: a
    bound on the keys, when small (else the keys are numbered first)."""
    distinct = None
    if span is None:
        distinct, keys = np.unique(keys, return_inverse=True)
        span = len(distinct)
    span = max(span, 1)
    cells, counts = _tally(doc * span + keys.reshape(-1), by_text=True)  # doc ascending
    rows = np.bincount(cells // span, minlength=m).astype(np.int64)
    keys = cells % span
    return _Cells(rows, keys if distinct is None else distinct[keys], counts.astype(np.int32))


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
