"""The BibTeX scanner reads every file exactly as bibtexparser's splitter reads it: the same
entries, fields as written, line numbers, macros, duplicates and problems, whether it reads a
block itself or hands it to bibtexparser, and it reads exporters' libraries all by itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.corpus.reading import FIXTURES
from tui.corpus.readers import ReadResult, bibtex_blocks
from tui.corpus.readers import bibtex as bibtex_reader

ABSTRACT = (
    "We study learning, at scale, with many commas; $\\mathcal{O}(n^{2})$ time, 10\\% fewer "
    'errors, a set \\{x, y\\}, "quoted words" and {BERT} {and {deep {nesting}}}.'
)

ZOTERO = f"""@inproceedings{{liu_pi3nn_2022,
\ttitle = {{{{PI3NN}}: {{Out}}-of-distribution-aware {{Prediction}} {{Intervals}}}},
\tshorttitle = {{{{PI3NN}}}},
\turl = {{https://openreview.net/forum?id=NoB8YgRuoFU}},
\tabstract = {{{ABSTRACT}}},
\tlanguage = {{en}},
\turldate = {{2023-05-02}},
\tbooktitle = {{International {{Conference}} on {{Learning}} {{Representations}}}},
\tauthor = {{Liu, Siyan and Zhang, Pei and Lu, Dan and Zhang, Guannan}},
\tmonth = apr,
\tyear = {{2022}},
\tkeywords = {{uncertainty quantification, prediction intervals}},
\tfile = {{Full Text PDF:/home/u/Zotero/storage/ABC/Liu.pdf:application/pdf}},
}}
"""
BETTER_BIBTEX = f"""@string{{iclr = "International Conference on Learning Representations"}}

@article{{mullerSharpness2023,
  title = {{Sharpness-{{Aware}} Minimization: {{A}} Study}},
  author = {{M{{\\"u}}ller, J{{\\"u}}rgen and {{\\L}}ukasz, Nowak and {{van der Berg}}, Ludwig}},
  year = {{2023}},
  month = jul,
  journal = iclr # {{, Workshop}},
  eprint = {{2301.00001}},
  archiveprefix = {{arXiv}},
  primaryclass = {{cs.LG}},
  abstract = {{{ABSTRACT}}}
}}
"""
SCHOLAR = """@article{devlin2018bert,
  title={Bert: Pre-training of deep bidirectional transformers for language understanding},
  author={Devlin, Jacob and Chang, Ming-Wei and Lee, Kenton and Toutanova, Kristina},
  journal={arXiv preprint arXiv:1810.04805},
  year={2018}
}
"""
DBLP = """@inproceedings{DBLP:conf/iclr/LiuZ22,
  author    = {Siyan Liu and
               Pei Zhang},
  title     = {{PI3NN:} Out-of-distribution-aware Prediction Intervals},
  booktitle = {The Tenth International Conference on Learning Representations, {ICLR}
               2022, Virtual Event, April 25-29, 2022},
  crossref  = {DBLP:conf/iclr/2022},
  publisher = {OpenReview.net},
  year      = {2022},
  url       = {https://openreview.net/forum?id=NoB8YgRuoFU},
  timestamp = {Sat, 20 Aug 2022 01:15:42 +0200},
  biburl    = {https://dblp.org/rec/conf/iclr/LiuZ22.bib},
  bibsource = {dblp computer science bibliography, https://dblp.org}
}

@proceedings{DBLP:conf/iclr/2022,
  title     = {The Tenth International Conference on Learning Representations, {ICLR} 2022},
  publisher = {OpenReview.net},
  year      = {2022}
}
"""
WELL_FORMED = {"zotero": ZOTERO, "better bibtex": BETTER_BIBTEX, "scholar": SCHOLAR, "dblp": DBLP}


def entry(key: str, body: str, kind: str = "article") -> str:
    return f"@{kind}{{{key},\n  title = {{A Title}},\n  abstract = {{{ABSTRACT}}},\n{body}\n}}\n\n"


CASES = {
    **WELL_FORMED,
    "nested deeper than the scanner reads": entry("deep", "  note = {a{b{c{d{e{f{g}}}}}}} end},"),
    "nested as deep as the scanner reads": entry("deep", "  note = {a{b{c{d{e{f}}}}}},"),
    "braces inside quotes": entry("q", '  note = "The {BERT} {model" # "}",'),
    "brace-quote-brace inside quotes": entry("q", '  note = "He said {"}hi{"} there",'),
    "quoted value ending in a brace": entry("q", '  note = "ends {",\n  pages = {1--2},'),
    "escaped quotes": entry("q", '  note = "Schr\\"odinger and \\"cats\\"",'),
    "concatenated macros": (
        '@string{proc = "Proceedings of "}\n@String{NIPS = {Neural} # " Information"}\n'
        + entry("c", "  booktitle = proc # NIPS # {, 2020},\n  month = dec # {~1},")
    ),
    "macro defined twice and in two cases": (
        '@string{venue = "First"}\n@string{venue = "Second"}\n@string{Venue = "Third"}\n'
        + entry("m", "  journal = venue,")
    ),
    "macro with an odd value": '@string{odd = {a} # b # "c" , x}\n' + entry("o", "  note = odd,"),
    "comments and preambles": (
        "@comment{jabref-meta: databaseType:bibtex;}\n@Comment{ {nested} = , text }\n"
        '@preamble{"\\newcommand{\\noopsort}[1]{}"}\n@commentary{x, title = {y}}\n'
        + entry("after", "  year = 2020,")
    ),
    "text between entries": (
        '% Encoding: UTF-8\nsome text = {x}, more, "quoted\n\n'
        + entry("a", "  year = 2020,")
        + "stray } and { and = between\n\n"
        + entry("b", "  year = 2021,")
    ),
    "duplicate citekeys": entry("dup", "  year = 1,")
    + entry("dup", "  year = 2,")
    + entry("Dup", "  year = 3,"),
    "duplicate field names": entry("f", "  year = 2020,\n  year = 2021,"),
    "field names differing in case": entry("f", "  Year = 2020,\n  year = 2021,"),
    "missing comma between fields": entry("mc", "  year = {2020}\n  month = jul,"),
    "missing comma after a bare value": entry("mc", "  year = 2020\n  month = jul,"),
    "no comma after the key": "@article{nokey\n  title = {T},\n}\n\n",
    "entry without fields": "@misc{lonely}\n\n@misc{lonely2,}\n\n@misc{,title={No key}}\n\n",
    "parenthesised entry": "@article(paren,\n  title = {In (parens)},\n  year = 2020\n)\n\n",
    "unclosed entry in the middle": (
        entry("before", "  year = 1,")
        + "@article{open,\n  title = {Never closed,\n\n"
        + entry("after", "  year = 2,")
    ),
    "unclosed entry at the end": entry("first", "  year = 1,") + "@article{end,\n  title = {x",
    "unclosed quote": entry("first", "  year = 1,") + '@article{q,\n  title = "open,\n}\n\n',
    "block start inside a value": entry("at", "  note = {see\n@misc{inner, title={x}}\n end},"),
    "block start after text inside a value": entry("at", "  note = {pass@1 (52\\%) and @k{x}},"),
    "block start after a space inside a value": entry("at", "  note = {LeQua @ {CLEF}},"),
    "at signs that start nothing": entry("at", "  note = {mail a@b.org or @ home},"),
    "escaped newlines": entry("nl", "  note = {one \\\n two \\\\\n three},") + entry("x", ""),
    "escaped braces and backslashes": entry("e", "  note = {a \\} b \\\\} c},"),
    "backslash before a comma": entry("e", "  note = a\\, b,"),
    "crlf and tabs": entry("crlf", "\tyear = 2020,").replace("\n", "\r\n"),
    "unicode space and odd whitespace": entry("u", "  note\u00a0=\u2003{x},\x0b"),
    "placeholder character": entry("z", "  note = {a\x00b},"),
    "empty and bare values": entry("v", "  note = ,\n  volume = 12,\n  month = jul,"),
    "equals sign in a key": "@article{a=b,\n  title = {T}}\n\n",
    "space inside a key": "@article{my key,\n  title = {T}}\n\n",
    "percent in a field name": entry("p", "  % note = {commented out},"),
    "extra closing brace": entry("x", "  year = 1,") + "}\n" + entry("y", "  year = 2,"),
    "block start without a brace": "@article no brace\n\n" + entry("a", "  year = 1,"),
    "at the very end": entry("a", "  year = 1,") + "@",
    "only a block start": "@article{",
}
BROKEN_AFTER = "@article{broken,\n  title = {Never closed,\n\n@misc{last, title = {Last}}\n"


def through_bibtexparser(text: str, monkeypatch: pytest.MonkeyPatch) -> ReadResult:
    with monkeypatch.context() as patch:
        patch.setattr(bibtex_reader, "blocks", bibtex_blocks.parsed_blocks)
        return bibtex_reader.read(text, Path("lib.bib"))


def check_same(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert bibtex_blocks.blocks(text) == bibtex_blocks.parsed_blocks(text)
    assert bibtex_reader.read(text, Path("lib.bib")) == through_bibtexparser(text, monkeypatch)


@pytest.mark.parametrize("case", list(CASES))
def test_a_file_reads_as_bibtexparser_reads_it(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = CASES[case]
    check_same(text, monkeypatch)
    # After a good entry and before a broken one: the line numbers after it, the state the
    # file is in when it starts.
    check_same(ZOTERO + "\n" + text + BROKEN_AFTER, monkeypatch)


def test_all_the_cases_in_one_file_read_as_bibtexparser_reads_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    check_same("\n".join(CASES.values()), monkeypatch)


def test_every_bibtex_fixture_reads_as_bibtexparser_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    paths = sorted(FIXTURES.glob("*.bib"))
    assert paths
    for path in paths:
        check_same(path.read_text(encoding="utf-8", errors="replace"), monkeypatch)


def no_bibtexparser(text: str, first_line: int = 1, last_dropped: bool = False) -> None:
    raise AssertionError(f"handed to bibtexparser: {text[:60]!r}")


@pytest.mark.parametrize("shape", list(WELL_FORMED))
def test_exporters_libraries_are_read_without_bibtexparser(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = bibtex_reader.read(WELL_FORMED[shape], Path("lib.bib"))
    assert expected.texts and not expected.warnings
    monkeypatch.setattr(bibtex_blocks, "parsed_blocks", no_bibtexparser)
    assert bibtex_reader.read(WELL_FORMED[shape], Path("lib.bib")) == expected
    for name in ("bib-zotero.bib", "bib-scholar.bib", "bib-dblp.bib"):
        assert bibtex_reader.read((FIXTURES / name).read_text(encoding="utf-8"), Path(name))


def test_only_the_odd_blocks_are_handed_to_bibtexparser_a_run_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    paren = "@article(paren,\n  title = {In parens},\n)\n\n"
    quote = '@article{quote,\n  title = "A {"} quote",\n}\n\n'
    text = ZOTERO + "\n" + paren + quote + SCHOLAR + "\n" + quote.replace("quote,", "q2,") + DBLP
    handed: list[str] = []
    parsed = bibtex_blocks.parsed_blocks

    def recording(text: str, first_line: int = 1, last_dropped: bool = False) -> object:
        handed.append(text)
        return parsed(text, first_line, last_dropped)

    monkeypatch.setattr(bibtex_blocks, "parsed_blocks", recording)
    result = bibtex_reader.read(text, Path("lib.bib"))
    assert len(result.texts) == 6 and not result.warnings
    # Each run, and the opening of the block after it (which bibtexparser must meet).
    assert handed == [
        paren + quote + "@article{",
        quote.replace("quote,", "q2,") + "@inproceedings{",
    ]


VALUES = st.sampled_from(
    [
        "{plain text}",
        "{with, commas = and signs}",
        "{{BERT} and {nested {deeper}}}",
        "{a{b{c{d{e{f{g}}}}}}}",
        '"quoted {brace} text"',
        '"a {"} quote"',
        '"ends {"',
        "{unbalanced { brace}",
        "{escaped \\{ and \\} and \\\\}",
        "{a \\\n b}",
        "2020",
        "jul",
        'jan # "~1"',
        "{pass@1 (x)}",
        "{ @ {CLEF}}",
        "{a@b.org}",
        "{x\n@misc{in, title={y}}\n}",
        "",
        "{x} {y}",
        "{ü ß ł — 中文}",
    ]
)
SEPARATORS = st.sampled_from([",\n  ", ", ", ",", ",\n\t", "\n  ", " , ", ",\r\n  "])
NAMES = st.sampled_from(["title", "abstract", "author", "year", "Title", "note", "bdsk-url-1"])
OPENINGS = st.sampled_from(["@article{", "@Article {", "@inproceedings{", "@misc(", "@string{"])
BETWEEN = st.sampled_from(["\n\n", "\n", "", "\n% comment\n", "\ntext { = , \n", "\\\n", " "])
PIECES = st.sampled_from(['"', "{", "}", ",", "=", "\n", "@x{", "\\", "#", " @ (", ")"])


@st.composite
def libraries(draw: st.DrawFn) -> str:
    """A few entries of realistic and odd fields, sometimes with a character put anywhere."""
    parts: list[str] = []
    for i in range(draw(st.integers(1, 4))):
        fields = draw(st.lists(st.tuples(NAMES, VALUES), max_size=5))
        body = "".join(f"{draw(SEPARATORS)}{name} = {value}" for name, value in fields) + draw(
            st.sampled_from(["", ",", ",\n", "\n"])
        )
        opening = draw(OPENINGS)
        close = ")" if opening.endswith("(") else "}"
        parts.append(f"{opening}key{i % 3}{body}{close}{draw(BETWEEN)}")
    text = "".join(parts)
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(PIECES) + text[at:]
    return text


@settings(max_examples=400, deadline=None)
@given(libraries())
def test_any_library_reads_as_bibtexparser_reads_it(text: str) -> None:
    assert bibtex_blocks.blocks(text) == bibtex_blocks.parsed_blocks(text)
