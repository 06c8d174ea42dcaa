"""The topics' on-disk cache, keyed by the corpus fingerprint like the other caches.

The file is a `tui.cachefile` (NumPy `.npz` read with `allow_pickle=False`,
written atomically into a private folder): each abstract's topic number and
the labels of every topic. Topics come from the similarity model's terms, so
the key includes the similarity cache's version: new terms mean new topics.
Anything unreadable or not matching the corpus is ignored and rebuilt.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import numpy as np

from tui import cachefile
from tui.corpus.model import Corpus
from tui.similar import cache as similar_cache
from tui.similar.model import SimilarityModel
from tui.similar.topics import Topics, compute_topics

# Bump when the clustering, the labelling or the file layout change.
TOPICS_VERSION = 1
_KIND = "topics"


def _version() -> int:
    return TOPICS_VERSION * 1000 + similar_cache.CACHE_VERSION


def cache_path(corpus: Corpus, cache_dir: Path) -> Path:
    """Where the topics of `corpus` are cached inside `cache_dir`."""
    return cachefile.path_for(cache_dir, _KIND, _version(), corpus)


def save(topics: Topics, corpus: Corpus, cache_dir: Path) -> Path:
    """Write the topics of `corpus` atomically; returns the cache file. Raises OSError."""
    target = cache_path(corpus, cache_dir)
    arrays: dict[str, np.ndarray[Any, Any]] = {
        "number": topics.number,
        "label_counts": np.asarray([len(labels) for labels in topics.labels], dtype=np.int32),
    }
    flat = [label for labels in topics.labels for label in labels]
    try:
        cachefile.save(
            target, cachefile.header(_KIND, _version(), corpus), arrays, {"labels": flat}
        )
    except ValueError as err:  # a label holding NUL: not cacheable
        raise OSError(str(err)) from err
    return target


def load(corpus: Corpus, cache_dir: Path) -> Topics | None:
    """The cached topics of `corpus`, or None when there are none or they are unusable."""
    contents = cachefile.load(
        cache_path(corpus, cache_dir), cachefile.header(_KIND, _version(), corpus)
    )
    if contents is None:
        return None
    if any(a.dtype.kind not in "iu" for a in contents.arrays.values()):
        return None  # topic numbers and label counts are whole numbers
    try:
        number = contents.arrays["number"].astype(np.int32)
        counts = contents.arrays["label_counts"].astype(np.int64)
        flat = contents.strings["labels"]
    except (KeyError, ValueError, TypeError):
        return None
    if (
        number.shape != (len(corpus),)
        or counts.ndim != 1
        or int(counts.sum()) != len(flat)
        or (len(counts) and int(counts.min()) < 0)
        or (len(number) and not 0 <= int(number.min()) <= int(number.max()) <= len(counts))
    ):
        return None
    ends = np.cumsum(counts).tolist()
    starts = [0, *ends[:-1]] if ends else []  # no topics: no labels to cut
    return Topics(number, [flat[a:b] for a, b in zip(starts, ends, strict=True)])


def load_or_build(corpus: Corpus, cache_dir: Path, model: SimilarityModel) -> Topics:
    """The topics of `corpus` from the cache when valid, else computed from `model` (the
    corpus's similarity model) and cached; a cache that cannot be written is no error."""
    topics = load(corpus, cache_dir)
    if topics is not None:
        return topics
    topics = compute_topics(model.terms, model.weights)
    with contextlib.suppress(OSError):
        save(topics, corpus, cache_dir)
    return topics
