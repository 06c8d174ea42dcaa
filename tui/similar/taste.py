"""Ranking by taste: the abstracts most like the ones the user liked and unlike the
ones dismissed, each with why ("because" the liked abstract it is closest to, and
the terms they share).

One entry point, `rank`, used by `M`, the feed view and `abstracts feed`, so the app
and the command line always agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tui.similar.model import SimilarityModel

# How much a dismissed abstract's similarity pulls a candidate down.
UNLIKE_WEIGHT = 0.5


@dataclass(frozen=True, slots=True)
class Recommendation:
    """One ranked abstract: its index, its score (higher is better), the index of the
    liked abstract it is closest to, and the terms they share."""

    index: int
    score: float
    because: int
    shared: tuple[str, ...]


def rank(
    model: SimilarityModel,
    likes: Sequence[int],
    unlikes: Sequence[int] = (),
    candidates: Sequence[int] | None = None,
    k: int = 20,
) -> list[Recommendation]:
    """The `k` best `candidates` (default: every abstract) for a reader who liked
    `likes` and dismissed `unlikes`, best first. Liked and dismissed abstracts are
    never recommended; no likes, no recommendations."""
    n = len(model)
    like_list = sorted({i for i in likes if 0 <= i < n})
    unlike_list = sorted({i for i in unlikes if 0 <= i < n} - set(like_list))
    if not like_list or k <= 0:
        return []
    pool = list(range(n)) if candidates is None else [c for c in candidates if 0 <= c < n]
    excluded = set(like_list) | set(unlike_list)
    pool = [c for c in pool if c not in excluded]
    ranked = model.like(like_list, pool, k=len(pool) if unlike_list else k)
    if unlike_list and ranked:
        against = np.max([model.scores(u) for u in unlike_list], axis=0)
        ranked = sorted(
            ((j, s - UNLIKE_WEIGHT * float(against[j])) for j, s in ranked),
            key=lambda pair: (-pair[1], pair[0]),
        )[:k]
    per_like = {s: model.scores(s) for s in like_list}
    out = []
    for j, score in ranked:
        closest = max(like_list, key=lambda s: float(per_like[s][j]))
        out.append(Recommendation(j, score, closest, tuple(model.shared_terms(closest, j))))
    return out
