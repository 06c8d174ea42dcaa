"""Fixtures for fetching without the network: a local fake arXiv API, a fake clock,
and a config directory of the test's own."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.library.arxiv_server import FakeArxiv, Server

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


class FakeClock:
    """Time that moves only when slept through: `sleeps` and `now` are what a test reads."""

    def __init__(self, start: datetime = START) -> None:
        self.start = start
        self.t = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds

    def now(self) -> datetime:
        return self.start + timedelta(seconds=self.t)

    def advance(self, delta: timedelta) -> None:
        self.t += delta.total_seconds()


@pytest.fixture
def arxiv() -> Iterator[FakeArxiv]:
    server = Server()
    try:
        yield server.api
    finally:
        server.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(autouse=True)
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("ABSTRACTS_CONFIG_DIR", str(folder))
    return folder
