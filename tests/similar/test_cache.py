from __future__ import annotations

import mmap
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import pytest

from tests.pickles import RunsCode, object_array
from tests.similar.fixtures import I_GRAPH, TEXTS, make_corpus
from tui import cachefile
from tui.similar import SimilarityModel, cache, load_or_build
from tui.similar import model as similar_model


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


def _mapped_file(array: np.ndarray) -> bool:
    """Whether `array` views a memory-mapped file rather than memory of its own."""
    base = array
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)


def test_a_cached_model_is_used_from_its_file_not_rebuilt(tmp_path: Path) -> None:
    corpus = make_corpus()
    built = load_or_build(corpus, tmp_path)
    loaded = cache.load(corpus, tmp_path)
    assert loaded is not None
    for array in (loaded.weights, loaded.postings.rows, loaded.terms.indices):
        assert _mapped_file(array) and array.flags.aligned and not array.flags.writeable
    assert np.array_equal(loaded.weights, built.weights)
    for i in range(len(TEXTS)):
        assert loaded.similar(i) == built.similar(i)
        assert loaded.near_duplicates(i) == built.near_duplicates(i)
        assert loaded.shared_terms(i, I_GRAPH) == built.shared_terms(i, I_GRAPH)


def test_a_truncated_cache_is_ignored_and_rebuilt(tmp_path: Path) -> None:
    corpus = make_corpus()
    load_or_build(corpus, tmp_path)
    path = cache.cache_path(corpus, tmp_path)
    whole = path.read_bytes()
    for size in (len(whole) // 4, len(whole) // 2, len(whole) - 1):
        path.write_bytes(whole[:size])
        assert cache.load(corpus, tmp_path) is None
        assert load_or_build(corpus, tmp_path).near_duplicates(I_GRAPH)
        assert path.read_bytes() == whole  # written again, the same


def test_a_cache_written_without_alignment_is_still_used(tmp_path: Path) -> None:
    corpus = make_corpus()
    built = load_or_build(corpus, tmp_path)
    path = cache.cache_path(corpus, tmp_path)
    head = cachefile.header("similar", cache.CACHE_VERSION, corpus)
    contents = cachefile.load(path, head)
    assert contents is not None
    cachefile.save(path, head, contents.arrays, contents.strings)  # no padding
    loaded = cache.load(corpus, tmp_path)
    assert loaded is not None and loaded.similar(I_GRAPH) == built.similar(I_GRAPH)


@pytest.mark.parametrize(
    ("name", "damage"),
    [
        ("post_rows", lambda a: a + 10_000),
        ("dup_rows", lambda a: np.append(a[:-1], 10_000).astype(a.dtype)),
        ("weights", lambda a: np.where(a == a.max(), np.nan, a).astype(a.dtype)),
        ("dup_indptr", lambda a: a[:-1]),
        ("post_indptr", lambda a: a[::-1].copy()),
        ("counts", lambda a: a - a.max()),
    ],
)
def test_a_cache_whose_arrays_do_not_fit_is_rebuilt(
    tmp_path: Path, name: str, damage: Callable[[np.ndarray], np.ndarray]
) -> None:
    corpus = make_corpus()
    built = load_or_build(corpus, tmp_path)
    path = cache.cache_path(corpus, tmp_path)
    head = cachefile.header("similar", cache.CACHE_VERSION, corpus)
    contents = cachefile.load(path, head)
    assert contents is not None
    arrays = {**contents.arrays, name: damage(contents.arrays[name])}
    cachefile.save(path, head, arrays, contents.strings)
    assert cache.load(corpus, tmp_path) is None
    assert load_or_build(corpus, tmp_path).similar(I_GRAPH) == built.similar(I_GRAPH)


class _FailingOpen:
    """A spool file that cannot be made (a read-only folder)."""

    def __call__(self, *args: object, **kwargs: object) -> NoReturn:
        raise PermissionError(13, "Permission denied")


class _FailingFile:
    """A spool file whose second write fails (a full disk)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.writes = 0

    def write(self, data: object) -> int:
        self.writes += 1
        if self.writes == 2:
            raise OSError(28, "No space left on device")
        return 0

    def close(self) -> None:
        pass


@pytest.mark.parametrize("spool", ["kept", "cannot be made", "fails while written"])
def test_a_model_saved_from_its_parts_is_the_file_of_the_whole_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spool: str
) -> None:
    # Postings made a few at a time, so the inverted index is written in many pieces,
    # and its spooled weights read back a few at a time.
    monkeypatch.setattr(similar_model, "_POSTINGS", 7)
    monkeypatch.setattr(cache._Spool, "_READ", 5)
    corpus = make_corpus()
    model = SimilarityModel.build(corpus)
    whole = cache.save(model, corpus, tmp_path / "whole").read_bytes()
    terms, weights = similar_model.weigh(TEXTS)
    made = []

    def counted(*args: Any) -> Any:
        made.append(1)
        return similar_model.posting_pieces(*args)

    monkeypatch.setattr(cache, "posting_pieces", counted)
    (tmp_path / "parts").mkdir()
    if spool == "cannot be made":
        monkeypatch.setattr(cache.tempfile, "TemporaryFile", _FailingOpen())
    elif spool == "fails while written":
        monkeypatch.setattr(cache.tempfile, "TemporaryFile", _FailingFile)
    parts = cache.save_built(terms, weights, lambda: model.duplicates, corpus, tmp_path / "parts")
    assert parts.read_bytes() == whole
    # Kept, the inverted index is made once for both of its members; else once each.
    assert len(made) == (1 if spool == "kept" else 2)
    assert [p.name for p in (tmp_path / "parts").iterdir()] == [parts.name]


def test_postings_made_piece_by_piece_are_the_rows_of_each_term_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    terms, weights = similar_model.weigh(TEXTS)
    order = np.argsort(terms.indices, kind="stable")
    row_of = np.repeat(np.arange(terms.n_docs), np.diff(terms.indptr))
    for size in (1, 5, 1 << 21):
        monkeypatch.setattr(similar_model, "_POSTINGS", size)
        postings = similar_model._invert(terms, weights)
        assert postings.rows.tolist() == row_of[order].tolist()
        assert postings.weights.tolist() == weights[order].tolist()
        assert postings.indptr.tolist() == [
            0,
            *np.cumsum(np.bincount(terms.indices, minlength=terms.n_terms)).tolist(),
        ]
