"""Saved-search counts: the engine's full matches and the unread among them, in this
process and in the counting child."""

from __future__ import annotations

import io
import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tui import locations
from tui.corpus.load import load_corpus
from tui.corpus.model import Corpus
from tui.search import cache
from tui.search.countproc import CountProcess, serve
from tui.search.counts import SearchCounts, count_searches
from tui.search.index import SearchIndex

QUERIES = [
    "graph",
    "is:bookmarked",
    "is:unread graph",
    "year:",
    "contrastive learning",
    "tag:to-cite",
]


class Personal:
    def __init__(self, bookmarked=(), read=(), notes=(), tags=None) -> None:
        self.bookmarked, self.read, self.notes = frozenset(bookmarked), frozenset(read), notes
        self.tags = tags or {}

    def bookmarked_ids(self):
        return self.bookmarked

    def read_ids(self):
        return self.read

    def noted_ids(self):
        return frozenset(i for i, _ in self.notes)

    def note_items(self):
        return list(self.notes)

    def tag_index(self):
        return self.tags

    def dismissed_ids(self):
        return frozenset()


@pytest.fixture(scope="module")
def seeds():
    corpus = load_corpus([locations.seeds_dir()])
    return corpus, SearchIndex.build(corpus)


def test_counts_are_the_filters_full_matches_and_their_unread(seeds) -> None:
    corpus, index = seeds
    graph = index.search("graph")
    read = [corpus.abstracts[i].id for i in graph.indices[:3]]
    personal = Personal(bookmarked=[corpus.abstracts[0].id], read=read)
    counts = count_searches(index, QUERIES, personal)
    assert counts[0] == SearchCounts(graph.matched, graph.matched - 3, graph.close)
    assert counts[1] == SearchCounts(1, 1, 0)
    assert counts[2].matched == graph.matched - 3 and counts[2].unread == counts[2].matched
    # A query that no longer parses counts nothing and says why.
    year = "year: expects a year like 2023 or a range like 2022..2024"
    assert counts[3] == SearchCounts(0, 0, 0, year)
    [neural] = count_searches(index, ["graph neural"], personal)  # close matches only
    assert neural.close == index.search("graph neural").close > 0
    assert count_searches(index, QUERIES, personal, stop=lambda: True) is None


def test_the_child_counts_the_same(seeds, tmp_path: Path) -> None:
    corpus, index = seeds
    assert cache.save(index, corpus, tmp_path)
    child = CountProcess(*cache.locate(corpus, tmp_path))
    try:
        personal = Personal(read=[a.id for a in corpus.abstracts[:10]])
        assert child.count(QUERIES, personal) == count_searches(index, QUERIES, personal)
        # The sets change (copy-on-write: new objects): the child hears of it.
        tags = {"to-cite": frozenset(a.id for a in corpus.abstracts[:4])}
        changed = Personal(bookmarked=[corpus.abstracts[5].id], read=(), tags=tags)
        assert child.count(QUERIES, changed) == count_searches(index, QUERIES, changed)
        counted = child.count(QUERIES, changed)
        assert counted[1].matched == 1 and counted[5].matched == 4
        # Without personal data, and with notes (sent as pairs).
        assert child.count(QUERIES, None) == count_searches(index, QUERIES, None)
        noted = Personal(notes=[(corpus.abstracts[2].id, "revisit the proof")])
        assert child.count(["note:revisit"], noted) == [SearchCounts(1, 1, 0)]
    finally:
        child.close()
    assert not child.alive


def test_a_child_without_a_usable_cache_says_so(tmp_path: Path) -> None:
    child = CountProcess(tmp_path / "missing.npz", {"kind": "search"})
    assert child.count(["graph"], None) is None
    assert not child.alive


