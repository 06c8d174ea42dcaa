"""BibTeX that works as a citation: a paper's own title, authors, venue and ids, its
original citekey, LaTeX kept where it is LaTeX and escaped where it cannot be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.store.citing import ARTICLE, ORGANISATION, PREPRINT, library
from tests.store.helpers import PAPER, PAPER_TEXT, make_paper_abstract
from tui.commands.export import EXIT_NOTHING, EXIT_USAGE, main_export, main_import, render
from tui.corpus.paper import Author, Paper
from tui.store.cite import bib_url, bibtex_entry, entry_type, latex_source, paper_key_base
from tui.store.export import snapshot_fields
from tui.store.formats import bib_keys
from tui.store.records import NoteRow, Snapshot, StoreData

LIBRARY = library()
TAGGED = LIBRARY[1].id  # the preprint


def _data() -> StoreData:
    return StoreData(
        records={a.id: Snapshot.of(a) for a in LIBRARY},
        bookmarks={a.id: 1.0 for a in LIBRARY},
        notes={LIBRARY[2].id: NoteRow("Read §3 & the 100% proof\nagain", 1, 1.0)},
        tags={TAGGED: {"to-cite": 1.0}},
    )


EXPECTED = r"""@inproceedings{vaswani2017attention,
  author = {Vaswani, Ashish and Müller, Jörg and von Neumann, John},
  title = {Attention Is All You Need: {BERT} \& Friends at 100\% of $O(n^2)$},
  booktitle = {Advances in Neural Information Processing Systems},
  year = {2017},
  pages = {5998--6008},
  publisher = {Curran Associates},
  doi = {10.5555/3295222.3295349},
  eprint = {1706.03762},
  archivePrefix = {arXiv},
  url = {https://papers.nips.cc/paper/7181},
  keywords = {transformers, attention},
  abstract = {The dominant sequence transduction models are based on complex recurrent networks. We propose the Transformer, based solely on attention mechanisms, at $O(n^2)$ cost.}
}

@misc{iclr2023prove,
  title = {We prove bounds on the generalization error of convolutional networks},
  howpublished = {ICLR 2023},
  abstract = {We prove bounds on the generalization error of convolutional networks. The bounds are in terms of the training loss, the number of parameters and the Lipschitz constant of the loss.},
  year = {2023}
}

@article{celik2021olcek,
  author = {Çelik, Ayşe and de la Fuente, José María},
  title = {Ölçek: Sparse {GP} Regression in $\mathcal{O}(n)$},
  journal = {Journal of Machine Learning Research},
  year = {2021},
  volume = {22},
  number = {5},
  pages = {1--40},
  abstract = {We reduce the cost of Gaussian process regression by 90\% with inducing points $u_1, \dots, u_m$, keeping $x^2$ terms exact.},
  note = {Read §3 \& the 100\% proof again}
}

@misc{kaplan2020scaling,
  author = {Kaplan, Jared and McCandlish, Sam},
  title = {Scaling Laws for Neural Language Models},
  year = {2020},
  eprint = {2001.08361},
  archivePrefix = {arXiv},
  primaryClass = {cs.LG},
  url = {https://arxiv.org/abs/2001.08361v1},
  keywords = {cs.LG, stat.ML, to-cite},
  abstract = {We study empirical scaling laws for language model performance on the loss.}
}

@techreport{gemini2023gemini,
  author = {{Gemini Team} and Anil, Rohan},
  title = {Gemini: A Family of Highly Capable Multimodal Models},
  year = {2023},
  url = {https://example.org/gemini?x=%7B1%7D},
  abstract = {This report introduces a new family of multimodal models.}
}
"""


def test_a_library_exports_as_citations_and_a_paragraph_keeps_its_misc_shape() -> None:
    assert render(_data(), "bibtex", bookmarked=False, with_notes=False) == EXPECTED


def test_the_copy_entry_of_one_paper_is_the_exported_entry() -> None:
    """`bibtex_entry` alone (what a "copy BibTeX" key writes) gives the export's entry."""
    entry = bibtex_entry(PAPER, PAPER_TEXT)
    assert entry == EXPECTED.split("\n\n")[0] + "\n"
    assert bibtex_entry(PAPER, PAPER_TEXT, key="mine").startswith("@inproceedings{mine,\n")


@pytest.mark.parametrize(
    ("source", "field"),
    [
        # LaTeX kept as written: commands, groups, math, escaped specials.
        (
            r"{BERT} and $\ell_1$ \emph{norms} \% \& \_ \{x\}",
            r"{BERT} and $\ell_1$ \emph{norms} \% \& \_ \{x\}",
        ),
        (r"Caf\'e \"{o} --- done", r"Caf\'e \"{o} --- done"),
        # What cannot be LaTeX in prose is escaped; in math only what stops LaTeX.
        ("5% of #1 & snake_case x^2", r"5\% of \#1 \& snake\_case x\textasciicircum{}2"),
        ("$a_1 & b^2 % c$ d_e", r"$a_1 \& b^2 \% c$ d\_e"),
        (r"\(x_1\) y_2 \[z_3\] $$w_4$$ v_5", r"\(x_1\) y\_2 \[z_3\] $$w_4$$ v\_5"),
        # Not LaTeX (braces or math shifts unpaired): every special typeset literally.
        ("a } b {", r"a \textbraceright{} b \textbraceleft{}"),
        ("x {y", r"x \textbraceleft{}y"),
        ("{{Nested}} {groups} 5%", r"{{Nested}} {groups} 5\%"),
        ("costs $5 a month", r"costs \$5 a month"),
        ("ends with \\", r"ends with \textbackslash{}"),
        # One line, controls visible, non-ASCII kept.
        ("Über\n  zwei\tZeilen \x1b", "Über zwei Zeilen ␛"),
    ],
)
def test_latex_source_keeps_latex_and_escapes_what_cannot_be(source: str, field: str) -> None:
    assert latex_source(source) == field


def test_names_that_would_read_as_two_are_braced() -> None:
    paper = Paper(
        title="T",
        authors=(
            Author("Gemini Team"),
            Author("Barnes and Noble"),
            Author("Smith, Jr.", "John"),
            Author("Plato"),
            Author("Doe", "Jane and Joe"),
            Author("Roe", "Ann, B."),
            Author("Barnes AND Noble", "X"),
            Author("Poe", "Ed AND Al"),
        ),
    )
    entry = bibtex_entry(paper, key="k")
    assert entry == (
        "@misc{k,\n"
        "  author = {{Gemini Team} and {Barnes and Noble} and {Smith, Jr.}, John and Plato"
        " and Doe, {Jane and Joe} and Roe, {Ann, B.} and {Barnes AND Noble}, X"
        " and Poe, {Ed AND Al}},\n"
        "  title = {T}\n"
        "}\n"
    )


@pytest.mark.parametrize(
    ("kind", "extra", "expected", "venue_field"),
    [
        ("article", (), "article", "journal"),
        ("JOUR", (), "article", "journal"),
        ("article-journal", (), "article", "journal"),
        ("CONF", (), "inproceedings", "booktitle"),
        ("paper-conference", (), "inproceedings", "booktitle"),
        ("conference", (), "inproceedings", "booktitle"),
        ("chapter", (), "incollection", "booktitle"),
        ("thesis", (), "phdthesis", "howpublished"),
        ("RPRT", (), "techreport", "howpublished"),
        (None, (("journal", "JMLR"),), "article", "journal"),
        (None, (("booktitle", "ICML"),), "inproceedings", "booktitle"),
        ("webpage", (), "misc", "howpublished"),
        # No type: the venue's name tells (V is no journal's name).
        (None, (), "inproceedings", "booktitle"),
    ],
)
def test_the_entry_type_and_venue_field_follow_the_source(
    kind: str | None, extra: tuple[tuple[str, str], ...], expected: str, venue_field: str
) -> None:
    paper = Paper(title="T", venue="V", kind=kind, extra=extra)
    assert entry_type(paper) == expected
    assert f"  {venue_field} = {{V}}" in bibtex_entry(paper, key="k")
    assert bibtex_entry(paper, key="k").startswith(f"@{expected}{{k,")


def test_without_a_type_a_journal_is_an_article_and_no_venue_is_misc() -> None:
    journal = Paper(title="T", venue="Transactions on Machine Learning Research")
    assert entry_type(journal) == "article"
    assert entry_type(Paper(title="T")) == "misc"


def test_a_venue_given_only_as_a_field_is_written_once() -> None:
    paper = Paper(title="T", kind="inproceedings", extra=(("booktitle", "Proc. ICML"),))
    assert bibtex_entry(paper, key="k") == (
        "@inproceedings{k,\n  title = {T},\n  booktitle = {Proc. ICML}\n}\n"
    )


def test_a_paper_without_year_takes_its_collections() -> None:
    paper = Paper(title="Deep Sets", authors=(Author("Zaheer", "Manzil"),))
    assert bibtex_entry(paper, year=2017).splitlines()[0] == "@misc{zaheer2017deep,"
    assert "  year = {2017}" in bibtex_entry(paper, year=2017)
    assert bibtex_entry(paper).splitlines()[0] == "@misc{zaheerdeep,"


@pytest.mark.parametrize(
    ("authors", "title", "key"),
    [
        ((Author("Müller", "Jörg"),), "Über Graphen", "muller2020uber"),
        ((Author("von Neumann", "John"),), "The Computer", "neumann2020computer"),
        ((Author("de la Fuente", "José"),), "A Study", "fuente2020study"),
        ((Author("王", "小明"), Author("Li", "Wei")), "Graphs", None),
        ((Author("O'Brien", "Pat"),), "Graphs", "obrien2020graphs"),
        ((Author(""),), "Graphs", None),
        ((), "Graphs", None),
    ],
)
def test_a_readable_key_is_family_year_and_title_word(
    authors: tuple[Author, ...], title: str, key: str | None
) -> None:
    assert paper_key_base(Paper(title=title, authors=authors, year=2020)) == key


def test_keys_are_unique_and_an_original_citekey_is_kept() -> None:
    def snap(paper: Paper) -> Snapshot:
        return Snapshot("", paper.title or "", venue="ICML", year=2020, paper=paper)

    cited = Paper(title="A", ids=(("citekey", "smith2020graphs"),))
    same_key = Paper(title="B", ids=(("citekey", "smith2020graphs"),))
    made = Paper(title="Graphs Everywhere", authors=(Author("Smith", "Ann"),), year=2020)
    odd_key = Paper(title="Graphs", authors=(Author("Jones"),), ids=(("citekey", "has space"),))
    keys = bib_keys([snap(made), snap(cited), snap(same_key), snap(made), snap(odd_key)])
    # The original key wins over a made one; a second paper with it gets a letter.
    assert keys == [
        "smith2020graphsa",
        "smith2020graphs",
        "smith2020graphsb",
        "smith2020graphsc",
        "jones2020graphs",
    ]


def test_a_made_key_never_takes_an_original_key_that_comes_later() -> None:
    made = Paper(title="Graphs", authors=(Author("Smith", "Ann"),), year=2020)
    cited = Paper(title="Other", ids=(("citekey", "smith2020graphsa"),))
    twice = Paper(title="Again", ids=(("citekey", "smith2020graphsa"),))
    snaps = [Snapshot("", "h", paper=p) for p in (made, made, cited, twice)]
    assert bib_keys(snaps) == [
        "smith2020graphsb",
        "smith2020graphsc",
        "smith2020graphsa",
        "smith2020graphsaa",
    ]


def test_a_urls_braces_spaces_and_backslashes_cannot_break_the_entry() -> None:
    assert bib_url('https://x.org/a b{c}\\d"e%41') == "https://x.org/a%20b%7Bc%7D%5Cd%22e%41"
    assert bib_url("https://x.org/a\u00a0b") == "https://x.org/a%C2%A0b"


def test_an_entry_holds_only_what_is_known() -> None:
    """A paper known by its authors alone (what a "copy BibTeX" key may be asked for)."""
    paper = Paper(authors=(Author("Doe", "Jane"),), extra=(("howpublished", "A workshop"),))
    assert paper_key_base(paper) == "doe"
    assert bibtex_entry(paper) == (
        "@misc{doe,\n  author = {Doe, Jane},\n  howpublished = {A workshop}\n}\n"
    )


def test_an_arxiv_category_named_by_the_source_is_the_primary_class() -> None:
    paper = Paper(title="T", ids=(("arxiv", "2101.00001"),), extra=(("primary_class", "cs.CL"),))
    assert "  primaryClass = {cs.CL}\n" in bibtex_entry(paper, key="k")


def test_a_paper_without_title_keeps_the_paragraph_shape() -> None:
    untitled = make_paper_abstract(Paper(authors=(Author("Doe", "Jane"),)), PAPER_TEXT)
    data = StoreData(records={untitled.id: Snapshot.of(untitled)}, bookmarks={untitled.id: 1.0})
    text = render(data, "bibtex", bookmarked=False, with_notes=False)
    assert text is not None and text.startswith("@misc{doedominant,\n  title = {The dominant")


def _import(tmp_path: Path, data_dir: Path, data: StoreData) -> None:
    doc = {
        "format": "abstracts-export",
        "version": 1,
        "records": [{"id": i, **snapshot_fields(s)} for i, s in data.records.items()],
        "bookmarks": [{"id": i, "created": t} for i, t in data.bookmarks.items()],
        "tags": [{"id": i, "tag": t} for i, tags in data.tags.items() for t in tags],
    }
    path = tmp_path / "in.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main_import([str(path), "--data-dir", str(data_dir)]) == 0


def test_a_to_cite_tag_exports_straight_into_a_bibliography(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _import(tmp_path, data_dir, _data())
    target = tmp_path / "refs.bib"
    assert main_export(["--format", "bibtex", "--tag", "#To Cite", "-o", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == EXPECTED.split("\n\n")[3] + "\n"
    capsys.readouterr()
    assert main_export(["--format", "bibtex", "--tag", "unused"]) == EXIT_NOTHING
    assert capsys.readouterr().err.startswith(
        "abstracts export: nothing to export: no abstract is tagged unused in "
    )
    assert main_export(["--format", "json", "--tag", "to-cite", "--bookmarked"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in doc["records"]] == [TAGGED]
    assert main_export(["--tag", "to-cite", "--with-notes"]) == EXIT_NOTHING
    assert "no noted abstract is tagged to-cite" in capsys.readouterr().err
    assert main_export(["--tag", "a,b"]) == EXIT_USAGE
    assert "--tag" in capsys.readouterr().err


def test_papers_read_from_the_store_export_as_from_memory(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The export reads the store alone: each record's paper was kept there."""
    _import(tmp_path, data_dir, _data())
    capsys.readouterr()
    assert main_export(["--format", "bibtex"]) == 0
    out = capsys.readouterr().out
    assert out == EXPECTED.replace("  note = {Read §3 \\& the 100\\% proof again}\n", "").replace(
        "keeping $x^2$ terms exact.},\n", "keeping $x^2$ terms exact.}\n"
    )


def test_every_paper_of_the_fixture_is_distinct() -> None:
    assert len({a.id for a in LIBRARY}) == len(LIBRARY)
    assert {ARTICLE, ORGANISATION, PREPRINT} <= {a.paper for a in LIBRARY}


def test_the_sources_other_fields_add_to_the_entry_and_never_repeat_one() -> None:
    paper = Paper(
        title="T",
        kind="article",
        ids=(("arxiv", "1901.00001"),),
        keywords=("to-cite", "x"),
        extra=(
            ("journal", "J"),
            ("booktitle", "Not the venue of an article"),
            ("doi", "10.1234/only-here"),
            ("eprint", "1901.00001"),
            ("Bad Key", "v"),
            ("ISSN", "1234-5678"),
            ("primaryClass", "math.PR"),
            ("pages", "e1234"),
        ),
    )
    assert bibtex_entry(paper, tags=["to-cite", "y_z"]) == (
        "@article{paper,\n"
        "  title = {T},\n"
        "  journal = {J},\n"
        "  doi = {10.1234/only-here},\n"
        "  issn = {1234-5678},\n"
        "  pages = {e1234},\n"
        "  eprint = {1901.00001},\n"
        "  archivePrefix = {arXiv},\n"
        "  primaryClass = {math.PR},\n"
        "  keywords = {to-cite, x, y\\_z}\n"
        "}\n"
    )
