"""CSV and TSV tables of papers with a header row (Zotero's CSV export among them).

The header names the columns; case, spaces, underscores and common synonyms
(`Paper Title`, `Abstract Note`, `Author(s)`, `Publication Year`) do not matter
(see `tui.corpus.readers._fields`). The delimiter (comma, tab or semicolon) is
chosen from the header line; quoted cells may hold delimiters and line breaks.
"""

from __future__ import annotations

import re
from pathlib import Path

from tui.corpus.model import Collection
from tui.corpus.paper import Paper, normalise_doi, openreview_from_url, split_arxiv
from tui.corpus.readers import ReadResult, failed
from tui.corpus.readers._fields import (
    count,
    date_of,
    field_of,
    keywords_of,
    split_authors,
    text_of,
    year_of,
)

FORMAT = "csv"
_DELIMITERS = (",", "\t", ";")
# Zotero's `Extra` column carries the arXiv id of a preprint (`arXiv: 2101.00001`).
_EXTRA_ARXIV = re.compile(r"arXiv:\s*(\S+)", re.IGNORECASE)
_KINDS = {
    "journalarticle": "article",
    "conferencepaper": "inproceedings",
    "preprint": "misc",
    "book": "book",
    "booksection": "incollection",
    "thesis": "phdthesis",
    "report": "techreport",
}


def _delimiter(header: str, suffix: str) -> str:
    """The delimiter the header line uses most (outside quotes); a `.tsv` is tab-separated."""
    if suffix == ".tsv":
        return "\t"
    outside = re.sub(r'"[^"]*"', "", header)
    counts = {d: outside.count(d) for d in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


def _paper(row: dict[str, str]) -> tuple[str, Paper] | None:
    """One row (cells by field) as (abstract, paper), or None with neither title nor abstract."""
    title = text_of(row.get("title"))
    abstract = text_of(row.get("abstract")) or ""
    if title is None and not abstract:
        return None
    ids: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    if doi := text_of(row.get("doi")):
        ids.append(("doi", doi))
    arxiv = text_of(row.get("arxiv"))
    if arxiv is None and (m := _EXTRA_ARXIV.search(row.get("extra", ""))):
        arxiv = m.group(1)
    if arxiv:
        ids.append(("arxiv", arxiv))
    if citekey := text_of(row.get("citekey")):
        ids.append(("citekey", citekey))
    url = text_of(row.get("url"))
    if url:
        links.append(("page", url))
        if "arxiv.org/" in url and (found := split_arxiv(url)):
            ids.append(("arxiv", found[0]))
        elif openreview := openreview_from_url(url):
            ids.append(("openreview", openreview))
        elif "doi.org/" in url and (found_doi := normalise_doi(url)):
            ids.append(("doi", found_doi))
        elif not ids:
            ids.append(("url", url))
    if pdf := text_of(row.get("pdf")):
        links.append(("pdf", pdf))
    date = date_of(row.get("date"))
    kind = text_of(row.get("kind"))
    paper = Paper(
        title=title,
        authors=split_authors(row.get("authors", "")),
        venue=text_of(row.get("venue")),
        year=year_of(row.get("year")) or (year_of(date) if date else None),
        date=date,
        ids=tuple(ids),
        links=tuple(links),
        keywords=keywords_of(row.get("keywords", "")),
        kind=_KINDS.get(kind.lower(), kind) if kind else None,
        extra=tuple(
            (name, value)
            for name in ("pages", "volume", "issue", "publisher")
            if (value := text_of(row.get(name)))
        ),
    )
    return abstract, paper


def read(text: str, path: Path) -> ReadResult:
    """Every row of a CSV or TSV file with a header as a paper. Never raises for bad input."""
    import csv
    import io

    body = text.lstrip("\ufeff")
    header_line = body.split("\n", 1)[0]
    delimiter = _delimiter(header_line, path.suffix.lower())
    rows = csv.reader(io.StringIO(body, newline=""), delimiter=delimiter, strict=False)
    try:
        header = next(rows, None)
    except csv.Error as err:
        return failed(FORMAT, path, f"CSV header row cannot be read: {err}")
    if not header or not any(cell.strip() for cell in header):
        return failed(FORMAT, path, "CSV file with no header row")
    columns: dict[int, str] = {}
    for index, name in enumerate(header):
        field = field_of(name)
        if field is None and name.strip().lower() == "extra":
            field = "extra"
        if field is not None and field not in columns.values():
            columns[index] = field
    if "title" not in columns.values() and "abstract" not in columns.values():
        found = ", ".join(repr(c.strip()) for c in header[:12] if c.strip())
        more = ", …" if len(header) > 12 else ""
        return failed(
            FORMAT,
            path,
            f"CSV header has no title or abstract column (columns found: {found}{more}); "
            "a header row with a 'title' or 'abstract' column is needed "
            "(also read: authors, year, venue, doi, url, arxiv_id, keywords)",
        )
    texts: list[str] = []
    papers: list[Paper | None] = []
    warnings: list[str] = []
    empty = 0
    try:
        for cells in rows:
            if not any(cell.strip() for cell in cells):
                continue
            row = {field: cells[i] for i, field in columns.items() if i < len(cells)}
            found_paper = _paper(row)
            if found_paper is None:
                empty += 1
                continue
            texts.append(found_paper[0])
            papers.append(found_paper[1])
    except csv.Error as err:
        warnings.append(f"CSV broken at line {rows.line_num}: {err}; the rows after it skipped")
    if empty:
        warnings.append(
            f"{count(empty, 'row', 'rows')} with neither a title nor an abstract, skipped"
        )
    if not texts:
        return failed(FORMAT, path, "CSV with a header but no row holding a title or abstract")
    return ReadResult(FORMAT, Collection(label=path.stem), texts, papers, warnings)
