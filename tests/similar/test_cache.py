from __future__ import annotations

import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from tests.pickles import RunsCode, object_array
from tests.similar.fixtures import I_GRAPH, TEXTS, make_corpus
from tui import cachefile
from tui.similar import SimilarityModel, cache, load_or_build


def test_cache_is_written_then_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = make_corpus()
    first = load_or_build(corpus, tmp_path / "cache")
    path = cache.cache_path(corpus, tmp_path / "cache")
    assert path.is_file()

    def no_build(_corpus: object) -> SimilarityModel:
        raise AssertionError("built again although the cache was valid")

    monkeypatch.setattr(SimilarityModel, "build", staticmethod(no_build))
    second = load_or_build(corpus, tmp_path / "cache")
    assert second.similar(I_GRAPH) == first.similar(I_GRAPH)
    assert second.terms.vocab == first.terms.vocab
    assert not list((tmp_path / "cache").glob(".similar-*"))  # no temporary files left


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"not a zip file at all",
        b"PK\x03\x04 truncated zip",
    ],
)
def test_corrupt_cache_is_ignored_and_replaced(tmp_path: Path, damage: bytes) -> None:
    corpus = make_corpus()
    path = cache.cache_path(corpus, tmp_path)
    path.write_bytes(damage)
    model = load_or_build(corpus, tmp_path)
    assert model.similar(I_GRAPH)
    assert cache.load(corpus, tmp_path) is not None  # rebuilt and rewritten


def test_cache_with_out_of_range_terms_is_rejected(tmp_path: Path) -> None:
    corpus = make_corpus()
    model = SimilarityModel.build(corpus)
    path = cache.save(model, corpus, tmp_path)
    head = cachefile.header("similar", cache.CACHE_VERSION, corpus)
    contents = cachefile.load(path, head)
    assert contents is not None
    arrays = {**contents.arrays, "indices": contents.arrays["indices"] + 10_000}
    cachefile.save(path, head, arrays, contents.strings)
    assert cache.load(corpus, tmp_path) is None


def test_cache_of_other_abstracts_is_not_used(tmp_path: Path) -> None:
    corpus = make_corpus()
    cache.save(SimilarityModel.build(corpus), corpus, tmp_path)
    # Same fingerprint (same fake file digests) but a different abstract order.
    reordered = make_corpus(list(reversed(TEXTS)))
    assert reordered.fingerprint == corpus.fingerprint
    assert cache.load(reordered, tmp_path) is None
    assert load_or_build(reordered, tmp_path).similar(len(TEXTS) - 1 - I_GRAPH)


def test_old_caches_are_pruned_to_the_shared_policy(tmp_path: Path) -> None:
    paths = []
    for n in range(cachefile.KEEP + 2):
        corpus = make_corpus(years=[2000 + n] * len(TEXTS))
        load_or_build(corpus, tmp_path)
        path = cache.cache_path(corpus, tmp_path)
        os.utime(path, (1_000_000 + n, 1_000_000 + n))
        paths.append(path)
    assert len(set(paths)) == len(paths)
    assert sorted(tmp_path.glob("similar-*")) == sorted(paths[-cachefile.KEEP :])


def test_a_pickle_in_the_cache_file_is_never_unpickled(tmp_path: Path) -> None:
    corpus = make_corpus()
    marker = tmp_path / "code-ran"
    load_or_build(corpus, tmp_path)
    evil = object_array(marker)
    path = cache.cache_path(corpus, tmp_path)
    with np.load(path) as npz:
        names = list(npz.files)
    with path.open("wb") as handle:
        np.savez(handle, **{name: evil for name in names})
    assert cache.load(corpus, tmp_path) is None
    path.write_bytes(pickle.dumps(RunsCode(marker)))
    assert cache.load(corpus, tmp_path) is None
    assert load_or_build(corpus, tmp_path).similar(I_GRAPH)
    assert not marker.exists()


def test_unwritable_cache_dir_still_gives_a_model(tmp_path: Path) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the directory should be")
    assert load_or_build(make_corpus(), blocker).similar(I_GRAPH)
