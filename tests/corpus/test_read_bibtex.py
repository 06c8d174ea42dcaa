"""Reading BibTeX libraries: Zotero, Google Scholar, DBLP and Better BibTeX exports, and broken files."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.corpus.reading import FIXTURES, by_title, check_result_shape, load, messages, paper_of
from tui.corpus.load import load_corpus
from tui.corpus.paper import Author, Paper
from tui.corpus.readers import ReadResult, read, sniff
from tui.corpus.readers import bibtex as bibtex_reader
from tui.corpus.readers.bibtex_blocks import Entry


def read_bib(text: str, name: str = "lib.bib") -> ReadResult:
    return bibtex_reader.read(text, Path(name))


def only_paper(text: str) -> Paper:
    result = read_bib(text)
    assert result.error is None, result.error
    [paper] = result.papers or [None]
    assert paper is not None
    return paper


def test_zotero_export_gives_title_authors_venue_date_links_and_keywords() -> None:
    corpus = load("bib-zotero.bib")
    assert messages(corpus) == []
    assert corpus.files[0].format == "bibtex" and corpus.files[0].count == 4
    pi3nn = by_title(corpus, "PI3NN")
    paper = paper_of(pi3nn)
    # Zotero protects every capital with braces: none of them reaches the screen.
    assert paper.title == (
        "PI3NN: Out-of-distribution-aware Prediction Intervals from Three Neural Networks"
    )
    assert [a.family for a in paper.authors] == ["Liu", "Zhang", "Lu", "Zhang"]
    assert paper.authors[0] == Author("Liu", "Siyan")
    assert paper.venue == "International Conference on Learning Representations"
    assert (paper.year, paper.date, paper.kind) == (2022, "2022-04", "inproceedings")
    assert paper.id_of("citekey") == "liu_pi3nn_2022"
    assert paper.id_of("openreview") == "NoB8YgRuoFU"
    assert paper.page_url == "https://openreview.net/forum?id=NoB8YgRuoFU"
    assert paper.keywords == ("uncertainty quantification", "prediction intervals")
    assert pi3nn.text.startswith("We propose a novel prediction interval (PI) method")
    assert pi3nn.collection.venue == "International Conference on Learning Representations"
    # The local attachment is not a link, and Zotero's bookkeeping fields are not kept.
    assert all("Zotero/storage" not in url for _, url in paper.links)
    assert {k for k, _ in paper.extra} == {"booktitle"}
    # arXiv's own DOI names the arXiv paper.
    assert paper_of(by_title(corpus, "Context-enriched")).id_of("arxiv") == "2305.09481"


def test_entry_with_a_title_and_no_abstract_is_kept_without_abstract() -> None:
    corpus = load("bib-zotero.bib")
    bloom = by_title(corpus, "Partitioned Learned Bloom Filters")
    assert not bloom.has_abstract and bloom.text == ""
    paper = paper_of(bloom)
    assert paper.link("pdf") == "https://openreview.net/pdf?id=6BRLOfrMhW"
    assert ("pages", "1--15") in paper.extra


def test_google_scholar_export_names_arxiv_preprints_and_decodes_accents() -> None:
    corpus = load("bib-scholar.bib")
    assert messages(corpus) == [] and len(corpus.abstracts) == 5
    outliers = paper_of(by_title(corpus, "Outliers with Opposing Signals"))
    assert outliers.id_of("arxiv") == "2311.04163"
    assert outliers.venue == "arXiv"
    assert outliers.page_url == "https://arxiv.org/abs/2311.04163"
    imagenet = paper_of(by_title(corpus, "Is ImageNet worth 1 video?"))
    assert imagenet.authors[2] == Author("Carreira", "João")
    pcmc = paper_of(by_title(corpus, "PCMC-Net"))
    assert [a.name for a in pcmc.authors] == [
        "Alix Chézeau",
        "Bernhard Schölkopf",
        "Antonín Dvořák",
    ]


def test_and_others_is_kept_as_the_last_author() -> None:
    corpus = load("bib-scholar.bib")
    paper = paper_of(by_title(corpus, "On the Limitations of Temperature Scaling"))
    assert [a.family for a in paper.authors] == ["Chidambaram", "Ge", "others"]
    assert paper.first_author == "Chidambaram et al."


def test_dblp_export_inherits_the_venue_through_crossref_and_lists_no_proceedings() -> None:
    corpus = load("bib-dblp.bib")
    assert messages(corpus) == []
    titles = [a.title for a in corpus.abstracts]
    # The @proceedings entry is the venue of a paper, not a paper.
    assert len(titles) == 4 and not any("Addis Ababa" in (t or "") for t in titles)
    speech = paper_of(by_title(corpus, "High Fidelity Speech Synthesis"))
    assert speech.venue is not None and speech.venue.startswith(
        "8th International Conference on Learning Representations, ICLR 2020"
    )
    assert speech.year == 2020
    assert ("publisher", "OpenReview.net") in speech.extra
    assert [a.name for a in speech.authors] == [
        "Mikołaj Bińkowski",
        "Jeff Donahue",
        "Sander Dieleman",
        "Aäron van den Oord",
        "Karen Simonyan",
    ]
    assert speech.authors[3].family == "van den Oord"
    assert speech.id_of("dblp") == "conf/iclr/BinkowskiDDCECC20"
    assert speech.id_of("openreview") == "r1gfQgSFDr"
    # DBLP's bookkeeping (timestamp, biburl, bibsource) is not carried.
    assert not {"timestamp", "biburl", "bibsource"} & {k for k, _ in speech.extra}


def test_dblp_corr_entry_and_ee_link_give_arxiv_and_doi_ids() -> None:
    corpus = load("bib-dblp.bib")
    tgnn = paper_of(by_title(corpus, "Topological Graph Neural Networks"))
    assert tgnn.id_of("arxiv") == "2102.07835" and tgnn.venue == "CoRR"
    assert tgnn.authors[-1] == Author("Borgwardt", "Karsten M.")
    adarl = paper_of(by_title(corpus, "AdaRL"))
    assert adarl.id_of("doi") == "10.5555/iclr.2022.8h5bpvwvt5"
    assert adarl.page_url == "https://doi.org/10.5555/ICLR.2022.8H5bpVwvt5"


def test_better_bibtex_with_crlf_and_bom_resolves_macros_dates_and_eprints() -> None:
    corpus = load("bib-betterbibtex-crlf-bom.bib")
    nsr = paper_of(by_title(corpus, "Neural-Symbolic Recursive Machine"))
    # `proc # iclr`: two @string macros joined.
    assert nsr.venue == "Proceedings of the International Conference on Learning Representations"
    assert (nsr.year, nsr.date) == (2024, "2024-05-07")
    assert nsr.id_of("arxiv") == "2210.01603"  # eprint 2210.01603v2, without its version
    assert nsr.id_of("openreview") == "FWJAmwE0xH"
    assert nsr.keywords == ("Computer Science - Machine Learning", "systematic generalization")
    role = by_title(corpus, "The Role of Disentanglement in Generalisation with")
    assert (paper_of(role).date, paper_of(role).venue) == ("2021-02", "arXiv")
    assert paper_of(role).id_of("arxiv") == "2009.14524"
    for abstract in corpus.abstracts:
        paper = paper_of(abstract)
        fields = [paper.title, abstract.text, paper.venue, *[a.name for a in paper.authors]]
        assert not any("\r" in f or "\ufeff" in f for f in fields if f)


def test_math_in_a_title_is_left_for_the_renderer() -> None:
    corpus = load("bib-betterbibtex-crlf-bom.bib")
    role = by_title(corpus, "The Role of Disentanglement in Generalisation with")
    assert paper_of(role).title == (
        "The Role of Disentanglement in Generalisation with $\\ell_1$ Penalties"
    )
    assert role.title == "The Role of Disentanglement in Generalisation with ℓ₁ Penalties"


def test_corporate_author_in_braces_is_one_name() -> None:
    corpus = load("bib-betterbibtex-crlf-bom.bib")
    paper = paper_of(by_title(corpus, "Dual Student Networks"))
    assert paper.authors == (
        Author("OpenAI Safety Team"),
        Author("Beetham", "James"),
        Author("Kardan", "Navid"),
    )
    assert paper.kind == "techreport"
    assert ("institution", "University of Central Florida") in paper.extra


def test_duplicate_citekeys_keep_both_entries_and_warn_with_both_lines() -> None:
    corpus = load("bib-betterbibtex-crlf-bom.bib")
    same_key = [a for a in corpus.abstracts if paper_of(a).id_of("citekey") == "montero2021role"]
    assert len(same_key) == 2
    [warning] = corpus.problems
    assert not warning.fatal
    assert warning.message == (
        "BibTeX: citekey 'montero2021role' is used twice (lines 18 and 37): both entries kept"
    )


def test_reader_reads_text_that_still_has_its_byte_order_mark() -> None:
    text = (FIXTURES / "bib-betterbibtex-crlf-bom.bib").read_text(encoding="utf-8")
    assert text.startswith("\ufeff")
    result = read(text, Path("library.bib"))
    assert result.format == "bibtex" and result.error is None
    assert len(result.texts) == 4


def test_an_unclosed_entry_is_named_and_the_entries_around_it_load() -> None:
    corpus = load("bib-broken-some.bib")
    titles = [a.title for a in corpus.abstracts]
    assert titles == [
        "Partitioned Learned Bloom Filters",
        "High Fidelity Speech Synthesis with Adversarial Networks",
        "Missing a comma",
    ]
    text = "\n".join(messages(corpus))
    assert "BibTeX: entry starting at line 7 is not closed" in text
    assert "entry 'nofields' (line 17): field 'title' runs into the next one" in text
    assert not any(p.fatal for p in corpus.problems)
    # Nothing of the broken entry is loaded as if it were a paper or an abstract.
    assert not any("AdaRL" in a.searchable for a in corpus.abstracts)


def test_a_file_whose_only_entry_is_unclosed_is_an_error_naming_its_line() -> None:
    corpus = load("bib-broken-unclosed.bib")
    assert corpus.abstracts == []
    [problem] = corpus.problems
    assert problem.fatal
    assert problem.message == "BibTeX: entry starting at line 2 is not closed"


def test_a_bib_file_without_entries_is_an_error_naming_the_format_not_prose() -> None:
    corpus = load("bib-garbage.bib")
    assert corpus.abstracts == []
    [problem] = corpus.problems
    assert problem.fatal and problem.message.startswith("BibTeX: no entries in this file")


def test_many_broken_blocks_are_summed_up_after_the_first_few() -> None:
    broken = "".join(f"@article{{b{i}, title = {{Unclosed {i}\n" for i in range(7))
    result = read_bib("@article{good, title = {Good}}\n" + broken + "@string{s = {x}\n")
    assert [p.title for p in result.papers or [] if p] == ["Good"]
    assert result.warnings == [
        "BibTeX: entry starting at line 2 is not closed",
        "BibTeX: entry starting at line 3 is not closed",
        "BibTeX: entry starting at line 4 is not closed",
        "BibTeX: entry starting at line 5 is not closed",
        "BibTeX: 4 more blocks that could not be read (lines 6, 7, 8, 9)",
    ]
    nothing = read_bib(broken)
    assert nothing.error == (
        "BibTeX: entry starting at line 1 is not closed; "
        "BibTeX: entry starting at line 2 is not closed; "
        "BibTeX: 5 more blocks that could not be read (lines 3, 4, 5, 6, 7)"
    )


def test_entries_with_neither_title_nor_abstract_are_skipped_and_counted() -> None:
    result = read_bib(
        "@misc{a, title = {Kept}}\n@misc{b, note = {nothing else}}\n@misc{c, year = 2020}\n"
    )
    assert [p.title for p in result.papers or [] if p] == ["Kept"]
    assert result.warnings == [
        "BibTeX: 2 entries with neither title nor abstract skipped (lines 2, 3)"
    ]
    nothing = read_bib("@misc{b, note = {nothing else}}\n")
    assert nothing.error == "BibTeX: no entry has a title or an abstract"


def test_bibtex_content_is_read_as_bibtex_whatever_the_extension(tmp_path: Path) -> None:
    copy = tmp_path / "library.txt"
    shutil.copy(FIXTURES / "bib-scholar.bib", copy)
    corpus = load_corpus([copy])
    assert corpus.files[0].format == "bibtex" and len(corpus.abstracts) == 5
    assert sniff("% Zotero\n\n@article{k, title={T}}", Path("x.txt")) == "bibtex"


def test_a_folder_loads_bibtex_and_ris_and_merges_the_same_paper(tmp_path: Path) -> None:
    for name in ("bib-dblp.bib", "ris-zotero.ris"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    shutil.copy(FIXTURES / "bib-scholar.bib", tmp_path / "scholar.bibtex")
    corpus = load_corpus([tmp_path])
    assert [f.format for f in corpus.files] == ["bibtex", "ris", "bibtex"]
    assert messages(corpus) == []
    # The DBLP entry and the RIS record share the arXiv id: one paper, two sources.
    tgnn = by_title(corpus, "Topological Graph Neural Networks")
    assert [ref.path.name for ref in tgnn.sources] == ["bib-dblp.bib", "ris-zotero.ris"]
    assert tgnn.has_abstract  # the RIS record brings the abstract the DBLP entry lacks
    assert paper_of(tgnn).id_of("dblp") == "journals/corr/abs-2102-07835"
    assert len(corpus.abstracts) == 4 + 3 + 5 - 1


def test_string_macros_months_and_crossref_before_or_after_its_target() -> None:
    result = read_bib(
        "@STRING{ICML = {International Conference on Machine Learning}}\n"
        "@inproceedings{p1, title = {One}, crossref = {proc}, month = 7}\n"
        "@proceedings{proc, title = {Proceedings of } # icml, year = 2021, month = jul,\n"
        "  editor = {Meila, Marina and Zhang, Tong}, publisher = {PMLR}}\n"
        "@inproceedings{p2, title = {Two}, crossref = {PROC}, booktitle = {Own Venue}}\n"
    )
    one, two = result.papers or [None, None]
    assert one is not None and two is not None
    assert one.venue == "Proceedings of International Conference on Machine Learning"
    assert (one.year, one.date) == (2021, "2021-07")
    assert ("editor", "Meila, Marina and Zhang, Tong") in one.extra
    assert (two.venue, two.date) == ("Own Venue", "2021-07")
    assert len(result.texts) == 2  # the proceedings entry is their venue


def test_author_names_in_every_bibtex_form() -> None:
    paper = only_paper(
        "@article{k, title = {T}, author = {de la Fontaine, Jean and Ludwig van Beethoven"
        " and King, Jr., Martin Luther and {Barnes and Noble} and {\\'E}mile Borel"
        " and Charles {de la} Vall{\\'e}e Poussin and Gerard {'t} Hooft"
        " and Erd{\\H{o}}s, P{\\'a}l and D.~E. Knuth and Stra{\\ss}er, Anna\n   AND Plato}}"
    )
    assert paper.authors == (
        Author("de la Fontaine", "Jean"),
        Author("van Beethoven", "Ludwig"),
        Author("King Jr.", "Martin Luther"),
        Author("Barnes and Noble"),
        Author("Borel", "Émile"),
        Author("de la Vallée Poussin", "Charles"),
        Author("'t Hooft", "Gerard"),
        Author("Erdős", "Pál"),
        Author("Knuth", "D. E."),
        Author("Straßer", "Anna"),
        Author("Plato"),
    )


def test_the_abstract_keeps_its_latex_for_the_renderer() -> None:
    result = read_bib(
        "@article{k, title = {T}, abstract = {We bound the {$\\ell_2$} error by\n"
        "  $O(1/\\sqrt{n})$ for {\\em all} inputs.}}"
    )
    assert result.texts == [
        "We bound the {$\\ell_2$} error by $O(1/\\sqrt{n})$ for {\\em all} inputs."
    ]


def test_identifiers_and_links_from_every_field_that_holds_them() -> None:
    paper = only_paper(
        "@inproceedings{k, title = {T}, doi = {https://doi.org/10.1145/3292500.3330701},\n"
        " url = {https://arxiv.org/pdf/1907.10902v2.pdf}, eprint = {1907.10902},\n"
        " archivePrefix = {arXiv}, primaryClass = {cs.LG}, isbn = {978-1-4503-6201-6},\n"
        " pages = {2623--2631}, series = {KDD '19}, address = {Anchorage, AK, USA}}"
    )
    assert paper.id_of("doi") == "10.1145/3292500.3330701"
    assert paper.id_of("arxiv") == "1907.10902"
    assert paper.id_of("isbn") == "978-1-4503-6201-6"
    assert paper.link("pdf") == "https://arxiv.org/pdf/1907.10902v2.pdf"
    assert dict(paper.extra) == {
        "pages": "2623--2631",
        "series": "KDD '19",
        "address": "Anchorage, AK, USA",
    }


def test_a_misc_entry_citing_arxiv_by_its_url_in_howpublished() -> None:
    paper = only_paper(
        "@misc{k, title = {T}, howpublished = {Preprint at \\url{https://arxiv.org/abs/2106.09685}.},"
        " url = {https://example.org/a\\_b?q=1\\%20 https://example.org/b.pdf}}"
    )
    assert paper.id_of("arxiv") == "2106.09685"
    assert paper.links == (
        ("page", "https://example.org/a_b?q=1%20"),
        ("pdf", "https://example.org/b.pdf"),
        ("page", "https://arxiv.org/abs/2106.09685"),
    )


def test_importing_the_readers_and_loading_does_not_import_the_parsers() -> None:
    """Opening conference text never pays for bibtexparser or rispy: each is imported
    when a file of its format is read."""
    code = (
        "import sys, tui.corpus.readers, tui.corpus.load\n"
        "print(','.join(m for m in ('bibtexparser', 'rispy', 'tui.corpus.readers.bibtex',"
        " 'tui.corpus.readers.ris') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


def test_broken_blocks_are_not_logged_to_stderr() -> None:
    code = (
        "from pathlib import Path\n"
        "from tui.corpus.readers import bibtex\n"
        "print(bibtex.read('@article{a, title = {x\\n@article{b, title={y}}', Path('a.bib')).warnings)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert "not closed" in result.stdout and result.stderr == ""


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list('@{}"#=,\\ \n%abtilex0()')) | st.characters(), max_size=300
    )
)
def test_reader_never_raises_on_arbitrary_text(text: str) -> None:
    for candidate in (text, "@article{k, title = " + text, "@string{s = " + text):
        check_result_shape(read_bib(candidate))


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(["{", "}", "\\", "\\{", "\\}", "\\\\", "a", " ", "\n", "#", '"', "{x}"]),
        max_size=16,
    )
)
def test_a_braced_value_reads_the_same_by_the_shortcut_and_by_the_full_rules(
    pieces: list[str],
) -> None:
    value = "{" + "".join(pieces) + "}"
    entry = Entry("k", "article", 1, {"note": value})
    try:
        expected = bibtex_reader._value(value, {})
    except bibtex_reader._TwoValues as err:
        expected = err.first
    assert bibtex_reader._fields(entry, {}, [])["note"] == expected


def test_a_macro_holding_two_values_is_named_and_the_library_still_loads() -> None:
    text = (
        "@string{venue = {Neural} {Information}}\n\n"
        "@article{k,\n  title = {A Title},\n  journal = venue,\n  abstract = {An abstract.}\n}\n"
    )
    result = read_bib(text)
    assert result.error is None and len(result.texts) == 1
    assert only_paper(text).venue == "Neural"
    assert result.warnings == [
        "BibTeX: @string 'venue' (line 1) runs into a second value (a # missing?); "
        "read up to the end of its first value"
    ]
