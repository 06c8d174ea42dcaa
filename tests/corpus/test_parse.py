"""Parsing one abstracts file: headers, paragraphs, tolerated formatting."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.corpus.model import Collection
from tui.corpus.parse import looks_like_prose, parse_header, parse_text

P = Path("/x/my_file.txt")
PROSE = (
    "We study how large models learn. Our method improves accuracy by a wide margin on "
    "three benchmarks, and we release the code."
)


@pytest.mark.parametrize(
    ("line", "venue", "year"),
    [
        ("ICLR 2023 Papers", "ICLR", 2023),
        ("NeurIPS 2021", "NeurIPS", 2021),
        ("ICML 2019 Accepted Papers", "ICML", 2019),
        ("  CVPR 2020  ", "CVPR", 2020),
        ("Proceedings of ICML 2022", "ICML", 2022),
        ("2023 ICLR Papers", "ICLR", 2023),
        ("Conference on Robot Learning 2022", "Conference on Robot Learning", 2022),
        ("NeurIPS'21 papers", "NeurIPS", 2021),
    ],
)
def test_header_with_venue_and_year(line: str, venue: str, year: int) -> None:
    c = parse_header(line)
    assert c is not None
    assert (c.venue, c.year) == (venue, year)
    assert c.label == " ".join(line.split())


def test_header_without_venue_keeps_label() -> None:
    assert parse_header("My reading list") == Collection("My reading list")


def test_prose_is_not_a_header() -> None:
    assert parse_header(PROSE) is None
    assert parse_header("") is None
    assert looks_like_prose(PROSE)
    assert not looks_like_prose("ICLR 2023 Papers")


def test_basic_file() -> None:
    parsed = parse_text("ICLR 2023 Papers\n\nFirst abstract.\n\nSecond abstract.\n", P)
    assert parsed.collection == Collection("ICLR 2023 Papers", "ICLR", 2023)
    assert parsed.paragraphs == ["First abstract.", "Second abstract."]
    assert parsed.has_header


def test_wrapped_paragraph_is_joined_and_whitespace_collapsed() -> None:
    text = "ICLR 2023 Papers\n\nA wrapped\nparagraph   with\t tabs \nand spaces.   \n\nNext."
    assert parse_text(text, P).paragraphs == ["A wrapped paragraph with tabs and spaces.", "Next."]


@pytest.mark.parametrize(
    "text",
    [
        "ICLR 2023 Papers\r\n\r\nOne.\r\nStill one.\r\n\r\nTwo.\r\n",
        "ICLR 2023 Papers\r\rOne.\rStill one.\r\rTwo.\r",
        "\ufeffICLR 2023 Papers\n\nOne.\nStill one.\n\nTwo.\n",
        "\n\n  \nICLR 2023 Papers\n\n\n\n\nOne.\nStill one.\n \t \n\t\nTwo.\n\n\n",
        "ICLR 2023 Papers   \n\t\nOne.   \nStill one.\n   \nTwo.",
    ],
    ids=["crlf", "lone-cr", "bom", "blank-runs", "whitespace-lines"],
)
def test_tolerated_formatting(text: str) -> None:
    parsed = parse_text(text, P)
    assert parsed.collection.venue == "ICLR"
    assert parsed.paragraphs == ["One. Still one.", "Two."]


def test_prose_first_paragraph_means_no_header() -> None:
    parsed = parse_text(PROSE + "\n\nSecond abstract here.\n", P)
    assert not parsed.has_header
    assert parsed.collection == Collection("my_file")
    assert parsed.paragraphs == [PROSE, "Second abstract here."]


def test_short_unparsed_header_is_the_label() -> None:
    parsed = parse_text("Papers I liked\n\nOne.\n", P)
    assert parsed.collection == Collection("Papers I liked")
    assert parsed.paragraphs == ["One."]


def test_header_directly_followed_by_text_warns() -> None:
    parsed = parse_text("ICLR 2023 Papers\nOne abstract.\n\nTwo.", P)
    assert parsed.paragraphs == ["One abstract.", "Two."]
    assert parsed.warnings and "blank line" in parsed.warnings[0]


def test_empty_and_header_only() -> None:
    assert parse_text("", P).paragraphs == []
    assert parse_text(" \n\t\n", P).paragraphs == []
    only = parse_text("ICLR 2023 Papers\n\n\n", P)
    assert only.paragraphs == [] and only.has_header


def test_unicode_whitespace_collapses_like_normalise() -> None:
    parsed = parse_text("H 2020\n\nA\u00a0\u2003b\u3000 c", P)
    assert parsed.paragraphs == ["A b c"]


@pytest.mark.parametrize(
    "first",
    [
        "Deep nets work.",
        "It works!",
        "Does it scale?",
        "Models fail (often).",
        "We show that \\emph{this} holds.",
        "Deep networks generalize well on natural images",
    ],
)
def test_short_sentence_first_paragraph_is_an_abstract(first: str) -> None:
    assert looks_like_prose(first)
    parsed = parse_text(f"{first}\n\nA real abstract follows here.\n", P)
    assert not parsed.has_header
    assert parsed.collection == Collection("my_file")
    assert parsed.paragraphs == [first, "A real abstract follows here."]
    assert parsed.warnings == []


@pytest.mark.parametrize(
    "header",
    [
        "ICLR 2023 Papers",
        "NeurIPS 2021",
        "ICML 2019 Accepted Papers",
        "Workshop on X",
        "Workshop on Efficient Methods for Deep Learning",
        "My reading list",
        "Papers I liked",
        "Conference on Robot Learning 2022",
        "International Conference on Learning Representations 2023",
        "ICLR 2023 Papers.",
    ],
)
def test_title_lines_stay_headers(header: str) -> None:
    assert not looks_like_prose(header)
    parsed = parse_text(f"{header}\n\nOne abstract.\n", P)
    assert parsed.has_header
    assert parsed.collection.label == header
    assert parsed.paragraphs == ["One abstract."]


def test_header_without_venue_and_year_is_reported() -> None:
    parsed = parse_text("My reading list\n\nOne abstract.\n", P)
    assert parsed.collection == Collection("My reading list")
    assert parsed.warnings == [
        "header 'My reading list' has no venue and year; used as the collection label"
    ]
    assert parse_text("ICLR 2023 Papers\n\nOne.\n", P).warnings == []
    # A header-only file already fails as such; no second message about its label.
    assert parse_text("My reading list\n\n", P).warnings == []
