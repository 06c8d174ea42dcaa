"""The conference text format: a header line, then one abstract per paragraph.

Two common variants are read as papers:

- a title line above each abstract, either as the first line of the abstract's
  paragraph or as a paragraph of its own;
- the arXiv listing as pasted from arxiv.org/list pages: an `arXiv:ID` line,
  `Title:`, `Authors:`, optional `Comments:`, `Subjects:`, then the abstract.

A variant is taken only when every entry of the file fits it (so an abstract's
first sentence is never taken for a title); otherwise the file reads exactly as
`tui.corpus.parse` reads it.
"""

from __future__ import annotations

import re
from pathlib import Path

from tui.corpus.model import Collection
from tui.corpus.paper import Paper, split_arxiv
from tui.corpus.parse import (
    LONG_PARAGRAPH_CHARS,
    ParsedFile,
    _blocks,
    _paragraph,
    looks_like_prose,
    parse_text,
)
from tui.corpus.readers import ReadResult
from tui.corpus.readers._fields import count, split_authors
from tui.corpus.spaces import collapse

# A listing entry's first line: `[3] arXiv:2412.00001 [pdf, html, other]`.
_LISTING_ID = re.compile(r"^\s*(?:\[\d+\]\s*)?arXiv:\s*(\S+)", re.IGNORECASE)
_LISTING_FIELD = re.compile(
    r"^\s*(Title|Authors|Comments|Subjects|Journal-ref|DOI|Report-no|MSC-class|ACM-class)"
    r":\s*(.*)$",
    re.IGNORECASE,
)
_SUBJECT_CODE = re.compile(r"\(([a-z-]+(?:\.[A-Za-z-]+)?)\)")
_SENTENCE_BREAK = re.compile(r"[.!?][\"'”’)\]]*\s+[A-Z0-9]")
# A title has at most this many words and characters.
_TITLE_MAX_WORDS = 30
_TITLE_MAX_CHARS = 250
# A sentence-case title line is at most this fraction of the abstract's widest line
# (a wrapped abstract's first line is as wide as the others).
_SENTENCE_CASE_RATIO = 0.75
_SMALL_WORDS = "a an and as at by for from in into of on or per the to via vs with without is are"
_SMALL = frozenset(_SMALL_WORDS.split())


def read(text: str, path: Path) -> ReadResult:
    """Every paragraph of a conference text file as an entry; papers for the two variants."""
    parsed = parse_text(text, path)
    warnings = list(parsed.warnings)
    if not parsed.paragraphs:
        if parsed.has_header:
            error = f"header only ({parsed.collection.label!r}): no abstracts"
        else:
            error = "empty file (only whitespace)"
        return ReadResult("text", parsed.collection, [], None, warnings, error)
    variant = _listing(text, parsed, path) or _titled(text, parsed, path)
    if variant is not None:
        return variant
    return ReadResult("text", parsed.collection, parsed.paragraphs, None, warnings)


def _raw_blocks(text: str) -> list[str]:
    """The file's paragraphs before joining (line breaks kept), as `parse_text` splits them."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [b.strip("\n") for b in _blocks(text)]


# -- the arXiv listing ---------------------------------------------------------------


def _is_listing_entry(block: str) -> bool:
    lines = block.strip().split("\n")
    return bool(_LISTING_ID.match(lines[0])) and any(
        (m := _LISTING_FIELD.match(line)) is not None and m.group(1).lower() == "title"
        for line in lines[1:6]
    )


def _listing(text: str, parsed: ParsedFile, path: Path) -> ReadResult | None:
    """An arXiv listing paste as papers, or None when the file holds no listing entry."""
    # Cheap test first: conference files (megabytes) never hold `arXiv:` then `Title:`.
    if "Title:" not in text or not re.search(r"arXiv:", text, re.IGNORECASE):
        return None
    blocks = _raw_blocks(text)
    if not any(_is_listing_entry(b) for b in blocks):
        return None
    header = parsed.has_header and not _is_listing_entry(blocks[0])
    collection = parsed.collection if header else Collection(label=path.stem)
    entries: list[tuple[dict[str, str], list[str]]] = []
    skipped = 0
    for position, block in enumerate(blocks):
        if _is_listing_entry(block):
            entries.append(_listing_fields(block))
        elif not entries:
            # Above the first entry: the header, or headings such as `New submissions`.
            if position > 0 or not header:
                skipped += 1
        elif entries[-1][1] and not looks_like_prose(collapse(block)):
            skipped += 1  # a heading between entries (`Cross-lists for ...`)
        else:
            entries[-1][1].append(collapse(block))
    warnings: list[str] = []
    if skipped:
        warnings.append(
            f"{count(skipped, 'paragraph', 'paragraphs')} outside the arXiv listing's entries (headings), skipped"
        )
    texts: list[str] = []
    papers: list[Paper | None] = []
    for fields, abstract in entries:
        texts.append(" ".join(abstract))
        papers.append(_listing_paper(fields))
    return ReadResult("text", collection, texts, papers, warnings)


def _listing_fields(block: str) -> tuple[dict[str, str], list[str]]:
    """A listing entry's fields (`id`, `title`, `authors`, ...) and the abstract lines it holds."""
    lines = block.strip().split("\n")
    m = _LISTING_ID.match(lines[0])
    fields = {"id": m.group(1) if m else ""}
    abstract: list[str] = []
    last = ""
    for line in lines[1:]:
        found = _LISTING_FIELD.match(line)
        if abstract or (last == "subjects" and found is None):
            abstract.append(line)
        elif found is not None:
            last = found.group(1).lower()
            fields[last] = found.group(2)
        elif last:
            fields[last] += " " + line  # a field wrapped over lines
    text = collapse(" ".join(abstract))
    return {k: collapse(v) for k, v in fields.items()}, [text] if text else []


