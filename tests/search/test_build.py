"""The index arrays: block-wise building gives the same arrays as one block, and
postings agree with a plain-Python count."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import typing
from collections import Counter

import numpy as np
import pytest

from tests.search.helpers import Row, make_corpus
from tui.corpus.model import Collection
from tui.corpus.tokens import tokenize
from tui.search.build import K1, B, IndexData, build_index_data
from tui.search.index import SearchIndex

ROWS: list[Row] = [
    ("a.txt", "ICLR", 2022, "Contrastive learning of visual features. Learning learning again."),
    ("a.txt", "ICLR", 2022, "A survey of image enhancement. Contrast matters for images."),
    ("b.txt", "NeurIPS", 2023, "Vision-language models at scale. We align text and images."),
    ("b.txt", "NeurIPS", 2023, "Graph networks. A contrastive objective helps graphs."),
    (
        "c.txt",
        "ICML",
        2024,
        "Fast attention kernels. We get 3× speedups and error √m.",
        r"Fast attention kernels. We get $3\times$ speedups and error $\sqrt m$.",
    ),
    ("c.txt", "ICML", 2024, "Ünïcode wörds café. Straße and CAFÉ again."),
    ("c.txt", "ICML", 2024, ""),
]


def same(a: IndexData, b: IndexData) -> None:
    for field in dataclasses.fields(IndexData):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype, field.name
            assert np.array_equal(x, y), field.name
        else:
            assert x == y, field.name


@pytest.mark.parametrize("block_size", [1, 2, 3, 5])
def test_blocks_do_not_change_the_index(block_size: int) -> None:
    corpus = make_corpus(ROWS)
    same(build_index_data(corpus, block_size=block_size), build_index_data(corpus))


def test_postings_match_a_plain_count() -> None:
    corpus = make_corpus(ROWS)
    data = build_index_data(corpus)
    bodies = [tokenize(a.plain) for a in corpus.abstracts]
    assert data.vocab == sorted(set(data.vocab))
    assert {"times", "sqrt", "strasse", "cafe", "vision", "language"} <= set(data.vocab)
    assert "emph" not in data.vocab
    lengths = np.asarray([len(b) for b in bodies], dtype=np.float32)
    avg = float(lengths.mean())
    for w, word in enumerate(data.vocab):
        lo, hi = int(data.post_ptr[w]), int(data.post_ptr[w + 1])
        docs = data.post_doc[lo:hi].tolist()
        assert docs == sorted(set(docs)), word
        tfs = data.post_tf[lo:hi].tolist()
        heads = data.post_head[lo:hi].tolist()
        for d, tf, head in zip(docs, tfs, heads, strict=True):
            assert tf == (Counter(bodies[d])[word] or 1), (word, d)  # macro names count once
            assert head == (word in tokenize(corpus.abstracts[d].headline)), (word, d)
    expected_norm = K1 * (1 - B + B * lengths / avg)
    assert data.doc_norm == pytest.approx(expected_norm, rel=1e-5)
    # Every body word has a posting in its document.
    for d, body in enumerate(bodies):
        for word in set(body):
            w = data.vocab.index(word)
            assert d in data.post_doc[data.post_ptr[w] : data.post_ptr[w + 1]].tolist()
    # Token sequences (for phrases) spell the bodies.
    for d, body in enumerate(bodies):
        ids = data.tokens[data.tok_ptr[d] : data.tok_ptr[d + 1]].tolist()
        assert [data.vocab[i] for i in ids] == body


def test_empty_corpus() -> None:
    data = build_index_data(make_corpus([]))
    assert data.vocab == [] and data.post_doc.size == 0 and data.tok_ptr.tolist() == [0]


def _many_rows() -> list[Row]:
    """300 abstracts mixing the word forms of ROWS (accents, macros, symbols, compounds)."""
    rows: list[Row] = []
    for k in range(300):
        base = ROWS[k % len(ROWS)]
        extra = f" Topic {k} about graphs. Pre-training words {k % 7}-{k % 5} here, x{k % 11}."
        rows.append((base[0], base[1], base[2] + k % 3, *(text + extra for text in base[3:])))
    return rows


def test_two_processes_build_the_same_index_as_one() -> None:
    corpus = make_corpus(_many_rows())
    same(
        build_index_data(corpus, block_size=64, workers=1),
        build_index_data(corpus, block_size=64, workers=2),
    )


def test_a_failed_helper_process_leaves_its_half_to_this_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tui.search import parallel

    corpus = make_corpus(_many_rows())
    one = build_index_data(corpus, block_size=64, workers=1)

    def fail(*args: object) -> None:
        raise RuntimeError("the helper breaks")

    monkeypatch.setattr(parallel, "_send", fail)  # inherited by the forked helper
    same(one, build_index_data(corpus, block_size=64, workers=2))


def test_tokens_beyond_the_estimate_grow_the_array(monkeypatch: pytest.MonkeyPatch) -> None:
    from tui.search.blocks import TokenSink

    corpus = make_corpus(_many_rows())
    one = build_index_data(corpus, block_size=64, workers=1)
    monkeypatch.setattr(TokenSink, "bound", staticmethod(lambda abstracts: 1))
    same(one, build_index_data(corpus, block_size=64, workers=1))
    same(one, build_index_data(corpus, block_size=64, workers=2))


@pytest.mark.parametrize("empty_half", [False, True])
def test_two_processes_each_index_their_half(
    monkeypatch: pytest.MonkeyPatch, empty_half: bool
) -> None:
    # The helper's half comes from the helper: this process indexes only the first half
    # (a helper that failed quietly would leave both halves to it, with the same index),
    # and nothing of the helper is left behind: no process, no open pipe.
    from tui.search import parallel

    seen: list[tuple[int, int]] = []  # (process, first document) of each block indexed here
    index_block, fork = parallel.index_block, os.fork
    helpers: list[int] = []

    def recording(abstracts, first, vocab, tokens):  # type: ignore[no-untyped-def]
        seen.append((os.getpid(), first))
        return index_block(abstracts, first, vocab, tokens)

    def forking() -> int:
        pid = fork()
        helpers.append(pid)
        return pid

    monkeypatch.setattr(parallel, "index_block", recording)
    monkeypatch.setattr(parallel.os, "fork", forking)
    rows = _many_rows()
    if empty_half:  # a helper with no words at all
        rows[150:] = [("d.txt", "ICML", 2024, "")] * 150
    corpus = make_corpus(rows)
    one = build_index_data(corpus, block_size=64, workers=1)
    seen.clear()
    descriptors = len(os.listdir("/proc/self/fd"))
    same(one, build_index_data(corpus, block_size=64, workers=2))
    assert seen == [(os.getpid(), first) for first in (0, 64, 128)]  # of [0, 150)
    assert len(os.listdir("/proc/self/fd")) == descriptors
    [helper] = helpers
    with pytest.raises(ChildProcessError):
        os.waitpid(helper, os.WNOHANG)


def test_two_processes_index_a_large_corpus_only_where_forking_is_safe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tui.search import parallel
    from tui.search.parallel import PARALLEL_MIN, workers_for

    monkeypatch.setattr(parallel.sys, "platform", "linux")
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)
    assert workers_for(PARALLEL_MIN - 1) == 1
    assert workers_for(PARALLEL_MIN) == 2
    # Other threads (the app's) may hold locks: only a caller that vouches for them forks.
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 3)
    assert workers_for(PARALLEL_MIN) == 1
    assert workers_for(PARALLEL_MIN, fork_safe=True) == 2
    assert workers_for(PARALLEL_MIN - 1, fork_safe=True) == 1
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert workers_for(PARALLEL_MIN, fork_safe=True) == 1
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(parallel.sys, "platform", "darwin")
    assert workers_for(PARALLEL_MIN, fork_safe=True) == 1


@pytest.mark.parametrize("threads", [1, 3])
def test_a_large_corpus_is_indexed_by_two_processes_unless_forking_is_unsafe(
    monkeypatch: pytest.MonkeyPatch, threads: int
) -> None:
    """Left to itself (no `workers` given), the build of a large corpus forks a helper
    where forking is safe: in a process without other threads, or for a caller that
    vouches for them (`fork_safe`, the cache child); the app, with its threads, does not."""
    from tui.search import parallel

    monkeypatch.setattr(parallel, "PARALLEL_MIN", 200)  # the corpus below is large
    monkeypatch.setattr(parallel.sys, "platform", "linux")
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(parallel.threading, "active_count", lambda: threads)
    forks: list[int] = []
    fork = os.fork

    def forking() -> int:
        pid = fork()
        forks.append(pid)
        return pid

    monkeypatch.setattr(parallel.os, "fork", forking)
    corpus = make_corpus(_many_rows())
    one = build_index_data(corpus, block_size=64, workers=1)
    same(one, build_index_data(corpus, block_size=64))
    assert len(forks) == (1 if threads == 1 else 0)
    same(one, SearchIndex.build(corpus, fork_safe=True).data)  # as the cache child builds
    assert len(forks) == (2 if threads == 1 else 1)


def test_the_index_stage_is_reported_block_by_block_up_to_all_of_them() -> None:
    """The cache child shows the build's progress ("building the search index 40%"):
    one step per block indexed, as a share of the blocks, the last one at all of them."""
    from tui import progress

    steps: list[tuple[str, int, int]] = []
    progress.watch(lambda stage, done, total: steps.append((stage, done, total)))
    try:
        build_index_data(make_corpus(_many_rows()), block_size=64, workers=1)
    finally:
        progress.watch(None)
    assert steps == [("index", done, 5) for done in range(1, 6)]  # 300 abstracts


def test_the_arrays_have_their_declared_types_and_one_entry_per_abstract() -> None:
    for rows in (ROWS, []):
        data = build_index_data(make_corpus(rows))
        for name, hint in typing.get_type_hints(IndexData).items():
            value = getattr(data, name)
            if isinstance(value, np.ndarray):
                [dtype] = typing.get_args(typing.get_args(hint)[1])
                assert value.dtype == dtype, name
        for name in ("doc_norm", "years", "venue_of"):
            assert getattr(data, name).size == len(rows), name


def test_lengths_are_normalised_by_the_average_even_below_one_word() -> None:
    # Half the abstracts are empty or only a symbol (no words): the average is half a word.
    rows: list[Row] = [
        ("a.txt", "ICLR", 2023, "Graph."),
        ("a.txt", "ICLR", 2023, "×", r"$\times$"),
    ]
    data = build_index_data(make_corpus(rows))
    assert data.doc_norm.tolist() == pytest.approx([K1 * (1 - B + B * 2), K1 * (1 - B)])
    symbols = build_index_data(make_corpus(rows[1:]))  # no words at all
    assert symbols.doc_norm.tolist() == pytest.approx([K1 * (1 - B)])


def test_a_block_of_one_posting_marks_its_headline_word() -> None:
    data = build_index_data(make_corpus([("a.txt", "ICLR", 2023, "Graph.")]))
    assert data.vocab == ["graph"] and data.post_head.tolist() == [True]


def test_the_venue_is_the_collections_venue_not_its_label() -> None:
    corpus = make_corpus([("a.txt", "ICLR", 2023, "Graph.")])
    abstract = corpus.abstracts[0]
    abstract.collection = Collection("Proceedings, 2023", "ICLR", 2023)
    assert build_index_data(corpus).venue_names == ["iclr"]


def test_a_headline_cut_mid_word_adds_no_word() -> None:
    corpus = make_corpus([("a.txt", "ICLR", 2023, "Graph networks for molecules.")])
    corpus.abstracts[0]._headline = "Graph netw internationalizations"
    data = build_index_data(corpus)
    assert "netw" not in data.vocab and "internationalizations" not in data.vocab
    graph = data.vocab.index("graph")
    assert data.post_head[data.post_ptr[graph]]


def test_a_corpus_of_one_hyphenated_word_has_its_compound() -> None:
    data = build_index_data(make_corpus([("a.txt", "ICLR", 2023, "Pre-training.")]))
    assert data.vocab == ["pre", "pretraining", "training"]


def test_an_abstract_with_a_lone_surrogate_is_indexed() -> None:
    # No file yields one (decoding is strict, and LaTeX's `\unicode{xD800}` stays source),
    # but the index takes any Python text: a lone surrogate is no word character.
    plain = "We study the symbol \ud800 in graph networks, as a case study."
    corpus = make_corpus([("a.txt", "ICLR", 2023, plain, "We study the symbol.")])
    assert SearchIndex.build(corpus).search("graph networks ").indices == [0]


def test_a_block_whose_word_by_abstract_keys_pass_32_bits_is_indexed_alike() -> None:
    """One block of 65,536 abstracts (the most a block holds) over about 100,000 distinct
    words: its (word, abstract) keys pass 2**32, where the 32-bit sort would wrap round and
    give words to the wrong abstracts. It must index as the default blocks do."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = (
        "q" + a + b + c + d for a in letters for b in letters for c in letters for d in letters
    )
    m, doubles = 1 << 16, 34_000
    rows: list[Row] = [
        (
            "big.txt",
            "ICLR",
            2024,
            f"{next(words)} {next(words)}." if j < doubles else f"{next(words)}.",
        )
        for j in range(m)
    ]
    corpus = make_corpus(rows)
    whole = build_index_data(corpus, block_size=m, workers=1)
    assert len(whole.vocab) * m >= 2**32  # the keys need more than 32 bits
    same(whole, build_index_data(corpus, workers=1))


