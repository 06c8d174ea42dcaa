"""RIS files (`.ris`): what Zotero, EndNote, Mendeley and publishers' sites export.

This module splits the file into records itself (`TY  - ` to `ER  - `), so each
record and each stray line is known by its line number, and lets rispy map each
record's tags to fields. CRLF line ends, a byte-order mark and a last record with
no `ER` line are read as users mean them; a line that is not a tag outside any
record is named (the whole file is an error when no record could be read).

A record gives its type (`kind`, as BibTeX names it: `JOUR` -> `article`), title
(TI/T1), authors (AU/A1, else A2), year and date (PY/Y1/DA), venue
(T2/JF/JO/BT/JA/J2), abstract (AB/N2), DOI, links and the ids they name (UR, L1),
keywords (KW), `ID` as its citekey, and pages, volume, number, publisher and place
in `extra`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tui.corpus.model import Collection
from tui.corpus.paper import Author, Paper
from tui.corpus.readers import ReadResult, failed, url_ids_and_link
from tui.corpus.spaces import collapse

FORMAT = "ris"

# A tag line: two characters (a capital, then a capital or digit), two spaces, a dash.
_TAG = re.compile(r"([A-Z][A-Z0-9])  -(?: |$)")
_YEAR = re.compile(r"\d{4}")
_DATE = re.compile(r"(\d{4})(?:[/-](\d{1,2}))?(?:[/-](\d{1,2}))?")
# RIS reference types -> BibTeX entry types (the vocabulary `Paper.kind` uses).
_KINDS = {
    "JOUR": "article",
    "EJOUR": "article",
    "MGZN": "article",
    "NEWS": "article",
    "JFULL": "article",
    "CONF": "inproceedings",
    "CPAPER": "inproceedings",
    "BOOK": "book",
    "EBOOK": "book",
    "EDBOOK": "book",
    "CHAP": "incollection",
    "ECHAP": "incollection",
    "THES": "phdthesis",
    "RPRT": "techreport",
    "UNPB": "unpublished",
    "MANSCPT": "unpublished",
}
_VENUE_TAGS = ("secondary_title", "alternate_title3", "journal_name", "BT", "alternate_title2")
_SHOWN_LINES = 5


def read(text: str, path: Path) -> ReadResult:
    """Every record of a RIS file with its paper record. Never raises for bad input."""
    records, stray = _split(text.lstrip("\ufeff").splitlines())
    warnings: list[str] = []
    texts: list[str] = []
    papers: list[Paper | None] = []
    empty: list[int] = []
    if records:
        from rispy import RisParser

        parser = RisParser()
        for index, (start, lines, closed) in enumerate(records):
            if not closed:
                end = "the end of the file" if index == len(records) - 1 else "the next TY"
                warnings.append(
                    f"RIS: record starting at line {start} has no ER line before {end}: "
                    "read as ended there"
                )
            try:
                [fields] = parser.parse_lines(iter([*lines, "ER  - "]))
                body, paper = _entry(fields)
            except Exception as err:  # rispy is lenient; a surprise still names its record
                warnings.append(f"RIS: record starting at line {start} could not be read ({err})")
                continue
            if paper.title is None and not body:
                empty.append(start)
                continue
            texts.append(body)
            papers.append(paper)
    if empty:
        n = len(empty)
        warnings.append(
            f"RIS: {n:,} record{'s' * (n != 1)} with neither title nor abstract skipped "
            f"({_lines(empty)})"
        )
    if stray:
        first, line = stray[0]
        if not texts:
            return failed(FORMAT, path, f"RIS: line {first} {_stray_reason(line)}", warnings)
        warnings.append(
            f"RIS: {len(stray):,} line{'s' * (len(stray) != 1)} outside any record skipped "
            f"({_lines([n for n, _ in stray])})"
        )
    if not texts:
        if records:
            return failed(FORMAT, path, "RIS: no record has a title or an abstract", warnings)
        return failed(FORMAT, path, "RIS: no records in this file (expected `TY  - ` lines)")
    return ReadResult(FORMAT, Collection(label=path.stem), texts, papers, warnings)


def _stray_reason(line: str) -> str:
    """Why a line outside any record cannot be read: not a tag, or a tag before any TY."""
    if _TAG.match(line):
        return f"has a tag outside any record, with no TY line before it ({_shown(line)})"
    return f"is not a RIS tag line ({_shown(line)})"


def _shown(line: str) -> str:
    line = line.strip()
    return repr(line[:60] + "…" if len(line) > 60 else line)


def _lines(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:_SHOWN_LINES])
    more = ", …" if len(numbers) > _SHOWN_LINES else ""
    return f"line {shown}" if len(numbers) == 1 else f"lines {shown}{more}"


def _split(
    lines: list[str],
) -> tuple[list[tuple[int, list[str], bool]], list[tuple[int, str]]]:
    """(records as (first line number, lines, ended by ER), stray lines as (number, line)).

    Inside a record, a line that is not a tag continues the one before (as rispy
    reads it); outside one, any non-blank line is stray.
    """
    records: list[tuple[int, list[str], bool]] = []
    stray: list[tuple[int, str]] = []
    start = 0
    current: list[str] | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        m = _TAG.match(line)
        tag = m.group(1) if m else None
        if tag == "TY":
            if current is not None:
                records.append((start, current, False))
            start, current = number, [line]
        elif tag == "ER":
            if current is not None:
                records.append((start, current, True))
                current = None
            else:
                stray.append((number, line))
        elif current is not None:
            current.append(line)
        else:
            stray.append((number, line))
    if current is not None:
        records.append((start, current, False))
    return records, stray


def _text(fields: dict[str, Any], *names: str) -> str:
    """The first of `names` the record has, as one string ("" when none).

    rispy strips each line and joins continuation lines with one space, so only text
    that came with tabs or runs of spaces inside a line needs collapsing.
    """
    for name in names:
        value = fields.get(name)
        if value is None and name.isupper():
            value = (fields.get("unknown_tag") or {}).get(name)
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        if value:
            text = str(value)
            return " ".join(text.split()) if "  " in text or "\t" in text else text
    return ""


def _list(fields: dict[str, Any], name: str) -> list[str]:
    value = fields.get(name) or []
    items = value if isinstance(value, list) else [value]
    return [collapse(str(v)) for v in items if str(v).strip()]


def _entry(fields: dict[str, Any]) -> tuple[str, Paper]:
    """(abstract, paper record) of one record's fields as rispy maps them."""
    ids: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    if key := _text(fields, "id"):
        ids.append(("citekey", key))
    if doi := _text(fields, "doi"):
        ids.append(("doi", doi))
    for url in [*_list(fields, "urls"), *_list(fields, "file_attachments1")]:
        if "://" not in url:
            continue  # a local attachment path, not a link
        url_ids, link = url_ids_and_link(url)
        ids.extend(url_ids)
        links.append(link)
    authors = _list(fields, "authors") + _list(fields, "first_authors")
    editors = _list(fields, "secondary_authors")
    if not authors:
        # A2 is the secondary author (an editor); it stands in when no author is given.
        authors, editors = editors, []
    year, date = _year_and_date(_text(fields, "date"), _text(fields, "year", "publication_year"))
    pages = "--".join(p for p in (_text(fields, "start_page"), _text(fields, "end_page")) if p)
    ty = _text(fields, "type_of_reference").upper()
    extra = [
        ("pages", pages),
        ("volume", _text(fields, "volume")),
        ("number", _text(fields, "number")),
        ("publisher", _text(fields, "publisher")),
        ("address", _text(fields, "place_published")),
        ("editor", " and ".join(editors)),
    ]
    paper = Paper(
        title=_text(fields, "title", "primary_title") or None,
        authors=tuple(Author.parse(a) for a in authors if a.strip(" ,;")),
        venue=_text(fields, *_VENUE_TAGS, "alternate_title1") or None,
        year=year,
        date=date,
        ids=tuple(ids),
        links=tuple(links),
        keywords=tuple(_list(fields, "keywords")),
        kind=_KINDS.get(ty, "misc" if ty else None),
        extra=tuple(extra),
    )
    return _text(fields, "abstract", "notes_abstract"), paper


def _year_and_date(date_field: str, year_field: str) -> tuple[int | None, str | None]:
    """The year and date (`2020`, `2020-07`, `2020-07-13`) from DA, else PY/Y1 (`2020/07/13/`)."""
    for value in (date_field, year_field):
        m = _DATE.match(value.strip())
        if m is None:
            continue
        year = m.group(1)
        month, day = (int(g) if g else 0 for g in m.groups()[1:])
        parts = [year]
        if 1 <= month <= 12:
            parts.append(f"{month:02d}")
            if 1 <= day <= 31:
                parts.append(f"{day:02d}")
        return int(year), "-".join(parts)
    found = _YEAR.search(year_field or date_field)
    if found is None:
        return None, None
    return int(found.group(0)), found.group(0)
