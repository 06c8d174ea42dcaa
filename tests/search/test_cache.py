from __future__ import annotations

import dataclasses
import mmap
import os
import pickle
import stat
from pathlib import Path

import numpy as np
import pytest

from tests.pickles import RunsCode, object_array
from tests.search.helpers import (
    make_corpus,
)
from tui import cachefile, locations
from tui.corpus.load import load_corpus
from tui.corpus.model import Corpus, ids_digest
from tui.search import cache
from tui.search import cache as search_cache
from tui.search.index import SearchIndex

ROWS = [
    ("a.txt", "ICLR", 2022, "Contrastive learning of visual features. We pretrain."),
    ("b.txt", "ICML", 2023, "Graph networks for molecules. Helps."),
]


def test_second_load_reuses_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = make_corpus(ROWS)
    first = cache.load_or_build(corpus, tmp_path)
    assert cache.cache_path(corpus, tmp_path).is_file()

    def no_build(corpus: object) -> SearchIndex:
        raise AssertionError("built although the cache was current")

    monkeypatch.setattr(SearchIndex, "build", no_build)
    second = cache.load_or_build(make_corpus(ROWS), tmp_path)
    assert second.data.vocab == first.data.vocab
    assert second.search("molecules ").indices == [1]


def test_changed_file_rebuilds(tmp_path: Path) -> None:
    cache.load_or_build(make_corpus(ROWS), tmp_path)
    changed = make_corpus([*ROWS, ("b.txt", "ICML", 2023, "Diffusion models. New.")])
    assert cache.load(changed, tmp_path) is None
    index = cache.load_or_build(changed, tmp_path)
    assert index.search("diffusion ").indices == [2]
    assert cache.load(changed, tmp_path) is not None


@pytest.mark.parametrize("content", [b"", b"garbage", b"\x80\x05\x95"])
def test_corrupt_cache_is_ignored_and_rebuilt(tmp_path: Path, content: bytes) -> None:
    corpus = make_corpus(ROWS)
    cache.cache_path(corpus, tmp_path).write_bytes(content)
    index = cache.load_or_build(corpus, tmp_path)
    assert index.search("graph ").indices == [1]
    assert cache.load(corpus, tmp_path) is not None


def test_truncated_cache_is_ignored(tmp_path: Path) -> None:
    corpus = make_corpus(ROWS)
    cache.load_or_build(corpus, tmp_path)
    path = cache.cache_path(corpus, tmp_path)
    path.write_bytes(path.read_bytes()[:-40])
    assert cache.load(corpus, tmp_path) is None
    assert cache.load_or_build(corpus, tmp_path).search("graph ").indices == [1]


