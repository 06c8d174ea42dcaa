"""The corpus rows: commands on unchanged files answer from them, and print the same."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui import locations
from tui.cli import main
from tui.commands import corpusview
from tui.corpus import load as load_mod
from tui.corpus import rows
from tui.corpus.model import Corpus
from tui.corpus.readcache import cache_path, name_of

TEXT = """ICLR 2023 Papers

Graph neural networks pass messages between the nodes of a graph.

Diffusion models generate images by reversing a gradual $\\mathcal{N}(0, 1)$ noising process.

Graph neural networks pass messages between the nodes of a graph.
"""

# A paper in a library and again, with a longer abstract, in a feed: one abstract.
LIBRARY = r"""@inproceedings{kipf2017semi,
  title = {Semi-Supervised Classification with Graph Convolutional {N}etworks},
  author = {Kipf, Thomas N. and Welling, Max},
  booktitle = {International Conference on Learning Representations},
  year = {2017},
  doi = {10.48550/arXiv.1609.02907},
  abstract = {We present a scalable approach for graph learning.},
}

@article{ho2020denoising,
  title = {Denoising Diffusion Probabilistic Models with $\beta$ schedules},
  author = {Ho, Jonathan and Jain, Ajay and Abbeel, Pieter},
  journal = {NeurIPS},
  year = {2020},
  abstract = {We present high quality image synthesis results using diffusion models.},
}
"""

MORE = r"""@misc{kipf2017again,
  title = {Semi-Supervised Classification with Graph Convolutional Networks},
  author = {Kipf, Thomas N. and Welling, Max},
  year = {2017},
  doi = {10.48550/arXiv.1609.02907},
  abstract = {We present a scalable approach for semi-supervised learning on graph-structured
  data that is based on an efficient variant of convolutional neural networks.},
}
"""

COMMANDS = [
    ["search", "graph"],
    ["search", "graph", "--json"],
    ["search", "diffusion year:2020..2023", "--json", "--limit", "1"],
    ["search", "author:kipf", "--json"],
    ["list"],
    ["list", "--json"],
]


def write_papers(folder: Path) -> Path:
    """A folder of conference text (LaTeX, a repeated paragraph) and two libraries
    sharing a paper."""
    folder.mkdir()
    (folder / "a.txt").write_text(TEXT, encoding="utf-8")
    (folder / "b.bib").write_text(LIBRARY, encoding="utf-8")
    (folder / "c.bib").write_text(MORE, encoding="utf-8")
    return folder


@pytest.fixture
def papers(tmp_path: Path) -> Path:
    return write_papers(tmp_path / "papers")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def with_folder(command: list[str], folder: Path) -> list[str]:
    """`search QUERY FOLDER ...` or `list FOLDER ...`."""
    at = 2 if command[0] == "search" else 1
    return [*command[:at], str(folder), *command[at:]]


def fresh_rows(folder: Path) -> rows.Rows | None:
    cache = locations.cache_dir(locations.data_dir(None))
    return rows.open_fresh(cache, [str(folder)])


def refuse_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, loading the corpus fails the test: commands must answer from the rows."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the corpus was loaded")

    monkeypatch.setattr(load_mod, "load_corpus", refuse)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_cached_runs_print_what_uncached_runs_print_without_loading_the_corpus(
    command: list[str],
    papers: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = with_folder(command, papers)
    uncached = run(argv, capsys)
    assert uncached[1]  # something printed
    assert fresh_rows(papers) is not None
    if "author:kipf" not in command:  # a field about papers reads the corpus itself
        refuse_loading(monkeypatch)
    assert run(argv, capsys) == uncached


def _touch(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


@pytest.mark.parametrize("change", ["touched", "added", "removed", "fifo", "link"])
def test_rows_are_stale_once_the_files_change(
    change: str, papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["list", str(papers), "--json"]
    run(argv, capsys)
    assert fresh_rows(papers) is not None
    if change == "touched":
        _touch(papers / "a.txt")
    elif change == "added":
        (papers / "d.txt").write_text("ICLR 2024\n\nA new abstract about graphs.\n", "utf-8")
    elif change == "removed":
        (papers / "c.bib").unlink()
    elif change == "fifo":
        os.mkfifo(papers / "e.txt")
    else:
        (papers / "a.txt").rename(papers / "moved.txt")
        (papers / "a.txt").symlink_to(papers / "moved.txt")
    assert fresh_rows(papers) is None
    expected = run(argv, capsys)
    assert run(argv, capsys) == expected  # from the rows written anew
    assert fresh_rows(papers) is not None


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE rows SET headline = X'00ff' WHERE idx = 2",
        "DELETE FROM rows WHERE idx = 1",
        "DELETE FROM rows WHERE idx = 3",  # the last one
        "UPDATE rows SET line = X'00ff' WHERE idx = 1",
        "UPDATE rows SET paper = '{' WHERE paper IS NOT NULL",
        "UPDATE rows SET idx = idx + 100 WHERE idx = 0",
        "UPDATE rows SET id = '0123456789abcdef' WHERE idx = 1",
        "UPDATE meta SET value = '[]'",
        "DROP TABLE rows",
    ],
)
def test_damaged_rows_are_never_trusted(
    damage: str, papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (["list", str(papers), "--json"], ["search", "graph", str(papers), "--json"]):
        expected = run(argv, capsys)
        cache = cache_path(locations.cache_dir(locations.data_dir(None)), [str(papers)])
        conn = sqlite3.connect(cache)
        with conn:
            conn.execute(damage)
        conn.close()
        assert run(argv, capsys) == expected


def test_a_large_build_is_announced_in_one_line(
    papers: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(corpusview, "ANNOUNCE_FROM", 1)
    _, _, err = run(["search", "graph", str(papers)], capsys)
    assert err == (
        "abstracts search: building the search index and the corpus cache for 4 abstracts "
        "(once: later runs on these files use it)\n"
    )
    assert run(["search", "graph", str(papers)], capsys)[2] == ""
    assert run(["list", str(papers)], capsys)[2] == ""
    _touch(papers / "a.txt")
    _, _, err = run(["list", str(papers)], capsys)
    assert err == (
        "abstracts list: building the corpus cache for 4 abstracts "
        "(once: later runs on these files use it)\n"
    )
    first = run(["list", str(papers)], capsys)[1].split()[0]
    _, _, err = run(["similar", first, str(papers)], capsys)
    assert err.startswith("abstracts similar: building the similarity model for 4 abstracts")


def test_load_problems_are_reported_from_the_rows_too(
    papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (papers / "empty.txt").write_text("", encoding="utf-8")
    (papers / "notes.pdf").write_bytes(b"%PDF")
    first = run(["list", str(papers)], capsys)
    assert "empty file" in first[2] and "skipped 1 file" in first[2]
    assert run(["list", str(papers)], capsys) == first


@pytest.mark.parametrize(
    "text", ["plain words", "bidi \u202e and C1 \x85 and DEL \x7f", 'emoji 🙂 and quote " \\']
)
def test_a_kept_json_line_with_marks_added_is_the_rows_json(text: str) -> None:
    from tui.corpus.jsonrow import json_row, json_row_line
    from tui.corpus.model import Abstract, Collection, SourceRef
    from tui.sanitize import json_line

    abstract = Abstract("0123456789abcdef", text, Collection("X"), [SourceRef(Path("a.txt"), 1)])
    marks = {"bookmarked": True, "read": False, "dismissed": text == "plain words"}
    core = json_line(json_row(abstract))
    assert json_row_line(core, **marks) == json_line(json_row(abstract, **marks))
    assert json_row_line(core) == core


def _cache_file(folder: Path) -> Path:
    return cache_path(locations.cache_dir(locations.data_dir(None)), [str(folder)])


def _loaded(folder: Path) -> tuple[rows.Snapshot, Corpus]:
    """What a command has once it loaded `folder`: the snapshot taken before, the corpus."""
    before = rows.Snapshot.take([str(folder)])
    cache = locations.cache_dir(locations.data_dir(None))
    return before, load_mod.load_corpus([str(folder)], cache_dir=cache)


def _change_counter(path: Path) -> bytes:
    """SQLite's file change counter: it moves with every transaction that writes."""
    with path.open("rb") as f:
        f.seek(24)
        return f.read(4)


