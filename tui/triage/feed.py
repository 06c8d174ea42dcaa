"""The feed: abstracts ranked by the reader's taste, each with why.

Liked abstracts (the bookmarks) pull what is like them up, dismissed ones ("not
interested") push what is like them down; the ranking itself is
`tui.similar.taste.rank`, so the feed view, `M` and `abstracts feed` agree. Here
the ids of the user's data become corpus indices, and the ranked rows abstracts.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from tui.corpus.model import Abstract, Corpus
from tui.similar import taste
from tui.similar.model import SimilarityModel

#: How many abstracts the feed view ranks (the command line's default too).
FEED_SIZE = 100

Sort = Literal["score", "year"]
SORTS: tuple[Sort, ...] = ("score", "year")


@dataclass(frozen=True, slots=True)
class FeedItem:
    """One ranked abstract: its score, the liked abstract it is closest to, shared terms."""

    abstract: Abstract
    score: float
    because: Abstract
    shared: tuple[str, ...]


def indices(corpus: Corpus, ids: Collection[str]) -> list[int]:
    """The corpus indices of the loaded abstracts among `ids` (others are skipped)."""
    by_id = corpus.by_id
    return [by_id[i].index for i in ids if i in by_id]


def rank_feed(
    model: SimilarityModel,
    corpus: Corpus,
    likes: Collection[str],
    unlikes: Collection[str] = (),
    skip: Collection[str] = (),
    k: int = FEED_SIZE,
    first: Collection[str] = (),
) -> list[FeedItem]:
    """The `k` abstracts best liked by a reader who liked `likes` and dismissed `unlikes`
    (ids), best first, leaving out `skip` (e.g. those already read). Liked and dismissed
    abstracts are never in it; no liked abstract loaded, an empty feed. The abstracts in
    `first` (the new papers) come before the rest, each group ranked by taste."""
    liked, unliked = indices(corpus, likes), indices(corpus, unlikes)
    if first:
        front = [a.index for a in corpus.abstracts if a.id in first and a.id not in skip]
        rest = [a.index for a in corpus.abstracts if a.id not in first and a.id not in skip]
        ranked = taste.rank(model, liked, unliked, front, k)
        ranked += taste.rank(model, liked, unliked, rest, k - len(ranked))
    else:
        candidates = [a.index for a in corpus.abstracts if a.id not in skip] if skip else None
        ranked = taste.rank(model, liked, unliked, candidates, k)
    abstracts = corpus.abstracts
    return [FeedItem(abstracts[r.index], r.score, abstracts[r.because], r.shared) for r in ranked]


def sort_feed(items: Sequence[FeedItem], by: Sort) -> list[FeedItem]:
    """The items by score (as ranked), or newest year first (by score within a year;
    an unknown year last)."""
    if by == "year":
        return sorted(items, key=lambda it: (-(it.abstract.collection.year or 0), -it.score))
    return sorted(items, key=lambda it: -it.score)