def _other_half(corpus_sent: object, lo: int, wanted: object, cut: int | None = None) -> object:
    """An `OtherHalf` of `wanted`'s abstracts from `lo` on, read from a pipe that a
    thread writes `send_half` of `corpus_sent`'s into (as the cache child does), its
    bytes cut short after `cut` when given."""
    import io
    import threading

    from tui.search import parallel

    buffer = io.BytesIO()
    parallel.send_half(buffer, corpus_sent.abstracts, lo, 64)  # type: ignore[attr-defined]
    data = buffer.getvalue()
    read, write = os.pipe()

    def send() -> None:  # through the pipe's buffer, as fast as it is read
        with contextlib.suppress(BrokenPipeError), os.fdopen(write, "wb") as out:
            out.write(data if cut is None else data[:cut])  # the reader may stop early

    threading.Thread(target=send, daemon=True).start()
    return parallel.OtherHalf(os.fdopen(read, "rb"), wanted.abstracts, lo)  # type: ignore[attr-defined]


@pytest.mark.parametrize("lo", [150, 100, 299, 300, 0])
def test_another_process_indexing_the_second_half_builds_the_same_index_as_one(
    monkeypatch: pytest.MonkeyPatch, lo: int
) -> None:
    # The half from `lo` on comes from the other process: this one indexes only [0, lo).
    from tui.search import parallel

    corpus = make_corpus(_many_rows())
    one = build_index_data(corpus, block_size=64, workers=1)
    firsts: list[int] = []
    index_block = parallel.index_block

    def recording(abstracts, first, vocab, tokens):  # type: ignore[no-untyped-def]
        firsts.append(first)
        return index_block(abstracts, first, vocab, tokens)

    other = _other_half(corpus, lo, corpus)
    monkeypatch.setattr(parallel, "index_block", recording)
    same(one, build_index_data(corpus, block_size=64, workers=1, other=other))  # type: ignore[arg-type]
    assert firsts == list(range(0, lo, 64))