def test_serve_answers_one_line_per_request(seeds, tmp_path: Path) -> None:
    corpus, index = seeds
    assert cache.save(index, corpus, tmp_path)
    path, head = cache.locate(corpus, tmp_path)
    requests = [
        {"cache": str(path), "header": head},
        {"queries": ["is:read"], "sets": {"read_ids": [corpus.abstracts[1].id]}},
        {
            "queries": ["is:read", "has:note", "note:x"],
            "sets": {"noted_ids": [corpus.abstracts[2].id]},
            "items": {"note_items": [[corpus.abstracts[2].id, "x"]]},
        },
    ]
    lines = io.BytesIO(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
    out = io.BytesIO()
    assert serve(lines, out) == 0
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [c["matched"] for c in replies[0]["counts"]] == [1]
    # The read set is kept from the request before (sets are sent when they change).
    assert [c["matched"] for c in replies[1]["counts"]] == [1, 1, 1]


def test_topic_queries_read_the_topics_here_and_in_the_child(seeds, tmp_path: Path) -> None:
    import numpy as np

    corpus, index = seeds
    topics = np.zeros(len(corpus), dtype=np.int32)
    topics[:5] = 1
    here = count_searches(index, ["topic:1", "graph"], None, topics=topics)
    assert here[0].matched == 5
    waiting = count_searches(index, ["topic:1", "graph"], None, topics_pending=True)
    assert waiting[0] == SearchCounts(0, 0, 0, "topics are still being computed")
    # Without topics and none on their way, a topic: query simply matches nothing.
    assert count_searches(index, ["topic:1"], None) == [SearchCounts(0, 0, 0)]
    assert waiting[1] == here[1]  # a query without topic: is counted all the same
    assert cache.save(index, corpus, tmp_path)
    child = CountProcess(*cache.locate(corpus, tmp_path))
    try:
        assert child.count(["topic:1", "graph"], Personal(), topics) == here
        assert child.count(["topic:1"], Personal(), topics)[0].matched == 5  # kept, not resent
        assert child.count(["topic:1"], Personal(), None, True)[0].problem
        # Topics neither given nor on their way: a topic: query matches nothing.
        assert child.count(["topic:1"], Personal()) == [SearchCounts(0, 0, 0)]
    finally:
        child.close()


def _serve(requests: list[dict[str, object]]) -> list[dict[str, object]]:
    lines = io.BytesIO(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
    out = io.BytesIO()
    assert serve(lines, out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_serve_knows_nothing_it_was_not_sent(seeds, tmp_path: Path) -> None:
    corpus, index = seeds
    assert cache.save(index, corpus, tmp_path)
    path, head = cache.locate(corpus, tmp_path)
    queries = ["is:bookmarked", "is:dismissed", "has:tag", "topic:1"]
    replies = _serve(
        [
            {"cache": str(path), "header": head},
            {"queries": queries},  # no personal data, no topics yet
            {"queries": ["topic:1"], "topics_pending": True},
        ]
    )
    assert [c["matched"] for c in replies[0]["counts"]] == [0, 0, 0, 0]
    assert replies[1]["counts"][0]["problem"] == "topics are still being computed"


def test_serve_without_a_first_line_ends_at_once() -> None:
    out = io.BytesIO()
    assert serve(io.BytesIO(b""), out) == 1
    assert serve(io.BytesIO(b"[]\n"), out) == 1
    assert out.getvalue() == b""


def _child(seeds: tuple[Corpus, SearchIndex], tmp_path: Path) -> CountProcess:
    corpus, index = seeds
    assert cache.save(index, corpus, tmp_path)
    return CountProcess(*cache.locate(corpus, tmp_path))


def test_a_closed_child_ends_at_the_end_of_its_input(seeds, tmp_path: Path) -> None:
    child = _child(seeds, tmp_path)
    process = child._process
    assert child.count(["graph"], None) is not None  # started, and reading
    child.close()
    # Ended on its own (status 0) once its input closed, not killed; and nothing is asked of it.
    assert process is not None and process.returncode == 0
    assert child.count(["graph"], None) is None


def test_a_child_that_died_answers_nothing_and_raises_nothing(seeds, tmp_path: Path) -> None:
    child = _child(seeds, tmp_path)
    process = child._process
    assert process is not None
    process.kill()
    process.wait()
    assert child.count(QUERIES, Personal()) is None
    assert not child.alive


def test_the_child_never_writes_on_the_apps_screen(
    seeds, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # Ctrl+C reaches the whole process group: the child's traceback must go nowhere.
    # A child inherits an ignored SIGINT (pytest started in the background by a shell):
    # it is started with Python's own handler, so it does get the KeyboardInterrupt.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        child = _child(seeds, tmp_path)
    finally:
        signal.signal(signal.SIGINT, before)
    process = child._process
    assert process is not None and child.count(["graph"], None) is not None  # it is reading
    process.send_signal(signal.SIGINT)
    assert process.wait(10) != 0  # ended by the interrupt, not at the end of its input
    child.close()
    assert capfd.readouterr().err == ""


def test_a_child_that_cannot_be_sent_its_first_line_is_ended_at_once(
    seeds, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the pipe to a new child is unusable before its first line (the child died at
    start), the child is given up at once, not kept as if alive until the first count:
    the app counts in its own process from the start."""
    corpus, index = seeds
    assert cache.save(index, corpus, tmp_path)
    started: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def broken_pipe(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        process = real_popen(*args, **kwargs)
        assert process.stdin is not None
        process.stdin.close()  # the first write fails, as to a child already gone
        started.append(process)
        return process

    monkeypatch.setattr(subprocess, "Popen", broken_pipe)
    child = CountProcess(*cache.locate(corpus, tmp_path))
    assert not child.alive
    assert started and started[0].returncode is not None  # ended, not left running
    assert child.count(["graph"], None) is None


@pytest.mark.parametrize(
    ("query", "needs"),
    [
        ("author:bengio", True),
        ("id:2101.00001", True),
        ("graph has:abstract", True),
        ("is:new", True),
        ("new:2026-12-01", True),
        ("graph", False),
        ("is:bookmarked has:note", False),
        ("title:graph year:2021", False),
        ("-author:", False),  # does not parse: counted (as a problem) anywhere
    ],
)
def test_what_only_the_app_can_count(query: str, needs: bool) -> None:
    from tui.search.counts import needs_the_corpus

    assert needs_the_corpus(query) is needs


def test_is_new_is_counted_from_the_inbox(seeds) -> None:
    from datetime import UTC, datetime

    from tui.search.inbox import Inbox, use_inbox

    corpus, index = seeds
    arrived = {a.id: datetime(2026, 12, 1, tzinfo=UTC) for a in corpus.abstracts[:3]}
    use_inbox(Inbox(arrived))
    try:
        [counted] = count_searches(index, ["is:new"], None, corpus=corpus)
    finally:
        use_inbox(None)
    assert counted == SearchCounts(3, 3)


def test_the_paper_fields_are_counted_with_the_corpus_given() -> None:
    """The app counts the saved searches only it can count (author:, id:, has:abstract)
    with the corpus it indexed: such a search counts its papers, not nothing."""
    from tests.search.papers import paper_corpus

    corpus = paper_corpus()
    index = SearchIndex.build(corpus)
    counted = count_searches(index, ["author:vaswani", "-has:abstract"], None, corpus=corpus)
    assert counted is not None and [c.matched for c in counted] == [1, 1]
