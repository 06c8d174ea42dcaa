"""A paper's list row (title, first author, venue and year in 80 columns) and the venue
names it shows; conference text rows as before."""

from __future__ import annotations

import pytest

from tests.search.papers import paper_corpus
from tui.corpus.paper import Author, Paper
from tui.corpus.venues import is_journal, short_venue
from tui.ui.app import make_app
from tui.ui.widgets.paper_detail import venue_line
from tui.ui.widgets.paper_row import author_cell, columns, venue_year_cell


@pytest.mark.parametrize(
    ("name", "short"),
    [
        ("Advances in Neural Information Processing Systems", "NeurIPS"),
        ("Advances in Neural Information Processing Systems 36 (NeurIPS 2023)", "NeurIPS"),
        ("NIPS", "NeurIPS"),
        ("International Conference on Learning Representations", "ICLR"),
        ("Proceedings of the 40th International Conference on Machine Learning", "ICML"),
        (
            "Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition",
            "CVPR",
        ),
        (
            "Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics",
            "ACL",
        ),
        ("Findings of the Association for Computational Linguistics: EMNLP 2023", "EMNLP Findings"),
        (
            "Proceedings of the 2023 Conference on Empirical Methods in Natural Language Processing",
            "EMNLP",
        ),
        ("Proceedings of the AAAI Conference on Artificial Intelligence", "AAAI"),
        (
            "Proceedings of the Thirty-Second International Joint Conference on Artificial Intelligence",
            "IJCAI",
        ),
        ("Journal of Machine Learning Research", "JMLR"),
        ("Transactions on Machine Learning Research", "TMLR"),
        ("iclr", "ICLR"),
    ],
)
def test_known_venues_get_their_common_short_name(name: str, short: str) -> None:
    assert short_venue(name) == short


@pytest.mark.parametrize(
    ("name", "short"),
    [
        ("ICLR 2024 poster", "ICLR"),
        ("ICLR 2024 oral", "ICLR"),
        ("ICLR 2023 notable top 5%", "ICLR"),
        ("NeurIPS 2023 spotlight", "NeurIPS"),
        ("Submitted to ICLR 2024", "ICLR sub"),
        ("Submitted to NeurIPS 2023 Datasets and Benchmarks", "NeurIPS sub"),
        ("ICLR 2024 Conference Withdrawn Submission", "ICLR withdrawn"),
        ("ICLR 2024 Conference Desk Rejected Submission", "ICLR desk-rej"),
        ("ACM SIGGRAPH 2023 Posters", "ACM SIGGRAPH Posters"),
    ],
)
def test_openreview_venues_say_the_venue_and_what_became_of_the_paper(
    name: str, short: str
) -> None:
    assert short_venue(name) == short


def test_a_submission_shows_its_venue_and_outcome_in_the_row_and_in_full_in_the_pane() -> None:
    submitted = Paper(venue="Submitted to ICLR 2024", year=2024)
    assert venue_year_cell(submitted, 13) == "ICLR sub 2024"
    assert venue_line(submitted) == "2024 · Submitted to ICLR 2024"
    poster = Paper(venue="ICLR 2024 poster", year=2024)
    assert venue_year_cell(poster, 13) == "ICLR 2024"
    assert venue_line(poster) == "2024 · ICLR 2024 poster"


def test_unknown_venue_gives_its_acronym_in_parentheses() -> None:
    assert short_venue("Symposium on Theory of Computing (STOC '22)") == "STOC"


def test_unknown_venue_without_acronym_gives_its_first_words() -> None:
    assert short_venue("Proceedings of the 3rd Workshop on Efficient Systems for Models") == (
        "Workshop on Efficient Systems"
    )
    assert short_venue("Nature") == "Nature"


def test_journals_are_known_as_journals() -> None:
    assert is_journal("Journal of Machine Learning Research")
    assert not is_journal("International Conference on Learning Representations")


def test_author_cell_shortens_sensibly() -> None:
    many = Paper(authors=(Author("Krizhevsky", "Alex"), Author("Sutskever"), Author("Hinton")))
    assert author_cell(many, 20) == "Krizhevsky et al."
    assert author_cell(many, 12) == "Krizhevsky+"
    assert author_cell(many, 6) == "Krizh…"
    two = Paper(authors=(Author("Schmidt"), Author("Weberberger")))
    assert author_cell(two, 23) == "Schmidt and Weberberger"
    assert author_cell(two, 21) == "Schmidt & Weberberger"
    assert author_cell(two, 16) == "Schmidt et al."
    assert author_cell(Paper(), 16) == ""
    # BibTeX's `and others` is no co-author named Others.
    partial = Paper(authors=(Author("Müller", "Hans"), Author("others")))
    assert author_cell(partial, 20) == "Müller et al."
    assert author_cell(partial, 8) == "Müller+"


def test_venue_cell_keeps_the_year_when_cut() -> None:
    paper = Paper(venue="Workshop on Efficient Systems for Foundation Models", year=2023)
    cell = venue_year_cell(paper, 13)
    assert cell.endswith(" 2023") and len(cell) == 13
    assert venue_year_cell(Paper(venue="ICML", year=2023), 13) == "ICML 2023"
    assert venue_year_cell(Paper(year=2023), 13) == "2023"


def test_columns_leave_the_title_most_of_the_row() -> None:
    author, venue = columns(78)
    assert 78 - 4 - author - venue - 2 >= 40
    assert columns(50)[0] == 0  # narrow: no author column


def row_texts(app) -> list[str]:
    lst = app.abstract_list
    return ["".join(seg.text for seg in lst.render_line(y)) for y in range(len(lst.rows))]


async def test_paper_rows_at_80_columns_show_title_author_venue_and_year() -> None:
    app = make_app(corpus=paper_corpus())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        rows = row_texts(app)
        width = app.abstract_list.scrollable_content_region.width
        assert all(len(r) == width for r in rows)
        first = rows[0]
        assert "Attention Is All You Need" in first
        assert "Vaswani et al." in first
        assert first.rstrip().endswith("NeurIPS 2017")
        # LaTeX rendered in the title, the long ICML name in its short form.
        assert "ℓ₁" in rows[1] and rows[1].rstrip().endswith("ICML 2023")
        assert "Müller & Ńowak" in rows[1]
        # The columns line up from row to row.
        assert rows[0].index("Vaswani") == rows[2].index("Ho et al.")


async def test_conference_rows_keep_their_headline_and_collection() -> None:
    app = make_app(corpus=paper_corpus())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        paragraph = row_texts(app)[5]
        assert "Graph neural networks learn representations" in paragraph
        assert paragraph.rstrip().endswith("ICLR 2023")
        assert "et al." not in paragraph
