"""`abstracts list` and `abstracts feed`: rows, JSON fields, marks, errors and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.cli import main
from tui.corpus.load import load_corpus
from tui.store.userdata import UserData

CORE = ["id", "venue", "year", "source", "headline", "text", "title", "authors", "ids", "url"]


@pytest.fixture
def seeds(seeds_dir: Path):
    return load_corpus([seeds_dir])


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _mark(data_dir: Path, *, bookmark=(), read=(), dismiss=()) -> None:
    data = UserData.open(data_dir)
    for abstract in bookmark:
        data.set_bookmark(abstract, True)
    data.set_read(list(read), True)
    for abstract in dismiss:
        data.set_dismissed(abstract, True)
    assert data.flush()
    data.close()


def test_list_prints_every_abstract_with_its_marks(
    seeds, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, c = seeds.abstracts[:3]
    _mark(data_dir, bookmark=[a], read=[a, b], dismiss=[c])
    code, out, _ = _run(capsys, "list")
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(seeds)
    assert [line.split()[0] for line in lines] == [x.id for x in seeds.abstracts]
    assert "  ★✓   " in lines[0] and "   ✓   " in lines[1] and "    ✗  " in lines[2]
    assert a.headline in lines[0]

    code, out, _ = _run(capsys, "list", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(rows) == len(seeds)
    assert list(rows[0]) == [*CORE, "bookmarked", "read", "dismissed"]
    assert (rows[0]["bookmarked"], rows[0]["read"], rows[0]["dismissed"]) == (True, True, False)
    assert (rows[2]["bookmarked"], rows[2]["read"], rows[2]["dismissed"]) == (False, False, True)
    assert rows[0]["text"] == a.plain


def test_list_shows_control_characters_never_sends_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "evil.txt").write_text(
        "ICLR 2023 Papers\n\nA title \x1b[31mred\x1b[0m and \u202ereversed text.\n",
        encoding="utf-8",
    )
    code, out, _ = _run(capsys, "list", str(tmp_path / "evil.txt"))
    assert code == 0 and out.count("\n") == 1
    assert "\x1b" not in out and "\u202e" not in out


def test_list_with_nothing_loaded_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "list", str(tmp_path / "missing.txt"))
    assert code == 2 and "missing.txt" in err


def test_feed_ranks_by_the_given_likes_and_unlikes(
    seeds, capsys: pytest.CaptureFixture[str]
) -> None:
    liked, other, unliked = seeds.abstracts[0], seeds.abstracts[5], seeds.abstracts[9]
    code, out, _ = _run(
        capsys, "feed", "--like", liked.id, "--like", other.id[:10], "--unlike", unliked.id,
        "--json", "--limit", "7",
    )  # fmt: skip
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(rows) == 7
    assert list(rows[0])[: len(CORE) + 2] == [*CORE, "score", "because"]
    assert {r["because"] for r in rows} <= {liked.id, other.id}
    assert not {r["id"] for r in rows} & {liked.id, other.id, unliked.id}
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    # Plain: one line per abstract, rank, score, id and why.
    code, out, _ = _run(capsys, "feed", "--like", liked.id, "--limit", "3")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3
    assert lines[0].startswith(" 1. ") and f"(because {liked.id}" in lines[0]


def test_feed_without_likes_uses_the_bookmarks_and_dismissals(
    seeds, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marked = seeds.abstracts[:3]
    code, _, err = _run(capsys, "feed")
    assert code == 3 and "nothing to rank by" in err and "bookmark" in err
    _mark(data_dir, bookmark=marked, read=seeds.abstracts[3:6], dismiss=seeds.abstracts[6:8])
    code, out, _ = _run(capsys, "feed", "--json", "--limit", "100")
    ids = [json.loads(line)["id"] for line in out.splitlines()]
    assert code == 0 and len(ids) == len(seeds) - 5  # neither bookmarks nor dismissals
    assert seeds.abstracts[3].id in ids
    code, out, _ = _run(capsys, "feed", "--json", "--limit", "100", "--unread")
    unread = [json.loads(line)["id"] for line in out.splitlines()]
    assert code == 0 and len(unread) == len(seeds) - 8


def test_unknown_ids_are_named_and_exit_2(seeds, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys, "feed", "--like", seeds.abstracts[0].id, "--like", "nosuchid", "--unlike", "zz9"
    )
    assert code == 2 and out == ""
    assert "unknown id" in err and "'nosuchid'" in err and "'zz9'" in err


def test_only_unlikes_is_nothing_to_rank_by(seeds, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "feed", "--unlike", seeds.abstracts[0].id)
    assert code == 3 and out == "" and "--like" in err


def test_bookmarks_of_other_files_are_nothing_to_rank_by(
    seeds, data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _mark(data_dir, bookmark=seeds.abstracts[:2])
    (tmp_path / "other.txt").write_text(
        "NeurIPS 2022\n\nA different paper on graphs.\n\nAnother one on vision.\n",
        encoding="utf-8",
    )
    code, _, err = _run(capsys, "feed", str(tmp_path / "other.txt"))
    assert code == 3 and "none of the 2 bookmarks" in err


def test_a_negative_limit_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["feed", "--like", "x", "--limit", "-1"])
    assert info.value.code == 2
