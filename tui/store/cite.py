"""One BibTeX entry for a paper, ready for a LaTeX bibliography: the core of the citations.

`bibtex_entry(paper, text, key=..., tags=..., note=...)` is pure (a paper, its abstract,
the user's tags and note in; the entry's text out), so the BibTeX export and a "copy
BibTeX" key write the same entry. `paper_key_base(paper)` is the readable key an entry
gets when its source gave none (`vaswani2017attention`); an original citekey (a paper
read from a `.bib`) is kept.

What the source wrote and what the user typed are written differently:

- The title, names, venue and abstract come from the source and are LaTeX already
  (a `.bib` title's `{BERT}`, an arXiv abstract's `$O(n^2)$`), so they go out as LaTeX
  (`latex_source`): only what cannot be meant as LaTeX there is escaped (`%`, `#`, `&`,
  and `_`, `^` outside math). A text whose braces or `$` do not pair is not LaTeX: it
  is escaped character for character (`bib_text`). Non-ASCII stays UTF-8.
- The note and the tags are the user's words: every LaTeX special is escaped, so they
  print as typed.
- DOIs, arXiv ids and URLs are identifiers, written as they are (a URL's braces, spaces
  and backslashes percent-encoded, so no field can break the entry).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from tui.corpus.latex import to_plain
from tui.corpus.paper import Paper
from tui.corpus.stopwords import STOPWORDS
from tui.corpus.tokens import tokenize
from tui.sanitize import visible

# Each LaTeX special as the command that typesets it. The braces are written as
# commands too: BibTeX counts `\{` as a brace, so escaping them that way could unbalance.
_BIB_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "%": r"\%",
    "#": r"\#",
    "&": r"\&",
    "_": r"\_",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_BIB_SPECIAL = re.compile(r"[\\{}%#&_$~^]")
_NOT_KEY_CHAR = re.compile(r"[^a-z0-9]")


def bib_text(text: str) -> str:
    """`text` as a BibTeX field's content: one line, typeset literally, braces balanced.

    For the user's own words (notes, tags) and for source text that is not LaTeX: a `$`
    prints as a `$`.
    """
    one_line = " ".join(visible(text).split())
    return _BIB_SPECIAL.sub(lambda m: _BIB_ESCAPES[m.group()], one_line)


# In LaTeX source: a command (kept as written), math shifts, and what is never LaTeX
# in prose (`%` would comment out the rest of the field, `#` and `&` stop LaTeX).
_SOURCE_TOKEN = re.compile(r"\\(?:[A-Za-z]+|[^A-Za-z])|\\$|\$\$?|[%#&_^]")
_MATH_OPEN, _MATH_CLOSE = frozenset({"$", "$$", "\\(", "\\["}), frozenset({"$", "$$", "\\)", "\\]"})
_TEXT_MODE_ESCAPES = {"%": r"\%", "#": r"\#", "&": r"\&", "_": r"\_", "^": r"\textasciicircum{}"}
_MATH_MODE_ESCAPES = {"%": r"\%", "#": r"\#", "&": r"\&"}


def _braces_pair(text: str) -> bool:
    """True when `text`'s braces pair as BibTeX counts them (escaped ones too)."""
    depth = 0
    for c in text:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def latex_source(text: str) -> str:
    """Source text (a title, an abstract) as a BibTeX field: its LaTeX kept, on one line.

    Commands, groups and math stay as written; `%`, `#` and `&` are escaped, and `_`
    and `^` outside math. Text whose braces or math shifts do not pair is not LaTeX and
    goes through `bib_text` instead.
    """
    one_line = " ".join(visible(text).split())
    if not _braces_pair(one_line):
        return bib_text(one_line)
    out: list[str] = []
    math = False
    last = 0
    for m in _SOURCE_TOKEN.finditer(one_line):
        out.append(one_line[last : m.start()])
        token = m.group()
        if token == "\\":  # a backslash ending the text escapes nothing
            token = r"\textbackslash{}"
        elif token in (_MATH_CLOSE if math else _MATH_OPEN):
            math = not math
        else:  # a command is kept; a special is escaped as the mode calls for
            token = (_MATH_MODE_ESCAPES if math else _TEXT_MODE_ESCAPES).get(token, token)
        out.append(token)
        last = m.end()
    out.append(one_line[last:])
    return bib_text(one_line) if math else "".join(out)


