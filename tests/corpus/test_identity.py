"""Identity follows the paper: the same paper from two sources is one paper.

These tests read files through a small reader registered for the test (one line per
entry: `ids | title | abstract`), so they check the loader's merging whatever the
real readers do; the readers' own tests check each format.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from tui.corpus import readers
from tui.corpus.load import Loading, load_corpus
from tui.corpus.model import Collection, Corpus, abstract_id
from tui.corpus.paper import Author, Paper, id_from_ids

A1 = "We study contrastive learning of visual representations with large batches."
A2 = "Diffusion models generate images by reversing a gradual noising process."


def _read(text: str, path: Path) -> readers.ReadResult:
    texts: list[str] = []
    papers: list[Paper | None] = []
    for line in text.splitlines():
        ids, title, body = (part.strip() for part in line.split("|"))
        pairs = tuple(tuple(p.split("=", 1)) for p in ids.split() if "=" in p)
        papers.append(
            Paper(
                title=title or None,
                authors=(Author("Lovelace", "Ada"),),
                venue="ICML" if "icml" in path.name else None,
                year=2021,
                ids=pairs,  # type: ignore[arg-type]
            )
        )
        texts.append(body)
    return readers.ReadResult("lines", Collection(path.stem), texts, papers)


@pytest.fixture(autouse=True)
def lines_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("tui.corpus.readers.lines")
    module.read = _read  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tui.corpus.readers.lines", module)
    monkeypatch.setitem(readers.READERS, "lines", ("lines", "test lines"))
    monkeypatch.setitem(readers.EXTENSIONS, ".lines", "lines")


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def feed_and_library(tmp_path: Path) -> tuple[Path, Path]:
    """A feed with a paper's arXiv id, then a library giving it a DOI too, and another."""
    feed = write(tmp_path / "feed.lines", f"arxiv=2101.00001v1 | Contrastive Batches | {A1}\n")
    lib = write(
        tmp_path / "icml.lines",
        f"doi=10.1000/abc arxiv=2101.00001v2 | Contrastive batches | {A1}\n"
        f"arxiv=2202.00002 | Diffusion | {A2}\n",
    )
    return feed, lib


def test_one_paper_from_two_sources_lists_both(tmp_path: Path) -> None:
    feed, lib = feed_and_library(tmp_path)
    corpus = load_corpus([feed, lib])
    assert len(corpus) == 2
    paper = corpus.abstracts[0]
    assert [s.path for s in paper.sources] == [feed, lib]
    assert paper.paper is not None
    assert paper.paper.ids[:2] == (("arxiv", "2101.00001"), ("doi", "10.1000/abc"))
    # The id comes from the best identifier any source gave (the DOI, learned second).
    assert paper.id == id_from_ids([("doi", "10.1000/abc")])
    assert paper.collection.short == "ICML 2021"
    assert corpus.by_id[paper.id] is paper
    assert [f.repeated for f in corpus.files] == [0, 1]
    assert sum(f.added for f in corpus.files) == len(corpus)


def test_arxiv_versions_are_one_paper(tmp_path: Path) -> None:
    f = write(
        tmp_path / "a.lines",
        f"arxiv=2101.00001v1 | T | {A1}\narxiv=2101.00001v3 | T | {A1} Revised.\n",
    )
    corpus = load_corpus([f])
    [paper] = corpus.abstracts
    assert paper.id == id_from_ids([("arxiv", "2101.00001")])
    # The fuller text of the two is kept.
    assert paper.text.endswith("Revised.")


def test_text_only_paper_keeps_the_text_id_and_merges_with_the_paragraph(tmp_path: Path) -> None:
    conf = write(tmp_path / "conf.txt", f"ICLR 2021 Papers\n\n{A1}\n")
    lib = write(tmp_path / "lib.lines", f"citekey=ada21 | Contrastive Batches | {A1}\n")
    corpus = load_corpus([conf, lib])
    [paper] = corpus.abstracts
    # A data directory written before papers existed keeps its ids: the text id stands.
    assert paper.id == abstract_id(A1)
    assert paper.paper is not None and paper.paper.title == "Contrastive Batches"
    assert paper.headline == "Contrastive Batches"


def test_entries_without_abstract_or_ids_merge_by_title_authors_year(tmp_path: Path) -> None:
    f = write(tmp_path / "a.lines", "citekey=x | Deep Sets |\ncitekey=y | Deep  sets |\n")
    g = write(tmp_path / "b.lines", "citekey=z | Set Transformer |\n")
    corpus = load_corpus([f, g])
    assert [a.headline for a in corpus.abstracts] == ["Deep Sets", "Set Transformer"]
    assert [a.has_abstract for a in corpus.abstracts] == [False, False]
    assert [info.without_abstract for info in corpus.files] == [2, 1]
    assert corpus.without_abstract == 3
    assert len({a.id for a in corpus.abstracts}) == 2
    assert all(len(a.id) == 16 for a in corpus.abstracts)


def test_ids_are_stable_across_load_orders(tmp_path: Path) -> None:
    a = write(tmp_path / "a.lines", f"arxiv=2101.00001 | T | {A1}\n")
    b = write(tmp_path / "b.lines", f"doi=10.1000/abc arxiv=2101.00001 | T | {A1}\n")
    assert load_corpus([a, b]).ids == load_corpus([b, a]).ids


def test_conference_paragraph_ids_are_unchanged(tmp_path: Path) -> None:
    conf = write(tmp_path / "conf.txt", f"ICLR 2021 Papers\n\n{A1}\n\n{A2}\n")
    corpus = load_corpus([conf])
    assert corpus.ids == [abstract_id(A1), abstract_id(A2)]
    assert all(a.paper is None and a.title is None for a in corpus.abstracts)


def test_a_paper_title_is_searched_and_compared(tmp_path: Path) -> None:
    f = write(tmp_path / "a.lines", "arxiv=2101.00001 | The $\\beta$ Title | \n")
    [paper] = load_corpus([f]).abstracts
    assert paper.title == "The β Title"
    assert paper.searchable == "The β Title\nAda Lovelace"
    assert paper.similarity_text == "The $\\beta$ Title"


def test_a_load_in_steps_ends_as_the_whole_load(tmp_path: Path) -> None:
    feed, lib = feed_and_library(tmp_path)
    loading = Loading([feed, lib], None)
    loading.read_next()
    corpus = loading.publish()
    first = corpus.abstracts[0]
    assert len(corpus) == 1 and corpus.by_id[first.id] is first  # shown before the rest
    provisional = first.id
    loading.read_next()
    assert loading.finished
    loading.finish(corpus)
    # The DOI learned from the second file gives the paper its final id, found by it.
    assert first.id != provisional
    assert corpus.by_id[first.id] is first and provisional not in corpus.by_id
    assert corpus.ids == [a.id for a in corpus.abstracts]
    whole = load_corpus([feed, lib])

    def shape(c: Corpus) -> list[tuple[str, str, int, list[Path], Paper | None]]:
        return [(a.id, a.text, a.index, [r.path for r in a.sources], a.paper) for a in c.abstracts]

    assert shape(corpus) == shape(whole) and corpus.files == whole.files
    assert sorted(corpus.by_id) == sorted(whole.by_id)
