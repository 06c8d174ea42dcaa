"""Caches built in a child process: the same files give the same caches the app looks for."""

from __future__ import annotations

import time
from pathlib import Path

from tui.caches import CacheBuild
from tui.corpus.load import load_corpus
from tui.search import cache as search_cache
from tui.similar import cache as similar_cache


def test_the_child_builds_both_caches_for_the_same_corpus(seeds_dir: Path, tmp_path: Path) -> None:
    corpus = load_corpus([seeds_dir])
    build = CacheBuild(corpus, tmp_path / "cache")
    assert build.wait_for("index")
    index = search_cache.load(corpus, tmp_path / "cache")
    assert index is not None
    assert index.search("contrastive", corpus).indices
    assert build.wait_for("similar")
    assert similar_cache.load(corpus, tmp_path / "cache") is not None


def test_a_child_that_cannot_save_still_finishes(seeds_dir: Path, tmp_path: Path) -> None:
    corpus = load_corpus([seeds_dir])
    blocked = tmp_path / "file"
    blocked.write_text("not a directory", encoding="utf-8")
    build = CacheBuild(corpus, blocked / "cache")  # the cache directory cannot be created
    # The child still reports each stage (it builds, fails to save, carries on) and exits;
    # wait_for returns rather than hanging, and the app finds no cache to load.
    assert build.wait_for("similar")
    assert search_cache.load(corpus, blocked / "cache") is None
    assert similar_cache.load(corpus, blocked / "cache") is None


def test_stop_ends_the_child_and_wakes_a_waiter(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(
        "ICLR 2023 Papers\n\nOne abstract about graphs.\n", encoding="utf-8"
    )
    corpus = load_corpus([tmp_path / "a.txt"])
    build = CacheBuild(corpus, tmp_path / "cache")
    build.stop()  # at once: the child has not even finished importing
    assert build.wait_for("index") is False


def test_a_child_that_finished_is_reaped_without_anyone_waiting_for_its_last_report(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text(
        "ICLR 2023 Papers\n\nOne abstract about graphs.\n\nAnother about graphs and trees.\n",
        encoding="utf-8",
    )
    corpus = load_corpus([tmp_path / "a.txt"])
    build = CacheBuild(corpus, tmp_path / "cache")
    assert build.wait_for("index")  # the topics report is never read, as when they were cached
    pid = build._process.pid if build._process is not None else 0
    deadline = time.monotonic() + 60
    # A finished child left unreaped stays in the process table (<defunct>).
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists()
