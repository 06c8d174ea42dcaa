"""What a source says about a paper beyond its abstract: title, authors, ids, links.

A conference text file gives only abstracts; a BibTeX library, an arXiv feed or a
Semantic Scholar export also give each paper's title, authors, venue, year,
identifiers and links. `Paper` holds those (every field optional), `Author` one
author, and the functions here turn identifiers into their canonical forms and
into the 16-hex-digit ids the store keys everything by.

Identity follows the paper, not the file: a paper's id comes from its DOI, else
its arXiv id (without version), else its OpenReview id, else its text (as for
conference abstracts). The same paper read from two sources is one paper.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from tui.corpus._record import Record
from tui.corpus.spaces import collapse

# Identifier kinds in the order a paper's id is chosen from them.
ID_PRIORITY = ("doi", "arxiv", "openreview")
# Kinds shown and matched by `id:` besides those (a citekey is a name, not an identity).
ID_KINDS = (*ID_PRIORITY, "citekey", "s2", "pmid", "dblp", "isbn", "url")

_DOI = re.compile(r"10\.\d{4,9}/\S+", re.IGNORECASE)
_ARXIV_NEW = re.compile(r"(?<![\w.])(\d{4}\.\d{4,5})(v\d+)?(?![\w.])")
_ARXIV_OLD = re.compile(r"(?<![\w.])([a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(v\d+)?(?![\w.])")
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf|html)/([^\s?#]+?)(?:\.pdf)?(?:[?#]\S*)?$", re.I)
_OPENREVIEW_URL = re.compile(r"openreview\.net/(?:forum|pdf)\?id=([\w-]+)", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(r"^arxiv:\s*", re.IGNORECASE)
# An id already in canonical form (`2101.00001`): what most sources give.
_ARXIV_BARE = re.compile(r"\d{4}\.\d{4,5}")
# arXiv's own DOIs (DataCite, 10.48550/arXiv.2101.00001) name an arXiv paper: the
# arXiv id is its identity, so a feed and a library that cites the DOI agree.
_ARXIV_DOI_PREFIX = "10.48550/arxiv."


def normalise_doi(value: str) -> str | None:
    """The bare DOI in lower case (`10.1145/3292500`), from a DOI, `doi:` or a doi.org URL."""
    m = _DOI.search(value.strip())
    if m is None:
        return None
    return m.group(0).rstrip(".,;)]}").lower()


def split_arxiv(value: str) -> tuple[str, int | None] | None:
    """(arXiv id without version, version or None) from an id, `arXiv:` form or URL."""
    text = value.strip()
    if _ARXIV_BARE.fullmatch(text):
        return text, None
    m = _ARXIV_URL.search(text)
    if m is not None:
        text = m.group(1)
    text = _ARXIV_PREFIX.sub("", text)
    for pattern in (_ARXIV_NEW, _ARXIV_OLD):
        found = pattern.search(text)
        if found is not None:
            version = int(found.group(2)[1:]) if found.group(2) else None
            return found.group(1), version
    return None


def normalise_arxiv(value: str) -> str | None:
    """The arXiv id without its version (`2101.00001`, `hep-th/9901001`), or None."""
    found = split_arxiv(value)
    return found[0] if found else None


def openreview_from_url(value: str) -> str | None:
    """The OpenReview id in a forum or PDF link, or None."""
    m = _OPENREVIEW_URL.search(value)
    return m.group(1) if m else None


def canonical_ids(pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Identifiers in canonical form, each (kind, value) once, in first-seen order.

    DOIs lower-cased and bare; arXiv ids without version; an arXiv DOI becomes the
    arXiv id. Values that do not parse as their kind are dropped.
    """
    out: dict[tuple[str, str], None] = {}
    for kind, raw in pairs:
        if not raw:
            continue
        kind = kind.lower()
        value: str | None = str(raw).strip()
        if kind == "doi":
            value = normalise_doi(value or "")
            # normalise_doi lower-cases: a prefix test is `_ARXIV_DOI.match`.
            if value is not None and value.startswith(_ARXIV_DOI_PREFIX):
                arxiv = normalise_arxiv(value[len(_ARXIV_DOI_PREFIX) :])
                if arxiv is not None:
                    out[("arxiv", arxiv)] = None
                    continue
        elif kind == "arxiv":
            value = normalise_arxiv(value or "")
        if value:
            out[(kind, value)] = None
    return tuple(out)


def _hex_id(key: str) -> str:
    import hashlib

    return hashlib.blake2b(key.encode("utf-8"), digest_size=8).hexdigest()


def identity_keys(ids: Iterable[tuple[str, str]]) -> list[str]:
    """The keys that make two records one paper (`doi:…`, `arxiv:…`, `openreview:…`)."""
    return [f"{kind}:{value.lower()}" for kind, value in ids if kind in ID_PRIORITY]


