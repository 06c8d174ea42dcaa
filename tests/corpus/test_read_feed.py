"""Atom and RSS feeds: the arXiv API, arXiv's listing feeds and other paper feeds, read safely."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.corpus.load import load_corpus
from tui.corpus.paper import Author
from tui.corpus.readers import ReadResult, read, sniff
from tui.corpus.readers import feed as feed_reader

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]


def read_fixture(name: str) -> ReadResult:
    path = FIXTURES / name
    return read(path.read_bytes().decode("utf-8-sig"), path)


def test_arxiv_api_entry_gives_id_version_links_categories_and_journal() -> None:
    result = read_fixture("feed-arxiv-api.xml")
    assert result.format == "feed" and result.error is None
    assert result.papers is not None
    first = result.papers[0]
    assert first is not None
    # The title's line break and indentation collapse to one space.
    assert first.title == (
        "Meta Reinforcement Learning with Autonomous Inference of Subtask Dependencies"
    )
    assert [a.family for a in first.authors] == ["Sohn", "Woo", "Choi", "Lee"]
    assert first.ids == (("arxiv", "2001.07274"),)
    assert first.date == "2020-01-20" and first.year == 2020 and first.venue == "arXiv"
    assert first.link("page") == "http://arxiv.org/abs/2001.07274v2"
    assert first.pdf_url == "http://arxiv.org/pdf/2001.07274v2"
    assert first.keywords == ("cs.LG", "cs.AI", "stat.ML")
    extra = dict(first.extra)
    assert extra["version"] == "2" and extra["primary_class"] == "cs.LG"
    assert extra["updated"] == "2020-04-25"
    assert extra["journal_ref"].startswith("International Conference on Learning")
    assert extra["comment"] == "ICLR 2020, 24 pages"
    assert result.texts[0].startswith("We propose and address a novel few-shot RL problem, where")
    assert "  " not in result.texts[0] and "\n" not in result.texts[0]


def test_arxiv_api_keeps_latex_and_diacritics_and_reads_an_arxiv_doi_as_the_arxiv_id() -> None:
    result = read_fixture("feed-arxiv-api.xml")
    assert result.papers is not None
    second = result.papers[1]
    assert second is not None
    assert (
        second.title
        == "Towards $\\epsilon$-Optimal Exploration in Multi-Agent Reinforcement Learning"
    )
    assert second.authors[0] == Author("Lefèvre", "Zoë")
    assert second.authors[2] == Author("Álvarez-Peña", "José")
    assert second.ids == (("arxiv", "2003.10423"),)
    assert "$O(\\sqrt{T \\log T})$" in result.texts[1]


def test_an_arxiv_api_answer_is_named_by_its_query_not_the_api_title() -> None:
    assert read_fixture("feed-arxiv-api.xml").collection.label == "arXiv: cat:cs.LG"
    assert feed_reader._label("ArXiv Query: search_query=&id_list=2101.00001&start=0") == (
        "arXiv: 2101.00001"
    )
    assert feed_reader._label("ArXiv Query: search_query=au:%22Ada+Lovelace%22") == (
        'arXiv: au:"Ada Lovelace"'
    )


def test_arxiv_api_says_when_the_query_has_more_results_than_the_file() -> None:
    result = read_fixture("feed-arxiv-api.xml")
    assert any("reports 120 results" in w and "holds 4" in w for w in result.warnings)


def test_two_versions_of_one_arxiv_paper_load_as_one_paper_with_both_sources() -> None:
    corpus = load_corpus([FIXTURES / "feed-arxiv-api.xml"])
    assert len(corpus.abstracts) == 3
    [meta] = [a for a in corpus.abstracts if a.paper and a.paper.id_of("arxiv") == "2001.07274"]
    assert [s.position for s in meta.sources] == [1, 4]
    # The fuller abstract (v2's) is kept, and v2's four authors.
    assert meta.text.endswith("maximize the return in the test phase.")
    assert meta.paper is not None and len(meta.paper.authors) == 4
    assert corpus.files[0].format == "feed" and corpus.files[0].repeated == 1


def test_arxiv_rss_listing_strips_the_announce_line_and_splits_creators() -> None:
    result = read_fixture("feed-arxiv-rss.xml")  # with a BOM and CRLF line ends
    assert result.format == "feed" and result.error is None
    assert result.collection.label == "cs.LG updates on arXiv.org"
    assert result.papers is not None
    first = result.papers[0]
    assert first is not None
    assert first.title == (
        "Sparse Mixtures of Experts Learn Modular Skills in Continual Reinforcement Learning"
    )
    assert result.texts[0].startswith("Continual reinforcement learning agents forget")
    assert "Announce Type" not in result.texts[0] and "Abstract:" not in result.texts[0]
    assert "$k \\ll n$" in result.texts[0]
    assert first.authors == (
        Author("Ødegård", "Ingrid"),
        Author("Watanabe", "Kenji"),
        Author("Durand", "Amélie"),
    )
    assert first.ids == (("arxiv", "2412.00001"),)
    assert dict(first.extra)["version"] == "1"
    assert first.keywords == ("cs.LG", "cs.AI")
    assert first.date == "2024-12-02" and first.year == 2024


def test_a_replaced_paper_in_a_listing_keeps_its_own_year_not_the_announcement_day() -> None:
    result = read_fixture("feed-arxiv-rss.xml")
    assert result.papers is not None
    replaced = result.papers[2]
    assert replaced is not None and replaced.id_of("arxiv") == "2001.07274"
    assert replaced.year == 2020 and replaced.date is None
    assert dict(replaced.extra) == {"version": "3", "announced": "2024-12-02"}


def test_arxiv_atom_listing_reads_like_the_rss_one() -> None:
    atom = read_fixture("feed-arxiv-atom.xml")
    rss = read_fixture("feed-arxiv-rss.xml")
    assert atom.papers is not None and rss.papers is not None
    assert atom.texts[0] == rss.texts[0]
    assert atom.papers[0] == rss.papers[0]
    second = atom.papers[1]
    assert second is not None
    assert second.ids == (("arxiv", "2411.18003"),) and dict(second.extra)["version"] == "2"
    assert second.title == "Diffusion Policies with $\\mathcal{O}(1)$-Step Sampling"


def test_arxiv_rss_1_feed_takes_the_id_from_the_title_and_names_from_their_links() -> None:
    result = read_fixture("feed-arxiv-rdf.xml")
    assert result.error is None and result.papers is not None
    [paper] = result.papers
    assert paper is not None
    # `Title. (arXiv:2002.03932v1 [cs.LG])`: the id and category leave the title.
    assert paper.title == "Pre-training Tasks for Embedding-based Large-scale Retrieval"
    assert paper.ids == (("arxiv", "2002.03932"),) and dict(paper.extra) == {"version": "1"}
    assert paper.keywords == ("cs.LG",) and paper.year == 2020
    # Each `dc:creator` name is an escaped HTML link: the names only.
    assert [a.name for a in paper.authors] == ["Wei-Cheng Chang", "Felix X. Yu", "Sanjiv Kumar"]
    assert (
        result.texts[0].startswith("We consider the large-scale") and "<p>" not in result.texts[0]
    )


def test_generic_rss_reads_html_descriptions_dublin_core_and_prism_fields() -> None:
    result = read_fixture("feed-journal.rss")
    assert result.format == "feed" and result.error is None
    assert result.papers is not None and len(result.papers) == 2
    first = result.papers[0]
    assert first is not None
    assert [a.family for a in first.authors] == ["Cemgil", "Ghaisas", "Dvijotham"]
    assert first.ids == (("doi", "10.5555/iclr.2020.smooth"),)
    assert first.venue == "Journal of Machine Learning Research"
    assert first.date == "2020-04-26"
    assert first.link("page") == "https://jmlr.example.org/papers/v21/cemgil20a.html"
    # Escaped HTML in the description is text, not markup: tags gone, entities decoded.
    assert "<p>" not in result.texts[0]
    assert result.texts[0].endswith("the evidence lower bound (ELBO) & fix it.")
    second = result.papers[1]
    assert second is not None
    assert second.authors == (Author("Wen", "Liangjian"),)  # from `email (Name)`
    assert second.ids == (("openreview", "ByxaUgrFvH"),)
    assert second.date == "2020-05-03"
    # The item with neither title nor description is said, not loaded.
    assert result.warnings == ["1 entry with neither a title nor an abstract skipped"]


def test_latex_comparisons_in_an_abstract_are_not_taken_for_html() -> None:
    text = (
        "<rss><channel><title>T</title><item><title>Bounds</title><description>"
        "For $0&lt;a&lt;b$ and $c&gt;1$ we show &lt;p&gt;a bound&lt;/p&gt;.</description></item>"
        "</channel></rss>"
    )
    result = read(text, Path("f.rss"))
    assert result.texts == ["For $0<a<b$ and $c>1$ we show a bound ."]


def test_billion_laughs_is_refused_without_expanding_and_the_file_is_named() -> None:
    corpus = load_corpus([FIXTURES / "feed-billion-laughs.xml"])
    assert corpus.abstracts == []
    [problem] = corpus.problems
    assert problem.fatal and problem.path.name == "feed-billion-laughs.xml"
    assert "feed-billion-laughs.xml" in str(problem)
    assert "declares entities" in problem.message and "billion-laughs" in problem.message


def test_external_entity_is_refused_and_never_read() -> None:
    corpus = load_corpus([FIXTURES / "feed-external-entity.xml"])
    assert corpus.abstracts == []
    [problem] = corpus.problems
    assert "feed-external-entity.xml" in str(problem)
    assert "external entity" in problem.message and "file:///etc/passwd" in problem.message
    assert "root:" not in problem.message


def test_an_external_dtd_is_never_fetched(tmp_path: Path) -> None:
    # A DOCTYPE naming a DTD by URL: the parser neither fetches nor needs it.
    path = tmp_path / "dtd.xml"
    path.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE rss SYSTEM "http://127.0.0.1:9/rss-0.91.dtd">\n'
        "<rss><channel><title>T</title><item><title>A Paper</title>"
        "<description>An abstract.</description></item></channel></rss>\n"
    )
    result = read(path.read_text(), path)
    assert result.error is None and result.texts == ["An abstract."]


def test_truncated_xml_is_named_with_line_and_column_and_loads_nothing() -> None:
    corpus = load_corpus([FIXTURES / "feed-truncated.xml"])
    assert corpus.abstracts == []
    [problem] = corpus.problems
    assert problem.fatal
    assert problem.message.startswith("broken XML at line 28, column ")


def test_xml_that_is_not_a_feed_is_named_not_read_as_prose() -> None:
    result = read_fixture("feed-not-a-feed.xml")
    assert result.texts == [] and result.error is not None
    assert "<project>" in result.error


def test_an_arxiv_api_error_feed_is_an_error() -> None:
    text = (
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>ArXiv Query</title>'
        "<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_1234</id>"
        "<title>Error</title><summary>incorrect id format for 1234</summary></entry></feed>"
    )
    result = read(text, Path("q.xml"))
    assert result.error == "the arXiv API answered with an error: incorrect id format for 1234"


def test_feeds_are_chosen_by_content_whatever_the_extension() -> None:
    text = (FIXTURES / "feed-arxiv-atom.xml").read_text(encoding="utf-8")
    assert sniff(text, Path("listing.txt")) == "feed"
    assert sniff(text, Path("listing.atom")) == "feed"


def test_a_folder_loads_feeds_next_to_text() -> None:
    corpus = load_corpus([FIXTURES])
    formats = {f.path.name: f.format for f in corpus.files}
    assert formats["feed-arxiv-api.xml"] == "feed" and formats["feed-journal.rss"] == "feed"


def test_reading_a_text_file_imports_no_xml_parser() -> None:
    code = (
        "import sys\nfrom pathlib import Path\nfrom tui.corpus.readers import read\n"
        "read('ICLR 2023 Papers\\n\\nAn abstract.\\n', Path('a.txt'))\n"
        "bad = [m for m in ('defusedxml', 'xml.etree.ElementTree', 'xml.parsers.expat', 'csv',"
        " 'json') if m in sys.modules]\nprint(bad)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


XML_BITS = st.sampled_from(
    [
        "<feed>",
        "</feed>",
        "<entry>",
        "</entry>",
        "<title>",
        "</title>",
        "<summary>",
        "</summary>",
        "<rss><channel>",
        "<item>",
        "</item>",
        "<author><name>",
        "</name></author>",
        '<link href="http://arxiv.org/abs/2101.00001v2"/>',
        "<id>http://arxiv.org/abs/2101.00001v2</id>",
        "<published>2021-01-01T00:00:00Z</published>",
        "<pubDate>Mon, 99 Foo 2024</pubDate>",
        "<dc:creator xmlns:dc='x'>A, B and C</dc:creator>",
        '<!DOCTYPE x [<!ENTITY a "b">]>',
        "&amp;",
        "&a;",
        "<![CDATA[ <p>x</p> ]]>",
        "arXiv:2412.00001v1 Announce Type: new Abstract:",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(XML_BITS, st.text(max_size=8)), max_size=25))
def test_the_feed_reader_never_raises(pieces: list[str]) -> None:
    result = feed_reader.read("".join(pieces), Path("f.xml"))
    assert result.format == "feed"
    assert (result.error is None) == bool(result.texts)
    assert result.papers is None or len(result.papers) == len(result.texts)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(XML_BITS, st.text(max_size=8)), max_size=25))
def test_a_feed_without_a_dtd_reads_as_defusedxml_reads_it(pieces: list[str]) -> None:
    # Such a feed goes to the standard library's C parser: results and errors must be
    # exactly those of defusedxml (which a feed with a DTD still goes to).
    text = "".join(pieces)
    fast = feed_reader.read(text, Path("f.xml"))
    original = feed_reader.ElementTree.fromstring
    feed_reader.ElementTree.fromstring = feed_reader.SafeET.fromstring  # type: ignore[assignment]
    try:
        safe = feed_reader.read(text, Path("f.xml"))
    finally:
        feed_reader.ElementTree.fromstring = original  # type: ignore[assignment]
    assert fast == safe
