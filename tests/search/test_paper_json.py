"""`--json` rows carry what the source says of the paper: title, authors, year, venue,
ids and url (null or empty when unknown)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.search.papers import paper_corpus
from tui.commands.search import main
from tui.corpus.jsonrow import json_row


def test_a_paper_row_has_title_authors_ids_and_url() -> None:
    row = json_row(paper_corpus().abstracts[0], score=1.0)
    assert row["title"] == "Attention Is All You Need"
    assert row["authors"][:2] == ["Ashish Vaswani", "Noam Shazeer"]
    assert row["year"] == 2017
    assert row["venue"] == "Advances in Neural Information Processing Systems"
    assert row["ids"] == {"arxiv": "1706.03762", "citekey": "vaswani2017attention"}
    assert row["url"] == "https://arxiv.org/abs/1706.03762"
    assert row["score"] == 1.0
    json.dumps(row)  # every value is JSON


def test_title_is_rendered_and_url_null_without_a_link() -> None:
    corpus = paper_corpus()
    assert json_row(corpus.abstracts[1])["title"] == (
        "Sparse Recovery with ℓ₁ Penalties and BERT Features"
    )
    no_link = json_row(corpus.abstracts[4])
    assert no_link["url"] is None and no_link["ids"] == {}


def test_a_conference_paragraph_row_has_the_paper_fields_empty() -> None:
    row = json_row(paper_corpus().abstracts[5])
    assert row["title"] is None
    assert row["authors"] == [] and row["ids"] == {} and row["url"] is None
    assert row["venue"] == "ICLR" and row["year"] == 2023


def test_search_json_rows_carry_the_paper_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "iclr2023.txt"
    text.write_text(
        "ICLR 2023 Papers\n\nGraph neural networks pass messages along edges.\n",
        encoding="utf-8",
    )
    assert main(["graph", str(text), "--json"]) == 0
    row = json.loads(capsys.readouterr().out.splitlines()[0])
    assert {"title", "authors", "year", "venue", "ids", "url"} <= row.keys()
    assert row["url"] is None
