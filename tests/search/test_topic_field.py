"""`topic:N`: the abstracts of one topic, combinable with everything else."""

from __future__ import annotations

import numpy as np
import pytest

from tests.search.helpers import Row, make_corpus
from tui.search.index import SearchIndex
from tui.search.query import QueryError, parse_query

ROWS: list[Row] = [
    ("a.txt", "ICLR", 2022, "Contrastive learning of visual features."),
    ("a.txt", "ICLR", 2022, "Graph networks for molecules."),
    ("b.txt", "NeurIPS", 2023, "Contrastive graph objectives for molecules."),
    ("b.txt", "NeurIPS", 2023, "Diffusion models for images."),
]
TOPICS = np.asarray([1, 2, 2, 0], dtype=np.int32)  # the last abstract has no topic


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    return SearchIndex.build(make_corpus(ROWS))


def hits(index: SearchIndex, text: str) -> list[int]:
    return sorted(index.search(text, topics=TOPICS).indices)


def test_topic_selects_its_abstracts(index: SearchIndex) -> None:
    assert hits(index, "topic:2") == [1, 2]
    assert hits(index, "topic:1") == [0]
    assert hits(index, "topic:7") == []


def test_topic_combines_with_words_fields_and_negation(index: SearchIndex) -> None:
    assert hits(index, "topic:2 contrastive ") == [2]
    assert hits(index, "topic:2 year:2022") == [1]
    assert hits(index, "-topic:2 venue:neurips") == [3]
    assert hits(index, "-topic:1 -topic:2") == [3]


def test_without_topics_nothing_matches(index: SearchIndex) -> None:
    assert index.search("topic:2").indices == []


def test_topic_needs_a_number() -> None:
    assert parse_query("topic:12").fields[0].arg == 12
    for bad in ("topic:", "topic:x", "topic:0", "topic:-1"):
        with pytest.raises(QueryError, match="topic number"):
            parse_query(bad)
    with pytest.raises(QueryError, match="did you mean topic:"):
        parse_query("topik:3")
