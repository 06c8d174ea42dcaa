"""What `abstracts follow` accepts: an arXiv category, an arXiv API query, or an author.

    cs.LG                              every new paper in a category (`cat:cs.LG`)
    abs:"diffusion" AND cat:cs.CV      an arXiv API query, sent as written
    author:"Yoshua Bengio"             a person's papers (`au:"Yoshua Bengio"`)

A source is kept in the config as the reader wrote it (whitespace collapsed); `query`
is what is sent to the API as `search_query`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

# arXiv's archives (https://arxiv.org/category_taxonomy). A category is an archive,
# optionally with a subject class: `cs.LG`, `math.AP`, `astro-ph.CO`, `cond-mat.mes-hall`,
# `physics.optics`, `hep-th`.
ARCHIVES = frozenset(
    {
        "astro-ph",
        "cond-mat",
        "cs",
        "econ",
        "eess",
        "gr-qc",
        "hep-ex",
        "hep-lat",
        "hep-ph",
        "hep-th",
        "math",
        "math-ph",
        "nlin",
        "nucl-ex",
        "nucl-th",
        "physics",
        "q-bio",
        "q-fin",
        "quant-ph",
        "stat",
    }
)
_CATEGORY = re.compile(
    r"^(?P<archive>[a-z]+(?:-[a-z]+)?)(?:\.(?P<subject>[A-Z]{2}|[a-z]+(?:-[a-z]+)*))?$"
)
# The API's field prefixes (https://info.arxiv.org/help/api/user-manual.html#query_details).
_API_FIELD = re.compile(r"\b(?:ti|au|abs|co|jr|cat|rn|id|all|submittedDate):", re.IGNORECASE)
_AUTHOR = re.compile(r"^author:\s*(?P<name>\"[^\"]+\"|\S.*)$", re.IGNORECASE)

EXAMPLES = 'cs.LG, abs:"diffusion" AND cat:cs.CV, or author:"Yoshua Bengio"'


class SourceError(ValueError):
    """What was given is not a source; the message says what one looks like."""


@dataclass(frozen=True, slots=True)
class Source:
    """One followed source: `text` as the reader wrote it, `query` as the API gets it,
    `kind` `category`, `author` or `query`."""

    text: str
    query: str
    kind: str

    @property
    def slug(self) -> str:
        """A file-name-safe name for the source's folder in the library: the category
        itself, else readable words and a short digest (two queries never share one)."""
        if self.kind == "category":
            return self.text
        words = re.sub(r"[^A-Za-z0-9]+", "-", self.text).strip("-").lower()[:40]
        digest = hashlib.blake2b(self.query.encode("utf-8"), digest_size=4).hexdigest()
        return f"{self.kind}-{words}-{digest}" if words else f"{self.kind}-{digest}"


# Archives whose subject classes are words (`physics.optics`, `cond-mat.mes-hall`); the
# others' are two capitals (`cs.LG`), and the rest have none (`hep-th`).
_WORD_CLASSES = frozenset({"physics", "cond-mat"})
_NO_CLASSES = frozenset(
    {"gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math-ph", "nucl-ex", "nucl-th", "quant-ph"}
)


def is_category(text: str) -> bool:
    """True for an arXiv category such as `cs.LG`, `math.AP`, `hep-th` or `astro-ph.CO`."""
    m = _CATEGORY.match(text)
    if m is None or m.group("archive") not in ARCHIVES:
        return False
    archive, subject = m.group("archive"), m.group("subject")
    if subject is None:
        return True
    if archive in _NO_CLASSES:
        return False
    return subject.islower() if archive in _WORD_CLASSES else subject.isupper()


def parse_source(raw: str) -> Source:
    """The source `raw` names; raises SourceError saying why it is none."""
    text = " ".join(raw.split())
    if not text:
        raise SourceError(f"give a source to follow: {EXAMPLES}")
    if is_category(text):
        return Source(text, f"cat:{text}", "category")
    author = _AUTHOR.match(text)
    if author is not None:
        name = author.group("name").strip()
        if not name.startswith('"'):
            name = f'"{name}"'
        return Source(text, f"au:{name}", "author")
    if _API_FIELD.search(text):
        if text.count('"') % 2:
            raise SourceError(f"unclosed quote in the query {text!r}")
        if text.count("(") != text.count(")"):
            raise SourceError(f"unbalanced parentheses in the query {text!r}")
        return Source(text, text, "query")
    if "." in text and " " not in text:
        archive, _, subject = text.partition(".")
        if archive in ARCHIVES and is_category(f"{archive}.{subject.upper()}"):
            raise SourceError(
                f"{text!r} is not an arXiv category: did you mean {archive}.{subject.upper()}?"
            )
        raise SourceError(
            f"{text!r} is not an arXiv category (archives: {', '.join(sorted(ARCHIVES))}); "
            f"follow for example {EXAMPLES}"
        )
    raise SourceError(
        f"{text!r} is neither an arXiv category nor an API query (fields ti:, au:, abs:, "
        f"cat:, all: ...); follow for example {EXAMPLES}"
    )
