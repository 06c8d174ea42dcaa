"""Shared fixtures. Every test gets its own data directory through the same
override users have ($ABSTRACTS_DATA_DIR), so no test touches real user data."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "seeds"


@pytest.fixture(autouse=True)
def _isolated_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    data = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("ABSTRACTS_DATA_DIR", str(data))
    return data


@pytest.fixture
def data_dir(_isolated_data_dir: Path) -> Path:
    """The per-test data directory ($ABSTRACTS_DATA_DIR points here)."""
    return _isolated_data_dir


@pytest.fixture
def seeds_dir() -> Path:
    return SEEDS
