"""Where the BibTeX reader hands text to bibtexparser's splitter, it hides long braced values
from it and puts them back: every file must read exactly as the splitter alone reads it
(entries, fields, line numbers, errors), whatever the values hold."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.corpus.reading import FIXTURES
from tui.corpus.readers import ReadResult, bibtex_blocks
from tui.corpus.readers import bibtex as bibtex_reader

FILLER = "We study learning, at scale, with many commas, and some = signs " * 2


def read_both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[ReadResult, ReadResult]:
    """(with the pre-pass, the splitter alone) for the same text, all of it through bibtexparser."""
    with monkeypatch.context() as patch:
        patch.setattr(bibtex_reader, "blocks", bibtex_blocks.parsed_blocks)
        with_hiding = bibtex_reader.read(text, Path("lib.bib"))
        patch.setattr(bibtex_blocks, "_hide_long_values", lambda t: (t, []))
        alone = bibtex_reader.read(text, Path("lib.bib"))
    return with_hiding, alone


def entry(key: str, abstract: str, title: str = "A Title") -> str:
    return f"@article{{{key},\n  title = {{{title}}},\n  abstract = {{{abstract}}},\n}}\n\n"


# Each case is followed by a broken entry, so that its line number checks the line count.
BROKEN_AFTER = "@article{broken,\n  title = {Never closed,\n\n@misc{last, title = {Last}}\n"

CASES = {
    "nested braces": entry(
        "a", r"Runs in $\mathcal{O}(n^{2})$ time, with {BERT} {and {deep {nesting}}}, "
    ),
    "escaped braces": entry("a", r"A set \{x, y\} and a brace \} alone, then \\} more, " + FILLER),
    "value over lines": entry("a", FILLER + "\n  second line, \\\\\n  third line after a \\\n"),
    "unclosed brace inside": entry("a", FILLER + " {unclosed, " + FILLER),
    "quote inside": entry("a", FILLER + ' he said "hi", ' + FILLER),
    "block start inside": entry("a", FILLER + "\n@misc{inner, title={x}}\n" + FILLER),
    "at sign, not a block": entry("a", FILLER + " mail me @ home, or a@b.org " + FILLER),
    "quoted value holding a braced one": (
        f'@article{{a,\n  title = "Quoted = {{{FILLER}}} end",\n  abstract = {{{FILLER}}}\n}}\n\n'
    ),
    "string macro": f"@string{{long = {{{FILLER}}}}}\n\n@article{{a, title = long # {{ x}}}}\n\n",
    "comment and text between entries": (
        f"@comment{{ note = {{{FILLER}}} }}\n\nsome text = {{{FILLER}}}\n\n" + entry("a", FILLER)
    ),
    "parenthesised entry": f"@article(a,\n  abstract = {{{FILLER} ) }}\n)\n\n",
    "deeper than three": entry("a", FILLER + "{a{b{c{d{e}}}}} " + FILLER),
    "two values in one field": f"@article{{a,\n  abstract = {{{FILLER}}} {{{FILLER}}}\n}}\n\n",
    "placeholder character in the file": entry("a", FILLER + "\x00" + FILLER),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_file_reads_as_the_splitter_alone_reads_it(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = CASES[case] + BROKEN_AFTER
    with_hiding, alone = read_both(text, monkeypatch)
    assert with_hiding == alone
    assert any("line" in w for w in with_hiding.warnings)  # the broken entry is named


def test_long_values_are_hidden_with_their_line_count() -> None:
    text = entry("a", FILLER + "\n" + FILLER + "\\\n" + FILLER)
    hidden, values = bibtex_blocks._hide_long_values(text)
    assert len(values) == 1 and FILLER in values[0]
    assert FILLER not in hidden
    # The newline after a backslash is not a line to the splitter: only one is kept.
    assert hidden.count("\n") == text.count("\n") - 1


def test_every_bibtex_fixture_reads_as_the_splitter_alone_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    paths = sorted(FIXTURES.glob("*.bib"))
    assert paths
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        with_hiding, alone = read_both(text, monkeypatch)
        assert with_hiding == alone, path.name


PIECES = st.sampled_from(
    ["{", "}", '"', "\\", "@misc{", "@ ", ",", "=", "\n", " ", "text", "$x^{2}$", "\\{", "\\}"]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(PIECES, max_size=40))
def test_any_value_reads_as_the_splitter_alone_reads_it(pieces: list[str]) -> None:
    inside = FILLER + "".join(pieces) + FILLER
    text = entry("a", inside) + BROKEN_AFTER
    with_hiding = bibtex_blocks.parsed_blocks(text)
    original = bibtex_blocks._hide_long_values
    bibtex_blocks._hide_long_values = lambda t: (t, [])  # type: ignore[assignment]
    try:
        alone = bibtex_blocks.parsed_blocks(text)
    finally:
        bibtex_blocks._hide_long_values = original  # type: ignore[assignment]
    assert with_hiding == alone
