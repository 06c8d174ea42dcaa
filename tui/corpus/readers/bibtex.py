"""BibTeX libraries (`.bib`): Zotero, Better BibTeX, Google Scholar and DBLP exports.

The file is split into blocks as bibtexparser 2's splitter splits it (it keeps
going past a broken entry and says where each failed), by a scanner that hands it
only what it cannot prove it reads the same way (tui.corpus.readers.bibtex_blocks);
this module reads the fields itself, with none of bibtexparser's middleware:
`@string` macros and `#` concatenation are resolved here, and only the title and the authors' names are decoded from LaTeX
(tui.corpus.latex_names), because decoding every field with the middleware cost
65 s for 8,923 entries. The abstract keeps its LaTeX: the app renders it.

An entry gives its citekey (id kind `citekey`), entry type (`kind`), title,
authors, venue (journal or booktitle), year and date, DOI, arXiv id (`eprint`,
a Google Scholar `arXiv preprint arXiv:…` journal, a DBLP `CoRR` volume),
OpenReview id and links from `url`/`ee`/`pdf`, keywords, and other
bibliographic fields in `extra` (as written, so an export can write them back).
`crossref` fills in the venue, year, editor and publisher from the entry it names;
a `@proceedings` (or `@book`) entry named that way is a venue, not a paper, and is
not listed. Duplicate citekeys: both entries are kept, with a warning.
"""

from __future__ import annotations

import re
from pathlib import Path

from tui.corpus.latex_names import bibtex_authors, decode, group_end
from tui.corpus.model import Collection
from tui.corpus.paper import Paper, normalise_arxiv
from tui.corpus.readers import ReadResult, failed, url_ids_and_link
from tui.corpus.readers.bibtex_blocks import Entry, String, blocks
from tui.corpus.spaces import collapse

FORMAT = "bibtex"

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
# BibTeX's predefined macros: the month abbreviations.
_PREDEFINED = dict(zip(_MONTHS, _MONTH_NAMES, strict=True))

# Fields kept as written in `extra` (what a citation needs besides title, authors, ids).
_EXTRA = (
    "booktitle",
    "journal",
    "pages",
    "volume",
    "number",
    "publisher",
    "editor",
    "address",
    "series",
    "organization",
    "institution",
    "school",
    "edition",
    "chapter",
    "howpublished",
    "type",
    "note",
)
# What an entry takes from the entry its `crossref` names, when it lacks them (never
# the other entry's ids or links: two papers would become one).
_INHERITED = (
    "booktitle",
    "year",
    "month",
    "date",
    "editor",
    "publisher",
    "address",
    "series",
    "volume",
    "organization",
    "journal",
)
# Entry types that, when named by another entry's crossref, are its venue.
_CONTAINERS = frozenset(["proceedings", "mvproceedings", "book", "mvbook", "collection"])

_YEAR = re.compile(r"\d{4}")
_ISO_DATE = re.compile(r"(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?")
# Google Scholar's `arXiv preprint arXiv:1810.04805`, Zotero's `arXiv:2009.14524 [cs]`.
_JOURNAL_ARXIV = re.compile(
    r"^(?:arxiv preprint\s+)?(?:arxiv:)\s*(\S+)|^arxiv preprint\s+(\S+)", re.I
)
_MACRO_NAME = re.compile(r"[^\s\"#%'(),={}]+")


def _one_group(depth: int) -> str:
    """A braced group with up to `depth` groups nested, a backslash and the character after
    it taken together, as `group_end` reads it."""
    body = r"(?:[^{}\\]++|\\[\s\S])*+"
    for _ in range(depth):
        body = rf"(?:[^{{}}\\]++|\\[\s\S]|\{{{body}\}})*+"
    return rf"\{{{body}\}}"


# A value that is one braced group (`{{BERT}: Pre-training}`), checked at C speed: what
# `_part` finds with `group_end` when it is not sure.
_ONE_GROUP = re.compile(_one_group(5))
_DBLP_CORR = re.compile(r"^abs/(\S+)$")
_DBLP_BIBURL = re.compile(r"dblp\.(?:org|uni-trier\.de)/rec/(?:bibtex/)?(.+?)(?:\.bib)?$")
# A URL runs to a space or brace; `\%`, `\_`, `\&`, `\#` and `\~` are escaped characters in it.
_URL = re.compile(r"https?://(?:[^\s{}\\]|\\[%_&#~])+")
_URL_ESCAPE = re.compile(r"\\([%_&#~])")
_KEYWORD_SEP = re.compile(r"\s*[,;]\s*")


