"""The inbox: `is:new` and `new:` from the arrivals index, the library opened by default,
a newer arXiv version's text, and the feed's new papers first."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

import pytest

from tests.library.arxiv_server import FakeArxiv, papers
from tests.library.conftest import START, FakeClock
from tui import cli, locations
from tui.corpus.load import load_corpus
from tui.corpus.model import Corpus
from tui.inbox.config import write_follow
from tui.inbox.library import default_paths, open_inbox, record_opening
from tui.inbox.run import fetch_followed
from tui.search.inbox import Inbox, use_inbox
from tui.search.index import SearchIndex
from tui.search.query import QueryError, parse_query


@pytest.fixture(autouse=True)
def _no_inbox_left_behind() -> object:
    yield
    use_inbox(None)


def two_days(data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv) -> None:
    """Day one: 40 papers fetched, the app opened an hour later; day two: 15 more fetched."""
    write_follow(locations.config_path(config_dir), ["cs.LG"])
    arxiv.catalogue = papers(40, START - timedelta(hours=2))
    fetch_followed(data_dir, config_dir, clock, api_url=arxiv.url)
    clock.advance(timedelta(hours=1))
    record_opening(locations.library_dir(data_dir), clock.now())
    clock.advance(timedelta(days=1))
    arxiv.catalogue = papers(15, clock.now() - timedelta(hours=2), first=500) + arxiv.catalogue
    fetch_followed(data_dir, config_dir, clock, api_url=arxiv.url)


def arxiv_ids(corpus: Corpus, ids: list[str]) -> set[str]:
    by_id = corpus.by_id
    return {by_id[i].paper.id_of("arxiv") for i in ids if by_id[i].paper}  # type: ignore[union-attr,misc]


def test_is_new_after_two_fetches_a_day_apart_selects_exactly_the_second_days_papers(
    data_dir: Path,
    config_dir: Path,
    clock: FakeClock,
    arxiv: FakeArxiv,
    capsys: pytest.CaptureFixture[str],
) -> None:
    two_days(data_dir, config_dir, clock, arxiv)
    capsys.readouterr()
    # No PATH: the library is searched.
    assert cli.main(["search", "is:new", "--json", "--limit", "1000"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    corpus = load_corpus([locations.library_dir(data_dir)])
    assert len(corpus) == 55
    assert arxiv_ids(corpus, [r["id"] for r in rows]) == {p.arxiv for p in arxiv.catalogue[:15]}


def test_new_with_a_date_selects_what_arrived_on_or_after_it(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    two_days(data_dir, config_dir, clock, arxiv)
    corpus = load_corpus(default_paths(data_dir))
    use_inbox(open_inbox(data_dir, corpus))
    index = SearchIndex.build(corpus)

    def found(query: str) -> int:
        return len(index.search(parse_query(query), corpus).indices)

    assert found("new:2026-12-01") == 55
    assert found("new:2026-12-02") == 15
    assert found("new:2026-12-03") == 0
    assert found("-is:new") == 40


def test_new_needs_a_date() -> None:
    with pytest.raises(QueryError, match="new:2026-12-01"):
        parse_query("new:yesterday")
    assert parse_query("new:2026-12-01").fields[0].arg == date(2026, 12, 1)


def test_the_first_opening_counts_everything_arrived_as_new(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    write_follow(locations.config_path(config_dir), ["cs.LG"])
    arxiv.catalogue = papers(12, START - timedelta(hours=2))
    fetch_followed(data_dir, config_dir, clock, api_url=arxiv.url)
    corpus = load_corpus(default_paths(data_dir))
    inbox = open_inbox(data_dir, corpus, opened=clock.now())
    assert inbox.since is None and len(inbox.new_ids()) == 12
    # The next opening counts from this one.
    again = open_inbox(data_dir, corpus, opened=clock.now() + timedelta(hours=1))
    assert again.since == clock.now() and again.new_ids() == set()


def test_without_papers_in_the_library_the_seeds_are_opened(data_dir: Path) -> None:
    assert default_paths(data_dir) == [locations.seeds_dir()]
    (locations.library_dir(data_dir) / ".state").mkdir(parents=True)
    assert default_paths(data_dir) == [locations.seeds_dir()]


def test_a_newer_version_replaces_the_older_text_even_when_shorter(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    from tui.ui.widgets.detail_text import version_text

    write_follow(locations.config_path(config_dir), ["cs.LG"])
    arxiv.catalogue = papers(3, START - timedelta(hours=2))
    arxiv.catalogue[0].summary = "A long first version of the abstract, with many more words."
    fetch_followed(data_dir, config_dir, clock, api_url=arxiv.url)
    clock.advance(timedelta(days=1))
    first = arxiv.catalogue[0]
    first.version, first.updated, first.summary = 2, clock.now(), "A short second version."
    fetch_followed(data_dir, config_dir, clock, api_url=arxiv.url)
    corpus = load_corpus(default_paths(data_dir))
    assert len(corpus) == 3
    (paper,) = [a for a in corpus.abstracts if a.paper and a.paper.id_of("arxiv") == first.arxiv]
    assert paper.text == "A short second version."
    assert version_text(paper) == "v2, 2026-12-02"
    assert len(paper.sources) == 2


def test_the_feed_ranks_the_new_papers_first(
    data_dir: Path, config_dir: Path, clock: FakeClock, arxiv: FakeArxiv
) -> None:
    from tui.similar.model import SimilarityModel
    from tui.triage.feed import rank_feed

    corpus = load_corpus([locations.seeds_dir()])
    model = SimilarityModel.build(corpus)
    likes = [corpus.abstracts[0].id]
    plain = rank_feed(model, corpus, likes, k=20)
    new = {item.abstract.id for item in plain[-3:]}
    ranked = rank_feed(model, corpus, likes, k=20, first=new)
    assert {item.abstract.id for item in ranked[:3]} == new
    assert [i.abstract.id for i in ranked[3:]] == [
        i.abstract.id for i in plain if i.abstract.id not in new
    ][:17]
    assert Inbox({}, None).new_ids() == set()


def test_the_newer_version_wins_whichever_file_is_read_first(tmp_path: Path) -> None:
    from tests.library.arxiv_server import FakePaper, feed

    v1 = FakePaper("2612.00042", START, 1, summary="The first version, long and detailed.")
    v2 = FakePaper("2612.00042", START, 2, START + timedelta(days=3), summary="Second.")
    (tmp_path / "a.xml").write_bytes(feed([v2], 1, 0, 1))  # the newer one read first
    (tmp_path / "b.xml").write_bytes(feed([v1], 1, 0, 1))
    (paper,) = load_corpus([tmp_path]).abstracts
    assert paper.text == "Second."
    assert paper.paper is not None and paper.paper.version == 2
    assert [s.name for s in paper.sources] == ["a.xml", "b.xml"]