def id_from_ids(ids: Iterable[tuple[str, str]]) -> str | None:
    """The paper id its best identifier gives (DOI, else arXiv, else OpenReview), or None."""
    by_kind = {kind: value for kind, value in reversed(list(ids)) if kind in ID_PRIORITY}
    for kind in ID_PRIORITY:
        if kind in by_kind:
            return _hex_id(f"{kind}:{by_kind[kind].lower()}")
    return None


class Author(Record):
    """One author: `family` (the name to sort and search by) and `given` (may be empty)."""

    __match_args__ = ("family", "given")
    __slots__ = __match_args__
    family: str
    given: str

    def __init__(self, family: str, given: str = "") -> None:
        object.__setattr__(self, "family", family)
        object.__setattr__(self, "given", given)

    @property
    def name(self) -> str:
        """`Ada Lovelace` (given then family), or the family name alone."""
        return f"{self.given} {self.family}".strip() if self.given else self.family

    @property
    def is_others(self) -> bool:
        """BibTeX's `and others` (a source's `et al.`): more authors, not one named Others."""
        return not self.given and self.family.casefold() == "others"

    @classmethod
    def parse(cls, text: str) -> Author:
        """An author from `Family, Given`, `Given Family` or `Given von Family`.

        A library names the same authors again and again: each name is parsed once
        (authors are immutable, so papers share them).
        """
        if cls is not Author:
            return cls._parse(text)
        found = _PARSED.get(text)
        if found is None:
            found = cls._parse(text)
            if len(_PARSED) >= _PARSED_MAX:
                _PARSED.clear()  # a bound for hostile files; real ones repeat names
            _PARSED[text] = found
        return found

    @classmethod
    def _parse(cls, text: str) -> Author:
        text = collapse(text).strip(" ,;")
        if "," in text:
            family, _, given = text.partition(",")
            return cls(family.strip(), given.strip())
        words = text.split(" ")
        if len(words) == 1:
            return cls(words[0])
        # Lower-case particles (von, van der, de la) belong to the family name.
        start = len(words) - 1
        while start > 1 and words[start - 1][:1].islower():
            start -= 1
        return cls(" ".join(words[start:]), " ".join(words[:start]))


_PARSED: dict[str, Author] = {}
_PARSED_MAX = 100_000


