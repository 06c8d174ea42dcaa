"""The corpus rows: commands on unchanged files answer from them, and print the same."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from tui import locations
from tui.cli import main
from tui.commands import corpusview
from tui.corpus import load as load_mod
from tui.corpus import rows
from tui.corpus.readcache import cache_path

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


@pytest.fixture
def papers(tmp_path: Path) -> Path:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "a.txt").write_text(TEXT, encoding="utf-8")
    (folder / "b.bib").write_text(LIBRARY, encoding="utf-8")
    (folder / "c.bib").write_text(MORE, encoding="utf-8")
    return folder


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
    from tui.commands import json_row, json_row_line
    from tui.corpus.model import Abstract, Collection, SourceRef
    from tui.sanitize import json_line

    abstract = Abstract("0123456789abcdef", text, Collection("X"), [SourceRef(Path("a.txt"), 1)])
    marks = {"bookmarked": True, "read": False, "dismissed": text == "plain words"}
    core = json_line(json_row(abstract))
    assert json_row_line(core, **marks) == json_line(json_row(abstract, **marks))
    assert json_row_line(core) == core