def test_unwritable_cache_dir_just_builds(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    corpus = make_corpus(ROWS)
    index = cache.load_or_build(corpus, blocker / "cache")
    assert index.search("graph ").indices == [1]
    assert not cache.save(index, corpus, blocker / "cache")


def test_an_index_without_words_is_cached_too(tmp_path: Path) -> None:
    # Its postings are empty arrays: still arrays, not lists of strings.
    corpus = make_corpus([("a.txt", "ICLR", 2023, "")])
    assert cache.save(SearchIndex.build(corpus), corpus, tmp_path)
    assert cache.load(corpus, tmp_path) is not None


def test_reordered_abstracts_do_not_reuse_the_cache(tmp_path: Path) -> None:
    corpus = make_corpus(ROWS)
    cache.load_or_build(corpus, tmp_path)
    # Same files (same fingerprint), other order: the indices would be wrong.
    swapped = make_corpus(list(reversed(ROWS)))
    assert swapped.fingerprint == corpus.fingerprint
    assert cache.load(swapped, tmp_path) is None


def test_new_rendering_rules_do_not_reuse_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.corpus import latex

    corpus = make_corpus(ROWS)
    cache.load_or_build(corpus, tmp_path)
    old_path = cache.cache_path(corpus, tmp_path)
    monkeypatch.setattr(latex, "RENDER_VERSION", cache.render_version() + 1, raising=False)
    assert cache.cache_path(corpus, tmp_path) != old_path
    assert cache.load(corpus, tmp_path) is None
    # Even a cache file under the new name but written with the old rules is refused.
    cache.cache_path(corpus, tmp_path).write_bytes(old_path.read_bytes())
    assert cache.load(corpus, tmp_path) is None


def test_a_pickle_in_the_cache_file_is_never_unpickled(tmp_path: Path) -> None:
    corpus = make_corpus(ROWS)
    marker = tmp_path / "code-ran"
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir(mode=0o700)
    target = cache.cache_path(corpus, cache_dir)
    # A plain pickle stream, as the cache used to be: header first, then the data.
    payload = pickle.dumps(RunsCode(marker))
    target.write_bytes(payload + payload)
    index = cache.load_or_build(corpus, cache_dir)
    assert not marker.exists()
    assert index.search("graph ").indices == [1]
    # The rebuilt cache replaced it and is used.
    assert cache.load(corpus, cache_dir) is not None


def test_a_pickle_inside_an_npz_cache_file_is_never_unpickled(tmp_path: Path) -> None:
    corpus = make_corpus(ROWS)
    marker = tmp_path / "code-ran"
    cache.load_or_build(corpus, tmp_path)
    target = cache.cache_path(corpus, tmp_path)
    with np.load(target) as npz:
        entries = {name: npz[name] for name in npz.files}
    # Every array swapped for an object array: NumPy stores those as pickles.
    evil = object_array(marker)
    with target.open("wb") as f:
        np.savez(f, **{name: evil for name in entries})
    assert cache.load(corpus, tmp_path) is None
    assert cache.load_or_build(corpus, tmp_path).search("graph ").indices == [1]
    assert not marker.exists()


def test_the_cache_folder_is_private(tmp_path: Path) -> None:
    corpus = make_corpus(ROWS)
    old_umask = os.umask(0o022)
    try:
        new = tmp_path / "data" / "cache"
        cache.load_or_build(corpus, new)
        assert stat.S_IMODE(new.stat().st_mode) == 0o700
        assert stat.S_IMODE(new.parent.stat().st_mode) == 0o700
        # A folder left 0755 by an older version is tightened before it is read.
        new.chmod(0o755)
        assert cache.load(corpus, new) is not None
        assert stat.S_IMODE(new.stat().st_mode) == 0o700
    finally:
        os.umask(old_umask)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="no user ids here")
def test_a_cache_folder_of_another_user_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = make_corpus(ROWS)
    cache.load_or_build(corpus, tmp_path / "cache")
    mine = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: mine + 1)
    assert cache.load(corpus, tmp_path / "cache") is None


def test_every_index_field_round_trips(tmp_path: Path) -> None:
    """Walks IndexData's fields, so a field added to it must survive the cache too."""
    corpus = make_corpus(ROWS)
    built = SearchIndex.build(corpus)
    assert cache.save(built, corpus, tmp_path)
    loaded = cache.load(corpus, tmp_path)
    assert loaded is not None
    for field in dataclasses.fields(built.data):
        before, after = getattr(built.data, field.name), getattr(loaded.data, field.name)
        if isinstance(before, np.ndarray):
            assert after.dtype == before.dtype, field.name
            assert np.array_equal(after, before), field.name
        else:
            assert after == before, field.name


def test_old_caches_are_pruned_to_the_shared_policy(tmp_path: Path) -> None:
    (tmp_path / "search-v2-r1-0123.pickle").write_bytes(b"a pickled cache of an older version")
    paths = []
    for n in range(cachefile.KEEP + 2):
        corpus = make_corpus([*ROWS, (f"c{n}.txt", "ICLR", 2020, f"Abstract number {n}.")])
        cache.load_or_build(corpus, tmp_path)
        path = cache.cache_path(corpus, tmp_path)
        os.utime(path, (1_000_000 + n, 1_000_000 + n))
        paths.append(path)
    assert sorted(tmp_path.glob("search-*")) == sorted(paths[-cachefile.KEEP :])


def test_the_cache_file_changes_with_the_format_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = make_corpus([("a.txt", "ICLR", 2023, "Graph networks.")])
    before = search_cache.cache_path(corpus, tmp_path)
    monkeypatch.setattr(search_cache, "FORMAT_VERSION", search_cache.FORMAT_VERSION + 1)
    assert search_cache.cache_path(corpus, tmp_path) != before


def _maps_a_file(array: np.ndarray) -> bool:
    """True when `array` is a view of memory mapped from a file (not a copy of it)."""
    base: object = array
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, memoryview):
        base = base.obj
    return isinstance(base, mmap.mmap)


