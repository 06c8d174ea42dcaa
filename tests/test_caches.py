"""Caches built in a child process: the same files give the same caches the app looks for."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest

from tests.corpus.test_rows import refuse_loading, write_papers
from tests.similar.test_duplicates import _texts
from tui import caches, locations
from tui.caches import CacheBuild
from tui.cli import main
from tui.corpus.load import Loading, load_corpus
from tui.corpus.model import Corpus
from tui.corpus.readcache import cache_path
from tui.search import cache as search_cache
from tui.search.build import IndexData, build_index_data
from tui.similar import cache as similar_cache
from tui.similar import topic_cache
from tui.similar.model import SimilarityModel
from tui.similar.topics import compute_topics


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
    # Its last reports taken and their pipe closed (no file left open for the app's life),
    # each there for whoever asks.
    process = build._process
    assert process is not None and process.stdout is not None
    while not process.stdout.closed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.stdout.closed
    assert build.wait_for("topics") and build.wait_for("similar")


def test_a_child_sent_its_files_is_never_asked_for_a_partial_index(tmp_path: Path) -> None:
    """It reads no request after the files: a search waiting for its answer would wait
    until it ended. The app then indexes the first abstracts itself."""
    (tmp_path / "a.txt").write_text(
        "ICLR 2023 Papers\n\nOne abstract about graphs.\n\nAnother about graphs and trees.\n",
        encoding="utf-8",
    )
    corpus = load_corpus([tmp_path / "a.txt"])
    build = CacheBuild(corpus, tmp_path / "cache")
    assert build.ask_partial(1, [tmp_path / "a.txt"]) is False
    assert build.wait_for("index") and "partial" not in build.done


def _stored_corpus(tmp_path: Path, texts: list[str]) -> tuple[Corpus, Corpus]:
    """The corpus of two conference files holding `texts`, as read holding its texts and
    as the cache child reads it: its texts left in the read cache."""
    half = len(texts) // 2
    files = [tmp_path / "a.txt", tmp_path / "b.txt"]
    for path, part in zip(files, (texts[:half], texts[half:]), strict=True):
        path.write_text("ICLR 2023 Papers\n\n" + "\n\n".join(part) + "\n", encoding="utf-8")
    held = load_corpus(files, cache_dir=tmp_path / "read")
    loading = Loading(files, tmp_path / "read", keep_texts=False)
    while not loading.finished:
        loading.read_next()
    stored = loading.finish()
    assert not any(isinstance(a._text, str) for a in stored.abstracts)
    return held, stored


def test_the_child_builds_the_model_and_topics_of_a_corpus_holding_its_texts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    held, stored = _stored_corpus(tmp_path, _texts(60))
    caches._similarity_and_topics(stored, tmp_path / "cache")
    assert capsys.readouterr().out.split() == ["similar", "topics"]
    model = similar_cache.load(stored, tmp_path / "cache")
    topics = topic_cache.load(stored, tmp_path / "cache")
    assert model is not None and topics is not None
    built = SimilarityModel.build(held)
    assert any(built.near_duplicates(i) for i in range(len(held)))
    for i in range(len(held)):
        assert model.similar(i) == built.similar(i)
        assert model.near_duplicates(i) == built.near_duplicates(i)
    assert topics.number.tolist() == compute_topics(built.terms, built.weights).number.tolist()
    # The texts were read a block at a time and let go after.
    assert not any(isinstance(a._text, str) for a in stored.abstracts)


def test_an_index_of_texts_left_in_the_read_cache_is_that_of_texts_held(tmp_path: Path) -> None:
    held, stored = _stored_corpus(tmp_path, [*_texts(40), r"A bound of $O(n \log n)$ on sorting."])
    from_held = build_index_data(held, block_size=16)
    from_stored = build_index_data(stored, block_size=16)
    for field in dataclasses.fields(IndexData):
        a, b = getattr(from_held, field.name), getattr(from_stored, field.name)
        assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b, field.name
    assert not any(isinstance(a._text, str) for a in stored.abstracts)
    assert all(a._plain is None for a in stored.abstracts)


def _app_corpus(folder: Path) -> Corpus:
    """`folder` read as the app reads it: through its read cache, texts left there."""
    loading = Loading([str(folder)], _cache_dir(), keep_texts=False)
    while not loading.finished:
        loading.read_next()
    return loading.finish()


def _cache_dir() -> Path:
    return locations.cache_dir(locations.data_dir(None))


def _rows_written(folder: Path) -> tuple[list[tuple[object, ...]], object]:
    """The corpus rows of `folder` in the read cache, and their meta row."""
    conn = sqlite3.connect(cache_path(_cache_dir(), [str(folder)]))
    try:
        written = conn.execute("SELECT * FROM rows ORDER BY idx").fetchall()
        meta = conn.execute("SELECT value FROM meta WHERE key = 'rows'").fetchone()
    finally:
        conn.close()
    return written, None if meta is None else json.loads(meta[0])


def _drop_rows(folder: Path) -> None:
    conn = sqlite3.connect(cache_path(_cache_dir(), [str(folder)]))
    with conn:
        conn.execute("DELETE FROM rows")
        conn.execute("DELETE FROM meta")
    conn.close()


@pytest.fixture
def papers(tmp_path: Path) -> Path:
    folder = write_papers(tmp_path / "papers")
    # Load problems too: the rows carry them, and a command reports them from there.
    (folder / "empty.txt").write_text("", encoding="utf-8")
    (folder / "notes.pdf").write_bytes(b"%PDF")
    return folder


def test_the_child_writes_the_rows_a_command_writes(
    papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build = CacheBuild(_app_corpus(papers), _cache_dir(), read_args=[str(papers)])
    assert build.wait_for("rows")
    by_child, child_meta = _rows_written(papers)
    _drop_rows(papers)
    assert main(["list", str(papers), "--json"]) == 0  # loads, and writes the rows itself
    capsys.readouterr()
    by_command, command_meta = _rows_written(papers)
    assert len(by_child) == len(by_command) == 4
    for child_row, command_row in zip(by_child, by_command, strict=True):
        assert child_row == command_row
    assert child_meta == command_meta
    assert isinstance(child_meta, dict) and child_meta["problems"]


def test_a_search_after_the_apps_child_answers_from_its_rows(
    papers: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    build = CacheBuild(_app_corpus(papers), _cache_dir(), read_args=[str(papers)])
    assert build.wait_for("rows")
    argv = ["search", "graph", str(papers), "--json"]
    with monkeypatch.context() as patched:
        refuse_loading(patched)
        from_rows = main(argv), *capsys.readouterr()
    _drop_rows(papers)
    loaded = main(argv), *capsys.readouterr()
    assert from_rows == loaded
    assert loaded[1].count("\n") == 2  # both abstracts about graphs


def test_the_child_sends_its_half_and_waits_until_the_app_is_done_with_it(
    seeds_dir: Path,
) -> None:
    """Child side of a half index: the half written whole to the pipe, then nothing more
    (the model's count would take both cores from the app's merge and first search) until
    the app has closed its end."""
    import io
    import os
    import threading

    from tui.search.blocks import TokenSink
    from tui.search.parallel import OtherHalf

    corpus = load_corpus([seeds_dir])
    lo = len(corpus) // 2
    read, write = os.pipe()
    child = threading.Thread(target=caches._send_half, args=(corpus, lo, write))
    child.start()
    pipe = io.BufferedReader(io.FileIO(read, "rb"))
    other = OtherHalf(pipe, corpus.abstracts, lo)
    sink = TokenSink(TokenSink.bound(corpus.abstracts))
    received = other.receive(sink)
    assert received is not None
    _, blocks = received
    assert blocks[0].first == lo and sum(b.lengths.size for b in blocks) == len(corpus) - lo
    child.join(timeout=0.5)
    assert child.is_alive()  # sent, and waiting for the app
    other.close()
    child.join(timeout=10)
    assert not child.is_alive()