def read(text: str, path: Path) -> ReadResult:
    """Every entry of a BibTeX file with its paper record. Never raises for bad input."""
    try:
        return _read(text, path)
    except RecursionError:
        raise
    except Exception as err:  # a parser bug must not take the load down: name it
        return failed(FORMAT, path, f"BibTeX: could not be read ({type(err).__name__}: {err})")


def _read(text: str, path: Path) -> ReadResult:
    strings = dict(_PREDEFINED)
    # Keys as written: bibtexparser's rule for what is used twice (the first macro wins).
    string_keys: set[str] = set()
    entry_keys: set[str] = set()
    entries: list[Entry] = []
    # (line, message) of what went wrong, by kind, so that a badly broken file is summed up.
    problems: list[tuple[int, str]] = []
    duplicates: list[tuple[int, str]] = []
    odd_fields: list[tuple[int, str]] = []
    first_line: dict[str, int] = {}
    for block in blocks(text.lstrip("\ufeff")):
        if isinstance(block, Entry):
            entries.append(block)
            if block.key not in entry_keys:
                entry_keys.add(block.key)
                first_line.setdefault(block.key.lower(), block.line)
                continue
            first = first_line.get(block.key.lower())
            where = f"lines {first} and {block.line}" if first else f"line {block.line}"
            duplicates.append(
                (
                    block.line,
                    f"BibTeX: citekey {block.key!r} is used twice ({where}): both entries kept",
                )
            )
        elif isinstance(block, String):
            if block.key not in string_keys:
                string_keys.add(block.key)
                strings[block.key.lower()] = _macro(block, strings, odd_fields)
        else:
            problems.append((block.line, block.message))
    fields = [_fields(entry, strings, odd_fields) for entry in entries]
    containers = _resolve_crossrefs(entries, fields)
    texts: list[str] = []
    papers: list[Paper | None] = []
    empty: list[int] = []
    decoded: dict[str, str] = {}
    collapsed: dict[str, str] = {}
    for index, (entry, entry_fields) in enumerate(zip(entries, fields, strict=True)):
        if index in containers:
            continue
        title = entry_fields.get("title", "")
        abstract = collapse(entry_fields.get("abstract", ""))
        if not title.strip() and not abstract:
            empty.append(entry.line)
            continue
        texts.append(abstract)
        papers.append(_paper(entry.key, entry.kind, entry_fields, decoded, collapsed))
    warnings = [
        *_summed_up(duplicates, "citekeys used twice: all entries kept"),
        *_summed_up(odd_fields, "fields that run into the next one"),
    ]
    if empty:
        warnings.append(
            f"BibTeX: {_count(len(empty), 'entry', 'entries')} with neither title nor abstract "
            f"skipped ({_lines(empty)})"
        )
    if not texts:
        if problems:
            error = "; ".join(_summed_up(problems, "blocks that could not be read", limit=3))
            return failed(FORMAT, path, error, warnings)
        if entries:
            return failed(FORMAT, path, "BibTeX: no entry has a title or an abstract", warnings)
        return failed(
            FORMAT, path, "BibTeX: no entries in this file (expected @article{key, …} blocks)"
        )
    warnings[:0] = _summed_up(problems, "blocks that could not be read")
    return ReadResult(FORMAT, Collection(label=path.stem), texts, papers, warnings)


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _summed_up(items: list[tuple[int, str]], what: str, limit: int = 5) -> list[str]:
    """The first `limit` messages, then one line for the rest (`BibTeX: 40 more …`)."""
    if len(items) <= limit:
        return [message for _, message in items]
    rest = [line for line, _ in items[limit - 1 :]]
    shown = [message for _, message in items[: limit - 1]]
    return [*shown, f"BibTeX: {len(rest):,} more {what} ({_lines(rest)})"]


def _lines(lines: list[int]) -> str:
    shown = ", ".join(str(n) for n in lines[:5]) + (", …" if len(lines) > 5 else "")
    return f"line {shown}" if len(lines) == 1 else f"lines {shown}"


