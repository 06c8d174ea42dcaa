"""Atom and RSS feeds of papers: the arXiv API's Atom, arXiv's listing feeds, any paper feed.

Parsed with defusedxml over the standard library's expat parser, which refuses
entity declarations (so no billion laughs from the file) and external entities,
and never fetches a DTD; a file without a DTD (where neither can be) goes straight
to the standard library's C parser, the same expat without Python callbacks. feedparser was measured beside it (bench/readers_feed.py):
it reads a truncated feed without saying so, and is several times slower.

Elements are matched by local name, so the Atom, RSS 2.0 and RSS 1.0 (RDF)
spellings and their namespaced extensions (`arxiv:doi`, `dc:creator`,
`prism:doi`) read alike.
"""

from __future__ import annotations

import html
import re
import urllib.parse
from pathlib import Path
from xml.etree import ElementTree
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException, DTDForbidden, EntitiesForbidden
from defusedxml import ElementTree as SafeET

from tui.corpus.model import Collection
from tui.corpus.paper import Author, Paper, openreview_from_url, split_arxiv
from tui.corpus.readers import ReadResult, failed
from tui.corpus.readers._fields import count, date_of, split_authors, year_of
from tui.corpus.spaces import collapse

FORMAT = "feed"
# arXiv listing feeds open each description with `arXiv:ID Announce Type: new Abstract:`.
_ANNOUNCE = re.compile(
    r"^\s*arXiv:\s*(\S+)\s+Announce Type:\s*[\w-]+\s*(?:Abstract:\s*)?", re.IGNORECASE
)
# An HTML tag: its name, then attributes after a space (never a `$`, so `$0<a<b>1$`
# in a LaTeX abstract is not taken for a link).
_HTML_TAG = re.compile(
    r"</?(?:p|br|div|span|a|em|i|b|strong|sub|sup|ul|ol|li|h[1-6]|img|blockquote|code)"
    r"(?:\s[^<>$]*)?/?>",
    re.IGNORECASE,
)
# arXiv's RSS 1.0 feeds (before 2024) end each title with its id and category.
_TITLE_ID = re.compile(r"\.?\s*\(arXiv:\s*([^\s\[\]()]+)\s*(?:\[([^\]]*)\])?[^)]*\)\s*$")
_DOI_PREFIX = re.compile(r"^(?:doi:|info:doi/)\s*", re.IGNORECASE)


_LOCAL_NAMES: dict[object, str] = {}
_OAI_PREFIX = re.compile(r"^oai:arXiv\.org:", re.IGNORECASE)
_ATOM_DATE = re.compile(r"(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?:T|$)")
_NEW_STYLE_ID = re.compile(r"\d{4}\.")
_NAME_IN_BRACKETS = re.compile(r"\(([^)]+)\)")


def _local(tag: object) -> str:
    """`{http://www.w3.org/2005/Atom}entry` -> `entry` (comments' tags are not strings)."""
    name = _LOCAL_NAMES.get(tag)
    if name is None:
        name = tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""
        if len(_LOCAL_NAMES) < 1000:  # a feed has a few dozen names; a hostile one, more
            _LOCAL_NAMES[tag] = name
    return name


def _child_text(element: Element, name: str) -> str:
    """The text of `element`'s first child called `name` (any namespace), or ""."""
    for child in element:
        if _local(child.tag) == name:
            return _text(child)
    return ""


def _text(element: Element | None) -> str:
    """An element's whole text (children's too, as an XHTML summary has), collapsed."""
    if element is None:
        return ""
    if len(element) == 0 and isinstance(element.tag, str):
        return collapse(element.text or "")  # no children: its text is all of it
    return collapse("".join(element.itertext()))


def _prose(element: Element | None) -> str:
    """A summary or description as plain text: HTML tags removed (a feed may escape HTML
    into it), whitespace collapsed; LaTeX kept (the app renders it)."""
    text = _text(element)
    if _HTML_TAG.search(text):
        text = html.unescape(_HTML_TAG.sub(" ", text))
        text = collapse(text)
    return text


class _Entry:
    """One entry's child elements by local name (several for `author`, `link`, `category`)."""

    def __init__(self, element: Element) -> None:
        self.children: dict[str, list[Element]] = {}
        for child in element:
            self.children.setdefault(_local(child.tag), []).append(child)

    def first(self, *names: str) -> Element | None:
        for name in names:
            found = self.children.get(name)
            if found:
                return found[0]
        return None

    def all(self, name: str) -> list[Element]:
        return self.children.get(name, [])

    def text(self, *names: str) -> str:
        return _text(self.first(*names))


