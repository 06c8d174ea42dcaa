"""The search index: build it once per corpus, then answer queries per keystroke.

Each term becomes a few ranges of the sorted vocabulary (exact word, the
completions of a half-typed word, near spellings: see `expand.py`); their
postings are summed into one score per abstract with numpy (BM25 with idf of
the term's whole expansion). Terms are ANDed; phrases are checked against each
candidate's word sequence; fields are boolean masks (see `filters.py`).
Per-term score vectors are cached, so typing one more letter recomputes one term.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from tui.corpus.model import Corpus
from tui.search.build import IndexData, build_index_data
from tui.search.expand import Expander, Expansion
from tui.search.filters import BoolArray, FilterContext, select
from tui.search.highlight import Highlighter
from tui.search.personal import PersonalData
from tui.search.query import Query, parse_query

Order = Literal["relevance", "file"]
FloatArray = npt.NDArray[np.float32]

# A phrase's words weigh this much more than the same words scattered.
PHRASE_BOOST = 1.5


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Matching abstracts as indices into `corpus.abstracts`, best first (or in file order).

    `total` counts every match; `indices` may be cut to a requested limit.
    """

    indices: list[int]
    scores: list[float]
    total: int


class SearchIndex:
    """Vocabulary, postings and metadata of one corpus. Pickle `data` to keep it."""

    def __init__(self, data: IndexData, term_cache_size: int = 64) -> None:
        self.data = data
        self._expander = Expander(data.vocab, post_ptr=data.post_ptr)
        self._terms: OrderedDict[tuple[str, bool, bool], FloatArray | None] = OrderedDict()
        self._term_cache_size = term_cache_size

    @classmethod
    def build(cls, corpus: Corpus) -> SearchIndex:
        """Index every abstract of `corpus` (its rendered text, headline and LaTeX macro names)."""
        return cls(build_index_data(corpus))

    def __len__(self) -> int:
        return len(self.data.ids)

    def clear_caches(self) -> None:
        """Forget cached term expansions and scores (benchmarks use it to measure cold terms)."""
        self._terms.clear()
        self._expander.clear()

    def expansion(self, word: str, prefix: bool = False, fuzzy: bool = True) -> Expansion:
        """The vocabulary ranges a term matches (for tests and the curious)."""
        return self._expander.expand(word, prefix, fuzzy)

    def search(
        self,
        query: Query | str,
        corpus: Corpus | None = None,
        personal: PersonalData | None = None,
        order: Order = "relevance",
        limit: int | None = None,
    ) -> SearchResult:
        """Abstracts matching `query` (a string is parsed, and may raise QueryError).

        `corpus`, when given, is checked to be the one indexed. Personal fields
        read `personal`; without it they see no bookmarks, notes or read marks.
        An empty query returns everything in file order.
        """
        if isinstance(query, str):
            query = parse_query(query)
        n = len(self)
        if corpus is not None and len(corpus.abstracts) != n:
            raise ValueError("this index was built for a different corpus")
        if query.is_empty:
            everything = list(range(n if limit is None else min(n, limit)))
            return SearchResult(everything, [0.0] * len(everything), n)

        mask: BoolArray = np.ones(n, dtype=np.bool_)
        score = np.zeros(n, dtype=np.float32)
        ranked = False
        for term in query.terms:
            if term.negated:
                exact = self._term_scores(term.word, prefix=False, fuzzy=False)
                if exact is not None:
                    mask &= exact == 0
                continue
            vector = self._term_scores(term.word, term.prefix, fuzzy=True)
            if vector is None:
                return SearchResult([], [], 0)
            mask &= vector > 0
            score += vector
            ranked = True
        for phrase in query.phrases:
            found = self._phrase_mask(phrase.words)
            if phrase.negated:
                mask &= ~found
                continue
            mask &= found
            for word in phrase.words:
                vector = self._term_scores(word, prefix=False, fuzzy=False)
                if vector is not None:
                    score += PHRASE_BOOST * vector
            ranked = True
        if query.fields:
            ctx = FilterContext(self.data, personal)
            for clause in query.fields:
                selected = select(clause, ctx)
                mask &= ~selected if clause.negated else selected

        indices = np.flatnonzero(mask)
        total = int(indices.size)
        if order == "relevance" and ranked and total:
            # Stable: equal scores keep file order.
            indices = indices[np.argsort(-score[indices], kind="stable")]
        if limit is not None:
            indices = indices[:limit]
        return SearchResult(indices.tolist(), score[indices].tolist(), total)

    def highlighter(self, query: Query | str) -> Highlighter:
        """What to paint for `query`: every word its terms expanded to, and its phrases
        (their words only where the whole phrase occurs)."""
        if isinstance(query, str):
            query = parse_query(query)
        words: set[str] = set()
        prefixes: list[str] = []
        phrases: list[tuple[str, ...]] = []
        for term in query.terms:
            if term.negated:
                continue
            expansion = self._expander.expand(term.word, term.prefix, True)
            words.add(term.word)
            words |= expansion.words(self.data.vocab)
            prefixes.extend(expansion.prefixes)
        for phrase in query.phrases:
            if phrase.negated:
                continue
            if len(phrase.words) == 1:
                words.add(phrase.words[0])
            else:
                phrases.append(phrase.words)
        return Highlighter(frozenset(words), tuple(prefixes), tuple(phrases))

    def _term_scores(self, word: str, prefix: bool, fuzzy: bool) -> FloatArray | None:
        """BM25 score of every abstract for one term (None when nothing matches); cached."""
        key = (word, prefix, fuzzy)
        if key in self._terms:
            self._terms.move_to_end(key)
            return self._terms[key]
        vector = self._compute_term(self._expander.expand(word, prefix, fuzzy))
        self._terms[key] = vector
        if len(self._terms) > self._term_cache_size:
            self._terms.popitem(last=False)
        return vector

    def _compute_term(self, expansion: Expansion) -> FloatArray | None:
        data = self.data
        n = len(self)
        docs: list[npt.NDArray[np.int32]] = []
        weights: list[npt.NDArray[np.float32]] = []
        for r in expansion.ranges:
            start, end = int(data.post_ptr[r.lo]), int(data.post_ptr[r.hi])
            if end > start:
                docs.append(data.post_doc[start:end])
                part = data.post_weight[start:end]
                weights.append(part if r.weight == 1.0 else part * np.float32(r.weight))
        if not docs:
            return None
        all_docs = docs[0] if len(docs) == 1 else np.concatenate(docs)
        all_weights = weights[0] if len(weights) == 1 else np.concatenate(weights)
        raw = np.bincount(all_docs, weights=all_weights, minlength=n)
        # idf of the expansion as one pseudo-word: rarer terms weigh more.
        df = int(np.count_nonzero(raw))
        idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        result: FloatArray = (raw * idf).astype(np.float32)
        return result

    def _phrase_mask(self, words: tuple[str, ...]) -> BoolArray:
        """Abstracts where `words` occur adjacent and in order."""
        data = self.data
        mask: BoolArray = np.zeros(len(self), dtype=np.bool_)
        ids = [self._expander.exact(w) for w in words]
        if any(i is None for i in ids):
            return mask
        word_ids = np.asarray(ids, dtype=np.int64)
        counts = data.post_ptr[word_ids + 1] - data.post_ptr[word_ids]
        anchor = int(np.argmin(counts))
        a_id = int(word_ids[anchor])
        candidates = data.post_doc[data.post_ptr[a_id] : data.post_ptr[a_id + 1]]
        if len(words) == 1:
            mask[candidates] = True
            return mask
        # Every token position of the candidate abstracts, without a Python loop.
        starts = data.tok_ptr[candidates]
        lengths = data.tok_ptr[candidates + 1] - starts
        total = int(lengths.sum())
        if total == 0:
            return mask
        offsets = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
        positions = np.arange(total, dtype=np.int64) + offsets
        tokens = data.tokens
        pos = positions[tokens[positions] == a_id] - anchor
        k = len(words)
        pos = pos[(pos >= 0) & (pos + k <= tokens.size)]
        ok = np.ones(pos.size, dtype=np.bool_)
        for j, wid in enumerate(word_ids):
            ok &= tokens[pos + j] == wid
        pos = pos[ok]
        first = np.searchsorted(data.tok_ptr, pos, side="right") - 1
        last = np.searchsorted(data.tok_ptr, pos + k - 1, side="right") - 1
        mask[first[first == last]] = True
        return mask
