"""Fixtures shared by the search tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.search.test_cli import FILE_A, FILE_B


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    """A folder of two small abstract files (a.txt, b.txt) for the command line."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text(FILE_A, encoding="utf-8")
    (folder / "b.txt").write_text(FILE_B, encoding="utf-8")
    return folder