def _date(text: str) -> str | None:
    """An ISO date from an Atom date (`2021-01-01T18:59:59Z`) or an RSS one (RFC 822)."""
    if not text:
        return None
    if _ATOM_DATE.match(text):
        return text[:10]  # the common case, without the general parse
    iso = date_of(text)
    if iso is not None:
        return iso
    from email.utils import parsedate_to_datetime

    try:
        return parsedate_to_datetime(text).date().isoformat()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _authors(entry: _Entry) -> tuple[Author, ...]:
    """Atom `author/name`, else `dc:creator` (one element each, or one comma-separated),
    else RSS `author` (`ada@example.org (Ada Lovelace)`)."""
    names = [_child_text(a, "name") for a in entry.all("author")]
    names = [n for n in names if n]
    if names:
        return tuple(Author.parse(n) for n in names)
    # arXiv's RSS 1.0 feeds link each name (`<a href=...>Ada Lovelace</a>`, escaped).
    creators = [_prose(c) for c in entry.all("creator")]
    creators = [c for c in creators if c]
    if len(creators) == 1:
        return split_authors(creators[0])
    if creators:
        return tuple(Author.parse(c) for c in creators)
    out: list[Author] = []
    for element in entry.all("author"):
        raw = _text(element)
        m = _NAME_IN_BRACKETS.search(raw)
        name = m.group(1) if m else raw if "@" not in raw else ""
        if name:
            out.extend(split_authors(name))
    return tuple(out)


def _links(entry: _Entry) -> tuple[list[tuple[str, str]], str]:
    """(page and pdf links, the entry's main link)."""
    links: list[tuple[str, str]] = []
    main = ""
    for link in entry.all("link"):
        href = (link.get("href") or _text(link)).strip()
        if not href:
            continue
        rel = link.get("rel", "alternate")
        if link.get("title") == "pdf" or link.get("type") == "application/pdf":
            links.append(("pdf", href))
        elif rel == "alternate":
            links.append(("page", href))
            main = main or href
    return links, main


def _entry(element: Element, arxiv_feed: bool) -> tuple[str, Paper | None]:
    """One Atom entry or RSS item as (abstract, paper); paper None when it has neither
    a title nor an abstract."""
    entry = _Entry(element)
    title = entry.text("title")
    title_id = _TITLE_ID.search(title)
    if title_id is not None:
        title = title[: title_id.start()]
    summary_element = entry.first("summary", "description", "abstract", "content", "encoded")
    abstract = _prose(summary_element)
    links, main = _links(entry)
    ids: list[tuple[str, str]] = []
    extra: list[tuple[str, str]] = []
    venue: str | None = None

    guid = entry.text("id", "guid", "identifier")
    announce = _ANNOUNCE.match(abstract)
    if announce is not None:
        abstract = abstract[announce.end() :]
    candidates = [announce.group(1)] if announce else []
    if title_id is not None:
        candidates.append(title_id.group(1))
    candidates += [c for c in (guid, main) if "arxiv" in c.lower()]
    arxiv = None
    for candidate in candidates:
        arxiv = split_arxiv(_OAI_PREFIX.sub("", candidate))
        if arxiv is not None:
            break
    if arxiv is not None:
        ids.append(("arxiv", arxiv[0]))
        if arxiv[1] is not None:
            extra.append(("version", str(arxiv[1])))
        venue = "arXiv"
    elif guid or main:
        openreview = openreview_from_url(main) or openreview_from_url(guid)
        if openreview:
            ids.append(("openreview", openreview))
    doi = _DOI_PREFIX.sub("", entry.text("doi"))
    if doi:
        ids.append(("doi", doi))
    for element_id in entry.all("identifier"):
        value = _text(element_id)
        if value.lower().startswith(("doi:", "info:doi/", "10.")):
            ids.append(("doi", _DOI_PREFIX.sub("", value)))
    if main and not ids:
        ids.append(("url", main))

    keywords: list[str] = []
    if title_id is not None and title_id.group(2):
        keywords.append(title_id.group(2).split()[0])
    primary = entry.first("primary_category")
    if primary is not None and primary.get("term"):
        keywords.append(primary.get("term", ""))
        extra.append(("primary_class", primary.get("term", "")))
    for category in entry.all("category") + entry.all("subject"):
        term = category.get("term") or _text(category)
        if term and term not in keywords:
            keywords.append(term)

    published = _date(entry.text("published", "pubDate", "date", "issued"))
    updated = _date(entry.text("updated", "modified"))
    date = published or updated
    if updated and published and updated != published:
        extra.append(("updated", updated))
    year = year_of(date) if date else None
    new_style = arxiv is not None and _NEW_STYLE_ID.match(arxiv[0])
    if arxiv is not None and new_style and (announce is not None or year is None):
        # A listing's date is the day it was announced, which for a replaced or
        # cross-listed paper is not its own: its new-style arXiv id gives its year.
        year = 2000 + int(arxiv[0][:2])
        if date and year_of(date) != year:
            extra.append(("announced", date))
            date = None
    for name, field in (("journal_ref", "journal_ref"), ("comment", "comment")):
        value = entry.text(name)
        if value:
            extra.append((field, value))
    venue = entry.text("publicationName") or venue or (None if not arxiv_feed else "arXiv")
    if not title and not abstract:
        return "", None
    paper = Paper(
        title=title or None,
        authors=_authors(entry),
        venue=venue,
        year=year,
        date=date,
        ids=tuple(ids),
        links=tuple(links),
        keywords=tuple(keywords),
        kind="misc" if arxiv is not None else None,
        extra=tuple(extra),
    )
    return abstract, paper


