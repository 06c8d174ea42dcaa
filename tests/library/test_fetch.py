"""Fetching followed sources from a local fake arXiv API into the library."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from tests.library.arxiv_server import FakeArxiv, papers
from tests.library.conftest import START, FakeClock
from tui import __version__, locations
from tui.inbox import atom
from tui.inbox.client import REQUEST_INTERVAL
from tui.inbox.config import write_follow
from tui.inbox.fetch import Progress
from tui.inbox.library import index_path, paper_files, read_index
from tui.inbox.run import Outcome, fetch_followed


def fetch(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv, **kw: object
) -> Outcome:
    return fetch_followed(data_dir, config_dir, clock, api_url=arxiv.url, timeout=0.3, **kw)  # type: ignore[arg-type]


def stored(data_dir: Path) -> Counter[str]:
    """How many times each arXiv id is in the library's files."""
    counts: Counter[str] = Counter()
    for path in paper_files(locations.library_dir(data_dir)):
        counts.update(e.arxiv for e in atom.parse_page(path.read_bytes()).entries)
    return counts


def snapshot(data_dir: Path) -> dict[str, bytes]:
    """Every stored file (papers and the arrivals index) and its bytes."""
    library = locations.library_dir(data_dir)
    files = {str(p): p.read_bytes() for p in paper_files(library)}
    if index_path(library).exists():
        files["index"] = index_path(library).read_bytes()
    return files


@pytest.fixture
def follow_cs_lg(config_dir: Path) -> None:
    write_follow(locations.config_path(config_dir), ["cs.LG"])


pytestmark = pytest.mark.usefixtures("follow_cs_lg")