def _listing_paper(fields: dict[str, str]) -> Paper:
    found = split_arxiv(fields.get("id", ""))
    ids = [("arxiv", found[0])] if found else []
    extra = [("version", str(found[1]))] if found and found[1] is not None else []
    year = None
    if found and re.fullmatch(r"\d{4}\.\d{4,5}", found[0]):
        year = 2000 + int(found[0][:2])
    subjects = fields.get("subjects", "")
    codes = _SUBJECT_CODE.findall(subjects)
    keywords = codes or [s.strip() for s in subjects.split(";") if s.strip()]
    if codes:
        extra.append(("primary_class", codes[0]))
    for name, field in (("comments", "comment"), ("journal-ref", "journal_ref")):
        if fields.get(name):
            extra.append((field, fields[name]))
    if fields.get("doi"):
        ids.append(("doi", fields["doi"]))
    return Paper(
        title=fields.get("title") or None,
        authors=split_authors(fields.get("authors", "")),
        venue="arXiv" if found else None,
        year=year,
        ids=tuple(ids),
        keywords=tuple(keywords),
        kind="misc" if found else None,
        extra=tuple(extra),
    )


# -- a title line above each abstract --------------------------------------------------


def _title_like(line: str) -> bool:
    """A line that can be a paper's title: short, one sentence at most, no closing full stop."""
    line = line.strip()
    words = line.split()
    if not words or len(words) > _TITLE_MAX_WORDS or len(line) > _TITLE_MAX_CHARS:
        return False
    if line.endswith((".", ",", ";")) or _SENTENCE_BREAK.search(line):
        return False
    return line[0].isupper() or line[0].isdigit() or line[0] in "$\\\"'“(["


def _title_cased(line: str) -> bool:
    """Most words that a title would capitalise are capitalised (`Attention Is All You Need`)."""
    words = [w.strip("()[]{}\"'“”‘’:,-–—") for w in line.split()]
    words = [w for w in words if w and w[0].isalpha() and w.lower() not in _SMALL]
    if len(words) < 2:
        return bool(words) and words[0][0].isupper()
    return sum(w[0].isupper() for w in words) * 4 >= len(words) * 3


def _starts_sentence(text: str) -> bool:
    first = text.lstrip()[:1]
    return first.isupper() or first.isdigit() or first in "$\\\"'“(["


def _split_title(block: str) -> tuple[str, str] | None:
    """(title, abstract) of a paragraph whose first line is a title above the abstract.

    A wrapped abstract's first line is as long as the lines after it (the wrap width)
    and usually runs into the next line mid-sentence; a title line is shorter than the
    abstract's lines, and the abstract after it starts a sentence and reads as prose.
    A Title Case line is a title whatever its length (wrapped prose is not title-cased);
    a sentence-case one must be clearly shorter than the abstract's widest line.
    """
    first, _, rest = block.strip().partition("\n")
    if not rest.strip() or not _title_like(first) or not _starts_sentence(rest):
        return None
    abstract = _paragraph(rest.strip())
    if not looks_like_prose(abstract) or len(abstract) < 2 * len(first.strip()):
        return None
    if not _title_cased(first):
        widest = max(len(line.strip()) for line in rest.split("\n"))
        if len(first.strip()) > _SENTENCE_CASE_RATIO * widest:
            return None
    return collapse(first), abstract