def _position(err: ParseError) -> str:
    line, column = getattr(err, "position", (0, 0))
    reason = str(err).split(":", 1)[0]
    return f"line {line}, column {column + 1}: {reason}"


def read(text: str, path: Path) -> ReadResult:
    """Every entry of an Atom or RSS feed as a paper. Never raises for bad input."""
    body = text.lstrip("\ufeff")
    # Entities can only be declared, and external ones named, in a DTD: a file without
    # one is safe for the standard library's C parser (defusedxml drives the same expat
    # parser from Python callbacks, a quarter slower); one with a DTD goes to defusedxml.
    safe = "<!DOCTYPE" not in body and "<!ENTITY" not in body
    try:
        root = ElementTree.fromstring(body) if safe else SafeET.fromstring(body)
    except EntitiesForbidden as err:
        if err.sysid or err.pubid:
            return failed(
                FORMAT,
                path,
                f"XML declares an external entity ({err.name!r} -> {err.sysid or err.pubid}): "
                "refused, nothing fetched or loaded",
            )
        return failed(
            FORMAT,
            path,
            f"XML declares entities ({err.name!r} and maybe more): refused unexpanded, "
            "as a billion-laughs file would otherwise fill the memory; nothing loaded",
        )
    except DTDForbidden:
        return failed(FORMAT, path, "XML with a DTD the reader will not fetch: refused")
    except DefusedXmlException as err:
        return failed(FORMAT, path, f"XML refused as unsafe ({type(err).__name__})")
    except ParseError as err:
        return failed(FORMAT, path, f"broken XML at {_position(err)}")
    root_name = _local(root.tag)
    if root_name == "feed":
        channel = root
        items = [e for e in root if _local(e.tag) == "entry"]
    elif root_name in ("rss", "RDF"):
        channel = next((e for e in root if _local(e.tag) == "channel"), root)
        items = [e for e in root.iter() if _local(e.tag) == "item"]
    else:
        return failed(
            FORMAT,
            path,
            f"XML whose root is <{root_name}>, not an Atom <feed> or an RSS <rss>: "
            "no papers to read",
        )
    head = _Entry(channel)
    feed_title = head.text("title")
    link = " ".join(_text(e) or e.get("href", "") for e in head.all("link"))
    arxiv_feed = "arxiv.org" in link.lower() or "arxiv.org" in head.text("id").lower()
    collection = Collection(label=_label(feed_title) or path.stem)

    warnings: list[str] = []
    texts: list[str] = []
    papers: list[Paper | None] = []
    empty = 0
    for position, item in enumerate(items, start=1):
        if position == 1 and "api/errors" in _Entry(item).text("id"):
            reason = _Entry(item).text("summary") or "an error"
            return failed(FORMAT, path, f"the arXiv API answered with an error: {reason}")
        body, paper = _entry(item, arxiv_feed)
        if paper is None:
            empty += 1
            continue
        texts.append(body)
        papers.append(paper)
    if empty:
        warnings.append(
            f"{count(empty, 'entry', 'entries')} with neither a title nor an abstract skipped"
        )
    total = head.text("totalResults")
    if total.isdigit() and int(total) > len(items):
        warnings.append(
            f"the feed reports {int(total):,} results but this file holds {len(items):,} "
            "(the rest are on later pages of the query)"
        )
    if not texts:
        what = "no entries" if not items else "no entry with a title or an abstract"
        return failed(FORMAT, path, f"{'Atom' if root_name == 'feed' else 'RSS'} feed with {what}")
    return ReadResult(FORMAT, collection, texts, papers, warnings)


_ARXIV_QUERY = re.compile(r"^\s*arxiv\s+query:\s*", re.IGNORECASE)


def _label(feed_title: str) -> str:
    """The collection's name from the feed's title. The arXiv API titles its answers
    `ArXiv Query: search_query=cat:cs.LG&id_list=&start=0&max_results=50`: that becomes
    `arXiv: cat:cs.LG` (or `arXiv: 2101.00001, ...` for a list of ids)."""
    found = _ARXIV_QUERY.match(feed_title)
    if found is None:
        return feed_title
    asked = urllib.parse.parse_qs(html.unescape(feed_title[found.end() :]))
    what = " ".join(asked.get("search_query", [])) or ", ".join(asked.get("id_list", []))
    return f"arXiv: {collapse(what)}" if what.strip() else "arXiv"
