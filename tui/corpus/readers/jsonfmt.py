"""JSON exports of papers: arrays, Semantic Scholar, OpenReview, CSL-JSON, JSON Lines.

The shapes read: an array of paper objects; `{"data": [...]}` (Semantic Scholar's
API); `{"notes": [...]}` (OpenReview's API 1, fields plain, and API 2, fields
`{"value": ...}`); CSL-JSON (Zotero's export, an array); one object per line
(JSON Lines, where a bad line is named and skipped). Field names are matched as
`tui.corpus.readers._fields` maps them, whatever their case.

Every object here comes from `json.loads`, so a mapping is a `dict` (tested as
such: far cheaper than testing against the `Mapping` ABC, per field of every paper).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tui.corpus.model import Collection
from tui.corpus.paper import Paper, normalise_doi, openreview_from_url, split_arxiv
from tui.corpus.readers import ReadResult, failed
from tui.corpus.readers._fields import (
    authors_of,
    count,
    date_of,
    field_of,
    key,
    keywords_of,
    text_of,
    year_of,
)

FORMAT = "json"
# Keys under which an object holds its list of papers.
_LIST_KEYS = ("data", "notes", "papers", "items", "results", "records", "entries", "hits")
# Semantic Scholar's citation and reference lists wrap each paper once more.
_WRAPPERS = ("citingPaper", "citedPaper", "paper")
_EXTERNAL_IDS = {"doi": "doi", "arxiv": "arxiv", "dblp": "dblp", "pubmed": "pmid"}
_CSL_KINDS = {
    "article-journal": "article",
    "paper-conference": "inproceedings",
    "book": "book",
    "chapter": "incollection",
    "thesis": "phdthesis",
    "report": "techreport",
    "manuscript": "unpublished",
    "article": "misc",
}
_CITEKEY = re.compile(r"[\w:.+-]{1,100}")
# How many bad lines of a JSON Lines file are named one by one.
_NAMED_BAD_LINES = 5


def _unwrap(value: object) -> object:
    """OpenReview API 2 writes each field as `{"value": ...}`."""
    if isinstance(value, dict) and "value" in value and len(value) <= 2:
        return value["value"]
    return value


_ABSENT: tuple[object, ...] = (None, "", [], {})


def _name(value: object) -> str | None:
    """A venue from a string or an object with a `name` (Semantic Scholar's `journal`)."""
    if isinstance(value, dict):
        return text_of(value.get("name"))
    return text_of(value)


def _fields(obj: dict[str, Any]) -> dict[str, Any]:
    """The object's fields by meaning (`title`, `abstract`, ...), OpenReview's `content` first."""
    out: dict[str, Any] = {}
    content = obj.get("content")
    sources = (content, obj) if isinstance(content, dict) else (obj,)
    for source in sources:
        for name, value in source.items():
            field = field_of(str(name))
            # Only present values are kept: a field in `out` already has one.
            if field is None or field in out:
                continue
            if isinstance(value, dict):
                value = _unwrap(value)
            if value not in _ABSENT:
                out[field] = value
    return out


def _openreview_year(obj: dict[str, Any]) -> int | None:
    """The year of an OpenReview note's publication time, in milliseconds (its creation
    time is the submission's, often the year before)."""
    from datetime import UTC, datetime

    for name in ("pdate", "odate"):
        ms = obj.get(name)
        if isinstance(ms, int) and not isinstance(ms, bool) and 0 < ms < 10**14:
            return datetime.fromtimestamp(ms / 1000, UTC).year
    return None


_CSL_ARXIV = re.compile(r"(?im)^\s*arxiv:\s*(\S+)")


def _paper(obj: dict[str, Any]) -> tuple[str, Paper] | None:
    """One paper object as (abstract, paper), or None without a title and an abstract."""
    for wrapper in _WRAPPERS:
        inner = obj.get(wrapper)
        if isinstance(inner, dict) and len(obj) <= 3:
            obj = inner
    fields = _fields(obj)
    title = text_of(fields.get("title"))
    abstract = text_of(fields.get("abstract")) or ""
    if title is None and not abstract:
        return None
    ids: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    extra: list[tuple[str, str]] = []
    venue = _name(fields.get("venue")) or _name(obj.get("publicationVenue"))
    year = year_of(fields.get("year")) or year_of(fields.get("date"))
    openreview = isinstance(obj.get("content"), dict) and isinstance(
        obj.get("forum") or obj.get("id"), str
    )
    if openreview:
        note_id = str(obj.get("forum") or obj.get("id"))
        ids.append(("openreview", note_id))
        links.append(("page", f"https://openreview.net/forum?id={note_id}"))
        if venue is not None:
            # `ICLR 2024 poster`: the venue is what comes before the year.
            found = re.search(r"(?<!\d)(?:19|20)\d\d(?!\d)", venue)
            if found is not None:
                year = year or int(found.group(0))
                venue = venue[: found.start()].strip() or venue
        year = year or _openreview_year(obj)
    if doi := text_of(fields.get("doi")):
        ids.append(("doi", doi))
    if arxiv := text_of(fields.get("arxiv")):
        ids.append(("arxiv", arxiv))
    external = obj.get("externalIds")
    if isinstance(external, dict):
        for name, value in external.items():
            kind = _EXTERNAL_IDS.get(key(str(name)))
            if kind and text_of(value):
                ids.append((kind, str(text_of(value))))
    if isinstance(obj.get("paperId"), str):
        ids.append(("s2", obj["paperId"]))
    citekey = text_of(fields.get("citekey"))
    is_csl = "issued" in obj or "container-title" in obj or "citation-key" in obj
    if is_csl:
        # Zotero writes a preprint's id as its `number` (arXiv:2101.00001) and any
        # paper's in its Extra field, which CSL-JSON carries as `note` (arXiv: 2101.00001).
        for name in ("number", "note"):
            value = obj.get(name)
            if isinstance(value, str) and (found := _CSL_ARXIV.search(value)):
                ids.append(("arxiv", found.group(1)))
    if citekey is None and is_csl and isinstance(obj.get("id"), str):
        citekey = obj["id"] if _CITEKEY.fullmatch(obj["id"]) else None
    if citekey:
        ids.append(("citekey", citekey))

    url = text_of(fields.get("url"))
    if url and not openreview:
        links.append(("page", url))
        if "arxiv.org/" in url and (found_arxiv := split_arxiv(url)):
            ids.append(("arxiv", found_arxiv[0]))
        elif openreview_id := openreview_from_url(url):
            ids.append(("openreview", openreview_id))
        elif "doi.org/" in url and (found_doi := normalise_doi(url)):
            ids.append(("doi", found_doi))
        elif not ids:
            ids.append(("url", url))
    pdf = fields.get("pdf")
    pdf_url = text_of(pdf.get("url")) if isinstance(pdf, dict) else text_of(pdf)
    if pdf_url and pdf_url.startswith("/pdf") and openreview:
        pdf_url = f"https://openreview.net/pdf?id={ids[0][1]}"
    if pdf_url and pdf_url.startswith("http"):
        links.append(("pdf", pdf_url))

    for name in ("pages", "volume", "issue", "publisher"):
        if name in fields and (value := text_of(fields[name])):
            extra.append((name, value))
    journal = obj.get("journal")
    if isinstance(journal, dict):
        for name in ("volume", "pages"):
            if (value := text_of(journal.get(name))) and name not in dict(extra):
                extra.append((name, value))
    kind_name = text_of(fields.get("kind"))
    kind = _CSL_KINDS.get(kind_name or "", kind_name) if is_csl else None
    date = date_of(fields.get("date"))
    paper = Paper(
        title=title,
        authors=authors_of(fields.get("authors")),
        venue=venue,
        year=year or (year_of(date) if date else None),
        date=date,
        ids=tuple(ids),
        links=tuple(links),
        keywords=keywords_of(fields.get("keywords")),
        kind=kind,
        extra=tuple(extra),
    )
    return abstract, paper


def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "null" if value is None else type(value).__name__


_EXPECTED = (
    'expected an array of paper objects, or an object holding one under "data" '
    '(Semantic Scholar), "notes" (OpenReview), "papers" or "items"'
)


def _items(data: object) -> list[object] | str:
    """The paper objects of a parsed file, or why there are none (the shape found)."""
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for name in _LIST_KEYS:
            if isinstance(data.get(name), list):
                return list(data[name])
        if _paper(data) is not None:
            return [data]
        keys = ", ".join(repr(k) for k in list(data)[:8]) or "none"
        return f"a JSON object with no list of papers (its keys: {keys}): {_EXPECTED}"
    return f"a JSON {_type_name(data)}: {_EXPECTED}"


def _collect(objects: list[tuple[str, object]], path: Path, warnings: list[str]) -> ReadResult:
    """Papers from (where, object) pairs; each object that is not a paper is counted."""
    texts: list[str] = []
    papers: list[Paper | None] = []
    not_objects = untitled = 0
    seen_keys: dict[str, None] = {}
    for _where, obj in objects:
        if not isinstance(obj, dict):
            not_objects += 1
            continue
        found = _paper(obj)
        if found is None:
            untitled += 1
            seen_keys.update(dict.fromkeys(str(k) for k in list(obj)[:20]))
            continue
        texts.append(found[0])
        papers.append(found[1])
    if not texts:
        if not objects:
            return failed(FORMAT, path, f"an empty list: no papers ({_EXPECTED})", warnings)
        if untitled:
            keys = ", ".join(repr(k) for k in list(seen_keys)[:10])
            return failed(
                FORMAT,
                path,
                f"{count(untitled, 'object', 'objects')} but none has a title or an abstract (keys found: {keys}); "
                'expected paper objects with a "title" or an "abstract"',
                warnings,
            )
        return failed(FORMAT, path, f"no paper objects in the list: {_EXPECTED}", warnings)
    if not_objects:
        warnings.append(f"{count(not_objects, 'list item', 'list items')} not an object, skipped")
    if untitled:
        warnings.append(
            f"{count(untitled, 'object', 'objects')} with neither a title nor an abstract, skipped"
        )
    return ReadResult(FORMAT, Collection(label=path.stem), texts, papers, warnings)


def _read_lines(text: str, path: Path) -> ReadResult:
    """JSON Lines: one object per line; a bad line is named and the rest load."""
    import json

    objects: list[tuple[str, object]] = []
    bad: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            objects.append((f"line {number}", json.loads(line)))
        except json.JSONDecodeError as err:
            bad.append(f"line {number} is not JSON ({err.msg} at column {err.colno})")
    warnings: list[str] = []
    if bad and not objects:
        return failed(FORMAT, path, f"JSON Lines with no readable line: {bad[0]}")
    for message in bad[:_NAMED_BAD_LINES]:
        warnings.append(f"{message}; skipped")
    if len(bad) > _NAMED_BAD_LINES:
        warnings.append(
            f"{count(len(bad) - _NAMED_BAD_LINES, 'more line', 'more lines')} not JSON, skipped"
        )
    return _collect(objects, path, warnings)


def _first_line_is_object(text: str) -> bool:
    import json

    try:
        return isinstance(json.loads(text.split("\n", 1)[0]), dict)
    except json.JSONDecodeError:
        return False


def read(text: str, path: Path) -> ReadResult:
    """Every paper of a JSON or JSON Lines file. Never raises for bad input."""
    import json

    body = text.lstrip("\ufeff")
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return _read_lines(body, path)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as err:
        if err.msg == "Extra data" and _first_line_is_object(body):
            return _read_lines(body, path)
        return failed(
            FORMAT, path, f"JSON syntax error at line {err.lineno}, column {err.colno}: {err.msg}"
        )
    items = _items(data)
    if isinstance(items, str):
        return failed(FORMAT, path, items)
    return _collect([(f"item {i}", obj) for i, obj in enumerate(items, 1)], path, [])