def test_the_app_takes_the_second_half_of_its_index_from_another_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tui.search import parallel

    corpus = make_corpus(_many_rows())
    one = build_index_data(corpus, workers=1)
    blocks: list[tuple[int, int]] = []  # (first abstract, abstracts) of each indexed here
    index_block = parallel.index_block

    def recording(abstracts, first, vocab, tokens):  # type: ignore[no-untyped-def]
        blocks.append((first, len(abstracts)))
        return index_block(abstracts, first, vocab, tokens)

    other = _other_half(corpus, 150, corpus)
    monkeypatch.setattr(parallel, "index_block", recording)
    same(one, SearchIndex.build(corpus, other=other).data)  # type: ignore[arg-type]
    assert blocks == [(0, 150)]  # the rest is the other process's


@pytest.mark.parametrize("how", ["other abstracts", "cut short", "nothing"])
def test_a_second_half_that_fails_or_is_of_other_abstracts_is_indexed_here(
    monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    from tui.search import parallel

    rows = _many_rows()
    corpus = make_corpus(rows)
    one = build_index_data(corpus, block_size=64, workers=1)
    if how == "other abstracts":  # the files changed before the other process read them
        rows[200] = (*rows[200][:3], rows[200][3] + " Changed.")
        other = _other_half(make_corpus(rows), 150, corpus)
    else:
        other = _other_half(corpus, 150, corpus, cut=1000 if how == "cut short" else 0)
    firsts: list[int] = []
    index_block = parallel.index_block

    def recording(abstracts, first, vocab, tokens):  # type: ignore[no-untyped-def]
        firsts.append(first)
        return index_block(abstracts, first, vocab, tokens)

    monkeypatch.setattr(parallel, "index_block", recording)
    same(one, build_index_data(corpus, block_size=64, workers=1, other=other))  # type: ignore[arg-type]
    assert firsts == [0, 64, 128, 150, 214, 278]  # the second half too, here


@pytest.mark.parametrize("taken", [True, False])
def test_the_other_processes_pipe_is_closed_once_its_half_is_read_or_refused(
    taken: bool,
) -> None:
    """The build lets go of the other process's pipe when it is done with it, its half
    taken or refused (other abstracts): a writer still sending meets a closed pipe instead
    of waiting for a reader that never comes. Letting go again does nothing."""
    rows = _many_rows()
    corpus = make_corpus(rows)
    if not taken:
        rows[200] = (*rows[200][:3], rows[200][3] + " Changed.")
    other = _other_half(corpus if taken else make_corpus(rows), 150, corpus)
    pipe = other._pipe  # type: ignore[attr-defined]
    build_index_data(corpus, block_size=64, workers=1, other=other)  # type: ignore[arg-type]
    assert pipe.closed
    other.close()  # type: ignore[attr-defined]


def test_a_closed_helper_leaves_no_process_and_no_open_pipe() -> None:
    """`close` reaps the forked helper and closes its pipe even while the caller still
    holds the helper; closing it again does nothing."""
    from tui.search import parallel

    helper = parallel.ForkedHelper(lambda out: out.write(b"done"))
    pipe, pid = helper.pipe, helper.pid
    assert pipe is not None and pid is not None
    helper.close()
    assert pipe.closed
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    helper.close()


_HELPER_SCRIPT = """
import os, sys
from tui.search.parallel import ForkedHelper

def work(out):
    if sys.argv[1] == "fails":
        raise RuntimeError("the work breaks")
    out.write(b"done")

helper = ForkedHelper(work)
got = helper.pipe.read()
os.waitpid(helper.pid, 0)  # it ends by itself
helper.close()
print(os.getpid(), got.decode(), flush=True)
"""


@pytest.mark.parametrize("how", ["succeeds", "fails"])
def test_a_forked_helper_ends_with_its_work_and_never_runs_on_in_the_callers_code(
    how: str,
) -> None:
    """Whether its work succeeds or fails, the forked helper ends there, silently: it never
    returns into the code that forked it (which would run the caller's code twice, a
    second app on the same terminal)."""
    import subprocess
    import sys
    from pathlib import Path

    from tui.search import parallel

    done = subprocess.run(
        [sys.executable, "-c", _HELPER_SCRIPT, how],
        cwd=Path(parallel.__file__).parents[2],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stderr == ""
    [line] = done.stdout.splitlines()  # the caller's last line, printed once
    assert line.split(" ")[1] == ("done" if how == "succeeds" else "")
    assert done.returncode == 0