def test_a_loaded_index_views_its_cache_file_read_only(tmp_path: Path) -> None:
    corpus = make_corpus(ROWS)
    cache.load_or_build(corpus, tmp_path)
    loaded = cache.load(corpus, tmp_path)
    assert loaded is not None
    arrays = {
        f.name: getattr(loaded.data, f.name)
        for f in dataclasses.fields(loaded.data)
        if isinstance(getattr(loaded.data, f.name), np.ndarray)
    }
    assert arrays
    for name, array in arrays.items():
        assert _maps_a_file(array), name
        assert not array.flags.writeable, name
        assert array.flags.aligned, name


@pytest.fixture(scope="module")
def seeds() -> Corpus:
    return load_corpus([locations.seeds_dir()])


QUERIES = [
    "graph",
    "graph ",
    "learning ",
    '"neural networks"',
    "contrastive -survey",
    "reinforcement learning year:2020..2024",
    "venue:iclr model",
    "transformer attention ",
    "languag",
    "netwrks ",  # a misspelling: fuzzy expansion
]


def test_a_mapped_index_answers_as_the_index_built_in_memory(seeds: Corpus, tmp_path: Path) -> None:
    built = SearchIndex.build(seeds)
    assert cache.save(built, seeds, tmp_path)
    loaded = cache.load(seeds, tmp_path)
    assert loaded is not None and _maps_a_file(loaded.data.post_doc)
    answered = 0
    for query in QUERIES:
        want, got = built.search(query, seeds), loaded.search(query, seeds)
        assert (got.indices, got.scores, got.total) == (want.indices, want.scores, want.total)
        answered += bool(want.indices)
        for order in ("year", "headline"):
            assert (
                loaded.search(query, seeds, order=order).indices
                == built.search(query, seeds, order=order).indices
            )
        text = seeds.abstracts[want.indices[0]].plain if want.indices else "graph networks"
        assert loaded.highlighter(query).spans(text) == built.highlighter(query).spans(text)
    assert answered >= len(QUERIES) - 2  # the queries do find abstracts