class _TwoValues(ValueError):
    """A field holding more than one value: a comma is missing before the next field."""

    def __init__(self, first: str) -> None:
        super().__init__(first)
        self.first = first


def _fields(entry: Entry, strings: dict[str, str], odd: list[tuple[int, str]]) -> dict[str, str]:
    """The entry's fields, names lower-cased, values with macros and `#` resolved."""
    out: dict[str, str] = {}
    for name, value in entry.fields.items():
        key = name.lower()
        if key in out:
            continue
        if (
            value[:1] == "{"
            and value[-1:] == "}"
            and "#" not in value
            and (value.count("{") == 1 or _ONE_GROUP.fullmatch(value) is not None)
        ):
            out[key] = value[1:-1]  # the common case, as `_value` reads it, without calls
            continue
        try:
            out[key] = _value(value, strings)
        except _TwoValues as err:
            out[key] = err.first
            odd.append(
                (
                    entry.line,
                    f"BibTeX: entry {entry.key!r} (line {entry.line}): field {key!r} runs into "
                    "the next one (a comma missing?); read up to the end of its first value",
                )
            )
    return out


def _macro(block: String, strings: dict[str, str], odd: list[tuple[int, str]]) -> str:
    """A `@string` macro's text; one holding two values (`{a} {b}`) gives its first, with a
    warning, as a field does."""
    try:
        return _value(block.value, strings)
    except _TwoValues as err:
        odd.append(
            (
                block.line,
                f"BibTeX: @string {block.key!r} (line {block.line}) runs into a second value "
                "(a # missing?); read up to the end of its first value",
            )
        )
        return err.first


def _value(raw: object, strings: dict[str, str]) -> str:
    """A field's text: its outer braces or quotes removed, macros replaced, parts joined."""
    if not isinstance(raw, str):
        return str(raw)
    raw = raw.strip()
    if "#" not in raw:
        return _part(raw, strings)
    return "".join(_part(p, strings) for p in _concatenated(raw))


def _part(part: str, strings: dict[str, str]) -> str:
    """One value: `{text}`, `"text"`, a number or a macro name (raises `_TwoValues`)."""
    part = part.strip()
    if part[:1] == "{":
        if part.count("{") == 1 and part.endswith("}"):
            return part[1:-1]  # the common case, without a scan: no group inside
        end = group_end(part, 0)
        if end < len(part):
            raise _TwoValues(part[1 : end - 1])
        return part[1:-1] if part.endswith("}") else part[1:]
    if part[:1] == '"':
        return part[1:-1] if len(part) >= 2 and part.endswith('"') else part[1:]
    if _MACRO_NAME.fullmatch(part) or not part:
        return strings.get(part.lower(), part)
    raise _TwoValues(strings.get(part.split()[0].lower(), part.split()[0]))


def _concatenated(raw: str) -> list[str]:
    """`"Proc. " # nips # {, 2020}` split at each `#` outside braces and quotes."""
    parts: list[str] = []
    depth = 0
    quoted = False
    start = 0
    for i, c in enumerate(raw):
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif c == '"' and depth == 0:
            quoted = not quoted
        elif c == "#" and depth == 0 and not quoted:
            parts.append(raw[start:i])
            start = i + 1
    parts.append(raw[start:])
    return parts


def _resolve_crossrefs(entries: list[Entry], fields: list[dict[str, str]]) -> set[int]:
    """Fill each entry's missing venue fields from the entry its `crossref` names.

    Returns the indices of the entries named that way that are containers (proceedings).
    """
    by_key: dict[str, int] = {}
    for i, entry in enumerate(entries):
        by_key.setdefault(entry.key.lower(), i)
    containers: set[int] = set()
    for entry_fields in fields:
        ref = entry_fields.get("crossref", "").strip().lower()
        parent_index = by_key.get(ref) if ref else None
        if parent_index is None:
            continue
        parent = fields[parent_index]
        for key in _INHERITED:
            if key not in entry_fields and key in parent:
                entry_fields[key] = parent[key]
        if "booktitle" not in entry_fields and "title" in parent:
            # A proceedings' title is the booktitle of its papers.
            entry_fields["booktitle"] = parent["title"]
        if entries[parent_index].kind in _CONTAINERS:
            containers.add(parent_index)
    return containers


