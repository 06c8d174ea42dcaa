"""Reading RIS files: Zotero and EndNote exports, CRLF and BOM, a missing ER, and broken files."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.corpus.reading import FIXTURES, by_title, check_result_shape, load, paper_of
from tui.corpus.load import load_corpus
from tui.corpus.paper import Author
from tui.corpus.readers import ReadResult, read
from tui.corpus.readers import ris as ris_reader


def read_ris(text: str) -> ReadResult:
    return ris_reader.read(text, Path("refs.ris"))


def test_zotero_export_gives_every_field() -> None:
    corpus = load("ris-zotero.ris")
    assert [p.message for p in corpus.problems] == []
    assert corpus.files[0].format == "ris" and corpus.files[0].count == 3
    tgnn = by_title(corpus, "Topological Graph Neural Networks")
    paper = paper_of(tgnn)
    assert paper.authors[:2] == (Author("Horn", "Max"), Author("De Brouwer", "Edward"))
    assert paper.venue == "International Conference on Learning Representations"
    assert (paper.year, paper.date, paper.kind) == (2022, "2022-04-25", "inproceedings")
    # The arXiv DOI and the versioned arXiv link both name the arXiv paper.
    assert paper.ids == (("arxiv", "2102.07835"),)
    assert paper.link("page") == "https://arxiv.org/abs/2102.07835v4"
    assert paper.keywords == ("graph neural networks", "topology")
    assert dict(paper.extra) == {"pages": "1--22", "publisher": "OpenReview.net"}
    assert tgnn.text.startswith("Graph neural networks (GNNs) are a powerful architecture")


def test_journal_record_gives_volume_issue_pages_and_a_pdf_link() -> None:
    corpus = load("ris-zotero.ris")
    paper = paper_of(by_title(corpus, "Context-enriched molecule"))
    assert paper.kind == "article"
    assert paper.venue == "Journal of Chemical Information and Modeling"
    assert paper.authors[2] == Author("Klambauer", "Günter")
    assert paper.id_of("doi") == "10.1021/acs.jcim.3c00121"
    assert paper.pdf_url == "https://openreview.net/pdf?id=XrMWUuEevr"
    assert paper.id_of("openreview") == "XrMWUuEevr"
    assert dict(paper.extra) == {"pages": "3617--3630", "volume": "63", "number": "12"}


def test_record_without_abstract_is_kept() -> None:
    corpus = load("ris-zotero.ris")
    proto = by_title(corpus, "Prototypical Information Bottlenecking")
    assert not proto.has_abstract
    assert paper_of(proto).page_url == "https://openreview.net/forum?id=otHZ8JAIgh"


def test_endnote_export_with_crlf_bom_and_no_final_er() -> None:
    corpus = load("ris-endnote-crlf-bom.ris")
    assert len(corpus.abstracts) == 2
    [problem] = corpus.problems
    assert not problem.fatal
    assert problem.message == (
        "RIS: record starting at line 13 has no ER line before the end of the file: "
        "read as ended there"
    )
    pcmc = by_title(corpus, "PCMC-Net: Feature-based Pairwise Choice Markov Chains")
    paper = paper_of(pcmc)
    assert paper.authors == (Author("Chézeau", "Alix"), Author("Dvořák", "Antonín"))
    assert (paper.year, paper.date) == (2020, "2020-04-26")
    assert paper.venue == "International Conference on Learning Representations"
    assert paper.id_of("citekey") == "chezeau2020"
    assert paper.link("pdf") == "https://openreview.net/pdf?id=BJgWE1SFwS"
    # N2 holds the abstract; its continuation line joins it, with no CR left anywhere.
    assert pcmc.text.startswith("Pairwise Choice Markov Chains (PCMC) have been")
    assert "context effects" in pcmc.text
    assert not any("\r" in a.text or "\r" in (a.title or "") for a in corpus.abstracts)


def test_secondary_authors_stand_in_when_a_record_has_no_author() -> None:
    corpus = load("ris-endnote-crlf-bom.ris")
    paper = paper_of(by_title(corpus, "Seeing Differently, Acting Similarly"))
    assert paper.authors == (Author("Sugiyama", "Masashi"),)
    assert paper.venue == "The Eleventh International Conference on Learning Representations"
    assert paper.kind == "book"


def test_reader_reads_text_that_still_has_its_byte_order_mark() -> None:
    text = (FIXTURES / "ris-endnote-crlf-bom.ris").read_text(encoding="utf-8")
    assert text.startswith("\ufeff")
    result = read(text, Path("refs.ris"))
    assert result.format == "ris" and len(result.texts) == 2


def test_a_file_that_is_not_ris_is_an_error_naming_the_line() -> None:
    corpus = load("ris-garbage.ris")
    assert corpus.abstracts == []
    [problem] = corpus.problems
    assert problem.fatal
    assert problem.message == "RIS: line 1 is not a RIS tag line ('Reading list')"


def test_stray_lines_and_empty_records_are_named_and_the_good_records_load() -> None:
    corpus = load("ris-broken-stray.ris")
    assert [a.title for a in corpus.abstracts] == ["Partitioned Learned Bloom Filters"]
    assert [p.message for p in corpus.problems] == [
        "RIS: 1 record with neither title nor abstract skipped (line 8)",
        "RIS: 1 line outside any record skipped (line 7)",
    ]
    assert not any(p.fatal for p in corpus.problems)
    assert "footer" not in corpus.abstracts[0].searchable


def test_records_with_nothing_to_show_and_files_without_records_are_errors() -> None:
    empty = read_ris("TY  - JOUR\nAU  - Nobody, Anne\nER  - \n")
    assert empty.error == "RIS: no record has a title or an abstract"
    assert empty.warnings == ["RIS: 1 record with neither title nor abstract skipped (line 1)"]
    assert read_ris("\nAU  - Nobody, Anne\nER  - \n").error == (
        "RIS: line 2 has a tag outside any record, with no TY line before it ('AU  - Nobody, Anne')"
    )


def test_a_record_missing_its_er_before_the_next_one_is_read_to_there() -> None:
    result = read_ris("TY  - JOUR\nTI  - First\n\nTY  - JOUR\nTI  - Second\nER  - \n")
    assert [p.title for p in result.papers or [] if p] == ["First", "Second"]
    assert result.warnings == [
        "RIS: record starting at line 1 has no ER line before the next TY: read as ended there"
    ]


def test_years_and_dates_in_the_forms_exporters_write() -> None:
    def dated(lines: str) -> tuple[int | None, str | None]:
        [paper] = read_ris(f"TY  - JOUR\nTI  - T\n{lines}ER  - \n").papers or [None]
        assert paper is not None
        return paper.year, paper.date

    assert dated("PY  - 2019///\n") == (2019, "2019")
    assert dated("Y1  - 2019/11/03/Fall\n") == (2019, "2019-11-03")
    assert dated("DA  - 2021-06\nPY  - 2021\n") == (2021, "2021-06")
    assert dated("PY  - c. 2018\n") == (2018, "2018")
    assert dated("") == (None, None)


def test_ris_content_is_read_as_ris_whatever_the_extension(tmp_path: Path) -> None:
    copy = tmp_path / "export.txt"
    shutil.copy(FIXTURES / "ris-zotero.ris", copy)
    corpus = load_corpus([copy])
    assert corpus.files[0].format == "ris" and len(corpus.abstracts) == 3


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("TYAUERIKW  -\r\n\ufeff1x,")) | st.characters()))
def test_reader_never_raises_on_arbitrary_text(text: str) -> None:
    for candidate in (text, "TY  - JOUR\n" + text):
        check_result_shape(read_ris(candidate))
