"""The paper record: identifiers in canonical form, authors, links, merging, JSON."""

from __future__ import annotations

import pytest

from tui.corpus.paper import (
    Author,
    Paper,
    canonical_ids,
    id_from_ids,
    normalise_arxiv,
    normalise_doi,
    openreview_from_url,
    split_arxiv,
)


@pytest.mark.parametrize(
    ("raw", "doi"),
    [
        ("10.1145/3292500.3330701", "10.1145/3292500.3330701"),
        ("https://doi.org/10.1109/CVPR.2016.90", "10.1109/cvpr.2016.90"),
        ("doi:10.48550/arXiv.1706.03762.", "10.48550/arxiv.1706.03762"),
        ("not a doi", None),
    ],
)
def test_doi_forms(raw: str, doi: str | None) -> None:
    assert normalise_doi(raw) == doi


@pytest.mark.parametrize(
    ("raw", "found"),
    [
        ("2101.00001v2", ("2101.00001", 2)),
        ("arXiv:1706.03762", ("1706.03762", None)),
        ("http://arxiv.org/abs/2412.01234v1", ("2412.01234", 1)),
        ("https://arxiv.org/pdf/2412.01234v3.pdf", ("2412.01234", 3)),
        ("hep-th/9901001v1", ("hep-th/9901001", 1)),
        ("math.GT/0309136", ("math.GT/0309136", None)),
        ("12345.6789", None),
        ("", None),
    ],
)
def test_arxiv_forms(raw: str, found: tuple[str, int | None] | None) -> None:
    assert split_arxiv(raw) == found
    assert normalise_arxiv(raw) == (found[0] if found else None)


def test_arxiv_doi_is_the_arxiv_id() -> None:
    ids = canonical_ids([("doi", "10.48550/arXiv.1706.03762"), ("arxiv", "1706.03762v5")])
    assert ids == (("arxiv", "1706.03762"),)


def test_canonical_ids_drop_what_does_not_parse_and_repeat() -> None:
    ids = canonical_ids(
        [
            ("DOI", "10.1000/X"),
            ("doi", "https://doi.org/10.1000/x"),
            ("arxiv", "nonsense"),
            ("s2", ""),
        ]
    )
    assert ids == (("doi", "10.1000/x"),)


def test_openreview_id_from_links() -> None:
    assert openreview_from_url("https://openreview.net/forum?id=YicbFdNTTy") == "YicbFdNTTy"
    assert openreview_from_url("https://openreview.net/pdf?id=a-B_1") == "a-B_1"
    assert openreview_from_url("https://example.org/?id=x") is None


def test_id_priority_doi_then_arxiv_then_openreview() -> None:
    doi = id_from_ids([("arxiv", "2101.00001"), ("doi", "10.1000/x")])
    arxiv = id_from_ids([("openreview", "abc"), ("arxiv", "2101.00001")])
    openreview = id_from_ids([("openreview", "abc"), ("citekey", "smith2020")])
    assert doi == id_from_ids([("doi", "10.1000/x")])
    assert arxiv == id_from_ids([("arxiv", "2101.00001")])
    assert len({doi, arxiv, openreview}) == 3
    assert all(len(i or "") == 16 for i in (doi, arxiv, openreview))
    assert id_from_ids([("citekey", "smith2020")]) is None


@pytest.mark.parametrize(
    ("raw", "family", "given"),
    [
        ("Lovelace, Ada", "Lovelace", "Ada"),
        ("Ada Lovelace", "Lovelace", "Ada"),
        ("Ludwig van der Waals", "van der Waals", "Ludwig"),
        ("Jean-Pierre  de la Fontaine", "de la Fontaine", "Jean-Pierre"),
        ("Plato", "Plato", ""),
        ("  Müller ,  Jörg ", "Müller", "Jörg"),
    ],
)
def test_author_names(raw: str, family: str, given: str) -> None:
    author = Author.parse(raw)
    assert (author.family, author.given) == (family, given)
    assert author.name == f"{given} {family}".strip()


