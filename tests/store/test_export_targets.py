"""Where `abstracts export -o PATH` writes: through a symlink to its target, never over
a device, a FIFO or a socket; `-o -` is stdout."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tui.commands.export import main_export, main_import
from tui.fileio import NotARegularFile, export_target, write_export


@pytest.fixture
def bookmarked(tmp_path: Path, data_dir: Path) -> Path:
    doc = {
        "format": "abstracts-export",
        "version": 1,
        "records": [{"id": "a1", "text": "An abstract.", "headline": "An abstract."}],
        "bookmarks": [{"id": "a1", "created": 1.0}],
        "notes": [{"id": "a1", "text": "my note"}],
    }
    source = tmp_path / "in.json"
    source.write_text(json.dumps(doc), encoding="utf-8")
    assert main_import([str(source)]) == 0
    return data_dir


def test_export_through_a_symlink_writes_its_target_and_keeps_the_link(
    bookmarked: Path, tmp_path: Path
) -> None:
    synced = tmp_path / "Sync"
    synced.mkdir()
    target = synced / "refs.bib"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o644)
    link = tmp_path / "refs.bib"
    link.symlink_to(target)
    assert main_export(["--format", "bibtex", "-o", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "@" in target.read_text(encoding="utf-8")
    # The synced file keeps its permissions; no temporary file is left in either folder.
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert sorted(p.name for p in synced.iterdir()) == ["refs.bib"]


def test_a_dangling_symlink_gets_its_target_created(bookmarked: Path, tmp_path: Path) -> None:
    link = tmp_path / "notes.md"
    link.symlink_to(tmp_path / "later.md")
    assert main_export(["-o", str(link)]) == 0
    assert link.is_symlink()
    assert "my note" in (tmp_path / "later.md").read_text(encoding="utf-8")


def test_a_fifo_is_refused_naming_it_and_left_a_fifo(
    bookmarked: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    capsys.readouterr()
    assert main_export(["-o", str(fifo)]) == 1
    assert capsys.readouterr().err == (
        f"abstracts export: cannot write {fifo}: it is a named pipe (FIFO), "
        "not a regular file; nothing was written\n"
    )
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_symlink_to_a_device_is_refused_and_the_link_kept(
    bookmarked: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "out.md"
    link.symlink_to(os.devnull)
    capsys.readouterr()
    assert main_export(["-o", str(link)]) == 1
    err = capsys.readouterr().err
    assert f"cannot write {link}: it leads to {os.devnull}, which is a character device" in err
    assert link.is_symlink()


def test_dash_is_stdout(bookmarked: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main_export(["-o", "-"]) == 0
    assert "my note" in capsys.readouterr().out


def test_export_target_refuses_a_socket(tmp_path: Path) -> None:
    import socket

    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        with pytest.raises(NotARegularFile, match="it is a socket"):
            write_export(path, "text")
    assert export_target(tmp_path / "new.md") == tmp_path / "new.md"


def test_a_new_export_is_private(tmp_path: Path) -> None:
    written = write_export(tmp_path / "new.md", "text")
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
