"""One BibTeX entry for one abstract: what the reader copies (`c`) and a citation needs.

A paper read from a library keeps its citekey, title, authors, venue, year and ids; a
conference paragraph (no paper) still gets an entry, `@misc` with its first sentence as
the title and its collection as where it was published. Titles from a `.bib` are LaTeX
already and stay as written (`{BERT}` keeps its braces); only what would break LaTeX or
BibTeX is escaped: unbalanced braces and bare `&`, `%`, `#`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tui.corpus.venues import is_journal, short_venue
from tui.sanitize import visible_line

if TYPE_CHECKING:
    from tui.corpus.model import Abstract
    from tui.corpus.paper import Paper

# Entry types written as the source named them; any other becomes one derived from the venue.
ENTRY_TYPES = frozenset(
    {
        "article",
        "book",
        "booklet",
        "inbook",
        "incollection",
        "inproceedings",
        "conference",
        "manual",
        "mastersthesis",
        "misc",
        "phdthesis",
        "proceedings",
        "techreport",
        "unpublished",
    }
)
# Fields of `Paper.extra` carried into the entry (others, such as a source's own
# notes or file paths, are not part of a citation).
EXTRA_FIELDS = (
    "booktitle",
    "journal",
    "volume",
    "number",
    "pages",
    "publisher",
    "address",
    "editor",
    "series",
    "organization",
    "institution",
    "school",
    "month",
    "edition",
    "isbn",
    "issn",
)
_UNESCAPED = re.compile(r"(?<!\\)([&%#])")
_KEY_CHARS = re.compile(r"[^a-z0-9]")


def _balanced(text: str) -> bool:
    depth = 0
    escaped = False
    for c in text:
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def field_value(text: str) -> str:
    """`text` as the content of a braced BibTeX field: one line, controls made visible,
    bare `&`, `%` and `#` escaped, and every brace escaped when they do not balance."""
    value = " ".join(visible_line(text).split())
    if not _balanced(value):
        value = re.sub(r"(?<!\\)([{}])", r"\\\1", value)
    return _UNESCAPED.sub(r"\\\1", value)


def _ascii_word(text: str) -> str:
    """The first word of `text` of two letters or more, lower-case ASCII (accents dropped)."""
    import unicodedata

    for raw in text.split():
        decomposed = unicodedata.normalize("NFKD", raw.casefold())
        word = _KEY_CHARS.sub("", "".join(c for c in decomposed if not unicodedata.combining(c)))
        if len(word) > 1 and not word.isdigit() and word not in _KEY_STOPWORDS:
            return word
    return ""


_KEY_STOPWORDS = frozenset({"a", "an", "the", "on", "of", "in", "for", "to", "and", "towards"})


def citekey(abstract: Abstract) -> str:
    """The source's citekey when it gave one, else first author's family name, year and
    first title word (`vaswani2017attention`); a paragraph without a paper uses its venue
    for the name (`iclr2023graph`)."""
    paper = abstract.paper
    if paper is not None and (key := paper.id_of("citekey")):
        return key
    year = abstract.collection.year
    if paper is None:
        who = _ascii_word(abstract.collection.venue or abstract.collection.label)
    elif paper.authors:
        who = _ascii_word(paper.authors[0].family.replace("-", ""))
    else:  # not the file's name, which a paper without venue has as its collection
        who = _ascii_word(short_venue(paper.venue)) if paper.venue else ""
    when = str(year) if year else ""
    return (who + when + _ascii_word(abstract.title or abstract.headline)) or "paper"


def entry_type(paper: Paper | None) -> str:
    """The source's entry type when BibTeX knows it, else `misc` without a venue,
    `article` in a journal and `inproceedings` otherwise."""
    if paper is None:
        return "misc"
    if paper.kind and paper.kind.lower() in ENTRY_TYPES:
        return paper.kind.lower()
    if not paper.venue:
        return "misc"
    return "article" if is_journal(paper.venue) else "inproceedings"


def _fields(abstract: Abstract, kind: str) -> list[tuple[str, str]]:
    paper = abstract.paper
    collection = abstract.collection
    if paper is None:
        title = abstract.headline.removesuffix("…").rstrip()
        fields = [("title", title), ("howpublished", collection.short)]
        if collection.year:
            fields.append(("year", str(collection.year)))
        return fields
    fields = [("title", paper.title or abstract.headline)]
    if paper.authors:
        names = [f"{a.family}, {a.given}" if a.given else a.family for a in paper.authors]
        fields.append(("author", " and ".join(names)))
    extra = dict(paper.extra)
    if paper.venue and not ({"booktitle", "journal"} & extra.keys()):
        where = {"article": "journal", "inproceedings": "booktitle", "incollection": "booktitle"}
        fields.append((where.get(kind, "howpublished"), paper.venue))
    fields.extend((name, extra[name]) for name in EXTRA_FIELDS if extra.get(name))
    if paper.year:
        fields.append(("year", str(paper.year)))
    if doi := paper.id_of("doi"):
        fields.append(("doi", doi))
    if arxiv := paper.id_of("arxiv"):
        fields.extend((("eprint", arxiv), ("archiveprefix", "arXiv")))
    if url := paper.page_url:
        fields.append(("url", url))
    return fields


def bibtex_entry(abstract: Abstract, *, key: str | None = None, with_abstract: bool = False) -> str:
    """One BibTeX entry for `abstract` (see the module's docstring), ending in a newline.

    `key` replaces the citekey (an export making keys unique); `with_abstract` adds
    the abstract's source text as the `abstract` field.
    """
    kind = entry_type(abstract.paper)
    fields = _fields(abstract, kind)
    if with_abstract and abstract.text:
        fields.append(("abstract", abstract.text))
    body = ",\n".join(f"  {name} = {{{field_value(value)}}}" for name, value in fields if value)
    return f"@{kind}{{{key or citekey(abstract)},\n{body}\n}}\n"
