"""The arXiv API's Atom pages in, the library's Atom files out.

A page is parsed with defusedxml (no entity expansion, no external fetches), as the
feed reader does. Only what fetching needs is read here (the paging counts, each
entry's arXiv id, version and submission date); the entries themselves are written
back unchanged into the library's files, so the feed reader sees exactly what arXiv
sent (title, authors, summary, categories, DOI, links).

Schema: https://info.arxiv.org/help/api/user-manual.html#_details_of_atom_results_returned
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import datetime
from xml.etree import ElementTree as ET
from xml.etree.ElementTree import Element

from tui.corpus.paper import split_arxiv

ATOM = "http://www.w3.org/2005/Atom"
OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/"
ARXIV = "http://arxiv.org/schemas/atom"
_NAMESPACES = {"": ATOM, "opensearch": OPENSEARCH, "arxiv": ARXIV}


class PageError(Exception):
    """A page that is not a whole API answer (cut short, not XML): worth asking again."""


class ApiError(Exception):
    """The API answered with its error entry (a malformed query, say): not worth retrying."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One paper of a page: its arXiv id (no version), version, submission time, element."""

    arxiv: str
    version: int
    published: datetime | None
    element: Element


@dataclass(frozen=True, slots=True)
class Page:
    """One answer of the API: `total` results of the query, this page's `start`, its entries."""

    total: int
    start: int
    per_page: int
    entries: tuple[Entry, ...]


def _int(root: Element, name: str) -> int | None:
    found = root.find(f"{{{OPENSEARCH}}}{name}")
    if found is None or not (found.text or "").strip().isdigit():
        return None
    return int((found.text or "").strip())


def parse_time(text: str | None) -> datetime | None:
    """An Atom date-time (`2026-12-01T18:59:59Z`) as an aware datetime, or None."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None


def parse_page(data: bytes) -> Page:
    """The paging counts and entries of one API answer. Raises PageError for a page that
    is cut short or not an Atom feed, ApiError for the API's own error entry."""
    from defusedxml import DefusedXmlException
    from defusedxml import ElementTree as SafeET

    try:
        root = SafeET.fromstring(data)
    except (ET.ParseError, DefusedXmlException) as e:
        raise PageError(f"the answer is not a whole Atom feed ({e})") from e
    if root.tag != f"{{{ATOM}}}feed":
        raise PageError(f"the answer is not an Atom feed (root {root.tag})")
    total = _int(root, "totalResults")
    if total is None:
        raise PageError("the answer has no opensearch:totalResults")
    entries: list[Entry] = []
    for element in root.findall(f"{{{ATOM}}}entry"):
        raw_id = (element.findtext(f"{{{ATOM}}}id") or "").strip()
        if "api/errors" in raw_id:
            summary = (element.findtext(f"{{{ATOM}}}summary") or "an error").strip()
            raise ApiError(f"the arXiv API refused the query: {summary}")
        found = split_arxiv(raw_id)
        if found is None:
            continue  # not a paper (nothing the library could identify)
        published = parse_time(element.findtext(f"{{{ATOM}}}published"))
        entries.append(Entry(found[0], found[1] or 1, published, element))
    start = _int(root, "startIndex") or 0
    per_page = _int(root, "itemsPerPage") or len(entries)
    return Page(total, start, per_page, tuple(entries))


def feed_bytes(
    title: str, feed_id: str, updated: datetime, entries: list[Element], *, indent: bool = True
) -> bytes:
    """An Atom feed holding `entries` as the API sent them, as the library stores it
    (`indent`: laid out for a person to read; the fetch's own page files are not)."""
    for prefix, uri in _NAMESPACES.items():
        # Atom as the default namespace, the others as arXiv writes them.
        ET.register_namespace(prefix, uri)
    root = Element(f"{{{ATOM}}}feed")
    ET.SubElement(root, f"{{{ATOM}}}title").text = title
    ET.SubElement(root, f"{{{ATOM}}}id").text = feed_id
    ET.SubElement(root, f"{{{ATOM}}}link", href=feed_id, rel="self", type="application/atom+xml")
    ET.SubElement(root, f"{{{ATOM}}}updated").text = updated.strftime("%Y-%m-%dT%H:%M:%SZ")
    ET.SubElement(root, f"{{{OPENSEARCH}}}totalResults").text = str(len(entries))
    ET.SubElement(root, f"{{{OPENSEARCH}}}startIndex").text = "0"
    ET.SubElement(root, f"{{{OPENSEARCH}}}itemsPerPage").text = str(len(entries))
    root.extend(entries)
    if indent:
        ET.indent(root)
    out = io.BytesIO()
    ET.ElementTree(root).write(out, encoding="utf-8", xml_declaration=True)
    return out.getvalue()


def page_entries(data: bytes) -> list[Element]:
    """The entries of a page stored by a fetch under way (read back when it resumes)."""
    return [entry.element for entry in parse_page(data).entries]
