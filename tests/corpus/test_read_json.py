"""JSON exports of papers: arrays, Semantic Scholar, OpenReview 1 and 2, CSL-JSON, JSON Lines."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.corpus.load import load_corpus
from tui.corpus.paper import Author
from tui.corpus.readers import ReadResult, jsonfmt, read

FIXTURES = Path(__file__).parent / "fixtures"


def read_fixture(name: str) -> ReadResult:
    path = FIXTURES / name
    return read(path.read_bytes().decode("utf-8-sig"), path)


def test_an_array_maps_field_names_whatever_their_spelling() -> None:
    result = read_fixture("json-array.json")
    assert result.format == "json" and result.error is None
    assert result.papers is not None and len(result.papers) == 4
    first, second, third, _ = result.papers
    assert first is not None and second is not None and third is not None
    # `Title`, `Summary`, `Authors` as strings, `arxivId`, `keywords`.
    assert first.title is not None and first.title.startswith("Meta Reinforcement Learning")
    assert result.texts[0].startswith("We propose and address")
    assert [a.family for a in first.authors] == ["Sohn", "Woo", "Choi", "Lee"]
    assert first.ids == (("arxiv", "2001.07274"),) and first.venue == "ICLR"
    assert first.keywords == ("meta-learning", "reinforcement learning")
    # Authors as {family, given} and {name}; `journal`; `date`; `tags` as one string.
    assert second.authors == (
        Author("Lefèvre", "Zoë"),
        Author("Müller", "Jürgen"),
        Author("Álvarez-Peña", "José"),
    )
    assert second.venue == "Transactions on Machine Learning Research"
    assert second.date == "2020-03-23" and second.year == 2020
    assert second.keywords == ("multi-agent", "exploration")
    assert second.ids == (("arxiv", "2003.10423"),)  # an arXiv DOI is the arXiv id
    # Authors as one `A and B and C` string, a DOI link, no abstract (kept, marked "").
    assert [a.family for a in third.authors] == ["Cemgil", "Ghaisas", "Kohli"]
    assert third.ids == (("doi", "10.5555/iclr.2020.smooth"),)
    assert result.texts[2] == ""
    assert result.warnings == ["1 object with neither a title nor an abstract, skipped"]


def test_duplicate_objects_for_one_arxiv_paper_load_as_one() -> None:
    corpus = load_corpus([FIXTURES / "json-array.json"])
    assert len(corpus.abstracts) == 3
    meta = corpus.abstracts[0]
    assert meta.paper is not None and meta.paper.id_of("arxiv") == "2001.07274"
    assert [s.position for s in meta.sources] == [1, 4]
    assert corpus.files[0].repeated == 1


def test_semantic_scholar_data_gives_external_ids_pdf_venue_and_fields() -> None:
    result = read_fixture("json-s2.json")
    assert result.error is None and result.papers is not None
    first, second = result.papers
    assert first is not None and second is not None
    assert dict(first.ids) == {
        "dblp": "conf/iclr/SohnWCL20",
        "arxiv": "2001.07274",
        "s2": "649def34f8be52c8b66281af98ae884c09aef38b",
    }
    assert first.pdf_url == "https://arxiv.org/pdf/2001.07274"
    assert first.venue == "International Conference on Learning Representations"
    assert first.date == "2020-01-20" and first.year == 2020
    assert first.keywords == ("Computer Science", "Mathematics")
    assert first.authors[0] == Author("Sohn", "Sungryull")
    # Nulls are missing fields; an empty venue falls back to the journal's name.
    assert second.id_of("doi") == "10.5555/iclr.2020.smooth"
    assert second.id_of("pmid") == "32000001"
    assert second.venue == "Journal of Machine Learning Research"
    assert dict(second.extra) == {"volume": "21", "pages": "1-34"}
    assert second.date is None and second.pdf_url is None and result.texts[1] == ""


def test_openreview_api_1_notes_give_the_forum_id_and_pdf_link() -> None:
    result = read_fixture("json-openreview-v1.json")
    assert result.error is None and result.papers is not None
    first = result.papers[0]
    assert first is not None
    assert first.ids == (("openreview", "HkxjqxBYDB"),)
    assert first.page_url == "https://openreview.net/forum?id=HkxjqxBYDB"
    assert first.pdf_url == "https://openreview.net/pdf?id=HkxjqxBYDB"
    assert first.venue == "ICLR" and first.year == 2020  # from `ICLR 2020`
    assert first.keywords == ("Meta reinforcement learning", "subtask graph")
    assert first.extra == ()  # the submission number is not an issue number
    second = result.papers[1]
    assert second is not None
    # No venue and no publication date: the year is not guessed from the creation time.
    assert second.year is None


def test_openreview_api_2_fields_are_read_from_their_value() -> None:
    result = read_fixture("json-openreview-v2.json")
    assert result.error is None and result.papers is not None
    [paper] = result.papers
    assert paper is not None
    assert paper.title == (
        "Sparse Mixtures of Experts Learn Modular Skills in Continual Reinforcement Learning"
    )
    assert paper.authors[0] == Author("Ødegård", "Ingrid")
    assert paper.venue == "ICLR" and paper.year == 2024
    assert paper.ids == (("openreview", "zkE5rWx0Tq"),)
    assert paper.pdf_url == "https://openreview.net/pdf?id=zkE5rWx0Tq"
    assert paper.keywords == ("continual learning", "mixture of experts", "reinforcement learning")
    assert "$k \\ll n$" in result.texts[0]


def test_csl_json_gives_citekeys_kinds_issued_dates_and_literal_names() -> None:
    result = read_fixture("json-csl.json")
    assert result.error is None and result.papers is not None
    first, second, third = result.papers
    assert first is not None and second is not None and third is not None
    assert first.kind == "inproceedings" and first.id_of("citekey") == (
        "sohnMetaReinforcementLearning2020"
    )
    assert first.id_of("openreview") == "HkxjqxBYDB"  # from its URL
    assert first.date == "2020-04-26" and first.year == 2020
    assert first.venue == "International Conference on Learning Representations"
    assert second.kind == "article" and second.id_of("doi") == "10.1234/jmlr.2020.0042"
    assert second.date == "2020-03" and dict(second.extra) == {"pages": "1-29", "volume": "21"}
    assert second.keywords == ("multi-agent", "exploration")
    assert third.kind == "techreport" and third.year == 2019
    # A literal name stays whole (an institution is not split into given and family).
    assert third.authors == (Author("DeepMind Neuroscience Team"), Author("Ölveczky", "Bence"))


def test_json_lines_name_the_bad_line_and_load_the_rest() -> None:
    corpus = load_corpus([FIXTURES / "json-papers.jsonl"])
    assert len(corpus.abstracts) == 5
    [problem] = corpus.problems
    assert not problem.fatal and problem.path.name == "json-papers.jsonl"
    assert problem.message.startswith("line 3 is not JSON (Unterminated string")
    assert problem.message.endswith("; skipped")
    titles = [a.paper.title for a in corpus.abstracts if a.paper is not None]
    assert not any(t and t.startswith("Evolutionary Population") for t in titles)


def test_json_lines_in_a_json_file_are_read_as_lines() -> None:
    text = (FIXTURES / "json-papers.jsonl").read_text(encoding="utf-8")
    result = read(text, Path("papers.json"))
    assert result.format == "json" and len(result.texts) == 5
    assert result.warnings[0].startswith("line 3 is not JSON")


def test_json_lines_with_no_readable_line_is_an_error() -> None:
    result = read("{bad\n{worse\n", Path("x.jsonl"))
    assert result.texts == [] and result.error is not None
    assert result.error.startswith("JSON Lines with no readable line: line 1 is not JSON")


def test_many_bad_lines_are_named_up_to_a_few_then_counted() -> None:
    good = json.dumps({"title": "A Paper", "abstract": "An abstract."})
    text = "\n".join(["{oops"] * 8 + [good])
    result = read(text, Path("x.jsonl"))
    assert len(result.texts) == 1
    assert len(result.warnings) == 6
    assert result.warnings[-1] == "3 more lines not JSON, skipped"


def test_an_object_with_no_paper_list_says_what_shape_was_expected() -> None:
    corpus = load_corpus([FIXTURES / "json-wrong-shape.json"])
    assert corpus.abstracts == []
    [problem] = corpus.problems
    assert problem.fatal
    assert "'total', 'offset', 'next', 'message'" in problem.message
    assert "expected an array of paper objects" in problem.message


def test_a_json_number_says_what_shape_was_expected() -> None:
    result = read_fixture("json-number.json")
    assert result.error is not None
    assert result.error.startswith("a JSON number: expected an array of paper objects")


def test_objects_without_title_or_abstract_are_an_error_naming_their_keys() -> None:
    result = read_fixture("json-no-titles.json")
    assert result.texts == []
    assert result.error == (
        "2 objects but none has a title or an abstract (keys found: 'paperId', "
        '\'citationCount\'); expected paper objects with a "title" or an "abstract"'
    )


def test_a_syntax_error_is_named_with_line_and_column() -> None:
    result = read_fixture("json-syntax-error.json")
    assert result.texts == []
    assert result.error == "JSON syntax error at line 12, column 5: Expecting ',' delimiter"


def test_a_single_paper_object_is_one_paper() -> None:
    result = read('{"title": "A Paper", "abstract": "An abstract."}', Path("one.json"))
    assert result.texts == ["An abstract."]


def test_semantic_scholar_citation_lists_unwrap_each_paper() -> None:
    text = json.dumps({"data": [{"citingPaper": {"paperId": "abc", "title": "Citing It"}}]})
    result = read(text, Path("citations.json"))
    assert result.papers is not None and result.papers[0] is not None
    assert result.papers[0].title == "Citing It" and result.papers[0].id_of("s2") == "abc"


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    result = read("[" * 100_000 + "]" * 100_000, Path("deep.json"))
    assert result.texts == [] and result.error is not None


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=10)
    | st.sampled_from(["title", "abstract", "/pdf/x.pdf", "10.1/x", "2101.00001v2", "2021-13-40"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "title",
                    "abstract",
                    "authors",
                    "author",
                    "content",
                    "value",
                    "id",
                    "forum",
                    "data",
                    "notes",
                    "issued",
                    "date-parts",
                    "externalIds",
                    "DOI",
                    "ArXiv",
                    "openAccessPdf",
                    "url",
                    "pdf",
                    "venue",
                    "journal",
                    "year",
                    "keywords",
                    "family",
                    "given",
                    "literal",
                    "name",
                    "citingPaper",
                    "type",
                    "pdate",
                ]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.sampled_from(["x.json", "x.jsonl"]))
def test_the_json_reader_never_raises(value: object, name: str) -> None:
    text = json.dumps(value)
    result = jsonfmt.read(text, Path(name))
    assert (result.error is None) == bool(result.texts)
    assert result.papers is None or len(result.papers) == len(result.texts)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_the_json_reader_never_raises_on_any_text(text: str) -> None:
    result = jsonfmt.read(text, Path("x.json"))
    assert (result.error is None) == bool(result.texts)
