"""What reads the words' positions in the abstracts: phrases (words adjacent and in
order within one abstract) and proximity (query words near each other add to the score
of the best few results)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from tui.search.build import IndexData
from tui.search.filters import BoolArray
from tui.search.postings import run_positions

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]

# Two query words next to each other in an abstract (or one word apart) add this
# share of the rarer word's idf: "graph neural" as written beats the two words far apart.
PROXIMITY_BONUS = 1.0
# Two query words within WINDOW words of each other, in either order, add this share.
NEAR_BONUS = 1.0
WINDOW = 15
# How many of the best abstracts of each group are re-ranked by proximity.
RERANK = 200


# Abstracts whose words a phrase reads at once (a bound on the words held meanwhile).
PHRASE_BATCH = 4096


class TokenReader(Protocol):
    """Where the abstracts' words are read from: the index's `tokens` array, or its cache
    file (`tui.cachefile.Runs`: a few scattered reads of a mapping would map much of it)."""

    def take(self, starts: IntArray, lengths: IntArray) -> npt.NDArray[np.int32]:
        """The words `starts[k] .. starts[k] + lengths[k] - 1` of each run, concatenated."""
        ...


class InMemory:
    """The words read from the `tokens` array itself."""

    def __init__(self, tokens: npt.NDArray[np.int32]) -> None:
        self._tokens = tokens

    def take(self, starts: IntArray, lengths: IntArray) -> npt.NDArray[np.int32]:
        """See `TokenReader.take`."""
        return self._tokens[run_positions(starts, lengths)]


class NearTerm(Protocol):
    """A matched query term as proximity sees it: its idf and the words it matched."""

    @property
    def idf(self) -> float: ...

    def word_mask(self, vocab_size: int) -> BoolArray:
        """True for every vocabulary word the term matched."""
        ...


def rank(
    data: IndexData,
    indices: IntArray,
    score: FloatArray,
    matches: Sequence[NearTerm | None],
    tier: npt.NDArray[np.int32] | None = None,
    tokens: TokenReader | None = None,
) -> IntArray:
    """`indices` best first: by `tier` (higher first) when given, then by score, the best
    few re-ranked with the proximity bonus inside their tier. Stable: equal scores keep
    file order. `tokens`: where the words are read from (default `data.tokens`)."""
    indices = indices[np.argsort(-_key(score, indices, tier), kind="stable")]
    present = [m for m in matches if m is not None]
    if len(present) < 2:
        return indices
    top = indices[:RERANK]
    bonus = proximity(data, top, present, tokens)
    if not bonus.any():
        return indices
    score[top] += bonus
    order = np.argsort(-_key(score, top, tier), kind="stable")
    return np.concatenate([top[order], indices[RERANK:]])


# A tier outweighs any score (scores are sums of a few dozen BM25 terms at most).
_TIER_STEP = 1e6


def _key(
    score: FloatArray, indices: IntArray, tier: npt.NDArray[np.int32] | None
) -> npt.NDArray[np.floating[Any]]:
    """One sort key: the score, plus the tier far above it (one argsort, not a lexsort)."""
    if tier is None:
        return score[indices]
    return score[indices].astype(np.float64) + tier[indices] * _TIER_STEP


def proximity(
    data: IndexData,
    docs: IntArray,
    matches: Sequence[NearTerm],
    reader: TokenReader | None = None,
) -> FloatArray:
    """Per abstract of `docs`: the bonus for pairs of query terms found near each other:
    in order and at most one word apart (as typed: "graph neural"), or in either order
    within a few words (the same clause). `reader`: see `rank`."""
    starts = data.tok_ptr[docs]
    lengths = data.tok_ptr[docs + 1] - starts
    total = int(lengths.sum())
    bonus = np.zeros(docs.size, dtype=np.float32)
    if total == 0:
        return bonus
    tokens = (reader or InMemory(data.tokens)).take(starts, lengths)
    owner = np.repeat(np.arange(docs.size, dtype=np.int64), lengths)
    # Each position's own document's bounds in the concatenated tokens.
    first = np.repeat(np.cumsum(lengths) - lengths, lengths)
    last = first + np.repeat(lengths, lengths) - 1
    positions = np.arange(total, dtype=np.int64)
    vocab_size = len(data.vocab)
    here = [m.word_mask(vocab_size)[tokens] for m in matches]
    counts = [np.concatenate([[0], np.cumsum(h, dtype=np.int64)]) for h in here]
    for i in range(len(matches)):
        for j in range(i + 1, len(matches)):
            weight = np.float32(min(matches[i].idf, matches[j].idf))
            at = positions[here[i]]
            if at.size == 0:
                continue
            lo = np.maximum(at - WINDOW, first[at])
            hi = np.minimum(at + WINDOW, last[at]) + 1
            near = (counts[j][hi] - counts[j][lo]) > 0
            found = np.zeros(docs.size, dtype=np.bool_)
            found[owner[at[near]]] = True
            bonus[found] += NEAR_BONUS * weight
            if j == i + 1:
                tight = np.zeros(total, dtype=np.bool_)
                for gap in (1, 2):
                    if total > gap:
                        tight[:-gap] |= (
                            here[i][:-gap] & here[j][gap:] & (owner[:-gap] == owner[gap:])
                        )
                found[:] = False
                found[owner[tight]] = True
                bonus[found] += PROXIMITY_BONUS * weight
    return bonus


def phrase_mask(
    data: IndexData, ids: Sequence[int | None], reader: TokenReader | None = None
) -> BoolArray:
    """Abstracts where the words `ids` (vocabulary numbers; None for a word not in the
    vocabulary) occur adjacent and in order, within one abstract. `reader`: see `rank`."""
    mask: BoolArray = np.zeros(len(data.ids), dtype=np.bool_)
    if any(i is None for i in ids):
        return mask
    word_ids = np.asarray(ids, dtype=np.int64)
    counts = data.post_ptr[word_ids + 1] - data.post_ptr[word_ids]
    anchor = int(np.argmin(counts))
    a_id = int(word_ids[anchor])
    candidates = data.post_doc[data.post_ptr[a_id] : data.post_ptr[a_id + 1]]
    if len(ids) == 1:
        mask[candidates] = True
        return mask
    reader = reader or InMemory(data.tokens)
    k = len(ids)
    # The candidates' words a batch at a time, without a Python loop over positions.
    for lo in range(0, candidates.size, PHRASE_BATCH):
        docs = candidates[lo : lo + PHRASE_BATCH].astype(np.int64)
        starts = data.tok_ptr[docs]
        lengths = data.tok_ptr[docs + 1] - starts
        words = reader.take(starts, lengths)
        if not words.size:
            continue
        ends = np.cumsum(lengths)
        owner = np.repeat(np.arange(docs.size, dtype=np.int64), lengths)
        found = np.flatnonzero(words == a_id)
        doc = owner[found]
        at = found - anchor  # where the phrase would start, within its abstract
        inside = (at >= ends[doc] - lengths[doc]) & (at + k <= ends[doc])
        at, doc = at[inside], doc[inside]
        for j, wid in enumerate(word_ids):
            same = words[at + j] == wid
            at, doc = at[same], doc[same]
        mask[docs[doc]] = True
    return mask
