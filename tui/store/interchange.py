"""RIS and CSL-JSON: the formats reference managers (Zotero, EndNote, Mendeley) import.

Both are plain text, not LaTeX: the title, names and venue go out as the reader shows
them (LaTeX rendered, `{BERT}` as `BERT`), control characters as visible symbols. The
abstract goes out as its source, character for character, because it is what the
record's id and the app's own rendering are made from: read back, it is the same
abstract. Each entry has the key the BibTeX export gives it (RIS `ID`, CSL `id` and
`citation-key`), so the three exports of one selection name each paper alike.

A conference paragraph (no paper) is a generic entry: its first sentence as the title,
the collection's venue and year.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from tui.corpus.latex import to_plain
from tui.corpus.paper import Paper, normalise_arxiv
from tui.sanitize import json_safe, visible, visible_line
from tui.store.cite import entry_type
from tui.store.formats import Item, bib_keys, bib_title
from tui.store.records import Snapshot

# BibTeX type -> RIS type (as Zotero writes them) and CSL type.
_RIS_TYPES = {
    "article": "JOUR",
    "inproceedings": "CPAPER",
    "proceedings": "CONF",
    "incollection": "CHAP",
    "inbook": "CHAP",
    "book": "BOOK",
    "booklet": "PAMP",
    "phdthesis": "THES",
    "mastersthesis": "THES",
    "techreport": "RPRT",
    "manual": "STAND",
    "unpublished": "UNPB",
    "misc": "GEN",
}
_CSL_TYPES = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "proceedings": "book",
    "incollection": "chapter",
    "inbook": "chapter",
    "book": "book",
    "booklet": "pamphlet",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "techreport": "report",
    "manual": "report",
    "unpublished": "manuscript",
    "misc": "document",
}
_ISO_DATE = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")
_PAGES = re.compile(r"^\s*(\S+?)\s*(?:-+|–)\s*(\S+)\s*$")


def _plain(text: str) -> str:
    """Source text as the reader shows it, on one line, controls visible."""
    return visible_line(" ".join(to_plain(text).split()))


def _date_parts(date: str | None, year: int | None) -> list[int]:
    """[year, month, day] as far as known, from an ISO-like date, else the year."""
    m = _ISO_DATE.match(date) if date else None
    if m is not None:
        return [int(part) for part in m.groups() if part]
    return [year] if year else []


def _title(s: Snapshot) -> str:
    paper = s.paper
    return _plain(paper.title) if paper is not None and paper.title else bib_title(s)


def _venue(s: Snapshot) -> str:
    paper = s.paper
    if paper is not None and paper.title:
        return _plain(paper.venue) if paper.venue else ""
    return visible_line(s.venue_year)


def _page_url(paper: Paper) -> str | None:
    """The paper's own page as its source gave it (none made from its ids)."""
    return paper.link("page") or paper.id_of("url")


def _pages(extra: dict[str, str]) -> tuple[str, str | None] | None:
    """(first page, last page or None) from a `pages` field (`5998--6008`, `e1234`)."""
    pages = extra.get("pages")
    if not pages:
        return None
    m = _PAGES.match(pages)
    if m is None:
        return visible_line(pages), None
    return visible_line(m.group(1)), visible_line(m.group(2))


def _keywords(paper: Paper | None, tags: Iterable[str]) -> list[str]:
    words = dict.fromkeys(paper.keywords if paper is not None else ())
    words.update(dict.fromkeys(tags))
    return [visible_line(w) for w in words]


def _kind(s: Snapshot) -> str:
    """The BibTeX type of a record: its paper's, or `misc` for a conference paragraph."""
    return entry_type(s.paper) if s.paper is not None and s.paper.title else "misc"


def _ris_line(tag: str, value: str) -> str:
    return f"{tag}  - {value}"


