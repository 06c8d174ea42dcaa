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
