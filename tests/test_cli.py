"""The `abstracts` command itself: version, nothing loadable, subcommand dispatch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tui import __version__
from tui.cli import main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert __version__ in capsys.readouterr().out


def test_nothing_loadable_says_so_and_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    code = main([str(tmp_path / "empty.txt"), str(tmp_path / "missing.txt")])
    err = capsys.readouterr().err
    assert code != 0
    assert "empty.txt" in err and "missing.txt" in err
    assert "nothing could be loaded" in err


def test_subcommands_are_dispatched(seeds_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "contrastive", str(seeds_dir), "--limit", "2"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    assert main(["search", "zzqqxxnothing", str(seeds_dir)]) == 1


def test_python_dash_m_runs_the_same_entry_point() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tui", "--version"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert __version__ in result.stdout


def test_data_dir_may_come_before_the_subcommand(
    seeds_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--data-dir", str(tmp_path), "search", "contrastive", str(seeds_dir)]) == 0
    assert "Contrastive" in capsys.readouterr().out


def test_a_closed_pipe_is_not_an_error(seeds_dir: Path) -> None:
    result = subprocess.run(
        # --json prints whole abstracts: more than a pipe buffer, so the writer sees the close.
        f"{sys.executable} -m tui search learning {seeds_dir} --json | head -1",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.stdout.count("\n") == 1
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("name", ["search", "similar", "export", "import", "list", "feed"])
def test_every_subcommand_help_shows_examples(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main([name, "--help"])
    except SystemExit as exit_info:  # search and similar let argparse exit
        code = int(exit_info.code or 0)
    assert code == 0
    examples = capsys.readouterr().out.split("examples:\n", 1)[1].splitlines()
    # RawDescriptionHelpFormatter: one example per line, as written, none wrapped.
    assert len(examples) >= 2
    assert any(line.startswith(f"  abstracts {name} ") for line in examples)
    assert all(line.startswith("  abstracts ") for line in examples if line.strip())


@pytest.mark.parametrize(
    "command",
    [["search", "learning"], ["similar", "--json", "FIRST"]],
    ids=["search", "similar-json"],
)
def test_output_that_cannot_be_written_fails_with_one_line(
    command: list[str],
    seeds_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tui.corpus.load import load_corpus

    first = load_corpus([seeds_dir]).abstracts[0].id
    argv = [first if word == "FIRST" else word for word in command] + [str(seeds_dir)]
    with open("/dev/full", "w", encoding="utf-8") as full:
        monkeypatch.setattr(sys, "stdout", full)
        assert main(argv) == 74
    err = capsys.readouterr().err
    assert (
        err == f"abstracts {command[0]}: cannot write to standard output: No space left on device\n"
    )


def test_export_to_a_full_disk_exits_non_zero(data_dir: Path, tmp_path: Path) -> None:
    import json

    doc = {"format": "abstracts-export", "version": 1, "state": {"k": "v" * 200_000}}
    (tmp_path / "in.json").write_text(json.dumps(doc), encoding="utf-8")
    assert main(["import", str(tmp_path / "in.json")]) == 0
    with open("/dev/full", "wb") as full:
        result = subprocess.run(
            [sys.executable, "-m", "tui", "export", "--format", "json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert result.returncode == 74
    assert result.stderr == (
        "abstracts export: cannot write to standard output: No space left on device\n"
    )


def test_an_unexpected_error_is_one_line_and_a_log_in_the_data_dir(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import tui.commands.feed

    def broken(argv: list[str]) -> int:
        raise RuntimeError("something nobody expected")

    monkeypatch.setattr(tui.commands.feed, "main_list", broken)
    assert main(["list", "--data-dir", str(data_dir)]) == 70
    err = capsys.readouterr().err
    (log,) = data_dir.glob("crash-*.log")
    assert err == (
        f"abstracts list: unexpected error: RuntimeError: something nobody expected; "
        f"the details are in {log}\n"
    )
    text = log.read_text(encoding="utf-8")
    assert "Traceback" in text and "in broken" in text


def test_a_mistyped_subcommand_is_suggested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["serach", "x"]) == 2
    assert capsys.readouterr().err == (
        "abstracts: serach: no such file or directory; did you mean search? "
        "(a file of that name: ./serach)\n"
    )
    # A file of that name is a file, as is anything that looks like a path.
    (tmp_path / "serach").write_text("", encoding="utf-8")
    from tui.cli import close_subcommand

    assert close_subcommand("serach") is None
    assert close_subcommand("./serach") is None
    assert close_subcommand("exprot") == "export"
    assert close_subcommand("papers") is None


def test_a_topic_search_says_why_when_the_cache_folder_is_unusable_or_the_topic_missing(
    seeds_dir: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data_dir / "cache").write_text("not a folder", encoding="utf-8")
    assert main(["search", "topic:1", str(seeds_dir), "--limit", "1"]) == 0
    assert capsys.readouterr().err == (
        f"abstracts search: warning: no cache can be kept in {data_dir / 'cache'} "
        f"({data_dir / 'cache'} is not a folder); the topics were computed for this search alone\n"
    )
    (data_dir / "cache").unlink()
    assert main(["search", "topic:99", str(seeds_dir)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("abstracts search: there is no topic 99: this corpus has ")
    assert err.count("\n") == 1


def test_the_app_reads_its_first_files_through_the_read_cache(
    seeds_dir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unchanged files are not parsed again before the first paint either: opening the
    read cache costs a few ms, parsing the first 500 abstracts ten times that."""
    import gc

    from tui import locations
    from tui.corpus import load as load_mod
    from tui.corpus.load import load_corpus
    from tui.corpus.model import Corpus
    from tui.ui import app as app_mod

    class Opened(Exception):
        """The app is made: what it was given is known, no terminal taken."""

    def make_app(corpus: Corpus, **_: object) -> None:
        raise Opened(len(corpus))

    load_corpus([str(seeds_dir)], cache_dir=locations.cache_dir(data_dir))  # a warm cache
    reads: list[Path] = []
    real = load_mod._read_bytes
    monkeypatch.setattr(load_mod, "_read_bytes", lambda p: reads.append(p) or real(p))
    monkeypatch.setattr(app_mod, "make_app", make_app)
    try:
        with pytest.raises(Opened) as opened:
            main([str(seeds_dir)])
    finally:
        gc.enable()  # the command line pauses it until the app has painted
    assert opened.value.args == (76,)
    assert reads == []
