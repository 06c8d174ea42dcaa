from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.similar.fixtures import I_GRAPH, TEXTS, make_corpus
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
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    arrays["indices"] = arrays["indices"] + 10_000
    with path.open("wb") as handle:
        np.savez(handle, **arrays)
    assert cache.load(corpus, tmp_path) is None


def test_cache_of_other_abstracts_is_not_used(tmp_path: Path) -> None:
    corpus = make_corpus()
    cache.save(SimilarityModel.build(corpus), corpus, tmp_path)
    # Same fingerprint (same fake file digests) but a different abstract order.
    reordered = make_corpus(list(reversed(TEXTS)))
    assert reordered.fingerprint == corpus.fingerprint
    assert cache.load(reordered, tmp_path) is None
    assert load_or_build(reordered, tmp_path).similar(len(TEXTS) - 1 - I_GRAPH)


def test_new_corpus_replaces_old_cache_files(tmp_path: Path) -> None:
    old = make_corpus(years=[2020] * len(TEXTS))
    new = make_corpus()
    load_or_build(old, tmp_path)
    load_or_build(new, tmp_path)
    assert [p.name for p in tmp_path.glob("similar-*.npz")] == [
        cache.cache_path(new, tmp_path).name
    ]


def test_unwritable_cache_dir_still_gives_a_model(tmp_path: Path) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the directory should be")
    assert load_or_build(make_corpus(), blocker).similar(I_GRAPH)