def ris_record(it: Item, key: str) -> str:
    """One RIS record (`TY` to `ER`), CRLF-free lines, every value on its line."""
    s, paper = it.snapshot, it.snapshot.paper
    lines = [_ris_line("TY", _RIS_TYPES[_kind(s)]), _ris_line("ID", key)]
    lines.append(_ris_line("TI", _title(s)))
    for author in paper.named_authors if paper is not None else ():
        name = _plain(author.family) + (f", {_plain(author.given)}" if author.given else "")
        lines.append(_ris_line("AU", name))
    if venue := _venue(s):
        lines.append(_ris_line("T2", venue))
    year = (paper.year if paper is not None else None) or s.year
    if year:
        lines.append(_ris_line("PY", str(year)))
    parts = _date_parts(paper.date if paper is not None else None, None)
    if len(parts) > 1:
        lines.append(_ris_line("DA", "/".join(f"{p:02d}" for p in parts)))
    extra = {k.lower(): v for k, v in paper.extra} if paper is not None else {}
    if pages := _pages(extra):
        lines.append(_ris_line("SP", pages[0]))
        if pages[1] is not None:
            lines.append(_ris_line("EP", pages[1]))
    for field, tag in (("volume", "VL"), ("number", "IS"), ("publisher", "PB")):
        if field in extra:
            lines.append(_ris_line(tag, _plain(extra[field])))
    if paper is not None:
        if doi := paper.id_of("doi"):
            lines.append(_ris_line("DO", visible_line(doi)))
        if isbn := paper.id_of("isbn"):
            lines.append(_ris_line("SN", visible_line(isbn)))
        page = _page_url(paper)
        urls = [page]
        arxiv = paper.id_of("arxiv")
        if arxiv and (page is None or normalise_arxiv(page) != arxiv):
            urls.append(f"https://arxiv.org/abs/{arxiv}")
        if openreview := paper.id_of("openreview"):
            urls.append(f"https://openreview.net/forum?id={openreview}")
        for url in dict.fromkeys(u for u in urls if u):
            lines.append(_ris_line("UR", visible_line(url)))
        if pdf := paper.link("pdf"):
            lines.append(_ris_line("L1", visible_line(pdf)))
    lines += [_ris_line("KW", w) for w in _keywords(paper, it.tags)]
    if s.text:
        lines.append(_ris_line("AB", visible_line(s.text)))
    if it.note:
        lines.append(_ris_line("N1", visible_line(" ".join(it.note.split()))))
    lines.append("ER  - ")
    return "\n".join(lines) + "\n"


def to_ris(selected: Iterable[Item]) -> str:
    """One RIS record per abstract, keyed as in the BibTeX export."""
    chosen = list(selected)
    keys = bib_keys([it.snapshot for it in chosen])
    return "\n".join(ris_record(it, key) for it, key in zip(chosen, keys, strict=True))


def csl_item(it: Item, key: str) -> dict[str, Any]:
    """One CSL-JSON item, the fields Zotero reads."""
    s, paper = it.snapshot, it.snapshot.paper
    kind = _CSL_TYPES[_kind(s)]
    if kind == "document" and paper is not None and paper.id_of("arxiv"):
        kind = "article"  # CSL's `article` is Zotero's preprint
    item: dict[str, Any] = {"id": key, "citation-key": key, "type": kind, "title": _title(s)}
    if paper is not None and paper.named_authors:
        item["author"] = [
            {"family": _plain(a.family), "given": _plain(a.given)}
            if a.given
            else {"family": _plain(a.family)}
            for a in paper.named_authors
        ]
    year = (paper.year if paper is not None else None) or s.year
    parts = _date_parts(paper.date if paper is not None else None, year)
    if parts:
        item["issued"] = {"date-parts": [parts]}
    if venue := _venue(s):
        item["container-title"] = venue
    extra = {k.lower(): v for k, v in paper.extra} if paper is not None else {}
    if pages := _pages(extra):
        item["page"] = pages[0] if pages[1] is None else f"{pages[0]}-{pages[1]}"
    for field, name in (("volume", "volume"), ("number", "issue")):
        if field in extra:
            item[name] = _plain(extra[field])
    if "publisher" in extra:
        item["publisher"] = _plain(extra["publisher"])
    if paper is not None:
        if doi := paper.id_of("doi"):
            item["DOI"] = doi
        if isbn := paper.id_of("isbn"):
            item["ISBN"] = isbn
        arxiv = paper.id_of("arxiv")
        if arxiv and item["type"] == "article":
            # As Zotero writes a preprint: the archive's name and its number.
            item.setdefault("publisher", "arXiv")
            item["number"] = f"arXiv:{arxiv}"
        elif arxiv:
            # Any other paper's arXiv id goes where Zotero keeps it: a line of its Extra
            # field, which CSL-JSON carries as the note.
            item["note"] = f"arXiv: {arxiv}"
        url = _page_url(paper)
        if url is None and (arxiv or paper.id_of("openreview")) and not paper.id_of("doi"):
            url = paper.page_url
        if url:
            item["URL"] = url
    if words := _keywords(paper, it.tags):
        item["keyword"] = ", ".join(words)
    if s.text:
        item["abstract"] = visible(s.text)
    if it.note:
        item["note"] = "\n".join(filter(None, [item.get("note"), visible(it.note)]))
    return item


def to_csljson(selected: Iterable[Item]) -> str:
    """A CSL-JSON array, one item per abstract, keyed as in the BibTeX export."""
    chosen = list(selected)
    keys = bib_keys([it.snapshot for it in chosen])
    items = [csl_item(it, key) for it, key in zip(chosen, keys, strict=True)]
    return json_safe(json.dumps(items, ensure_ascii=False, indent=1)) + "\n"
