"""CSV and TSV tables of papers: header names and synonyms, dialects, BOM, author conventions."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.corpus.load import load_corpus
from tui.corpus.paper import Author
from tui.corpus.readers import ReadResult, read, sniff, tabular
from tui.corpus.readers._fields import split_authors

FIXTURES = Path(__file__).parent / "fixtures"


def read_fixture(name: str) -> ReadResult:
    path = FIXTURES / name
    return read(path.read_bytes().decode("utf-8-sig"), path)


def test_header_synonyms_bom_crlf_and_multiline_cells() -> None:
    path = FIXTURES / "csv-papers.csv"
    assert path.read_bytes().startswith(b"\xef\xbb\xbf") and b"\r\n" in path.read_bytes()
    # The BOM left in place (as a raw read would) does not hide the first column's name.
    result = read(path.read_bytes().decode("utf-8"), path)
    assert result.format == "csv" and result.error is None
    assert result.papers is not None and len(result.papers) == 4
    first = result.papers[0]
    assert first is not None
    assert first.title is not None and first.title.startswith("Meta Reinforcement Learning")
    # The quoted cell's line break is collapsed into the abstract.
    assert result.texts[0].startswith(
        "We propose and address a novel few-shot RL problem, where a task is characterized"
    )
    assert (
        "\n" not in result.texts[0]
        and "maximize the return in the test phase." in (result.texts[0])
    )
    assert [a.family for a in first.authors] == ["Sohn", "Woo", "Choi", "Lee"]
    assert first.year == 2020 and first.venue == "ICLR"
    assert first.ids == (("arxiv", "2001.07274"),)  # from the arXiv URL
    assert first.keywords == ("meta-learning", "reinforcement learning")
    assert result.warnings == ["1 row with neither a title nor an abstract, skipped"]


def test_the_three_author_conventions_are_split() -> None:
    result = read_fixture("csv-papers.csv")
    assert result.papers is not None
    second, third = result.papers[1], result.papers[2]
    assert second is not None and third is not None
    # `A and B and C` with diacritics; `Family, Given; Family, Given` (Zotero).
    assert second.authors == (
        Author("Lefèvre", "Zoë"),
        Author("Müller", "Jürgen"),
        Author("Álvarez-Peña", "José"),
    )
    assert third.authors[0] == Author("Cemgil", "Taylan")
    assert len(third.authors) == 4
    assert result.texts[2] == ""  # a title without an abstract is kept


def test_author_strings_in_every_convention() -> None:
    assert split_authors("Lovelace, Ada") == (Author("Lovelace", "Ada"),)
    assert split_authors("Ada Lovelace, Charles Babbage and Mary Somerville") == (
        Author("Lovelace", "Ada"),
        Author("Babbage", "Charles"),
        Author("Somerville", "Mary"),
    )
    assert split_authors("Lovelace, Ada and Babbage, Charles") == (
        Author("Lovelace", "Ada"),
        Author("Babbage", "Charles"),
    )
    assert split_authors("Lovelace, Ada; Babbage, Charles") == (
        Author("Lovelace", "Ada"),
        Author("Babbage", "Charles"),
    )
    # `et al.` is kept as BibTeX keeps it: more authors than the source names.
    assert split_authors("Ada Lovelace et al.") == (Author("Lovelace", "Ada"), Author("others"))
    assert split_authors("Lovelace, Ada and others") == (
        Author("Lovelace", "Ada"),
        Author("others"),
    )
    assert split_authors("et al.") == ()
    assert split_authors("Ludwig van Beethoven") == (Author("van Beethoven", "Ludwig"),)
    assert split_authors("  ") == ()


def test_a_duplicate_row_is_one_paper_with_two_sources() -> None:
    corpus = load_corpus([FIXTURES / "csv-papers.csv"])
    assert len(corpus.abstracts) == 3
    meta = corpus.abstracts[0]
    assert [s.position for s in meta.sources] == [1, 4]
    assert corpus.files[0].repeated == 1


def test_zotero_csv_export_reads_its_own_column_names() -> None:
    result = read_fixture("csv-zotero.csv")
    assert result.error is None and result.papers is not None and len(result.papers) == 4
    first, preprint, article, old = result.papers
    assert first is not None and preprint is not None and article is not None
    assert old is not None
    assert first.kind == "inproceedings" and first.date == "2020-01-20"
    assert first.venue == "International Conference on Learning Representations"
    assert first.id_of("openreview") == "HkxjqxBYDB"
    assert first.keywords == ("meta-learning", "subtask graph")  # Manual Tags
    assert first.authors[0] == Author("Sohn", "Sungryull")
    assert preprint.kind == "misc" and preprint.id_of("arxiv") == "2002.03932"
    assert article.kind == "article" and article.id_of("doi") == "10.1234/jmlr.2020.0042"
    assert dict(article.extra) == {"pages": "1-29", "volume": "21"}
    assert old.id_of("arxiv") == "1911.09451"  # from `Extra: arXiv: 1911.09451`
    assert old.year == 2019 and old.authors[-1] == Author("Ölveczky", "Bence")


def test_a_semicolon_separated_file_is_sniffed() -> None:
    result = read_fixture("csv-semicolon.csv")
    assert result.error is None and result.papers is not None and len(result.papers) == 2
    first = result.papers[0]
    assert first is not None and [a.family for a in first.authors] == [
        "Wen",
        "Zhou",
        "He",
        "Zhou",
        "Xu",
    ]
    second = result.papers[1]
    assert second is not None
    assert second.authors == (Author("Cemgil", "Taylan"), Author("Ghaisas", "Sumedh"))


def test_a_tsv_file_with_summary_and_categories_columns() -> None:
    result = read_fixture("csv-papers.tsv")
    assert result.error is None and result.papers is not None
    first = result.papers[0]
    assert first is not None
    assert first.id_of("arxiv") == "2002.03932" and first.keywords == ("cs.LG", "cs.IR")
    assert result.texts[0].startswith("We consider the large-scale query-document")


def test_excel_sep_line_names_the_delimiter() -> None:
    text = "sep=;\r\nTitle;Abstract;Authors\r\nA Paper;An abstract, with a comma.;Ada Lovelace\r\n"
    result = read(text, Path("excel.csv"))
    assert result.texts == ["An abstract, with a comma."]
    assert result.papers is not None and result.papers[0] is not None
    assert result.papers[0].title == "A Paper"


def test_a_csv_without_title_or_abstract_column_lists_what_it_found_and_needs() -> None:
    corpus = load_corpus([FIXTURES / "csv-no-title.csv"])
    assert corpus.abstracts == []
    [problem] = corpus.problems
    assert problem.fatal and problem.path.name == "csv-no-title.csv"
    assert "columns found: 'Paper ID', 'Reviewer', 'Score', 'Confidence'" in problem.message
    assert "a 'title' or 'abstract' column is needed" in problem.message


def test_a_text_file_starting_with_a_header_row_is_read_as_csv() -> None:
    text = "title,abstract\nA Paper,An abstract.\n"
    assert sniff(text, Path("papers.txt")) == "csv"
    assert read(text, Path("papers.txt")).texts == ["An abstract."]


def test_an_empty_or_header_only_csv_is_an_error() -> None:
    assert read("", Path("e.csv")).error == "CSV file with no header row"
    only = read("Title,Abstract\n", Path("h.csv"))
    assert only.error == "CSV with a header but no row holding a title or abstract"


def test_a_field_over_the_csv_limit_is_said_and_the_rows_before_it_load() -> None:
    text = "title,abstract\nA Paper,An abstract.\nB Paper," + "x" * 200_000 + "\n"
    result = read(text, Path("big.csv"))
    assert result.texts == ["An abstract."]
    assert result.warnings[0].startswith("CSV broken at line 3:")


CELLS = st.text(alphabet=st.sampled_from(list('ab ,;\t"\n\r\ufeffé')), max_size=30)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["Title", "Abstract", "Author(s)", "year", "DOI", "x"]), max_size=5),
    st.lists(CELLS, max_size=12),
    st.sampled_from([",", "\t", ";"]),
)
def test_the_csv_reader_never_raises(header: list[str], cells: list[str], sep: str) -> None:
    text = sep.join(header) + "\n" + sep.join(cells)
    result = tabular.read(text, Path("x.csv"))
    assert (result.error is None) == bool(result.texts)
    assert result.papers is None or len(result.papers) == len(result.texts)