def test_links_from_ids_when_the_source_gives_none() -> None:
    paper = Paper(title="T", ids=(("arxiv", "2101.00001v2"),))
    assert paper.page_url == "https://arxiv.org/abs/2101.00001"
    assert paper.pdf_url == "https://arxiv.org/pdf/2101.00001"
    doi = Paper(ids=(("doi", "10.1000/x"), ("arxiv", "2101.00001")))
    assert doi.page_url == "https://doi.org/10.1000/x"
    given = Paper(links=(("page", "https://example.org/p"), ("pdf", "https://example.org/p.pdf")))
    assert (given.page_url, given.pdf_url) == ("https://example.org/p", "https://example.org/p.pdf")
    assert Paper(title="no links").page_url is None
    assert Paper(title="no links").pdf_url is None


def test_first_author_forms() -> None:
    a, b, c = Author("Lovelace", "Ada"), Author("Babbage", "Charles"), Author("Turing", "Alan")
    assert Paper(authors=(a,)).first_author == "Lovelace"
    assert Paper(authors=(a, b)).first_author == "Lovelace and Babbage"
    assert Paper(authors=(a, b, c)).first_author == "Lovelace et al."
    assert Paper().first_author is None


def test_others_stands_for_more_authors_not_for_a_person() -> None:
    a, b, others = Author("Lovelace", "Ada"), Author("Babbage", "Charles"), Author("others")
    assert Paper(authors=(a, others)).first_author == "Lovelace et al."
    assert Paper(authors=(a, b, others)).first_author == "Lovelace et al."
    assert Paper(authors=(a, b, others)).named_authors == (a, b)
    assert Paper(authors=(a, others)).more_authors
    assert not Paper(authors=(a, b)).more_authors
    assert not Author("Others", "Jane").is_others  # a person of that name


def test_merged_fills_missing_fields_and_joins_ids() -> None:
    feed = Paper(
        title="Attention Is All You Need",
        authors=(Author("Vaswani", "Ashish"),),
        ids=(("arxiv", "1706.03762v5"),),
        links=(("pdf", "https://arxiv.org/pdf/1706.03762v5"),),
        keywords=("cs.CL",),
    )
    library = Paper(
        title="Attention is all you need",
        venue="NeurIPS",
        year=2017,
        ids=(("doi", "10.5555/3295222.3295349"), ("citekey", "vaswani2017attention")),
        keywords=("cs.CL", "transformers"),
        extra=(("pages", "5998--6008"),),
    )
    both = feed.merged(library)
    assert both.title == "Attention Is All You Need"
    assert (both.venue, both.year) == ("NeurIPS", 2017)
    assert both.ids == (
        ("arxiv", "1706.03762"),
        ("doi", "10.5555/3295222.3295349"),
        ("citekey", "vaswani2017attention"),
    )
    assert both.keywords == ("cs.CL", "transformers")
    assert both.extra == (("pages", "5998--6008"),)


def test_json_round_trip() -> None:
    paper = Paper(
        title="A $\\beta$-VAE",
        authors=(Author("Higgins", "Irina"), Author("Plato")),
        venue="ICLR",
        year=2017,
        date="2017-04-24",
        ids=(("openreview", "Sy2fzU9gl"), ("citekey", "higgins2017beta")),
        links=(("page", "https://openreview.net/forum?id=Sy2fzU9gl"),),
        keywords=("vae",),
        kind="inproceedings",
        extra=(("pages", "1--22"),),
    )
    assert Paper.from_json(paper.to_json()) == paper


def test_from_json_drops_ill_typed_values() -> None:
    paper = Paper.from_json(
        {"title": 3, "authors": [{"family": 1}, "x", {"family": "Ok", "given": None}], "year": True}
    )
    assert paper == Paper(authors=(Author("Ok"),))
