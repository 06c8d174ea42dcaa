"""A build's steps as the cache child reports them: the watcher, and the percents the app shows."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.similar.test_duplicates import _texts
from tests.test_caches import _stored_corpus
from tui import caches, progress
from tui.caches import CacheBuild


@pytest.fixture(autouse=True)
def _no_watcher() -> Iterator[None]:
    yield
    progress.watch(None)


def test_only_the_watching_process_reports_a_step(tmp_path: Path) -> None:
    """A build's forked helper inherits the watcher but stays silent: its lines would mix
    with the watcher's on the pipe to the app."""
    said = tmp_path / "said"

    def report(stage: str, done: int, total: int) -> None:
        with said.open("a") as out:
            out.write(f"{os.getpid()} {stage} {done} {total}\n")

    progress.watch(report)
    progress.advance("index", 1, 4)
    pid = os.fork()
    if pid == 0:  # the helper
        try:
            progress.advance("index", 2, 4)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    progress.advance("index", 3, 4)
    assert said.read_text().splitlines() == [f"{os.getpid()} index 1 4", f"{os.getpid()} index 3 4"]
    progress.watch(None)
    progress.advance("index", 4, 4)
    assert len(said.read_text().splitlines()) == 2


def test_the_child_reports_each_stage_as_a_percent_that_only_grows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.search import cache as search_cache

    monkeypatch.setattr(caches, "_PROGRESS_SECONDS", 0.0)
    _, stored = _stored_corpus(tmp_path, _texts(60))
    progress.watch(caches._Steps().report)
    search_cache.load_or_build(stored, tmp_path / "cache")
    caches._similarity_and_topics(stored, tmp_path / "cache")
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert [line[0] for line in lines if line[0] != "step"] == ["similar", "topics"]
    steps = [(line[1], int(line[2])) for line in lines if line[0] == "step"]
    assert {stage for stage, _ in steps} == {"index", "similar", "topics"}
    for stage in ("index", "similar", "topics"):
        percents = [p for s, p in steps if s == stage]
        assert percents == sorted(percents) and all(0 <= p <= 100 for p in percents), stage
    # Each stage's steps come before it is reported done.
    similar_done = next(i for i, line in enumerate(lines) if line == ["similar"])
    assert all(line[1] != "similar" for line in lines[similar_done:] if line[0] == "step")


def test_the_header_says_how_far_the_stage_under_way_has_gone(tmp_path: Path) -> None:
    build = CacheBuild(None, tmp_path / "cache")
    try:
        assert build.progress_text() == "building the search index"
        build._take(b"step index 40\n")
        assert build.progress_text() == "building the search index 40%"
        build._take(b"index\n")
        assert build.progress_text() == "similarity"
        build._take(b"step similar 7\n")
        build._take(b"step similar x\n")  # not a report: ignored
        assert build.progress_text() == "similarity 7%"
    finally:
        build.discard()
