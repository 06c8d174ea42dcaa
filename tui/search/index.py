"""The search index: build it once per corpus, then answer queries per keystroke.

Each term becomes a few ranges of the sorted vocabulary (exact word, the
completions of a half-typed word, near spellings: see `expand.py`) plus the
word's inflections and other spellings (`networks` finds `network`) and, only
towards a close match, the other words of its stem (`terms.py`, `forms.py`);
their postings are summed into one BM25 score per abstract with numpy. Stop
words are never required. Abstracts having every term come first; then, as
"close matches", those having or near most of the terms (at least half; fewer
only when nothing else shares a word with the query), each group ranked by BM25 with a bonus for
query words standing next to each other. Phrases, exclusions and fields are
strict filters (see `filters.py`). Per-term results are cached, so typing one
more letter recomputes one term.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

import numpy as np

from tui.corpus.model import Corpus
from tui.corpus.stopwords import STOPWORDS
from tui.search.build import IndexData, build_index_data
from tui.search.expand import Expander, Expansion
from tui.search.filters import BoolArray, FilterContext, TopicNumbers, select
from tui.search.highlight import Highlighter
from tui.search.personal import PersonalData
from tui.search.positions import TokenReader, phrase_mask, rank
from tui.search.query import Query, Term, parse_query
from tui.search.terms import FORM_WEIGHT, KNOWN_FUZZY_SCALE, Forms, TermMatch, compute_term

if TYPE_CHECKING:
    from tui.search.parallel import HalfIndexer

Order = Literal["relevance", "file"]

# The weights of a term's words live with the term (`terms.py`); named here too for tests.
__all__ = ["FORM_WEIGHT", "KNOWN_FUZZY_SCALE", "SearchIndex", "SearchResult"]

# A phrase's words weigh this much more than the same words scattered.
PHRASE_BOOST = 1.5
# A term in more than this share of the abstracts is not required for a full match.
COMMON_SHARE = 0.5
# ... in a corpus of at least this many (in a handful, "most" means little).
COMMON_MIN_ABSTRACTS = 20
# Terms whose scores are kept (typing one more letter recomputes one term): up to
# TERM_CACHE_MAX, fewer for a large corpus (12 MB: 24 terms at 100,000 abstracts),
# but at least TERM_CACHE_MIN, more than the terms of any query typed.
TERM_CACHE_BYTES = 12 * 2**20
TERM_CACHE_MIN = 16
TERM_CACHE_MAX = 64


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Matching abstracts as indices into `corpus.abstracts`, best first (or in file order).

    The first `matched` of `indices` match every term of the query; the rest
    (`close` of them in all) match most terms: the "closest matches".
    `total` counts both groups; `indices` may be cut to a requested limit.
    """

    indices: list[int]
    scores: list[float]
    total: int
    matched: int = -1
    close: int = 0

    def __post_init__(self) -> None:
        if self.matched < 0:
            object.__setattr__(self, "matched", self.total - self.close)

    def is_close(self, position: int) -> bool:
        """True when the row at `position` of `indices` is a close match, not a full one."""
        return position >= self.matched


