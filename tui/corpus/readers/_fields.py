"""Field names and values shared by the readers of keyed records (JSON objects, CSV rows).

Exports name the same thing many ways (`Abstract Note`, `paperAbstract`,
`summary`; `Publication Year`, `issued`): `FIELDS` maps each name, lower-cased
with everything but letters and digits removed, to the field it means, and the
helpers turn the values exports write (author strings in three conventions,
dates in several) into a `Paper`'s fields.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from tui.corpus.paper import Author
from tui.corpus.spaces import collapse

# Normalised name -> field. Only names whose meaning is unambiguous are here.
FIELDS: dict[str, str] = {}
for _field, _names in {
    "title": "title papertitle articletitle name_of_paper",
    "abstract": "abstract summary paperabstract abstractnote abstracttext description",
    "authors": "authors author authorlist authornames creators creator",
    "venue": (
        "venue journal booktitle containertitle publicationtitle publication "
        "journalname conference conferencename proceedingstitle publicationvenue source"
    ),
    "year": "year publicationyear pubyear yearpublished",
    "date": "date published publicationdate pubdate issued datepublished publishedat",
    "doi": "doi",
    "url": "url link href pageurl paperurl",
    "pdf": "pdf pdfurl pdflink openaccesspdf",
    "arxiv": "arxiv arxivid eprint arxivnumber",
    "keywords": "keywords keyword tags tag categories category subjects manualtags fieldsofstudy",
    "citekey": "citationkey citekey bibtexkey",
    "kind": "type itemtype entrytype",
    "pages": "pages page",
    "volume": "volume",
    "issue": "issue",
    "publisher": "publisher",
}.items():
    for _name in _names.split():
        FIELDS[_name.replace("_", "")] = _field

_NOT_KEY = re.compile(r"[^0-9a-z]+")
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})(?:[-/](\d{1,2})(?:[-/](\d{1,2}))?)?(?!\d)")
_ET_AL = re.compile(r"\s*(?:,\s*)?(?:et\s+al\.?|and\s+others)\s*$", re.IGNORECASE)


def count(n: int, one: str, many: str) -> str:
    """`1 entry`, `3 entries`."""
    return f"{n:,} {one if n == 1 else many}"


_KEYS: dict[str, str] = {}


def key(name: str) -> str:
    """A field name as `FIELDS` knows it: lower case, letters and digits only."""
    found = _KEYS.get(name)
    if found is None:
        found = _NOT_KEY.sub("", name.lower())
        if len(_KEYS) < 10_000:  # files repeat a few dozen names; a hostile one, more
            _KEYS[name] = found
    return found


_FIELD_OF: dict[str, str | None] = {}


def field_of(name: str) -> str | None:
    """The field a column or key name means (`Abstract Note` -> `abstract`), or None."""
    try:
        return _FIELD_OF[name]
    except KeyError:
        found = FIELDS.get(key(name))
        if len(_FIELD_OF) < 10_000:
            _FIELD_OF[name] = found
        return found


def text_of(value: object) -> str | None:
    """A non-empty string with whitespace collapsed, from a string or number; else None."""
    if type(value) is str:  # the common case first
        return collapse(value) or None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        value = str(value)
    if not isinstance(value, str):
        return None
    return collapse(value) or None


def year_of(value: object) -> int | None:
    """The year in `2021`, `"2021-05-03"`, `{"date-parts": [[2021, 5]]}`, or None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 1800 <= value <= 2099 else None
    if isinstance(value, Mapping):
        parts = value.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return year_of(parts[0][0])
        return year_of(value.get("raw") or value.get("literal"))
    text = text_of(value)
    if text is None:
        return None
    m = _YEAR.search(text)
    return int(m.group(1)) if m else None


def date_of(value: object) -> str | None:
    """An ISO date (`2021-05-03`, `2021-05`) from a date string or CSL `issued`, or None."""
    if isinstance(value, Mapping):
        parts = value.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list):
            nums = [p for p in parts[0][:3] if isinstance(p, int | str) and str(p).isdigit()]
            if len(nums) >= 2:
                return "-".join([f"{int(nums[0]):04d}", *(f"{int(n):02d}" for n in nums[1:])])
            return None
        return date_of(value.get("raw"))
    text = text_of(value)
    if text is None:
        return None
    m = _ISO_DATE.search(text)
    if m is None or m.group(2) is None or not 1800 <= int(m.group(1)) <= 2099:
        return None
    month, day = int(m.group(2)), int(m.group(3) or 0)
    if not 1 <= month <= 12 or day > 31:
        return None
    out = f"{m.group(1)}-{month:02d}"
    return f"{out}-{day:02d}" if day else out


