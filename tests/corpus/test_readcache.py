"""The parsed-files cache: unchanged files are not read again, and give the same corpus."""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
import types
from pathlib import Path

import pytest

from tui.corpus import load as load_mod
from tui.corpus import readcache, readers
from tui.corpus.load import load_corpus
from tui.corpus.model import Collection
from tui.corpus.paper import Author, Paper

A1 = "We study contrastive learning of visual representations with large batches."
A2 = "Diffusion models generate images by reversing a gradual noising process."
A3 = "Graph neural networks pass messages between the nodes of a graph."


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def snapshot(paths: list[Path], cache: Path | None) -> tuple[object, ...]:
    corpus = load_corpus(paths, cache_dir=cache)
    return (
        [(a.id, a.text, a.collection, a.sources, a.paper) for a in corpus.abstracts],
        corpus.files,
        corpus.problems,
    )


@pytest.fixture
def counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    reads: list[Path] = []
    real = load_mod._read_bytes

    def counting(path: Path) -> bytes:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(load_mod, "_read_bytes", counting)
    return reads


def test_unchanged_files_are_not_read_again_and_give_the_same_corpus(
    tmp_path: Path, counted_reads: list[Path]
) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    a = write(folder / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n\n{A2}\n")
    # Latin-1: the decoding warning must come back from the cache too.
    b = write(folder / "b.txt", f"NeurIPS 2021\n\n{A3} Caf\xe9.\n\n{A1}\n".encode("latin-1"))
    cache = tmp_path / "data" / "cache"
    cold = snapshot([folder], None)
    counted_reads.clear()
    first = snapshot([folder], cache)
    assert sorted(counted_reads) == [a, b]
    counted_reads.clear()
    warm = snapshot([folder], cache)
    assert counted_reads == []
    assert cold == first == warm
    assert any("Latin-1" in p.message for p in warm[2])  # type: ignore[attr-defined]
    assert oct(cache.stat().st_mode & 0o777) == "0o700"


def test_files_parsed_by_other_reader_code_are_read_again(
    tmp_path: Path, counted_reads: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    a = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    cache = tmp_path / "cache"
    load_corpus([a], cache_dir=cache)
    counted_reads.clear()
    load_corpus([a], cache_dir=cache)
    assert counted_reads == []
    # The program's version number stays; a reader's code changed.
    monkeypatch.setattr(readcache, "VERSION", readcache.VERSION ^ 1)
    load_corpus([a], cache_dir=cache)
    assert counted_reads == [a]


def test_the_cache_version_follows_the_readers_code(monkeypatch: pytest.MonkeyPatch) -> None:
    assert readcache.VERSION >> 20 == readcache.FORMAT
    assert readcache._code_version() == readcache.VERSION  # the same code, the same version
    real = Path.read_bytes

    def edited(path: Path) -> bytes:
        source = real(path)
        return source + b"# a fix" if path.name == "bibtex.py" else source

    monkeypatch.setattr(Path, "read_bytes", edited)
    assert readcache._code_version() != readcache.VERSION


def test_a_changed_file_is_read_again(tmp_path: Path, counted_reads: list[Path]) -> None:
    a = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    b = write(tmp_path / "b.txt", f"ICLR 2023 Papers\n\n{A2}\n")
    cache = tmp_path / "cache"
    load_corpus([a, b], cache_dir=cache)
    counted_reads.clear()
    write(a, f"ICLR 2023 Papers\n\n{A1}\n\n{A3}\n")
    st = a.stat()
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    corpus = snapshot([a, b], cache)
    assert counted_reads == [a]
    assert [x[1] for x in corpus[0]] == [A1, A3, A2]  # type: ignore[index]
    counted_reads.clear()
    assert snapshot([a, b], cache) == corpus
    assert counted_reads == []


def _sqlite_of(tables: str, app_id: int = 0, version: int = 0) -> bytes:
    """The bytes of an SQLite database made by `tables` with these header fields."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "db"
        conn = sqlite3.connect(path)
        conn.executescript(
            f"{tables}; PRAGMA application_id = {app_id}; PRAGMA user_version = {version};"
        )
        conn.close()
        return path.read_bytes()


def _the_cache(cache: Path) -> Path:
    [made] = [p for p in cache.iterdir() if p.name.endswith(".sqlite")]
    return made


def test_a_damaged_or_foreign_cache_is_rebuilt_not_trusted(
    tmp_path: Path, counted_reads: list[Path]
) -> None:
    a = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    cache = tmp_path / "cache"
    expected = snapshot([a], None)
    load_corpus([a], cache_dir=cache)
    made = _the_cache(cache)
    ours = made.read_bytes()
    junks = {
        "garbage": b"\x00garbage" * 100,
        "truncated": ours[: len(ours) // 3],
        "another program's database": _sqlite_of("CREATE TABLE t(x)", app_id=7),
        "another version": _sqlite_of("CREATE TABLE files(x)", readcache.APPLICATION_ID, 99),
        "our id and version, another schema": _sqlite_of(
            "CREATE TABLE files(x)", readcache.APPLICATION_ID, readcache.VERSION
        ),
        "empty": b"",
    }
    for what, junk in junks.items():
        write(made, junk)
        assert snapshot([a], cache) == expected, what
        # Rebuilt: the next load reads nothing.
        counted_reads.clear()
        assert snapshot([a], cache) == expected, what
        assert counted_reads == [], what
        assert made.stat().st_mode & 0o777 == 0o600, what


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE entries SET text = X'ff00' WHERE position = 2",  # a blob for a text
        "DELETE FROM entries WHERE position = 1",  # an entry missing
        "UPDATE files SET info = '[1, 2]'",  # a file's info of another shape
    ],
)
def test_ill_formed_entries_mean_reading_the_file_again(
    tmp_path: Path, counted_reads: list[Path], damage: str
) -> None:
    a = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n\n{A2}\n")
    cache = tmp_path / "cache"
    expected = snapshot([a], None)
    load_corpus([a], cache_dir=cache)
    conn = sqlite3.connect(_the_cache(cache))
    with conn:
        conn.execute(damage)
    conn.close()
    counted_reads.clear()
    assert snapshot([a], cache) == expected
    assert counted_reads == [a]


def test_a_link_or_fifo_in_place_of_the_cache_is_removed_not_followed(tmp_path: Path) -> None:
    a = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    cache = tmp_path / "cache"
    expected = snapshot([a], None)
    load_corpus([a], cache_dir=cache)
    made = _the_cache(cache)
    elsewhere = write(tmp_path / "elsewhere.sqlite", made.read_bytes())
    made.unlink()
    made.symlink_to(elsewhere)
    before = elsewhere.read_bytes()
    assert snapshot([a], cache) == expected
    assert not made.is_symlink() and made.is_file()
    assert elsewhere.read_bytes() == before
    made.unlink()
    os.mkfifo(made)
    assert snapshot([a], cache) == expected  # would block forever if it were opened
    assert made.is_file()


def test_a_removed_file_leaves_the_cache(tmp_path: Path) -> None:
    a = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    b = write(tmp_path / "b.txt", f"ICLR 2023 Papers\n\n{A2}\n")
    cache = tmp_path / "cache"
    load_corpus([tmp_path / "*.txt"], cache_dir=cache)
    b.unlink()
    corpus = load_corpus([tmp_path / "*.txt"], cache_dir=cache)
    assert [x.text for x in corpus.abstracts] == [A1]
    conn = sqlite3.connect(_the_cache(cache))
    names = [os.fsdecode(n) for (n,) in conn.execute("SELECT name FROM files")]
    conn.close()
    assert names == [str(a)]


def test_a_cache_path_that_is_not_a_folder_only_costs_the_cache(tmp_path: Path) -> None:
    a = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    blocker = write(tmp_path / "cache", "a file where the folder should be")
    assert snapshot([a], blocker) == snapshot([a], None)
    assert blocker.read_text(encoding="utf-8") == "a file where the folder should be"


def test_papers_come_back_from_the_cache_field_for_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, counted_reads: list[Path]
) -> None:
    paper = Paper(
        title="Deep $\\beta$ Sets",
        authors=(Author("Müller", "Jörg"), Author("Plato")),
        venue="NeurIPS",
        year=2017,
        date="2017-12-04",
        ids=(("arxiv", "1703.06114v3"), ("citekey", "zaheer2017deep")),
        links=(("pdf", "https://example.org/p.pdf"),),
        keywords=("sets",),
        kind="inproceedings",
        extra=(("pages", "3391--3401"),),
    )

    def read(text: str, path: Path) -> readers.ReadResult:
        return readers.ReadResult("one", Collection(path.stem), [A1, ""], [paper, paper], ["w"])

    module = types.ModuleType("tui.corpus.readers.one")
    module.read = read  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tui.corpus.readers.one", module)
    monkeypatch.setitem(readers.READERS, "one", ("one", "one paper"))
    monkeypatch.setitem(readers.EXTENSIONS, ".one", "one")
    f = write(tmp_path / "lib.one", "anything")
    cache = tmp_path / "cache"
    first = snapshot([f], cache)
    counted_reads.clear()
    assert snapshot([f], cache) == first
    assert counted_reads == []