class SearchIndex:
    """Vocabulary, postings and metadata of one corpus (`data`; see tui.search.cache)."""

    def __init__(
        self,
        data: IndexData,
        term_cache_size: int | None = None,
        tokens: TokenReader | None = None,
    ) -> None:
        """`tokens`: where the abstracts' words are read from (default `data.tokens`;
        a cached index reads them from its file: see `tui.cachefile.Runs`)."""
        self.data = data
        self._tokens = tokens
        self._expander = Expander(data.vocab, post_ptr=data.post_ptr)
        self._terms: OrderedDict[tuple[str, bool, bool], TermMatch | None] = OrderedDict()
        self._forms: Forms = {}
        if term_cache_size is None:
            # A cached term holds 5 bytes per abstract (score and presence).
            fits = TERM_CACHE_BYTES // max(5 * len(data.ids), 1)
            term_cache_size = min(max(fits, TERM_CACHE_MIN), TERM_CACHE_MAX)
        self._term_cache_size = term_cache_size

    @classmethod
    def build(
        cls, corpus: Corpus, fork_safe: bool = False, other: HalfIndexer | None = None
    ) -> SearchIndex:
        """Index every abstract of `corpus` (its rendered text, headline and LaTeX macro names);
        for `fork_safe` see `tui.search.parallel.workers_for`; `other`: another process
        indexing the abstracts from `other.lo` on (`tui.search.parallel.OtherHalf`)."""
        return cls(build_index_data(corpus, fork_safe=fork_safe, other=other))

    def __len__(self) -> int:
        return len(self.data.ids)

    def clear_caches(self) -> None:
        """Forget cached term expansions and scores (benchmarks use it to measure cold terms)."""
        self._terms.clear()
        self._forms.clear()
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
        topics: TopicNumbers | None = None,
    ) -> SearchResult:
        """Abstracts matching `query` (a string is parsed, and may raise QueryError).

        `corpus`, when given, is checked to be the one indexed. Personal fields
        read `personal`; without it they see no bookmarks, notes or read marks.
        `topic:` reads `topics` (each abstract's topic number); without it, nothing matches.
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

        # Strict clauses: exclusions, phrases and fields.
        mask: BoolArray = np.ones(n, dtype=np.bool_)
        score = np.zeros(n, dtype=np.float32)
        ranked = False
        for term in query.terms:
            if term.negated:
                excluded = self._term(term.word, prefix=False, fuzzy=False)
                if excluded is not None:
                    mask &= excluded.vector == 0
        for phrase in query.phrases:
            words = [self._expander.exact(w) for w in phrase.words]
            found = phrase_mask(self.data, words, self._tokens)
            if phrase.negated:
                mask &= ~found
                continue
            mask &= found
            for word in phrase.words:
                match = self._term(word, prefix=False, fuzzy=False)
                if match is not None:
                    score += PHRASE_BOOST * match.vector
            ranked = True
        if query.fields:
            ctx = FilterContext(self.data, personal, topics, corpus)
            for clause in query.fields:
                selected = select(clause, ctx)
                mask &= ~selected if clause.negated else selected

        # Graded terms: how many each abstract matches.
        required, optional = _split_terms(query)
        matches = self._required_matches(required)
        for term in optional:
            match = self._term(term.word, term.prefix, fuzzy=False)
            if match is not None:
                score += match.vector
        # Words in most abstracts say little about which one is meant: they add to
        # the score but are not required, unless the query has nothing rarer.
        common = n >= COMMON_MIN_ABSTRACTS
        counted = [m for m in matches if m is None or not common or m.df <= COMMON_SHARE * n]
        if not counted:
            counted = matches
        hits = np.zeros(n, dtype=np.int32)  # required terms matched
        rare_hits = np.zeros(n, dtype=np.int32)  # of those, the ones not common
        # Required terms met only through a cousin or a completion: enough for a close
        # match, never for a full one.
        near_hits = np.zeros(n, dtype=np.int32)
        for match in matches:
            if match is not None:
                score += match.vector
                hits += match.present
                ranked = True
        for match in counted:
            if match is not None:
                rare_hits += match.present
                if match.near is not None:
                    near_hits += match.near
        if required:
            reach = rare_hits + near_hits
            full = mask & (rare_hits == len(counted))
            close = mask & ~full & (reach >= max(1, math.ceil(len(counted) / 2)))
            if not full.any() and not close.any():
                # Nothing matches most of the query: whatever shares the most of its
                # informative words, or else of any of its words.
                shared = reach if mask.any() and reach[mask].max() > 0 else hits
                best = int(shared[mask].max()) if mask.any() else 0
                close = mask & (shared >= max(best, 1))
        else:
            full, close = mask, np.zeros(n, dtype=np.bool_)

        # Full matches holding more of the words (common ones too) first: one holding
        # a word is never below one with only its cousin. Close matches by score alone
        # (a cousin weighs a third of the word): ranking them by words held first lost
        # 0.016 of known-item MRR@10 (bench/quality.py).
        groups = []
        for group, tier in ((full, hits), (close, None)):
            indices = np.flatnonzero(group)
            if order == "relevance" and ranked and indices.size:
                indices = rank(self.data, indices, score, matches, tier, self._tokens)
            groups.append(indices)
        indices = np.concatenate(groups)
        matched, n_close = int(groups[0].size), int(groups[1].size)
        if not indices.size and any(not p.negated for p in query.phrases):
            # No abstract has the quoted phrase (often a pasted title quoting another):
            # the closest matches to its words rather than nothing.
            loose = _phrases_as_terms(query)
            result = self.search(loose, personal=personal, order=order, limit=limit)
            return SearchResult(result.indices, result.scores, result.total, 0, result.total)
        if limit is not None:
            indices = indices[:limit]
        return SearchResult(
            indices.tolist(), score[indices].tolist(), matched + n_close, matched, n_close
        )

    def _required_matches(self, required: list[Term]) -> list[TermMatch | None]:
        """Each required term's match; a term also counts as found where it is joined to
        its neighbour as one word (`pre training` finds `pretraining`)."""
        matches = [self._term(t.word, t.prefix, fuzzy=True) for t in required]
        for k, joined in self._joined(required):
            for j in (k, k + 1):
                old = matches[j]
                if old is None:
                    matches[j] = joined
                else:
                    present = old.present | joined.present
                    near = None if old.near is None else old.near & ~present
                    matches[j] = TermMatch(
                        np.maximum(old.vector, joined.vector),
                        old.ranges + joined.ranges,
                        np.concatenate([old.words, joined.words]),
                        old.idf,
                        present,
                        int(np.count_nonzero(present)),
                        near,
                    )
        return matches

    def _joined(self, required: list[Term]) -> list[tuple[int, TermMatch]]:
        """(k, match) for each pair of neighbouring terms k, k+1 found written as one word."""
        found = []
        for k in range(len(required) - 1):
            a, b = required[k], required[k + 1]
            joined = self._term(a.word + b.word, b.prefix, fuzzy=False)
            if joined is not None:
                found.append((k, joined))
        return found

    def highlighter(self, query: Query | str) -> Highlighter:
        """What to paint for `query`: every word its terms matched (other forms and typos
        included), and its phrases (their words only where the whole phrase occurs)."""
        if isinstance(query, str):
            query = parse_query(query)
        vocab = self.data.vocab
        words: set[str] = set()
        prefixes: list[str] = []
        phrases: list[tuple[str, ...]] = []
        required, optional = _split_terms(query)
        # The words each term matched, alone or written together with its neighbour
        # (cached term results: no score vectors are merged just to paint).
        singles = [self._term(t.word, t.prefix, fuzzy=True) for t in required]
        joined = self._joined(required)
        for term in required:
            words.add(term.word)
        # What `Highlighter.matched` tells of an abstract holding a word only as another.
        notes: dict[str, tuple[str, str]] = {}
        prefix_notes: list[tuple[str, str, str]] = []
        labelled = [(t.word, m) for t, m in zip(required, singles, strict=True)]
        labelled += [(f"{required[k].word} {required[k + 1].word}", m) for k, m in joined]
        for typed, match in labelled:
            if match is None:
                continue
            for i, kind in match.kinds.items():
                word = vocab[i]
                words.add(word)
                if word != typed:
                    notes.setdefault(word, (typed, "form" if kind == "typed" else kind))
            words.update(vocab[i] for i in match.words.tolist())
        expander = self._expander
        for term in required + optional:
            expansion = expander.expand(term.word, term.prefix, term in required)
            prefixes.extend(expansion.prefixes)
            whole = expander.exact(term.word) is not None
            for p in expansion.prefixes:
                if p != term.word:
                    prefix_notes.append((p, term.word, "typo"))
                elif whole:
                    prefix_notes.append((p, term.word, "completion"))
        for phrase in query.phrases:
            if phrase.negated:
                continue
            if len(phrase.words) == 1:
                words.add(phrase.words[0])
            else:
                phrases.append(phrase.words)
        return Highlighter(
            frozenset(words),
            tuple(prefixes),
            tuple(phrases),
            notes,
            tuple(prefix_notes),
            tuple(t for t, _ in labelled),
        )

    def _term(self, word: str, prefix: bool, fuzzy: bool) -> TermMatch | None:
        """What one term matches (None when nothing); cached."""
        key = (word, prefix, fuzzy)
        if key in self._terms:
            self._terms.move_to_end(key)
            return self._terms[key]
        expansion = self._expander.expand(word, prefix, fuzzy)
        match = compute_term(self.data, word, expansion, self._forms)
        self._terms[key] = match
        if len(self._terms) > self._term_cache_size:
            self._terms.popitem(last=False)
        return match


def _split_terms(query: Query) -> tuple[list[Term], list[Term]]:
    """The query's positive terms: those an abstract must match to be a full match, and
    optional ones (stop words: never required, scored only while being typed, as they
    may be the start of another word). A query of stop words only requires them."""
    positive = [t for t in query.terms if not t.negated]
    content = [t for t in positive if t.word not in STOPWORDS]
    if not content:
        return positive, []
    optional = [t for t in positive if t.word in STOPWORDS and t.prefix]
    return content, optional


def _phrases_as_terms(query: Query) -> Query:
    """`query` with its quoted phrases read as plain words (exclusions stay phrases)."""
    words = tuple(Term(w) for p in query.phrases if not p.negated for w in p.words)
    kept = tuple(p for p in query.phrases if p.negated)
    return replace(query, terms=query.terms + words, phrases=kept)
