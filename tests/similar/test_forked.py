"""Near-duplicates searched in a forked helper are those found in-process, whatever
becomes of the helper; the cache child builds the model and topics that way."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.similar.fixtures import make_corpus
from tests.similar.test_duplicates import _texts
from tui import caches
from tui.search import parallel
from tui.similar import cache, forked, topic_cache
from tui.similar.duplicates import Duplicates, find_duplicates
from tui.similar.model import SimilarityModel, weigh
from tui.similar.topics import compute_topics


def _same(a: Duplicates, b: Duplicates) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("indptr", "rows", "cosines"))


def test_the_helper_finds_the_near_duplicates_found_in_process() -> None:
    texts = _texts(80)
    terms, weights = weigh(texts)
    expected = find_duplicates(terms, weights, texts)
    assert len(expected.rows)
    assert _same(forked.DuplicateSearch(terms, weights, texts).result(), expected)


def test_a_helper_that_fails_is_made_up_for_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts(80)
    terms, weights = weigh(texts)
    expected = find_duplicates(terms, weights, texts)

    def broken(*_args: object) -> None:
        raise EOFError("the helper stopped")

    monkeypatch.setattr(forked, "_receive", broken)
    assert _same(forked.DuplicateSearch(terms, weights, texts).result(), expected)


def test_the_cache_child_builds_model_and_topics_alongside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = make_corpus([*_texts(60)])
    monkeypatch.setattr(parallel, "workers_for", lambda n, fork_safe=False: 2)
    caches._similarity_and_topics(corpus, tmp_path)
    assert capsys.readouterr().out.split() == ["similar", "topics"]
    model = cache.load(corpus, tmp_path)
    topics = topic_cache.load(corpus, tmp_path)
    assert model is not None and topics is not None
    built = SimilarityModel.build(corpus)
    for i in range(len(corpus)):
        assert model.similar(i) == built.similar(i)
        assert model.near_duplicates(i) == built.near_duplicates(i)
    assert topics.number.tolist() == compute_topics(built.terms, built.weights).number.tolist()