class Paper(Record):
    """What a source says about a paper (every field may be missing).

    `ids` are canonical (kind, value) pairs (see `canonical_ids`); `links` are
    (kind, url) pairs, kind `page` or `pdf` (or another the source names);
    `extra` keeps other bibliographic fields an export should carry (pages, volume,
    publisher, ...); `kind` is the entry type (`article`, `inproceedings`, ...).
    """

    __match_args__ = (
        "title",
        "authors",
        "venue",
        "year",
        "date",
        "ids",
        "links",
        "keywords",
        "kind",
        "extra",
    )
    __slots__ = __match_args__
    title: str | None
    authors: tuple[Author, ...]
    venue: str | None
    year: int | None
    date: str | None
    ids: tuple[tuple[str, str], ...]
    links: tuple[tuple[str, str], ...]
    keywords: tuple[str, ...]
    kind: str | None
    extra: tuple[tuple[str, str], ...]

    def __init__(
        self,
        title: str | None = None,
        authors: tuple[Author, ...] = (),
        venue: str | None = None,
        year: int | None = None,
        date: str | None = None,
        ids: tuple[tuple[str, str], ...] = (),
        links: tuple[tuple[str, str], ...] = (),
        keywords: tuple[str, ...] = (),
        kind: str | None = None,
        extra: tuple[tuple[str, str], ...] = (),
    ) -> None:
        _set = object.__setattr__
        _set(self, "title", collapse(title) if title else None)
        _set(self, "authors", tuple(authors))
        _set(self, "venue", collapse(venue) if venue else None)
        _set(self, "year", year)
        _set(self, "date", date or None)
        _set(self, "ids", canonical_ids(ids))
        # List comprehensions: faster than generators, for every paper of a library.
        _set(self, "links", tuple([(k, u) for k, u in links if u]))
        _set(self, "keywords", tuple([k for k in keywords if k]))
        _set(self, "kind", kind or None)
        _set(self, "extra", tuple([(k, v) for k, v in extra if v]))

    def id_of(self, kind: str) -> str | None:
        """The first identifier of `kind` (`doi`, `arxiv`, `citekey`, ...), or None."""
        return next((value for k, value in self.ids if k == kind), None)

    def link(self, kind: str) -> str | None:
        """The first link of `kind` (`page`, `pdf`), or None."""
        return next((url for k, url in self.links if k == kind), None)

    @property
    def version(self) -> int | None:
        """The arXiv version the source gave (`2101.00001v2` -> 2), or None."""
        value = next((v for k, v in self.extra if k == "version"), "")
        return int(value) if value.isdigit() else None

    @property
    def page_url(self) -> str | None:
        """The paper's page: the source's link, else one its DOI, arXiv or OpenReview id gives."""
        url = self.link("page")
        if url:
            return url
        if doi := self.id_of("doi"):
            return f"https://doi.org/{doi}"
        if arxiv := self.id_of("arxiv"):
            return f"https://arxiv.org/abs/{arxiv}"
        if openreview := self.id_of("openreview"):
            return f"https://openreview.net/forum?id={openreview}"
        return self.id_of("url")

    @property
    def pdf_url(self) -> str | None:
        """The paper's PDF: the source's link, else arXiv's or OpenReview's, or None."""
        url = self.link("pdf")
        if url:
            return url
        if arxiv := self.id_of("arxiv"):
            return f"https://arxiv.org/pdf/{arxiv}"
        if openreview := self.id_of("openreview"):
            return f"https://openreview.net/pdf?id={openreview}"
        return None

    @property
    def named_authors(self) -> tuple[Author, ...]:
        """The authors with names: without the `others` that stands for the rest."""
        if not self.authors or not self.authors[-1].is_others:
            return self.authors
        return tuple(a for a in self.authors if not a.is_others)

    @property
    def more_authors(self) -> bool:
        """The source lists only some of the authors (`and others`, `et al.`)."""
        return any(a.is_others for a in self.authors)

    @property
    def first_author(self) -> str | None:
        """`Lovelace et al.`, `Lovelace and Babbage`, `Lovelace`, or None."""
        named = self.named_authors
        if not named:
            return None
        first = named[0].family
        if len(named) == 1:
            return f"{first} et al." if self.more_authors else first
        if len(named) == 2 and not self.more_authors:
            return f"{first} and {named[1].family}"
        return f"{first} et al."

    def merged(self, other: Paper) -> Paper:
        """This paper with what `other` adds: missing fields filled, ids, links and keywords joined."""
        return Paper(
            title=self.title or other.title,
            authors=self.authors or other.authors,
            venue=self.venue or other.venue,
            year=self.year or other.year,
            date=self.date or other.date,
            ids=self.ids + other.ids,
            links=self.links + tuple(p for p in other.links if p not in self.links),
            keywords=self.keywords + tuple(k for k in other.keywords if k not in self.keywords),
            kind=self.kind or other.kind,
            extra=self.extra
            + tuple(p for p in other.extra if p[0] not in {k for k, _ in self.extra}),
        )

    def to_json(self) -> dict[str, Any]:
        """The fields as JSON values (authors as `{family, given}`; ids as `{kind: value}`)."""
        ids: dict[str, str] = {}
        for kind, value in self.ids:
            ids.setdefault(kind, value)
        # The first link of each kind, in the order given (so from_json gives them back).
        links: dict[str, str] = {}
        for kind, url in self.links:
            links.setdefault(kind, url)
        return {
            "title": self.title,
            "authors": [{"family": a.family, "given": a.given} for a in self.authors],
            "venue": self.venue,
            "year": self.year,
            "date": self.date,
            "ids": ids,
            "links": links,
            "keywords": list(self.keywords),
            "kind": self.kind,
            "extra": dict(self.extra),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Paper:
        """The inverse of `to_json` (unknown or ill-typed values dropped, never raised)."""

        def text(value: object) -> str | None:
            return value if isinstance(value, str) and value else None

        authors = []
        listed = data.get("authors")
        for a in listed if isinstance(listed, list) else ():
            if isinstance(a, Mapping) and isinstance(a.get("family"), str):
                given = a.get("given")
                authors.append(Author(a["family"], given if isinstance(given, str) else ""))
        year = data.get("year")

        def pairs(value: object) -> tuple[tuple[str, str], ...]:
            if not isinstance(value, Mapping):
                return ()
            return tuple((str(k), v) for k, v in value.items() if isinstance(v, str))

        keywords = data.get("keywords")
        return cls(
            title=text(data.get("title")),
            authors=tuple(authors),
            venue=text(data.get("venue")),
            year=year if isinstance(year, int) and not isinstance(year, bool) else None,
            date=text(data.get("date")),
            ids=pairs(data.get("ids")),
            links=pairs(data.get("links")),
            keywords=tuple(k for k in keywords if isinstance(k, str))
            if isinstance(keywords, list)
            else (),
            kind=text(data.get("kind")),
            extra=pairs(data.get("extra")),
        )
