"""Parsing one abstracts file: a collection header, then one abstract per paragraph.

The format is loose on purpose (files come from scrapes and hand edits): the
first non-empty line is a header such as `ICLR 2023 Papers`; paragraphs are
separated by blank (or whitespace-only) lines, and a paragraph wrapped over
several lines is joined with whitespace collapsed. A file whose first paragraph
is clearly prose has no header and is labelled by its file name.
"""

from __future__ import annotations

import re
from pathlib import Path

from tui.corpus._record import Record
from tui.corpus.model import Collection
from tui.corpus.spaces import collapse

# A blank-line run inside a chunk: a newline, then one or more lines holding
# only whitespace (spaces, tabs, form feeds, ...), each ending in a newline.
_BLANK_RUN = re.compile(r"\n(?:[^\S\n]*\n)+")
_YEAR = re.compile(r"(?<![0-9])((?:19[5-9]|20[0-9])[0-9])(?![0-9])|['’]([0-9]{2})(?![0-9])")
# Two sentences: end punctuation, optional closing quote/bracket, space, then a capital or digit.
_SENTENCE_BREAK = re.compile(r"[.!?][\"'”’)\]]*\s+[A-Z0-9]")
_EDGE_PUNCT = "()[]{}:;,.\"'“”‘’-–—"

# Upper bounds for a header: anything longer is an abstract, not a title line.
_HEADER_MAX_CHARS = 120
_HEADER_MAX_WORDS = 15
_VENUE_MAX_WORDS = 5
# A sentence end after this many words is prose whatever the case of the words.
_SENTENCE_MIN_WORDS = 8
# Without a sentence end, this many words, mostly in lower case, read as prose.
_LOWER_RUN_MIN_WORDS = 6
# Words that titles leave in lower case (`Workshop on X`, `Learning for the Web`).
_TITLE_SMALL_WORDS = "a an and as at by for from in into of on or per the to via vs with without"
_SMALL_WORDS = frozenset(_TITLE_SMALL_WORDS.split())
# Closing quotes and brackets that may follow a sentence's full stop.
_CLOSERS = "\"'”’)]"
# Real abstracts run to a few thousand characters; a paragraph this long is almost
# always several abstracts without the blank lines between them.
LONG_PARAGRAPH_CHARS = 30_000
# A paragraph longer than this is cut to it (and said): collapsing whitespace
# splits a paragraph into words, so a 50 MB one cost over a gigabyte.
MAX_PARAGRAPH_CHARS = 1_000_000


class ParsedFile(Record):
    """One file's content: its collection, its paragraphs (one abstract each), and warnings.

    `has_header` is False when the first paragraph was prose and `collection`
    is labelled by the file's stem instead. (A `Record`, not a dataclass: it is
    imported before the app's first frame.)
    """

    __match_args__ = ("collection", "paragraphs", "warnings", "has_header")
    __slots__ = __match_args__
    collection: Collection
    paragraphs: list[str]
    warnings: list[str]
    has_header: bool

    def __init__(
        self,
        collection: Collection,
        paragraphs: list[str],
        warnings: list[str] | None = None,
        has_header: bool = True,
    ) -> None:
        _set = object.__setattr__
        _set(self, "collection", collection)
        _set(self, "paragraphs", paragraphs)
        _set(self, "warnings", [] if warnings is None else warnings)
        _set(self, "has_header", has_header)


# One raw block as an abstract: joined over lines, whitespace collapsed.
_paragraph = collapse


def _paragraphs(blocks: list[str], warnings: list[str]) -> list[str]:
    """The blocks as abstracts (see `_paragraph`); over-long ones are cut, and said in `warnings`."""
    out: list[str] = []
    for position, block in enumerate(blocks, start=1):
        if len(block) > MAX_PARAGRAPH_CHARS:
            warnings.append(
                f"abstract {position} is {len(block):,} characters long: only its first "
                f"{MAX_PARAGRAPH_CHARS:,} are kept (blank lines between abstracts may be missing)"
            )
            out.append(_paragraph(block[:MAX_PARAGRAPH_CHARS]))
            continue
        text = _paragraph(block)
        if len(text) > LONG_PARAGRAPH_CHARS:
            warnings.append(
                f"abstract {position} is {text.count(' ') + 1:,} words long: "
                "blank lines between abstracts may be missing"
            )
        out.append(text)
    return out


