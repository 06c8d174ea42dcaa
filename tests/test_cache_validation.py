"""Caches whose header is right but whose arrays do not fit the corpus (wrong sizes,
types or numbers out of range) are rebuilt, never used: used, they crashed the filter
and `abstracts search`, or answered with the wrong abstracts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tui import cachefile
from tui.corpus.load import load_corpus
from tui.corpus.model import Corpus
from tui.search import cache as search_cache
from tui.similar import cache as similar_cache
from tui.similar import topic_cache

Arrays = dict[str, np.ndarray[Any, Any]]


@pytest.fixture(scope="module")
def corpus(seeds_dir: Path) -> Corpus:
    return load_corpus([seeds_dir])


@pytest.fixture(scope="module")
def seeds_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "seeds"


def _rewrite(path: Path, head: dict[str, Any], change: Callable[[Arrays], None]) -> None:
    """The cache at `path` written again under the same header with `change` made."""
    contents = cachefile.load(path, head)
    assert contents is not None
    arrays = dict(contents.arrays)
    change(arrays)
    cachefile.save(path, head, arrays, contents.strings)


def _set(name: str, make: Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]]) -> Any:
    def change(arrays: Arrays) -> None:
        arrays[name] = make(arrays[name])

    return change


INDEX_DAMAGE = {
    "doc_norm one short": _set("doc_norm", lambda a: a[:-1]),
    "a posting past the last abstract": _set(
        "post_doc", lambda a: np.where(a == a.max(), 10**6, a)
    ),
    "a token past the vocabulary": _set(
        "tokens", lambda a: np.append(a[:-1], 10**6).astype(a.dtype)
    ),
    "offsets as floats": _set("post_ptr", lambda a: a.astype(np.float64)),
    "offsets that do not end at the postings": _set("post_ptr", lambda a: a - 1),
    "a stem offset backwards": _set("stem_ptr", lambda a: a[::-1].copy()),
    "a file number past the files": _set("src_file", lambda a: a + 10**6),
    "a negative venue": _set("venue_of", lambda a: a - 1),
}


@pytest.mark.parametrize("damage", INDEX_DAMAGE.values(), ids=INDEX_DAMAGE.keys())
def test_an_index_cache_that_does_not_fit_the_corpus_is_rebuilt(
    corpus: Corpus, tmp_path: Path, damage: Callable[[Arrays], None]
) -> None:
    cache_dir = tmp_path / "cache"
    built = search_cache.load_or_build(corpus, cache_dir)
    path, head = search_cache.locate(corpus, cache_dir)
    _rewrite(path, head, damage)
    assert search_cache.load(corpus, cache_dir) is None
    again = search_cache.load_or_build(corpus, cache_dir)
    assert (
        again.search("contrastive", corpus).indices == built.search("contrastive", corpus).indices
    )
    assert search_cache.load(corpus, cache_dir) is not None  # rebuilt and saved


def test_an_index_cache_as_built_is_consistent(corpus: Corpus, tmp_path: Path) -> None:
    index = search_cache.load_or_build(corpus, tmp_path / "cache")
    assert search_cache.consistent(index.data)


SIMILAR_DAMAGE = {
    "counts as floats": _set("counts", lambda a: a.astype(np.float64) + 0.5),
    "a pair part below -1": _set("parts", lambda a: np.where(a == -1, -5, a)),
    "offsets one short": _set("indptr", lambda a: a[:-1]),
}


@pytest.mark.parametrize("damage", SIMILAR_DAMAGE.values(), ids=SIMILAR_DAMAGE.keys())
def test_a_similarity_cache_that_does_not_fit_is_rebuilt(
    corpus: Corpus, tmp_path: Path, damage: Callable[[Arrays], None]
) -> None:
    cache_dir = tmp_path / "cache"
    similar_cache.load_or_build(corpus, cache_dir)
    head = cachefile.header("similar", similar_cache.CACHE_VERSION, corpus)
    _rewrite(similar_cache.cache_path(corpus, cache_dir), head, damage)
    assert similar_cache.load(corpus, cache_dir) is None
    assert similar_cache.load_or_build(corpus, cache_dir).similar(0, 3)


def test_topics_stored_as_fractions_are_recomputed(corpus: Corpus, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    model = similar_cache.load_or_build(corpus, cache_dir)
    topics = topic_cache.load_or_build(corpus, cache_dir, model)
    head = cachefile.header("topics", topic_cache._version(), corpus)
    _rewrite(
        topic_cache.cache_path(corpus, cache_dir),
        head,
        _set("number", lambda a: a.astype(np.float64) + 0.25),
    )
    assert topic_cache.load(corpus, cache_dir) is None
    again = topic_cache.load_or_build(corpus, cache_dir, model)
    assert again.number.tolist() == topics.number.tolist()