_URL_UNSAFE = re.compile(r"[\s{}\\\"]")


def bib_url(url: str) -> str:
    """A URL as a BibTeX field: braces, quotes, backslashes and spaces percent-encoded."""
    return _URL_UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), url)


# An entry type, from what each source calls it: BibTeX's own, RIS's and CSL's.
_BIB_TYPES = {
    **{
        t: t
        for t in (
            "article",
            "book",
            "booklet",
            "inbook",
            "incollection",
            "inproceedings",
            "manual",
            "mastersthesis",
            "misc",
            "phdthesis",
            "proceedings",
            "techreport",
            "unpublished",
        )
    },
    "conference": "inproceedings",
    "thesis": "phdthesis",
    "report": "techreport",
    "online": "misc",
    "electronic": "misc",
    "preprint": "misc",
    # RIS
    "jour": "article",
    "jfull": "article",
    "ejour": "article",
    "conf": "inproceedings",
    "cpaper": "inproceedings",
    "chap": "incollection",
    "thes": "phdthesis",
    "rprt": "techreport",
    "unpb": "unpublished",
    "gen": "misc",
    "elec": "misc",
    # CSL
    "article-journal": "article",
    "paper-conference": "inproceedings",
    "chapter": "incollection",
    "manuscript": "unpublished",
}
# Where each type puts the venue: a journal, a book of proceedings, or anywhere.
_VENUE_FIELD = {
    "article": "journal",
    "inproceedings": "booktitle",
    "incollection": "booktitle",
    "inbook": "booktitle",
}
# The venue is written once, under the name its type calls for.
_VENUE_FIELDS = frozenset(("journal", "booktitle", "howpublished"))
_FIELD_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_ARXIV_CATEGORY = re.compile(
    r"^(?:cs|econ|eess|math|physics|q-bio|q-fin|stat|astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|"
    r"hep-ph|hep-th|math-ph|nlin|nucl-ex|nucl-th|quant-ph)(?:\.[A-Za-z-]+)?$"
)


def entry_type(paper: Paper) -> str:
    """The BibTeX type: the source's (BibTeX, RIS or CSL name), else from its venue field,
    else from the venue's name (`article` in a journal, `inproceedings` elsewhere), else
    `misc`."""
    if paper.kind and (known := _BIB_TYPES.get(paper.kind.lower())):
        return known
    extra = dict(paper.extra)
    if "journal" in extra:
        return "article"
    if "booktitle" in extra:
        return "inproceedings"
    if paper.venue and not paper.kind:
        # A feed or a JSON export names a venue but no type: a journal, or a conference.
        from tui.corpus.venues import is_journal

        return "article" if is_journal(paper.venue) else "inproceedings"
    return "misc"


def primary_class(paper: Paper) -> str | None:
    """The arXiv category: as the source named it, else the first keyword that is one."""
    extra = {k.lower(): v for k, v in paper.extra}
    named = extra.get("primaryclass") or extra.get("primary_class")
    if named:
        return named
    return next((k for k in paper.keywords if _ARXIV_CATEGORY.match(k)), None)


def _name(family: str, given: str) -> str:
    """`Family, Given`; a family name holding a comma or `and`, or standing alone with a
    space (an organisation), braced so BibTeX reads it as one name."""
    family, given = latex_source(family), latex_source(given)
    alone_with_space = not given and " " in family
    if "," in family or re.search(r"\band\b", family, re.IGNORECASE) or alone_with_space:
        family = "{" + family + "}"
    if re.search(r"\band\b", given, re.IGNORECASE) or "," in given:
        given = "{" + given + "}"
    return f"{family}, {given}" if given else family


