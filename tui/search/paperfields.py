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
from tui.search.expand import Expander, Expansion
from tui.search.filters import BoolArray, FilterContext, _has, register_selector
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
        self.size = len(abstracts)
        self.has_abstract: BoolArray = np.fromiter(
            (a.has_abstract for a in abstracts), dtype=np.bool_, count=self.size
        )
        families: dict[str, list[int]] = {}
        ids: dict[str, list[int]] = {}
        for i, abstract in enumerate(abstracts):
            paper = abstract.paper
            if paper is None:
                continue
            for author in paper.authors:
                for word in tokenize(author.family):
                    docs = families.setdefault(word, [])
                    if not docs or docs[-1] != i:
                        docs.append(i)
            for kind, value in paper.ids:
                key = f"{kind}:{value.lower()}"
                docs = ids.setdefault(key, [])
                if not docs or docs[-1] != i:
                    docs.append(i)
        #: Family-name words, sorted; the abstracts of word w are docs[ptr[w]:ptr[w+1]].
        self.family_vocab = sorted(families)
        self.family_ptr, self.family_docs = _csr([families[w] for w in self.family_vocab])
        self.families = Expander(self.family_vocab)
        #: `kind:value` keys, sorted, and the abstracts of each (the same way).
        self.id_keys = sorted(ids)
        self.id_ptr, self.id_docs = _csr([ids[k] for k in self.id_keys])
        # The values alone (`any` searches every kind), sorted with their key's number.
        values = sorted((k.partition(":")[2], n) for n, k in enumerate(self.id_keys))
        self.id_values = [v for v, _ in values]
        self.id_value_key = [n for _, n in values]

    def docs_of_families(self, expansion: Expansion) -> BoolArray:
        """The abstracts with an author whose family name has one of the matched words."""
        mask = np.zeros(self.size, dtype=np.bool_)
        for r in expansion.ranges:
            mask[self.family_docs[self.family_ptr[r.lo] : self.family_ptr[r.hi]]] = True
        return mask

    def docs_of_id(self, kind: str, value: str, typing: bool) -> BoolArray:
        """The abstracts with the id `kind:value` (any kind for `any`); while it is being
        typed, also those whose id starts with it."""
        mask = np.zeros(self.size, dtype=np.bool_)
        if kind == "any":
            lo = bisect_left(self.id_values, value)
            hi = bisect_left(self.id_values, value + (_LAST if typing else "\0"), lo)
            if not typing:
                hi = lo
                while hi < len(self.id_values) and self.id_values[hi] == value:
                    hi += 1
            keys = [self.id_value_key[n] for n in range(lo, hi)]
        else:
            key = f"{kind}:{value}"
            lo = bisect_left(self.id_keys, key)
            hi = bisect_left(self.id_keys, key + _LAST, lo) if typing else lo
            if not typing and lo < len(self.id_keys) and self.id_keys[lo] == key:
                hi = lo + 1
            keys = list(range(lo, hi))
        for n in keys:
            mask[self.id_docs[self.id_ptr[n] : self.id_ptr[n + 1]]] = True
        return mask


def _csr(groups: list[list[int]]) -> tuple[Int64Array, Int64Array]:
    ptr = np.zeros(len(groups) + 1, dtype=np.int64)
    if groups:
        ptr[1:] = np.cumsum([len(g) for g in groups])
    docs = np.fromiter((d for g in groups for d in g), dtype=np.int64, count=int(ptr[-1]))
    return ptr, docs


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


def _has_paper_field(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    """`has:abstract` from the corpus; `has:note` and `has:tag` as before."""
    if clause.arg != "abstract":
        return _has(clause, ctx)
    found = _usable(ctx)
    return found.has_abstract.copy() if found is not None else _nothing(ctx)


register_selector("author", _author)
register_selector("title", _title)
register_selector("id", _id)
register_selector("has", _has_paper_field)
