from __future__ import annotations

from pathlib import Path

import pytest

from tests.search.helpers import make_corpus
from tui.search import cache
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
    index = cache.load_or_build(make_corpus(ROWS), blocker / "cache")
    assert index.search("graph ").indices == [1]


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
