from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.commands.search import main

FILE_A = """ICLR 2023 Papers

Contrastive learning of visual features. We pretrain encoders on images.

Graph networks for molecules. A contrastive objective helps graphs.
"""

FILE_B = """NeurIPS 2022 Papers

Vision-language models at scale. We align text and images with $3\\times$ less compute.
"""


def test_prints_matches_best_first(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["contrastve", str(corpus_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert "ICLR 2023" in lines[0]
    assert lines[0].split("  ")[0].isalnum()


def test_json_lines(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vison langage", str(corpus_dir), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(records) == 1
    record = records[0]
    assert set(record) == {
        *("id", "venue", "year", "source", "headline", "text"),
        *("title", "authors", "ids", "url", "score", "match", "matched"),
    }
    assert record["match"] == "all"
    # Both words were typos: the row says what it holds instead.
    assert record["matched"] == [
        {"typed": "vison", "found": ["vision"], "as": "spelling"},
        {"typed": "langage", "found": ["language"], "as": "spelling"},
    ]
    assert (record["venue"], record["year"]) == ("NeurIPS", 2022)
    assert record["source"].endswith("b.txt")
    assert record["score"] > 0


def test_close_matches_follow_full_ones_and_say_so(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No abstract has both words; both share one: printed, marked close, exit 0.
    assert main(["molecules vision ", str(corpus_dir), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["match"] for r in records] == ["close", "close"]
    assert main(["graphs networks vision ", str(corpus_dir), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["match"] for r in records] == ["close"]
    assert records[0]["headline"].startswith("Graph networks")
    # A pipe gets rows only: no divider line among them.
    assert main(["contrastive images ", str(corpus_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all("closest" not in line for line in lines)


def test_word_forms_and_stop_words(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `network` finds `networks`; `Towards` and `via` are never required.
    assert main(["Towards graph network via molecule ", str(corpus_dir), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert records[0]["match"] == "all"
    assert records[0]["headline"].startswith("Graph networks")


def test_limit(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["contrastive", str(corpus_dir), "--limit", "1"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_latex_macro_name(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["times", str(corpus_dir)]) == 0
    assert "Vision" in capsys.readouterr().out


def test_no_match_exits_1(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["zebra ", str(corpus_dir)]) == 1
    assert capsys.readouterr().out == ""


def test_bad_query_exits_2(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(['"unclosed', str(corpus_dir)]) == 2
    assert "unclosed quote" in capsys.readouterr().err
    assert main(["yaer:2023", str(corpus_dir)]) == 2
    assert "yaer" in capsys.readouterr().err


def test_missing_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.txt"
    assert main(["graph", str(missing)]) == 2
    assert "nope.txt" in capsys.readouterr().err


def test_personal_field_without_any_user_data(
    corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(["is:bookmarked", str(corpus_dir), "--data-dir", str(data)]) == 1
    assert main(["is:unread graph ", str(corpus_dir), "--data-dir", str(data)]) == 0
    assert "Graph networks" in capsys.readouterr().out


def test_cache_is_written_in_the_data_dir(corpus_dir: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert main(["graph", str(corpus_dir), "--data-dir", str(data)]) == 0
    assert list((data / "cache").glob("search-*.npz"))
    # Second run answers from the cache, with the same result.
    assert main(["graph", str(corpus_dir), "--data-dir", str(data)]) == 0


def test_default_is_bundled_seeds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["learning", "--limit", "3"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "QUERY is empty"),
        ("   ", "QUERY is empty"),
        ("\t", "QUERY is empty"),
        # No word, symbol or field: it would match everything.
        ("🙂", "nothing to look for"),
        ("*", "nothing to look for"),
        ('""', "nothing to look for"),
        ("-", "nothing to look for"),
        ("?!", "nothing to look for"),
    ],
)
def test_a_query_with_nothing_to_look_for_is_a_usage_error(
    query: str, message: str, corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([query, str(corpus_dir)])
    assert exit_info.value.code == 2
    err = capsys.readouterr()
    assert message in err.err
    assert err.out == ""


def test_missing_query_names_only_query(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "(QUERY | -q QUERY | -- QUERY) [PATH ...]" in err
    assert "required: QUERY" in err
    assert "PATH" not in err.split("error:")[1]


def test_symbol_query_finds_the_symbol(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["×", str(corpus_dir)]) == 0
    assert "Vision" in capsys.readouterr().out


def test_a_query_starting_with_a_dash_after_double_dash(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Options after `--` are still options: --limit 1 limits, and is no path.
    assert main(["--", "-vision", str(corpus_dir), "--limit", "1", "--json"]) == 0
    out = capsys.readouterr()
    records = [json.loads(line) for line in out.out.splitlines()]
    assert len(records) == 1
    assert "Vision" not in records[0]["headline"]
    assert "--limit" not in out.err and "no such file" not in out.err


def test_a_query_starting_with_a_dash_with_q(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-q", "-vision", str(corpus_dir)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    assert main(["--query=-vision -graph", str(corpus_dir), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["headline"][:11] for r in records] == ["Contrastive"]


def test_options_may_come_anywhere(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = str(corpus_dir / "a.txt"), str(corpus_dir / "b.txt")
    assert main(["--limit", "5", "images", a, "--json", b]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {Path(str(r["source"])).name for r in records} == {"a.txt", "b.txt"}


def test_the_query_given_twice_is_a_usage_error(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["-q", "graph", "--", "vision", str(corpus_dir)])
    assert exit_info.value.code == 2
    assert "once" in capsys.readouterr().err


@pytest.mark.parametrize("query", ["the", "×", "\\times", "venue:iclr"])
def test_stop_words_symbols_and_fields_are_queries(
    query: str, corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([query, str(corpus_dir)]) in (0, 1)
    assert "nothing to look for" not in capsys.readouterr().err


def test_tag_field_from_the_command_line(
    corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.corpus.load import load_corpus
    from tui.store.userdata import UserData

    data = tmp_path / "data"
    corpus = load_corpus([corpus_dir])
    graph = next(a for a in corpus.abstracts if "Graph networks" in a.text)
    ud = UserData.open(data)
    ud.attach(corpus)
    ud.set_tags(on=[(graph.id, "to-cite")])
    ud.close()
    assert main(["tag:to-cite", str(corpus_dir), "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "Graph networks" in out and len(out.splitlines()) == 1
    assert main(["tag:nothing-like-it ", str(corpus_dir), "--data-dir", str(data)]) == 1


def test_a_long_query_gets_the_cap_message(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["graph " * 20_000, str(corpus_dir)]) == 2
    assert "at most 32 words" in capsys.readouterr().err


def test_an_unknown_field_is_a_bad_query_and_a_pasted_title_is_text(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["editor:smith", str(corpus_dir)]) == 2
    assert "unknown field editor: (fields: " in capsys.readouterr().err
    assert main(["Graph: networks for molecules", str(corpus_dir), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert records[0]["headline"].startswith("Graph networks")