# Writes the rows of a folder one abstract a transaction and is killed (SIGKILL, no
# cleanup) inside the third block's transaction, two blocks committed before it.
KILLED_WRITER = """
import contextlib, os, signal, sys
from tui import locations
from tui.corpus import rows
from tui.corpus.load import load_corpus

folder = sys.argv[1]
cache = locations.cache_dir(locations.data_dir(None))
before = rows.Snapshot.take([folder])
corpus = load_corpus([folder], cache_dir=cache)
rows.WRITE_ROWS = 1
real = rows.transaction
entered = 0

@contextlib.contextmanager
def dying(conn):
    global entered
    entered += 1
    with real(conn):
        yield conn
        if entered == 4:  # the first clears the old rows; then blocks 1, 2 and 3
            print("writing", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

rows.transaction = dying
rows.save(cache, [folder], corpus, before)
"""


def test_rows_cut_short_by_a_kill_are_never_used(
    papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["list", str(papers), "--json"]
    expected = run(argv, capsys)
    _touch(papers / "a.txt")  # the rows written are stale: the writer replaces them
    writer = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, str(papers)], capture_output=True, text=True
    )
    assert writer.returncode == -signal.SIGKILL
    assert writer.stdout == "writing\n"  # killed where meant, not before
    assert fresh_rows(papers) is None
    conn = sqlite3.connect(_cache_file(papers))
    # The two blocks committed are there (the third was rolled back), without the meta
    # row that would make them fresh.
    assert conn.execute("SELECT count(*) FROM rows").fetchone() == (2,)
    conn.close()
    assert run(argv, capsys) == expected  # from the files, and the rows written whole
    assert run(argv, capsys) == expected
    assert fresh_rows(papers) is not None


