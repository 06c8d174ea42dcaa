"""What `author:`, `title:`, `id:` and `has:abstract` select (parsed in `paperquery`).

Each keystroke must stay fast at 100,000 abstracts, so nothing here walks every
author or title per query: the first paper field asked of a corpus builds its tables
once (`PaperTables`: the family names' words, sorted, with the abstracts of each; the
ids; which entries have an abstract), and the next queries read them. `title:` reads
the search index's own postings of headline words (a paper's headline is its title),
through an `Expander` kept per index, so it tolerates typos as terms do.
`filters.py` imports this module at its end, so the selectors are registered wherever
fields are selected.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from typing import TYPE_CHECKING, cast

import numpy as np
import numpy.typing as npt

from tui.corpus.tokens import tokenize
from tui.search.context import BoolArray, FilterContext, register_selector
from tui.search.expand import Expander, Expansion
from tui.search.query import FieldClause

if TYPE_CHECKING:
    from tui.corpus.model import Corpus
    from tui.search.build import IndexData

Int64Array = npt.NDArray[np.int64]
_LAST = chr(0x10FFFF)


class PaperTables:
    """One corpus's paper fields in lookup form (see the module's docstring)."""

    def __init__(self, corpus: Corpus) -> None:
        abstracts = corpus.abstracts
        self.size = n = len(abstracts)
        self.has_abstract: BoolArray = np.fromiter(
            (a.has_abstract for a in abstracts), dtype=np.bool_, count=n
        )
        # One pass over the papers gathers (abstract, family name) and (abstract, id)
        # pairs as numbers; each distinct name is tokenized once, and NumPy sorts the rest.
        families: dict[str, int] = {}
        keys: dict[str, int] = {}
        pair_doc: list[int] = []
        pair_family: list[int] = []
        id_doc: list[int] = []
        id_key: list[int] = []
        for i, abstract in enumerate(abstracts):
            paper = abstract.paper
            if paper is None:
                continue
            for author in paper.named_authors:
                pair_doc.append(i)
                pair_family.append(families.setdefault(author.family, len(families)))
            for kind, value in paper.ids:
                id_doc.append(i)
                id_key.append(keys.setdefault(f"{kind}:{value.lower()}", len(keys)))
        words: dict[str, int] = {}
        family_words = [
            [words.setdefault(w, len(words)) for w in tokenize(name)] for name in families
        ]
        #: Family-name words, sorted; the abstracts of word w are docs[ptr[w]:ptr[w+1]].
        self.family_vocab = sorted(words)
        rank = _ranks(words, self.family_vocab)
        word_ptr, word_of = _csr(family_words)
        docs = np.asarray(pair_doc, dtype=np.int64)
        owned = np.asarray(pair_family, dtype=np.int64)
        counts = word_ptr[owned + 1] - word_ptr[owned]
        # Each (abstract, family) pair becomes one (abstract, word) pair per word of the name.
        pair_words = rank[_gather(word_ptr, word_of, owned)]
        self.family_ptr, self.family_docs = _grouped(
            pair_words, np.repeat(docs, counts), n, len(words)
        )
        self.families = Expander(self.family_vocab)
        #: `kind:value` keys, sorted, and the abstracts of each (the same way).
        self.id_keys = sorted(keys)
        key_rank = _ranks(keys, self.id_keys)
        self.id_ptr, self.id_docs = _grouped(
            key_rank[np.asarray(id_key, dtype=np.int64)],
            np.asarray(id_doc, dtype=np.int64),
            n,
            len(keys),
        )
        # The values alone (`any` searches every kind), sorted with their key's number.
        values = sorted((k.partition(":")[2], n) for n, k in enumerate(self.id_keys))
        self.id_values = [v for v, _ in values]
        self.id_value_key = np.asarray([n for _, n in values], dtype=np.int64)

    def docs_of_families(self, expansion: Expansion) -> BoolArray:
        """The abstracts with an author whose family name has one of the matched words."""
        mask = np.zeros(self.size, dtype=np.bool_)
        for r in expansion.ranges:
            mask[self.family_docs[self.family_ptr[r.lo] : self.family_ptr[r.hi]]] = True
        return mask

    def docs_of_id(self, kind: str, value: str, typing: bool) -> BoolArray:
        """The abstracts with the id `kind:value` (any kind for `any`); while it is being
        typed, also those whose id starts with it."""
        # Ids equal to `value` sort before `value + "\0"`; those it starts, before `value + _LAST`.
        end = value + (_LAST if typing else "\0")
        if kind == "any":
            lo = bisect_left(self.id_values, value)
            keys = self.id_value_key[lo : bisect_left(self.id_values, end, lo)]
        else:
            lo = bisect_left(self.id_keys, f"{kind}:{value}")
            keys = np.arange(lo, bisect_left(self.id_keys, f"{kind}:{end}", lo), dtype=np.int64)
        mask = np.zeros(self.size, dtype=np.bool_)
        mask[_gather(self.id_ptr, self.id_docs, keys)] = True
        return mask


def _csr(groups: list[list[int]]) -> tuple[Int64Array, Int64Array]:
    """Lists of numbers as (offsets, values): group g is values[ptr[g]:ptr[g+1]]."""
    ptr = np.zeros(len(groups) + 1, dtype=np.int64)
    if groups:
        ptr[1:] = np.cumsum([len(g) for g in groups])
    values = np.fromiter((v for g in groups for v in g), dtype=np.int64, count=int(ptr[-1]))
    return ptr, values


def _gather(ptr: Int64Array, values: Int64Array, groups: Int64Array) -> Int64Array:
    """The values of each of `groups` in turn (group g's are values[ptr[g]:ptr[g+1]])."""
    counts = ptr[groups + 1] - ptr[groups]
    starts = np.repeat(ptr[groups] - np.cumsum(counts) + counts, counts)
    return values[starts + np.arange(int(counts.sum()), dtype=np.int64)]


def _ranks(numbers: dict[str, int], ordered: list[str]) -> Int64Array:
    """For each string's number (`numbers`), its position in `ordered` (the same strings, sorted)."""
    rank = np.empty(len(ordered), dtype=np.int64)
    rank[np.asarray([numbers[s] for s in ordered], dtype=np.int64)] = np.arange(len(ordered))
    return rank


def _grouped(
    groups: Int64Array, docs: Int64Array, n_docs: int, n_groups: int
) -> tuple[Int64Array, Int64Array]:
    """(offsets, abstracts) of each group from (group, abstract) pairs: sorted, each once."""
    # Sorted and deduplicated by hand: np.unique's hashing path was 20x slower here.
    pairs = np.sort(groups * max(n_docs, 1) + docs)
    if pairs.size:
        pairs = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))]
    ptr = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(pairs // max(n_docs, 1), minlength=n_groups), out=ptr[1:])
    return ptr, pairs % max(n_docs, 1)


# The tables of the last corpora asked about (the app has one; a test may have several),
# each kept with its corpus so a new corpus at a reused address is never mistaken for it.
_TABLES: dict[int, tuple[Corpus, PaperTables]] = {}
_HEADLINES: dict[int, tuple[IndexData, Expander]] = {}
_KEEP = 4
_LOCK = threading.Lock()


def tables(corpus: Corpus) -> PaperTables:
    """The paper tables of `corpus`, built on first use."""
    with _LOCK:
        kept = _TABLES.get(id(corpus))
        if kept is not None and kept[0] is corpus:
            return kept[1]
    built = PaperTables(corpus)
    with _LOCK:
        if len(_TABLES) >= _KEEP:
            _TABLES.pop(next(iter(_TABLES)))
        _TABLES[id(corpus)] = (corpus, built)
    return built


def _headline_expander(data: IndexData) -> Expander:
    with _LOCK:
        kept = _HEADLINES.get(id(data))
        if kept is not None and kept[0] is data:
            return kept[1]
        expander = Expander(data.vocab, post_ptr=data.post_ptr)
        if len(_HEADLINES) >= _KEEP:
            _HEADLINES.pop(next(iter(_HEADLINES)))
        _HEADLINES[id(data)] = (data, expander)
        return expander


def _nothing(ctx: FilterContext) -> BoolArray:
    return np.zeros(len(ctx.data.ids), dtype=np.bool_)


def _usable(ctx: FilterContext) -> PaperTables | None:
    """The corpus's tables, or None when the search was not given the corpus it indexed."""
    corpus = ctx.corpus
    if corpus is None or len(corpus.abstracts) != len(ctx.data.ids):
        return None
    return tables(corpus)


def _author(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    """Abstracts with an author for every word: family names, typo- and accent-tolerant."""
    found = _usable(ctx)
    if found is None:
        return _nothing(ctx)
    words = cast(tuple[str, ...], clause.arg)
    mask = np.ones(found.size, dtype=np.bool_)
    for k, word in enumerate(words):
        typing = clause.typing and k == len(words) - 1
        mask &= found.docs_of_families(found.families.expand(word, prefix=typing))
    return mask


def _title(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    """Abstracts whose title (the headline, for conference text) has every word, each
    word matched as a term is: exactly, completed while typed, or a typo away."""
    data = ctx.data
    expander = _headline_expander(data)
    words = cast(tuple[str, ...], clause.arg)
    mask = np.ones(len(data.ids), dtype=np.bool_)
    for k, word in enumerate(words):
        typing = clause.typing and k == len(words) - 1
        found = np.zeros(len(data.ids), dtype=np.bool_)
        for r in expander.expand(word, prefix=typing).ranges:
            lo, hi = int(data.post_ptr[r.lo]), int(data.post_ptr[r.hi])
            head = data.post_head[lo:hi]
            found[data.post_doc[lo:hi][head]] = True
        mask &= found
    return mask


def _id(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    found = _usable(ctx)
    if found is None:
        return _nothing(ctx)
    kind, value = cast(tuple[str, str], clause.arg)
    return found.docs_of_id(kind, value, clause.typing)


def _has_abstract(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    """`has:abstract`, from the corpus (`has:note` and `has:tag` are filters.py's)."""
    found = _usable(ctx)
    return found.has_abstract.copy() if found is not None else _nothing(ctx)


register_selector("author", _author)
register_selector("title", _title)
register_selector("id", _id)
register_selector("has", _has_abstract, value="abstract")
