"""Fields that select abstracts: venue, file, year, notes, tags and exclusions; a field
without its data or selector matches nothing."""

from __future__ import annotations

import pytest

from tests.search.helpers import (
    MIXED,
    FakePersonal,
    Row,
    hits,
    index_of,
    make_corpus,
)
from tui.corpus.model import Collection
from tui.search.index import SearchIndex


def test_personal_fields_without_personal_data_match_no_notes() -> None:
    index = index_of(["Graph networks for molecules.", "Vision models at scale."])
    assert hits(index, "has:note") == []
    assert hits(index, "note:graph") == []
    assert hits(index, "-has:note") == [0, 1]


def test_venue_and_file_select_by_prefix_and_part() -> None:
    rows: list[Row] = [
        ("iclr2023.txt", "ICLR", 2023, "Graph networks for molecules."),
        ("neurips2022.txt", "NeurIPS", 2022, "Graph models for proteins."),
        ("iclr2024.txt", "ICLR", 2024, "Vision models at scale."),
    ]
    index = SearchIndex.build(make_corpus(rows))
    assert hits(index, "venue:icl ") == [0, 2]
    assert hits(index, "venue:neur graph ") == [1]
    assert hits(index, "venue:cvpr ") == []
    assert hits(index, "file:2023 ") == [0]
    assert hits(index, "file:iclr ") == [0, 2]
    assert hits(index, "-file:iclr ") == [1]
    assert hits(index, "year:..2023 graph ") == [0, 1]


def test_note_selector_reads_the_personal_notes() -> None:
    index = index_of(["Graph networks for molecules.", "Vision models at scale."])
    a, b = index.data.ids
    personal = FakePersonal(notes={a: "read again later", b: "cite in chapter two"})
    assert hits(index, "has:note", personal=personal) == [0, 1]
    assert hits(index, "note:chapter ", personal=personal) == [1]


def test_every_exclusion_applies() -> None:
    index = index_of(MIXED)
    assert hits(index, "graph -molecules -proteins ") == []
    assert hits(index, "graph -proteins -molecules ") == []
    assert sorted(hits(index, "-survey -vision ")) == [0, 1]


def test_an_exclusion_is_the_whole_word_as_typed() -> None:
    index = index_of(["Graph networks.", "Graph net sizes.", "Modal logic for graphs."])
    assert hits(index, "graph -net ") == [0, 2]  # `networks` starts with `net`: still shown
    assert sorted(hits(index, "-model ")) == [0, 1, 2]  # `modal` is one letter off


def test_year_selects_by_the_collection_year() -> None:
    rows: list[Row] = [
        ("a.txt", "ICLR", 2022, "Graph networks for molecules."),
        ("b.txt", "ICLR", 2023, "Graph models for proteins."),
        ("c.txt", "ICLR", 2024, "Vision models at scale."),
    ]
    index = SearchIndex.build(make_corpus(rows))
    assert hits(index, "year:2023 ") == [1]
    assert hits(index, "year:2023.. ") == [1, 2]
    assert hits(index, "-year:2022..2023 ") == [2]


def test_abstracts_without_a_year_are_found_by_year_0000() -> None:
    rows: list[Row] = [
        ("a.txt", "ICLR", 2022, "Graph networks for molecules."),
        ("b.txt", "ICLR", 2023, "Graph models for proteins."),
    ]
    corpus = make_corpus(rows)
    corpus.abstracts[1].collection = Collection("Workshop Papers")  # its header has no year
    index = SearchIndex.build(corpus)
    assert hits(index, "year:0000 ") == [1]
    assert hits(index, "year:0001.. ") == [0]


def test_tags_without_personal_data_match_nothing() -> None:
    index = index_of(["Graph networks for molecules.", "Vision models at scale."])
    assert hits(index, "tag:x") == [] and hits(index, "has:tag") == []
    assert hits(index, "-tag:x") == [0, 1]


def test_a_field_without_a_selector_matches_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from tui.search import query

    monkeypatch.setitem(query._FIELDS, "shelf", query.FieldSpec("shelf", lambda v: v))
    index = index_of(MIXED)
    assert hits(index, "shelf:x ") == []
    assert hits(index, "-shelf:x ") == [0, 1, 2, 3]


def test_a_selector_of_one_value_answers_that_value_alone() -> None:
    """`has:abstract` (paperfields.py) and `has:note` (filters.py) are selected by different
    modules through one registry, whichever registered first."""
    import numpy as np

    from tui.search import context
    from tui.search.query import FieldClause

    seen: list[object] = []

    def field_selector(clause: FieldClause, ctx: object) -> np.ndarray:
        seen.append(("field", clause.arg))
        return np.zeros(1, dtype=np.bool_)

    def value_selector(clause: FieldClause, ctx: object) -> np.ndarray:
        seen.append(("value", clause.arg))
        return np.ones(1, dtype=np.bool_)

    saved = dict(context._SELECTORS), dict(context._VALUE_SELECTORS)
    try:
        context.register_selector("probe", value_selector, value="one")
        context.register_selector("probe", field_selector)  # registered after: still second
        ctx = object()
        assert context.select(FieldClause("probe", "one", "one"), ctx).all()  # type: ignore[arg-type]
        assert not context.select(FieldClause("probe", "two", "two"), ctx).any()  # type: ignore[arg-type]
        assert seen == [("value", "one"), ("field", "two")]
    finally:
        context._SELECTORS.clear()
        context._SELECTORS.update(saved[0])
        context._VALUE_SELECTORS.clear()
        context._VALUE_SELECTORS.update(saved[1])