def _cuts(size: int) -> list[int]:
    return [0, 30, size // 4, size // 2, size - 100, size - 1]


def test_a_cache_file_cut_anywhere_is_rebuilt(seeds: Corpus, tmp_path: Path) -> None:
    built = cache.load_or_build(seeds, tmp_path)
    path = cache.cache_path(seeds, tmp_path)
    whole = path.read_bytes()
    want = built.search("graph ", seeds).indices
    for cut in _cuts(len(whole)):
        path.write_bytes(whole[:cut])
        assert cache.load(seeds, tmp_path) is None, cut
        assert cache.load_or_build(seeds, tmp_path).search("graph ", seeds).indices == want
        assert path.read_bytes() == whole  # rebuilt and saved again


def test_a_cache_file_with_bytes_changed_is_never_trusted(seeds: Corpus, tmp_path: Path) -> None:
    """Flipped bytes in the array headers, offsets and numbers: each load is refused, or
    (where the flipped byte leaves every check passing) gives an index that searches
    without error; never a crash."""
    cache.load_or_build(seeds, tmp_path)
    path = cache.cache_path(seeds, tmp_path)
    whole = path.read_bytes()
    for at in range(0, len(whole), max(len(whole) // 200, 1)):
        damaged = bytearray(whole)
        damaged[at] ^= 0xFF
        path.write_bytes(bytes(damaged))
        index = cache.load(seeds, tmp_path)
        if index is not None:
            for query in QUERIES:
                index.search(query, seeds)


def test_an_index_file_of_the_previous_format_is_rebuilt_and_removed(
    tmp_path: Path,
) -> None:
    corpus = make_corpus(ROWS)
    built = SearchIndex.build(corpus)
    arrays, strings = cache._to_file(built.data)
    previous = cache.FORMAT_VERSION - 1
    old = cachefile.path_for(tmp_path, "search", previous, corpus)
    cachefile.save(old, cachefile.header("search", previous, corpus), arrays, strings)
    index = cache.load_or_build(corpus, tmp_path)
    assert index.search("graph ").indices == [1]
    assert [p.name for p in tmp_path.glob("search-*")] == [cache.cache_path(corpus, tmp_path).name]


PHRASES = [
    ("a.txt", "ICLR", 2022, "Graph neural networks learn molecules. Message passing helps."),
    ("a.txt", "ICLR", 2022, "Neural graph methods for molecules, learned. Passing messages."),
    ("b.txt", "ICML", 2023, "Diffusion models generate images. Score matching trains them."),
    ("b.txt", "ICML", 2023, "Images from graph diffusion; networks neural and deep."),
]


@pytest.mark.parametrize("largest_mapped", [cache.MAPPED_TOKENS_MAX, 0])
def test_a_loaded_index_answers_phrases_and_proximity_as_the_built_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, largest_mapped: int
) -> None:
    """A small index's words are read through the mapping (quicker); a large one's from the
    file (no page of it mapped into the app): both answer as the index built in memory."""
    from tui.search.query import parse_query

    monkeypatch.setattr(cache, "MAPPED_TOKENS_MAX", largest_mapped)
    corpus = make_corpus(PHRASES)
    built = SearchIndex.build(corpus)
    assert cache.save(built, corpus, tmp_path)
    loaded = cache.load(corpus, tmp_path)
    assert loaded is not None
    assert (loaded._tokens is None) == (largest_mapped > 0)
    for query in ['"graph neural"', "graph neural", "neural graph molecules", '"score matching"']:
        parsed = parse_query(query)
        assert loaded.search(parsed, corpus) == built.search(parsed, corpus), query


def _pairs(array: np.ndarray) -> list[np.ndarray]:
    """An array in pieces of two items, as a large mapped one is checked piece by piece."""
    return [array[k : k + 2] for k in range(0, len(array), 2)]


DAMAGES = {
    "nothing": lambda d: None,
    "offsets short of their array's end": lambda d: d.post_ptr.__setitem__(-1, d.post_ptr[-1] - 1),
    "offsets of one row too few": lambda d: setattr(d, "post_ptr", np.delete(d.post_ptr, 1)),
    "offsets going back": lambda d: d.tok_ptr.__setitem__(1, d.tok_ptr[-1] + 1),
    "an abstract number one past the last": lambda d: d.post_doc.__setitem__(0, len(d.ids)),
    "abstract numbers as a column": lambda d: setattr(d, "post_doc", d.post_doc.reshape(-1, 1)),
    "an infinite length norm": lambda d: d.doc_norm.__setitem__(0, np.inf),
    "a zero length norm": lambda d: d.doc_norm.__setitem__(0, 0.0),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_an_index_whose_arrays_do_not_fit_together_is_never_trusted(damage: str) -> None:
    """What a cache file's index must pass before it is searched (an offset past its array
    or a number past what it indexes would crash the search or find the wrong abstracts),
    checked whole or piece by piece."""
    data = SearchIndex.build(make_corpus(ROWS)).data
    data = dataclasses.replace(
        data,
        **{
            f.name: getattr(data, f.name).copy()
            for f in dataclasses.fields(data)
            if isinstance(getattr(data, f.name), np.ndarray)
        },
    )
    DAMAGES[damage](data)
    trusted = damage == "nothing"
    assert cache.consistent(data) is trusted
    assert cache.consistent(data, _pairs) is trusted


def test_a_partial_index_is_found_for_exactly_its_abstracts_and_never_as_a_whole_one(
    tmp_path: Path,
) -> None:
    """The cache child's index of the first abstracts read (the app filters with it while
    the rest are read) is found again for those abstracts, and never taken for the whole
    index of a corpus, nor for other abstracts."""
    corpus = make_corpus(ROWS)
    first = Corpus(corpus.abstracts[:1], corpus.files[:1], [])
    assert cache.save_partial(SearchIndex.build(first), first, tmp_path)
    loaded = cache.load_partial(first, tmp_path)
    assert loaded is not None and loaded.data.ids == [first.abstracts[0].id]
    assert loaded.search("contrastive ", first).indices == [0]
    assert cache.load(first, tmp_path) is None
    assert cache.load_partial(corpus, tmp_path) is None


def test_the_cached_index_is_found_from_the_corpus_fingerprint_and_ids_alone(
    tmp_path: Path,
) -> None:
    """The command line prints rows of a corpus it never loads: it finds the corpus's
    index from its fingerprint and ids digest alone, and only that corpus's."""
    corpus = make_corpus(ROWS)
    assert cache.save(SearchIndex.build(corpus), corpus, tmp_path)
    digest = ids_digest(a.id for a in corpus.abstracts)
    found = cache.load_by(tmp_path, corpus.fingerprint, digest)
    assert found is not None and found.data.ids == [a.id for a in corpus.abstracts]
    assert cache.load_by(tmp_path, corpus.fingerprint, ids_digest(["other"])) is None