def looks_like_prose(text: str) -> bool:
    """True when `text` reads as a sentence or more rather than a title line.

    Long text and two sentences count. So does a sentence end (`.`, `!`, `?`)
    after a word in lower case (`Deep nets work.`), which title lines such as
    `ICLR 2023 Papers` or `Workshop on X` do not have, and so does a run of
    mostly lower-case words (`Deep networks generalize well on natural images`).
    Short lines such as `My reading list` stay headers.
    """
    text = text.strip()
    words = text.split()
    n = len(words)
    if len(text) > _HEADER_MAX_CHARS or n > _HEADER_MAX_WORDS:
        return True
    if _SENTENCE_BREAK.search(text):
        return True
    lower = sum(1 for w in words[1:] if _lower_word(w))
    if text.rstrip(_CLOSERS).endswith((".", "!", "?")):
        return n >= _SENTENCE_MIN_WORDS or (n >= 2 and (lower > 0 or _lower_word(words[0])))
    # No sentence end: prose only when most words after the first are lower case.
    return n >= _LOWER_RUN_MIN_WORDS and 3 * lower >= 2 * (n - 1)


def _lower_word(word: str) -> bool:
    """A word written in lower case that a title would capitalise (`nets`, not `on`)."""
    word = word.strip(_EDGE_PUNCT)
    return word[:1].islower() and word.lower() not in _SMALL_WORDS


def _acronym_like(word: str) -> bool:
    """`ICLR`, `NeurIPS`, `CoRL`, `AAAI-`: at least two capitals, or all caps."""
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 2 and sum(c.isupper() for c in letters) >= 2


def _venue_and_year(line: str) -> tuple[str, int] | None:
    """Venue and year of a header line, or None when no plausible pair is there."""
    m = _YEAR.search(line)
    if m is None:
        return None
    year = int(m.group(1)) if m.group(1) else 2000 + int(m.group(2))
    before = line[: m.start()].replace("-", " ").split()
    after = line[m.end() :].split()
    before = [w.strip(_EDGE_PUNCT) for w in before]
    before = [w for w in before if w]
    if before and _acronym_like(before[-1]):
        return before[-1], year
    if before and len(before) <= _VENUE_MAX_WORDS and before[0][:1].isupper():
        return " ".join(before), year
    if not before and after:
        first = after[0].strip(_EDGE_PUNCT)
        if first and first[0].isalpha():
            return first, year
    return None


def parse_header(line: str) -> Collection | None:
    """A collection from a header line, or None when the line is prose or empty.

    `ICLR 2023 Papers` -> Collection("ICLR 2023 Papers", "ICLR", 2023). A short
    line without a venue and year is kept as the label alone.
    """
    label = collapse(line)
    if not label or looks_like_prose(label):
        return None
    found = _venue_and_year(label)
    if found is None:
        return Collection(label=label)
    venue, year = found
    return Collection(label=label, venue=venue, year=year)


def _blocks(text: str) -> list[str]:
    """Split text into raw paragraphs (not yet collapsed), dropping blank ones."""
    out: list[str] = []
    # Most files separate paragraphs with exactly one blank line and keep each
    # paragraph on one line; str.split is far cheaper than a regex over megabytes.
    chunks = text.split("\n\n")
    # The file's final newline would otherwise send its last paragraph down the slow path.
    chunks[-1] = chunks[-1].rstrip()
    for chunk in chunks:
        if "\n" in chunk:
            out.extend(b for b in _BLANK_RUN.split(chunk) if b and not b.isspace())
        elif chunk and not chunk.isspace():
            out.append(chunk)
    return out


def parse_text(text: str, path: Path) -> ParsedFile:
    """Parse the decoded text of one abstracts file. Never raises.

    Tolerates a UTF-8 BOM, CRLF or lone CR line ends, tabs, trailing spaces,
    runs of blank lines, and whitespace-only lines (which count as blank).
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    blocks = _blocks(text)
    if not blocks:
        return ParsedFile(Collection(label=path.stem), [], [], has_header=False)

    warnings: list[str] = []
    first = blocks[0].strip()
    first_line, _, rest = first.partition("\n")
    header = parse_header(first_line)
    body = blocks[1:]
    if header is not None and header.venue is not None:
        if rest.strip():
            warnings.append(
                f"no blank line after the header {header.label!r}; "
                "the lines after it were read as the first abstract"
            )
            body = [rest, *body]
    else:
        whole = parse_header(first) if rest else header
        if whole is None:
            # The first paragraph is prose: there is no header, and it is an abstract.
            return ParsedFile(
                Collection(label=path.stem),
                _paragraphs(blocks, warnings),
                warnings,
                has_header=False,
            )
        header = whole
    if header.venue is None and body:
        # Said, not silent: a short first paragraph may have been meant as an abstract.
        warnings.append(
            f"header {header.label!r} has no venue and year; used as the collection label"
        )
    return ParsedFile(header, _paragraphs(body, warnings), warnings)