def test_two_thousand_new_papers_over_twenty_pages_are_each_stored_once_three_seconds_apart(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    arxiv.catalogue = papers(2_000, START - timedelta(hours=1), every=timedelta(minutes=2))
    outcome = fetch(data_dir, config_dir, clock, arxiv)
    assert outcome.problem is None and not outcome.failed
    assert outcome.stored == 2_000
    counts = stored(data_dir)
    assert len(counts) == 2_000 and set(counts.values()) == {1}
    assert len(arxiv.requests) == 20
    assert len(outcome.sent) == 20
    assert all(
        b - a >= REQUEST_INTERVAL for a, b in zip(outcome.sent, outcome.sent[1:], strict=False)
    )
    assert {r["start"] for r in arxiv.requests} == {str(100 * k) for k in range(20)}
    assert all(
        r["sortBy"] == "submittedDate" and r["sortOrder"] == "descending" for r in arxiv.requests
    )
    assert all(f"abstracts/{__version__}" in r["user-agent"] for r in arxiv.requests)


class Killed(Exception):
    """Stands for the process dying after a page was saved."""


def kill_after(pages: int) -> object:
    def progress(p: Progress) -> None:
        if p.pages >= pages:
            raise Killed

    return progress


def test_a_fetch_killed_half_way_resumes_and_stores_every_paper_exactly_once(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    arxiv.catalogue = papers(1_000, START - timedelta(hours=1))
    with pytest.raises(Killed):
        fetch(data_dir, config_dir, clock, arxiv, progress=kill_after(4))
    assert stored(data_dir) == Counter()  # nothing half stored
    asked_before = len(arxiv.requests)
    # New papers arrive meanwhile: the pages shift by three, and the overlap is deduplicated.
    arxiv.catalogue = papers(3, START, first=5_000) + arxiv.catalogue
    clock.advance(timedelta(minutes=10))
    outcome = fetch(data_dir, config_dir, clock, arxiv)
    assert outcome.problem is None
    assert outcome.stored == 1_000 and set(stored(data_dir).values()) == {1}
    # Resumed at the fifth page: the four saved pages were not asked for again.
    assert arxiv.requests[asked_before]["start"] == "400"
    # What was submitted while the fetch was down comes with the next one.
    assert fetch(data_dir, config_dir, clock, arxiv).stored == 3
    counts = stored(data_dir)
    assert len(counts) == 1_003 and set(counts.values()) == {1}


def test_a_503_and_a_429_are_retried_after_a_pause(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    arxiv.catalogue = papers(150, START - timedelta(hours=1))
    arxiv.faults = ["503", "429"]
    outcome = fetch(data_dir, config_dir, clock, arxiv)
    assert outcome.problem is None and outcome.stored == 150
    assert len(arxiv.requests) == 4
    assert all(
        b - a >= REQUEST_INTERVAL for a, b in zip(outcome.sent, outcome.sent[1:], strict=False)
    )


def test_a_slow_page_times_out_and_is_asked_again(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    arxiv.catalogue = papers(50, START - timedelta(hours=1))
    arxiv.faults, arxiv.slow_seconds = ["slow"], 1.0
    outcome = fetch(data_dir, config_dir, clock, arxiv)
    assert outcome.problem is None and outcome.stored == 50
    assert len(arxiv.requests) == 2


def test_a_truncated_page_is_asked_again(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    arxiv.catalogue = papers(250, START - timedelta(hours=1))
    arxiv.faults = ["", "truncated"]
    outcome = fetch(data_dir, config_dir, clock, arxiv)
    assert outcome.problem is None and outcome.stored == 250
    assert set(stored(data_dir).values()) == {1}


def test_a_spurious_empty_page_is_asked_again(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    arxiv.catalogue = papers(250, START - timedelta(hours=1))
    arxiv.faults = ["", "spurious-empty"]
    outcome = fetch(data_dir, config_dir, clock, arxiv)
    assert outcome.stored == 250


def test_an_empty_result_stores_nothing_and_is_no_error(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    outcome = fetch(data_dir, config_dir, clock, arxiv)
    assert outcome.problem is None and not outcome.failed
    assert outcome.stored == 0 and stored(data_dir) == Counter()
    assert len(arxiv.requests) == 1


def test_a_failed_fetch_changes_nothing_stored_and_names_the_error(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    arxiv.catalogue = papers(120, START - timedelta(hours=1))
    fetch(data_dir, config_dir, clock, arxiv)
    before = snapshot(data_dir)
    assert len(before) == 2  # one file of papers, the index
    clock.advance(timedelta(days=1))
    arxiv.catalogue = papers(300, clock.now() - timedelta(hours=1), first=9_000) + arxiv.catalogue
    arxiv.faults = ["", "truncated", "truncated", "truncated", "truncated"]
    outcome = fetch(data_dir, config_dir, clock, arxiv)
    (failed,) = outcome.failed
    assert failed.error is not None
    assert failed.error.startswith("the API kept failing (the answer is not a whole Atom feed")
    assert snapshot(data_dir) == before


def test_offline_the_outcome_says_arxiv_could_not_be_reached(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    outcome = fetch_followed(
        data_dir, config_dir, clock, api_url="http://127.0.0.1:9/api/query", timeout=0.3
    )
    assert outcome.problem is not None and outcome.problem.startswith("could not reach arXiv")
    assert not outcome.usage and snapshot(data_dir) == {}


def test_a_later_fetch_stores_only_what_is_new_and_a_new_version_again(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    arxiv.catalogue = papers(30, START - timedelta(hours=1))
    fetch(data_dir, config_dir, clock, arxiv)
    clock.advance(timedelta(days=1))
    arxiv.catalogue[0].version = 2
    arxiv.catalogue = papers(5, clock.now() - timedelta(hours=1), first=7_000) + arxiv.catalogue
    outcome = fetch(data_dir, config_dir, clock, arxiv)
    assert outcome.stored == 6  # five new papers, one new version
    index = read_index(locations.library_dir(data_dir))
    first = arxiv.catalogue[5].arxiv
    assert index.papers[first].version == 2
    assert index.papers[first].arrived == START  # arrived with the first fetch


def test_a_first_fetch_reads_back_a_week_and_later_ones_from_the_last_less_the_overlap(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    arxiv.catalogue = papers(30, START - timedelta(hours=1), every=timedelta(days=1))
    outcome = fetch(data_dir, config_dir, clock, arxiv)
    assert outcome.stored == 7  # submitted within the last 7 days
    assert len(arxiv.requests) == 1


def test_a_query_arxiv_refuses_is_named_with_arxivs_reason_and_not_retried(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    arxiv.faults = ["bad-query"]
    outcome = fetch(data_dir, config_dir, clock, arxiv)
    assert [r.error for r in outcome.failed] == [
        "the arXiv API refused the query: incorrect id format for 1234"
    ]
    assert len(arxiv.requests) == 1


def test_a_damaged_saved_page_is_named_and_the_next_fetch_starts_over(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    from tui.inbox.library import state_dir

    arxiv.catalogue = papers(300, START - timedelta(hours=1))
    with pytest.raises(Killed):
        fetch(data_dir, config_dir, clock, arxiv, progress=kill_after(1))
    saved = state_dir(locations.library_dir(data_dir)) / "fetch" / "cs.LG" / "page-00000.xml"
    saved.write_bytes(saved.read_bytes()[:100])
    (failed,) = fetch(data_dir, config_dir, clock, arxiv).failed
    assert failed.error is not None and "the next fetch starts over" in failed.error
    assert stored(data_dir) == Counter()
    assert fetch(data_dir, config_dir, clock, arxiv).stored == 300
    assert set(stored(data_dir).values()) == {1}
