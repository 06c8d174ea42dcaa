"""Shared fixtures. Every test gets its own data directory through the same
override users have ($ABSTRACTS_DATA_DIR), so no test touches real user data, and
every app a test makes runs its timers on a manual clock, so no test waits on (or
races) the wall clock.

The suite runs on two workers (pytest-xdist, see pyproject.toml): a test must not
depend on what another test left behind, and tests that start real processes on
real terminals are marked `slow` and run one after another on one worker
(`xdist_group("processes")`), so their timeouts are not eaten by each other.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import textual._wait
from hypothesis import settings

# The property tests draw the same examples on every run, so a run of CI is red only
# for a change it carries, never for an example found by chance (one found so, U+FEFF
# in the plain-text property, turned a run red that had not touched the code). Fresh
# examples: `pytest --hypothesis-profile=explore`.
settings.register_profile("reproducible", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("reproducible")

REPO = Path(__file__).resolve().parent.parent

# Pilot presses and pauses wait for the app to go idle by sleeping in steps of 20 ms
# (twice a key) until a step passes with under 1 ms of CPU. Steps of 5 ms keep the
# same test (a step with no work) at a quarter of the cost: key-heavy tests ran at
# 50-100 ms a key. The tests themselves wait for what they need (wait_until), never
# for a number of idle steps.
textual._wait.SLEEP_GRANULARITY = 0.005
textual._wait.SLEEP_IDLE = 0.00025
SEEDS = REPO / "seeds"


@pytest.fixture(autouse=True)
def _isolated_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    data = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("ABSTRACTS_DATA_DIR", str(data))
    # The user's config.toml (keys, theme, auto-read) never reaches a test either.
    monkeypatch.setenv("ABSTRACTS_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
    return data


@pytest.fixture(autouse=True)
def _manual_clock_by_default(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An app made without a clock gets a `ManualClock` (reach it as `app.clock`): the read
    dwell time, the resume save and the note debounce fire only when the test advances
    it. On a loaded machine a real 3 s dwell would otherwise mark rows read mid-test.
    A test that means the real timers says so with `@pytest.mark.real_clock`."""
    if request.node.get_closest_marker("real_clock"):
        return
    app_module = sys.modules.get("tui.ui.app")
    if app_module is None:  # the test never made an app (and Textual stays unimported)
        return
    from tui.ui.clock import ManualClock

    monkeypatch.setattr(app_module, "TextualClock", ManualClock)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow tests (real processes) share one worker and start first, so the suite's
    tail is not one long test running alone."""
    for item in items:
        if item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.xdist_group("processes"))
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture
def data_dir(_isolated_data_dir: Path) -> Path:
    """The per-test data directory ($ABSTRACTS_DATA_DIR points here)."""
    return _isolated_data_dir


@pytest.fixture
def seeds_dir() -> Path:
    return SEEDS