def bib_authors(paper: Paper) -> str:
    """`Vaswani, Ashish and Shazeer, Noam`: every author, family name first."""
    return " and ".join(_name(a.family, a.given) for a in paper.authors)


def key_word(text: str) -> str:
    """The first content word of `text` as lowercase ASCII letters and digits, or ""."""
    for token in tokenize(text):
        word = _NOT_KEY_CHAR.sub("", token)
        if len(word) > 1 and word not in STOPWORDS and not word.isdigit():
            return word
    return ""


def _ascii(text: str) -> str:
    """Lowercase ASCII of `text`, accents dropped (`Müller` -> `muller`)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return decomposed.encode("ascii", "ignore").decode("ascii")


def _family_word(family: str) -> str:
    """The word of a family name a key starts with: not a particle (`von Neumann` -> `neumann`)."""
    plain = to_plain(family)
    words = [w for w in plain.split() if w[:1].isupper()] or plain.split()
    return _NOT_KEY_CHAR.sub("", _ascii(words[0])) if words else ""


_KEY_OK = re.compile(r"^[A-Za-z0-9_:.+/@'!?*-]+$")


def original_key(paper: Paper) -> str | None:
    """The citekey the paper's `.bib` gave it, when BibTeX can take it as a key."""
    key = paper.id_of("citekey")
    return key if key and _KEY_OK.match(key) else None


def paper_key_base(paper: Paper, year: int | None = None, headline: str = "") -> str | None:
    """`vaswani2017attention`: the first author's family name, the year (the paper's, else
    `year`) and the first content word of the title (else `headline`), lowercase ASCII;
    None when no author gives a letter."""
    family = _family_word(paper.authors[0].family) if paper.authors else ""
    if not family:
        return None
    year = paper.year or year
    word = key_word(_ascii(to_plain(paper.title))) if paper.title else key_word(headline)
    return family + (str(year) if year else "") + word


def bibtex_entry(
    paper: Paper,
    text: str = "",
    *,
    key: str | None = None,
    tags: Sequence[str] = (),
    note: str | None = None,
    year: int | None = None,
) -> str:
    """The BibTeX entry of `paper` with abstract `text`, the user's `tags` (joined to its
    keywords) and `note`. `key` defaults to the original citekey, else `paper_key_base`
    (else `paper`); `year` stands in when the paper has none."""
    key = key or original_key(paper) or paper_key_base(paper, year) or "paper"
    kind = entry_type(paper)
    extra = {k.lower(): v for k, v in paper.extra if _FIELD_NAME.match(k.lower())}
    venue_field = _VENUE_FIELD.get(kind, "howpublished")
    venue = paper.venue or extra.get(venue_field)
    head: list[tuple[str, str]] = []
    if paper.authors:
        head.append(("author", bib_authors(paper)))
    if paper.title:
        head.append(("title", latex_source(paper.title)))
    if venue:
        head.append((venue_field, latex_source(venue)))
    if paper.year or year:
        head.append(("year", str(paper.year or year)))
    tail: list[tuple[str, str]] = []
    if doi := paper.id_of("doi"):
        tail.append(("doi", bib_url(doi)))
    if arxiv := paper.id_of("arxiv"):
        tail += [("eprint", bib_url(arxiv)), ("archivePrefix", "arXiv")]
        if category := primary_class(paper):
            tail.append(("primaryClass", bib_url(category)))
    if url := paper.link("page") or paper.id_of("url"):
        tail.append(("url", bib_url(url)))
    words = [latex_source(w) for w in paper.keywords]
    words += [bib_text(t) for t in tags if t not in paper.keywords]
    if words:
        tail.append(("keywords", ", ".join(words)))
    if text:
        tail.append(("abstract", latex_source(text)))
    if note:
        tail.append(("note", bib_text(note)))
    # The source's other fields (pages, volume, publisher...), each unless written above.
    written = _VENUE_FIELDS | {name.lower() for name, value in head + tail if value}
    fields = head + [(k, latex_source(v)) for k, v in extra.items() if k not in written] + tail
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
    return f"@{kind}{{{key},\n{body}\n}}\n"
