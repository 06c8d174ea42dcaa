"""Texts left in the read cache: a corpus loaded without keeping its texts reads each
one when it is asked for, and gives what a corpus holding them gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui.corpus import load as load_mod
from tui.corpus import readcache
from tui.corpus.load import Loading, load_corpus
from tui.corpus.model import Corpus, texts_held

A1 = "We study contrastive learning of visual representations with large batches."
A2 = r"Diffusion models reverse a noising process with $\alpha_t$ and \emph{score} matching."
A3 = "Graph neural networks pass messages between the nodes of a graph."
A4 = "Sparse attention lets transformers read documents of a hundred thousand tokens."


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def loaded_without_texts(paths: list[Path], cache: Path) -> Corpus:
    loading = Loading(paths, cache, keep_texts=False)
    while not loading.finished:
        loading.read_next()
    return loading.finish()


def fields(corpus: Corpus) -> list[tuple[object, ...]]:
    return [
        (a.id, a.text, a.plain, a.headline, a.has_abstract, a.collection, a.sources, a.index)
        for a in corpus.abstracts
    ]


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    a = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n\n{A2}\n")
    # A1 again: merged into the abstract first found in a.txt.
    b = write(tmp_path / "b.txt", f"NeurIPS 2021\n\n{A3}\n\n{A1}\n")
    return [a, b]


def test_texts_left_in_the_cache_read_back_as_a_loaded_corpus_holds_them(
    tmp_path: Path, files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    held = load_corpus(files, cache_dir=cache)
    reads: list[Path] = []
    real = load_mod._read_bytes
    monkeypatch.setattr(load_mod, "_read_bytes", lambda p: reads.append(p) or real(p))
    stored = loaded_without_texts(files, cache)
    # The corpus holds no text: each is read from the cache when asked for.
    assert not any(isinstance(a._text, str) for a in stored.abstracts)
    assert fields(stored) == fields(held)
    assert stored.files == held.files
    assert reads == []


def test_files_parsed_by_a_cold_load_are_read_from_the_cache_once_it_is_saved(
    tmp_path: Path, files: list[Path]
) -> None:
    held = load_corpus(files)
    # As the app reads: the first file before the cache opens, the rest through it, the
    # cache saved after the corpus is whole.
    loading = Loading(files, tmp_path / "cache", defer_cache=True, keep_texts=False)
    loading.read_next()
    corpus = loading.publish()
    loading.open_cache()
    while not loading.finished:
        loading.read_next()
    loading.finish(corpus, save_cache=False)
    assert all(isinstance(a._text, str) for a in corpus.abstracts)  # parsed: held so far
    loading.save_cache()
    assert not any(isinstance(a._text, str) for a in corpus.abstracts)
    assert fields(corpus) == fields(held)


def test_parsed_texts_are_kept_when_the_read_cache_cannot_be_written(
    tmp_path: Path, files: list[Path]
) -> None:
    blocked = write(tmp_path / "cache", "a file where the cache folder would be")
    corpus = loaded_without_texts(files, blocked)
    assert all(isinstance(a._text, str) for a in corpus.abstracts)
    assert [a.text for a in corpus.abstracts] == [A1, A2, A3]


@pytest.fixture
def stored(tmp_path: Path, files: list[Path]) -> Corpus:
    """The files loaded once with the cache, then again leaving their texts in it."""
    load_corpus(files, cache_dir=tmp_path / "cache")
    return loaded_without_texts(files, tmp_path / "cache")


def test_a_stored_text_is_read_after_the_cache_file_is_deleted(
    tmp_path: Path, stored: Corpus
) -> None:
    corpus, cache = stored, tmp_path / "cache"
    for made in cache.iterdir():
        made.unlink()
    assert [a.text for a in corpus.abstracts] == [A1, A2, A3]


def test_a_stored_text_whose_cache_entry_was_replaced_comes_from_its_file(
    tmp_path: Path, files: list[Path], stored: Corpus
) -> None:
    corpus, cache = stored, tmp_path / "cache"
    # The file changes and another load stores its new entries in the cache: A2 moved,
    # A1 is gone from it.
    write(files[0], f"ICLR 2023 Papers\n\n{A4}\n\n{A2}\n\n{A3}\n")
    st = files[0].stat()
    os.utime(files[0], ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    load_corpus(files, cache_dir=cache)
    first, second, third = corpus.abstracts
    assert second.text == A2  # found again by its id
    assert third.text == A3  # b.txt is unchanged: still in the cache
    assert first.text == ""  # its file no longer has it


def test_a_forked_child_reads_stored_texts(stored: Corpus) -> None:
    corpus = stored
    assert corpus.abstracts[0].text == A1  # the parent's connection is open
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its own connection, never the parent's
        try:
            os.write(write_end, corpus.abstracts[2].text.encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        got = pipe.read().decode()
    os.waitpid(pid, 0)
    assert got == A3
    assert corpus.abstracts[1].text == A2


def test_texts_held_reads_each_files_texts_at_once_and_lets_them_go_after(
    tmp_path: Path, files: list[Path], stored: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    one_by_one: list[int] = []
    real = readcache.TextReader.read
    monkeypatch.setattr(
        readcache.TextReader, "read", lambda self, *a: one_by_one.append(1) or real(self, *a)
    )
    at_once: list[tuple[int, ...]] = []
    real_many = readcache.TextReader.read_many
    monkeypatch.setattr(
        readcache.TextReader,
        "read_many",
        lambda self, name, digest, positions: (
            at_once.append(tuple(positions)) or real_many(self, name, digest, positions)
        ),
    )
    corpus = stored
    with texts_held(corpus.abstracts):
        assert [a._text for a in corpus.abstracts] == [A1, A2, A3]
        plains = [a.plain for a in corpus.abstracts]
    assert sorted(at_once) == [(1,), (1, 2)]  # one read per file
    assert one_by_one == []
    assert not any(isinstance(a._text, str) for a in corpus.abstracts)
    assert all(a._plain is None for a in corpus.abstracts)  # not kept either
    assert [a.plain for a in corpus.abstracts] == plains


def test_texts_held_leaves_texts_a_corpus_holds_as_they_are(files: list[Path]) -> None:
    corpus = load_corpus(files)
    plain = corpus.abstracts[1].plain
    with texts_held(corpus.abstracts):
        pass
    assert [a.text for a in corpus.abstracts] == [A1, A2, A3]
    assert corpus.abstracts[1]._plain is plain


def test_a_warm_load_finds_its_paragraph_ids_without_reading_the_entries(
    tmp_path: Path, files: list[Path]
) -> None:
    """Each file's ids come with its row of the files table: a start reads no entry
    (per file, that query was most of a warm load's time)."""
    cache = tmp_path / "cache"
    held = load_corpus(files, cache_dir=cache)
    loading = Loading(files, cache, keep_texts=False)
    assert loading.cache is not None
    statements: list[str] = []
    loading.cache._conn.set_trace_callback(statements.append)  # type: ignore[union-attr]
    while not loading.finished:
        loading.read_next()
    assert not [s for s in statements if "entries" in s]
    assert fields(loading.finish()) == fields(held)


@pytest.mark.parametrize(
    ("ids", "read_again"),
    [
        ('"ids": [1, 2]', True),  # not ids: the file is read again
        ('"ids": 7', False),  # no list: the texts come from the entries, their ids hashed
        ('"ids": "ab"', False),
    ],
)
def test_ill_formed_ids_in_the_files_row_give_the_same_corpus(
    tmp_path: Path, files: list[Path], monkeypatch: pytest.MonkeyPatch, ids: str, read_again: bool
) -> None:
    import sqlite3

    cache = tmp_path / "cache"
    held = load_corpus(files, cache_dir=cache)
    (made,) = cache.glob("read-*.sqlite")
    conn = sqlite3.connect(made)
    with conn:
        for row_id, info in conn.execute("SELECT id, info FROM files").fetchall():
            start = info.index('"ids": ')
            damaged = info[:start] + ids + info[info.index("]", start) + 1 :]
            conn.execute("UPDATE files SET info = ? WHERE id = ?", (damaged, row_id))
    conn.close()
    reads: list[Path] = []
    real = load_mod._read_bytes
    monkeypatch.setattr(load_mod, "_read_bytes", lambda p: reads.append(p) or real(p))
    assert fields(loaded_without_texts(files, cache)) == fields(held)
    assert sorted(reads) == (sorted(files) if read_again else [])


def test_a_cache_opened_on_one_thread_is_read_and_saved_on_another(
    tmp_path: Path, files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the app loads: the cache opened with the first files on the main thread, the
    rest read and the cache saved in a worker, nothing parsed again."""
    import threading

    cache = tmp_path / "cache"
    held = load_corpus(files, cache_dir=cache)
    reads: list[Path] = []
    real = load_mod._read_bytes
    monkeypatch.setattr(load_mod, "_read_bytes", lambda p: reads.append(p) or real(p))
    loading = Loading(files, cache, keep_texts=False)
    loading.read_next()
    corpus = loading.publish()
    failed: list[BaseException] = []

    def rest() -> None:
        try:
            while not loading.finished:
                loading.read_next()
            loading.finish(corpus)
        except BaseException as error:  # pragma: no cover - reported below
            failed.append(error)

    worker = threading.Thread(target=rest)
    worker.start()
    worker.join()
    assert not failed
    assert reads == []  # the second file came from the cache too
    assert fields(corpus) == fields(held)


def test_the_index_bound_of_texts_left_in_the_cache_reads_none_of_them(
    tmp_path: Path, files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.search.blocks import TokenSink

    cache = tmp_path / "cache"
    # Parsed, the cache saved, then their texts left in it (as after a cold start); and
    # read back from it without the texts (as the cache child reads the app's files).
    parsed = loaded_without_texts(files, cache)
    held = load_corpus(files, cache_dir=cache)
    for stored in (parsed, loaded_without_texts(files, cache)):
        read = readcache.TextReader.read
        monkeypatch.setattr(readcache.TextReader, "read", lambda *a: pytest.fail("read"))
        bound = TokenSink.bound(stored.abstracts)
        monkeypatch.setattr(readcache.TextReader, "read", read)
        # Each text counts as its file's mean length (b.txt's A1, merged into a.txt's,
        # counts in b.txt's mean): near the bound the texts themselves give.
        mean_a = -(-(len(A1) + len(A2)) // 2)
        mean_b = -(-(len(A3) + len(A1)) // 2)
        assert bound == 2 * (mean_a // 2 + 1) + (mean_b // 2 + 1)
        assert bound == pytest.approx(TokenSink.bound(held.abstracts), rel=0.1)
