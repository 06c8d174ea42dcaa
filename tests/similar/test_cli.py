from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.similar.fixtures import (
    GRAPH,
    GRAPH_NEIGHBOUR,
    GRAPH_REWORDED,
    LANGUAGE,
    LANGUAGE_NEIGHBOUR,
    UNRELATED,
    VISION,
    VISION_NEIGHBOUR,
)
from tui.commands.similar import main
from tui.corpus.model import abstract_id


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "abstracts"
    folder.mkdir()
    (folder / "iclr2023.txt").write_text(
        "ICLR 2023 Papers\n\n" + "\n\n".join([GRAPH, VISION, LANGUAGE, UNRELATED]) + "\n",
        encoding="utf-8",
    )
    (folder / "iclr2024.txt").write_text(
        "ICLR 2024 Papers\n\n"
        + "\n\n".join([GRAPH_NEIGHBOUR, VISION_NEIGHBOUR, LANGUAGE_NEIGHBOUR, GRAPH_REWORDED])
        + "\n",
        encoding="utf-8",
    )
    return folder


def test_json_lines_rank_the_known_neighbour_first(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([abstract_id(GRAPH), str(corpus_dir), "--json", "--limit", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert 1 <= len(lines) <= 2
    first = json.loads(lines[0])
    assert set(first) == {
        *("id", "venue", "year", "source", "headline", "text"),
        *("title", "authors", "ids", "url", "score"),
    }
    assert first["id"] == abstract_id(GRAPH_NEIGHBOUR)
    assert (first["venue"], first["year"]) == ("ICLR", 2024)
    assert 0 < first["score"] <= 1
    assert abstract_id(GRAPH_REWORDED) not in {json.loads(line)["id"] for line in lines}


def test_text_output_and_unique_prefix(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([abstract_id(VISION)[:10], str(corpus_dir)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(" 1. ")
    assert abstract_id(VISION_NEIGHBOUR) in out[0]
    assert "ICLR 2024" in out[0]


def test_duplicates_option_lists_the_reworded_copy(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([abstract_id(GRAPH), str(corpus_dir), "--duplicates", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["id"] for line in lines] == [abstract_id(GRAPH_REWORDED)]


def test_nothing_similar_exits_1(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([abstract_id(UNRELATED), str(corpus_dir)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no similar abstracts" in captured.err


def test_unknown_id_exits_2(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["zzzz", str(corpus_dir)]) == 2
    assert "no abstract has an id starting with 'zzzz'" in capsys.readouterr().err


def test_ambiguous_prefix_exits_2(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    texts = [GRAPH, VISION, LANGUAGE, UNRELATED, GRAPH_NEIGHBOUR, VISION_NEIGHBOUR]
    ids = [abstract_id(t) for t in [*texts, LANGUAGE_NEIGHBOUR, GRAPH_REWORDED]]
    # Two of these fixture ids share their first two hex digits (d118... and d123...).
    shared = next(a[:2] for a in ids for b in ids if a != b and a[:2] == b[:2])
    assert main([shared, str(corpus_dir)]) == 2
    assert "ambiguous" in capsys.readouterr().err


def test_nothing_loaded_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["abcd", str(tmp_path / "missing.txt")]) == 2
    assert "no abstracts loaded" in capsys.readouterr().err


def test_default_corpus_is_the_bundled_seeds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["not-an-id"]) == 2
    assert "no abstract has an id" in capsys.readouterr().err


def test_unknown_id_without_path_says_it_looked_in_the_seeds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["0123456789abcdef"]) == 2
    err = capsys.readouterr().err
    assert "no abstract has an id starting with '0123456789abcdef'" in err
    assert "bundled seeds" in err and "PATH" in err


def test_unknown_id_with_a_path_does_not_mention_the_seeds(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["0123456789abcdef", str(corpus_dir)]) == 2
    assert "seeds" not in capsys.readouterr().err


def test_options_may_come_before_the_id_and_between_paths(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = sorted(str(p) for p in corpus_dir.iterdir())
    assert main(["--limit", "1", abstract_id(GRAPH), files[0], "--json", files[1]]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["id"] == abstract_id(GRAPH_NEIGHBOUR)