def _paper(
    key: str, kind: str, f: dict[str, str], decoded: dict[str, str], collapsed: dict[str, str]
) -> Paper:
    """The paper record of one entry's resolved fields. `decoded` and `collapsed` keep
    what venues and other fields gave: a library names the same few venues again and
    again."""
    get = f.get
    ids: list[tuple[str, str]] = [("citekey", key)] if key else []
    links: list[tuple[str, str]] = []
    if doi := get("doi"):
        ids.append(("doi", doi))
    if eprint := get("eprint", "").strip():
        archive = (get("archiveprefix") or get("eprinttype") or "").strip().lower()
        if archive == "arxiv" or (not archive and normalise_arxiv(eprint)):
            ids.append(("arxiv", eprint))
    journal = get("journal", "")
    venue = journal or get("booktitle", "")
    if journal:
        preprint = _JOURNAL_ARXIV.match(journal.strip())
        if preprint is not None:
            ids.append(("arxiv", preprint.group(1) or preprint.group(2)))
            venue = "arXiv"
        corr = _DBLP_CORR.match(get("volume", "").strip())
        if corr is not None and journal.strip().lower() == "corr":
            ids.append(("arxiv", corr.group(1)))
    # `howpublished = {\\url{…}}` is how many cite an arXiv paper as @misc.
    for field in ("url", "ee", "pdf", "openreview", "howpublished"):
        value = get(field)
        for url in _urls(value) if value else ():
            url_ids, link = url_ids_and_link(url)
            ids.extend(url_ids)
            links.append(link)
    if (biburl := _DBLP_BIBURL.search(get("biburl", ""))) is not None:
        ids.append(("dblp", biburl.group(1)))
    elif key.startswith("DBLP:"):
        ids.append(("dblp", key[5:]))
    for kind_name in ("isbn", "pmid"):
        if value := get(kind_name):
            ids.append((kind_name, value.strip()))
    year, date = _year_and_date(f)
    keywords = get("keywords")
    if venue and (shown := decoded.get(venue)) is None:
        shown = decoded[venue] = decode(venue)
    extra = []
    for name in _EXTRA:
        if (value := get(name)) is not None:
            if (plain := collapsed.get(value)) is None:
                plain = collapsed[value] = collapse(value)
            extra.append((name, plain))
    return Paper(
        title=decode(get("title", "")) or None,
        authors=bibtex_authors(get("author", "")),
        venue=shown if venue else None,
        year=year,
        date=date,
        ids=tuple(ids),
        links=tuple(links),
        keywords=tuple([k for k in _KEYWORD_SEP.split(decode(keywords)) if k]) if keywords else (),
        kind=kind,
        extra=tuple(extra),
    )


def _urls(value: str) -> list[str]:
    """The URLs in a field: one (Zotero, DBLP), several, or in `\\url{…}` inside a note."""
    if "://" not in value:
        return []
    return [_URL_ESCAPE.sub(r"\1", m.group(0)).rstrip(".,;)") for m in _URL.finditer(value)]


def _year_and_date(f: dict[str, str]) -> tuple[int | None, str | None]:
    """The year (int) and date (`2020`, `2020-07`, `2020-07-13`) from year/month or date."""
    if date := f.get("date"):
        iso = _ISO_DATE.match(date.strip())
        if iso is not None:
            parts = [iso.group(1)] + [f"{int(p):02d}" for p in iso.groups()[1:] if p]
            return int(iso.group(1)), "-".join(parts)
    text = f.get("year", "")
    if len(text) == 4 and text.isdigit() and text.isascii():
        year = int(text)  # the common case, as the pattern reads it, without a search
    elif (found := _YEAR.search(text)) is not None:
        year = int(found.group(0))
    else:
        return None, None
    month = _month(f["month"]) if "month" in f else None
    return year, f"{year}-{month:02d}" if month else str(year)


def _month(value: str) -> int | None:
    """1..12 from `jul`, `July`, `{Jul.}` or `7`, else None."""
    value = value.strip(" {}.").lower()
    if value.isdigit():
        number = int(value)
        return number if 1 <= number <= 12 else None
    return _MONTHS.index(value[:3]) + 1 if value[:3] in _MONTHS else None