def _titled(text: str, parsed: ParsedFile, path: Path) -> ReadResult | None:
    """A file whose every abstract has its title above it, as papers; else None."""
    paragraphs = parsed.paragraphs
    collection = parsed.collection
    header_title: str | None = None
    if parsed.has_header and collection.venue is None and looks_like_prose(paragraphs[0]):
        # `parse_text` takes a first title paragraph for a header without venue and year
        # (a label such as `My reading list` is followed by a title, not an abstract).
        header_title = collection.label
    if any(len(p) > LONG_PARAGRAPH_CHARS for p in paragraphs[:50]):
        return None
    own = _titles_as_paragraphs(paragraphs, header_title)
    if own is not None:
        pairs, label_used = own
        if label_used:
            collection = Collection(label=path.stem)
        return _titled_result(pairs, collection, parsed, label_used)
    # Titles on the first line of each paragraph: needs the line breaks parse_text joins.
    if "\n" not in paragraphs[0] and not _first_body_has_line_break(text, parsed):
        return None
    blocks = _raw_blocks(text)
    body = blocks[len(blocks) - len(paragraphs) :]
    if len(body) != len(paragraphs) or any(len(b) > LONG_PARAGRAPH_CHARS for b in body):
        return None
    if parsed.has_header and len(blocks) == len(paragraphs):
        # The header's block also held the first abstract (no blank line after the header).
        body[0] = body[0].partition("\n")[2]
    splits = [_split_title(b) for b in body]
    if any(s is None for s in splits):
        return None
    found = [s for s in splits if s is not None]
    if len(found) < 2 and not all(_title_cased(t) for t, _ in found):
        return None
    return _titled_result(found, collection, parsed, False)


def _first_body_has_line_break(text: str, parsed: ParsedFile) -> bool:
    """Whether the first abstract's paragraph spans lines (read from the file's head only)."""
    head = _raw_blocks(text[:20_000])
    index = 1 if parsed.has_header and len(head) > 1 else 0
    return len(head) > index and "\n" in head[index]


def _titles_as_paragraphs(
    paragraphs: list[str], header_title: str | None
) -> tuple[list[tuple[str, str]], bool] | None:
    """Title paragraphs each followed by its abstract's paragraph, or None.

    Every abstract (a prose paragraph) must follow a title (a title-like line
    that is not prose); a title followed by another title has no abstract.
    At least two titled abstracts, or one in Title Case.
    """
    items = ([header_title] if header_title else []) + paragraphs
    if not items or not _title_like(items[0]):
        return None
    pairs: list[tuple[str, str]] = []
    title: str | None = None
    for item in items:
        is_title = _title_like(item) and not _SENTENCE_BREAK.search(item)
        if is_title and (title is None or not looks_like_prose(item)):
            if title is not None:
                pairs.append((title, ""))
            title = item
        elif title is not None and looks_like_prose(item) and len(item) > 2 * len(title):
            pairs.append((title, item))
            title = None
        else:
            return None
    if title is not None:
        pairs.append((title, ""))
    with_abstract = [t for t, a in pairs if a]
    if not with_abstract or (len(with_abstract) < 2 and not _title_cased(with_abstract[0])):
        return None
    if len(with_abstract) * 2 < len(pairs):
        return None  # mostly "titles" without abstracts: short paragraphs, not titles
    return pairs, header_title is not None


def _titled_result(
    pairs: list[tuple[str, str]], collection: Collection, parsed: ParsedFile, label_used: bool
) -> ReadResult:
    warnings = [w for w in parsed.warnings if not (label_used and "has no venue and year" in w)]
    texts = [abstract for _, abstract in pairs]
    papers: list[Paper | None] = [
        Paper(title=title, venue=collection.venue, year=collection.year) for title, _ in pairs
    ]
    untitled = sum(1 for t in texts if not t)
    if untitled:
        warnings.append(f"{count(untitled, 'title', 'titles')} without an abstract after it")
    return ReadResult("text", collection, texts, papers, warnings)
