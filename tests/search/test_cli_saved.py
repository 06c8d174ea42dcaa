"""`abstracts search @NAME`: a search saved in the reader, run from the command line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tui.commands.search import main
from tui.store.userdata import UserData


def _save(data_dir: Path, *searches: tuple[str, str, str]) -> None:
    ud = UserData.open(data_dir)
    for name, query, sort in searches:
        ud.save_search(name, query, sort)
    assert ud.flush()
    ud.close()


def test_runs_a_saved_search_in_its_order(
    corpus_dir: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _save(data_dir, ("Contrast", "contrastive", "file"), ("graphs", "graph", "relevance"))
    assert main(["@contrast", str(corpus_dir), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # File order: "Contrastive learning..." (first in a.txt) before "Graph networks...".
    assert [r["headline"][:5] for r in rows] == ["Contr", "Graph"]
    assert list(rows[0])[:6] == ["id", "venue", "year", "source", "headline", "text"]
    assert main(["@contrast", str(corpus_dir), "--limit", "1"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1
    assert main(["--data-dir", str(data_dir), "@GRAPHS", str(corpus_dir)]) == 0
    assert "Graph networks" in capsys.readouterr().out


def test_an_unknown_name_is_named_with_the_known_ones(
    corpus_dir: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _save(data_dir, ("weekly", "graph", "relevance"), ("To cite", "contrastive", "relevance"))
    assert main(["@nope", str(corpus_dir)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no saved search named '@nope'" in captured.err
    assert "saved searches: To cite, weekly" in captured.err


def test_with_nothing_saved_it_says_how_to_save(
    corpus_dir: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["@weekly", str(corpus_dir)]) == 2
    assert "none is saved yet" in capsys.readouterr().err
    # Nothing was created in the data directory by looking.
    assert os.listdir(data_dir) == []


def test_it_only_reads_the_store(
    corpus_dir: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _save(data_dir, ("weekly", "contrastive", "relevance"))
    database = data_dir / "abstracts.db"
    before = database.stat().st_mtime_ns
    assert main(["@weekly", str(corpus_dir)]) == 0
    assert database.stat().st_mtime_ns == before