def test_rows_are_written_in_short_transactions_readers_get_through(
    papers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before, corpus = _loaded(papers)
    monkeypatch.setattr(rows, "WRITE_ROWS", 1)
    real = rows.transaction
    path = _cache_file(papers)
    answers: list[str] = []

    def read_a_text() -> None:
        # Another connection, as the app's text reader is, that does not wait at all.
        reader = sqlite3.connect(path, timeout=0)
        try:
            found = reader.execute(
                "SELECT e.text FROM files f JOIN entries e ON e.file = f.id "
                "WHERE f.name = ? AND e.position = 2",
                (name_of(papers / "a.txt"),),
            ).fetchone()
        finally:
            reader.close()
        answers.append(found[0])

    @contextlib.contextmanager
    def watched(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        read_a_text()  # between transactions
        with real(conn):
            yield conn
            read_a_text()  # inside one, its rows written but not committed

    monkeypatch.setattr(rows, "transaction", watched)
    assert rows.save(locations.cache_dir(locations.data_dir(None)), [str(papers)], corpus, before)
    # One transaction clears, one writes each of the 4 rows, one marks them complete.
    assert len(answers) == 2 * (1 + len(corpus) + 1)
    assert set(answers) == {corpus.abstracts[1].text}
    assert fresh_rows(papers) is not None


def test_rows_already_written_for_the_same_files_are_not_written_again(
    papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, corpus = _loaded(papers)
    run(["list", str(papers)], capsys)  # a command wrote them meanwhile
    counter = _change_counter(_cache_file(papers))
    assert rows.save(locations.cache_dir(locations.data_dir(None)), [str(papers)], corpus, before)
    assert _change_counter(_cache_file(papers)) == counter
    assert fresh_rows(papers) is not None


@pytest.mark.parametrize("later", ["rows written", "parsed files saved"])
def test_a_writer_stops_once_another_process_writes_the_cache(
    later: str, papers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before, corpus = _loaded(papers)
    cache = locations.cache_dir(locations.data_dir(None))
    monkeypatch.setattr(rows, "WRITE_ROWS", 1)
    real = rows._write_block
    done: list[bool] = []

    def interrupted(conn: sqlite3.Connection, token: str, made: list[tuple[object, ...]]) -> bool:
        if not done:  # between this writer's first two blocks, another process writes
            done.append(True)
            if later == "rows written":
                assert rows.save(cache, [str(papers)], corpus, before)
            else:
                _touch(papers / "a.txt")
                load_mod.load_corpus([str(papers)], cache_dir=cache)  # drops the rows
        return real(conn, token, made)

    monkeypatch.setattr(rows, "_write_block", interrupted)
    assert not rows.save(cache, [str(papers)], corpus, before)
    conn = sqlite3.connect(_cache_file(papers))
    count = conn.execute("SELECT count(*) FROM rows").fetchone()[0]
    conn.close()
    if later == "rows written":
        assert count == len(corpus)  # the later writer's, whole
        assert fresh_rows(papers) is not None
    else:
        assert count == 0
        assert fresh_rows(papers) is None


def test_a_reader_gets_through_while_a_block_of_megabytes_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 300 abstracts of 10 KB: one block of rows larger than SQLite's page cache (2 MB),
    # which it would write to the file, locking readers out, before the commit.
    folder = tmp_path / "long"
    folder.mkdir()
    paragraphs = [" ".join(f"term{i}x{j}" for j in range(1_000)) for i in range(300)]
    (folder / "a.txt").write_text("ICLR 2023\n\n" + "\n\n".join(paragraphs) + "\n", "utf-8")
    before, corpus = _loaded(folder)
    real = rows.transaction
    answers: list[str] = []

    @contextlib.contextmanager
    def read_inside(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        with real(conn):
            yield conn
            reader = sqlite3.connect(_cache_file(folder), timeout=0)
            try:
                answers.append(reader.execute("SELECT text FROM entries").fetchone()[0])
            except sqlite3.OperationalError as err:  # "database is locked"
                answers.append(str(err))
            finally:
                reader.close()

    monkeypatch.setattr(rows, "transaction", read_inside)
    assert rows.save(locations.cache_dir(locations.data_dir(None)), [str(folder)], corpus, before)
    assert answers == [paragraphs[0]] * 3  # clearing, the one block, marking them complete