def _full_names(text: str) -> bool:
    """Every comma-separated piece has a given name and a family name (`Ada Lovelace`)."""
    return all(len(piece.split()) >= 2 for piece in text.split(",") if piece.strip())


def split_authors(text: str) -> tuple[Author, ...]:
    """Authors from one string, in whichever convention the export used.

    `Lovelace, Ada; Babbage, Charles` (Zotero), `Lovelace, Ada and Babbage, Charles`
    (BibTeX), `Ada Lovelace, Charles Babbage and Mary Somerville`, `Ada Lovelace and
    Charles Babbage`, or one `Lovelace, Ada`. A trailing `et al.` becomes the last
    author `others`, as BibTeX writes it (see `Author.is_others`).
    """
    text = collapse(text)
    cut = _ET_AL.sub("", text)
    if cut != text:
        named = split_authors(cut)
        return (*named, Author("others")) if named else ()
    if not text:
        return ()
    if ";" in text:
        names = text.split(";")
    elif re.search(r"\s+and\s+", text):
        parts = re.split(r"\s+and\s+", text)
        if all(part.count(",") == 1 and not _full_names(part) for part in parts):
            names = parts  # `Family, Given and Family, Given`
        else:
            names = [n for part in parts for n in part.split(",")]
    elif "," in text:
        pieces = [p for p in text.split(",") if p.strip()]
        # Two pieces that are not both full names are one author, family first.
        names = [text] if len(pieces) == 2 and not _full_names(text) else pieces
    else:
        names = [text]
    return tuple(Author.parse(n) for n in names if n.strip(" ,;"))


def author_of(value: object) -> Author | None:
    """One author from a string or an object (`{name}`, `{family, given}`, `{literal}`,
    `{firstName, lastName}`, `{first, last}`)."""
    if isinstance(value, str):
        return Author.parse(value) if value.strip(" ,;") else None
    # `dict` first: what JSON gives, and far cheaper to test than the ABC.
    if not isinstance(value, dict) and not isinstance(value, Mapping):
        return None
    name = value.get("name")
    if isinstance(name, str) and "family" not in value:
        # The common case (Semantic Scholar, arXiv): `{"name": "Ada Lovelace"}`.
        return Author.parse(name) if name.strip(" ,;") else None
    lower = {key(str(k)): v for k, v in value.items()}
    family = text_of(lower.get("family") or lower.get("lastname") or lower.get("last"))
    if family is not None:
        given = text_of(lower.get("given") or lower.get("firstname") or lower.get("first"))
        return Author(family, given or "")
    literal = text_of(lower.get("literal"))
    if literal is not None:
        return Author(literal)  # an institution, or a name the source would not split
    name = text_of(lower.get("name") or lower.get("fullname"))
    return Author.parse(name) if name else None


def authors_of(value: object) -> tuple[Author, ...]:
    """Authors from a list (of strings or objects) or one string of several names."""
    if isinstance(value, str):
        return split_authors(value)
    if isinstance(value, list):
        found = (author_of(item) for item in value)
        return tuple(a for a in found if a is not None and a.family)
    single = author_of(value)
    return (single,) if single is not None and single.family else ()


def keywords_of(value: object) -> tuple[str, ...]:
    """Keywords from a list (strings, or objects with `tag`/`name`/`category`) or one
    string separated by `;` (else `,`)."""
    items: Iterable[object]
    if isinstance(value, str):
        items = value.split(";") if ";" in value else value.split(",")
    elif isinstance(value, list):
        items = value
    else:
        return ()
    out: dict[str, None] = {}
    for item in items:
        if isinstance(item, Mapping):
            item = item.get("tag") or item.get("name") or item.get("category")
        word = text_of(item)
        if word:
            out[word] = None
    return tuple(out)
