"""Atomic writes: the target holds the old content or the new, never half, and is 0600."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from tui.fileio import atomic_write, write_text_atomically


def test_writes_a_new_file(tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    write_text_atomically(target, "héllo\r\nworld\n")
    # newline="": line endings are kept exactly as given, UTF-8 on disk.
    assert target.read_bytes() == "héllo\r\nworld\n".encode()
    assert os.listdir(tmp_path) == ["out.md"]


def test_replaces_existing_content(tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    target.write_text("old, and longer than the new text\n", encoding="utf-8")
    write_text_atomically(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert os.listdir(tmp_path) == ["out.md"]


def test_binary_mode(tmp_path: Path) -> None:
    target = tmp_path / "cache.bin"
    with atomic_write(target, binary=True, prefix=".cache-", suffix=".tmp") as f:
        f.write(b"\x00\x01\xff")
        # Until the block ends only the temporary file exists, named as asked.
        assert not target.exists()
        (tmp,) = os.listdir(tmp_path)
        assert tmp.startswith(".cache-") and tmp.endswith(".tmp")
    assert target.read_bytes() == b"\x00\x01\xff"
    assert os.listdir(tmp_path) == ["cache.bin"]


def test_failure_leaves_original_untouched_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "notes.json"
    target.write_text("original\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="boom"), atomic_write(target) as f:
        f.write("half of the new")
        raise RuntimeError("boom")
    assert target.read_text(encoding="utf-8") == "original\n"
    assert os.listdir(tmp_path) == ["notes.json"]


def test_failure_on_a_new_file_creates_nothing(tmp_path: Path) -> None:
    target = tmp_path / "never.json"
    with pytest.raises(KeyboardInterrupt), atomic_write(target, binary=True) as f:
        f.write(b"partial")
        raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []


def test_failing_rename_removes_the_temp_file(tmp_path: Path) -> None:
    # A directory in the target's place makes os.replace fail after the write.
    target = tmp_path / "taken"
    target.mkdir()
    with pytest.raises(OSError):
        write_text_atomically(target, "text")
    assert os.listdir(tmp_path) == ["taken"]
    assert target.is_dir()


def test_missing_directory_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_text_atomically(tmp_path / "absent" / "out.md", "text")
    assert not (tmp_path / "absent").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_file_is_private(tmp_path: Path) -> None:
    target = tmp_path / "rescue.json"
    # Even replacing a world-readable file, the result is 0600.
    target.write_text("old", encoding="utf-8")
    target.chmod(0o644)
    write_text_atomically(target, "{}\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
