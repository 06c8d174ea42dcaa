"""The query fields about papers: `author:`, `title:`, `id:` and `has:abstract`.

Parsers only (no NumPy: the parser is imported before the first paint); what each
selects is in `tui.search.paperfields`. `query.py` imports this module at its end,
so the fields are registered wherever queries are parsed.

    author:muller        a family name; typos and accents do not matter (Müller, Mueller)
    title:diffusion      a word of the title (of the headline, for conference text)
    id:2006.11239v2      a DOI or arXiv id in any form (prefix, version, URL), an
                         OpenReview id or a citekey
    has:abstract         entries that have an abstract (-has:abstract: those without)
"""

from __future__ import annotations

from tui.corpus.paper import canonical_ids, normalise_arxiv, normalise_doi, openreview_from_url
from tui.corpus.tokens import fold, tokenize
from tui.search.fields import FieldParser, FieldSpec, QueryError, _parse_choice, register_field

#: `has:` values; `abstract` is the corpus's, `note` and `tag` the user's.
HAS_VALUES = ("abstract", "note", "tag")


def _words(name: str, example: str) -> FieldParser:
    def parse(value: str) -> object:
        words = tokenize(value)
        if not words:
            raise QueryError(f"{name}: needs a word, for example {name}:{example}")
        return tuple(words)

    return parse


def parse_id(value: str) -> tuple[str, str]:
    """(kind, canonical value) of what `id:` was given: `doi`, `arxiv`, `openreview`, or
    `any` (a citekey, an OpenReview id, or an id still being typed), lower-cased."""
    text = value.strip()
    if not text:
        raise QueryError("id: needs a DOI or an arXiv id, for example id:2006.11239")
    if (doi := normalise_doi(text)) is not None:
        kind, canonical = canonical_ids([("doi", doi)])[0]
        return kind, canonical.lower()
    if (arxiv := normalise_arxiv(text)) is not None:
        return "arxiv", arxiv.lower()
    if (openreview := openreview_from_url(text)) is not None:
        return "openreview", openreview.lower()
    for prefix in ("arxiv:", "doi:"):
        if text.lower().startswith(prefix):
            text = text[len(prefix) :]
    return "any", fold(text)


def _parse_id(value: str) -> object:
    return parse_id(value)


register_field(FieldSpec("author", _words("author", "hinton")))
register_field(FieldSpec("title", _words("title", "diffusion")))
register_field(FieldSpec("id", _parse_id))
# `has:` keeps answering `note` and `tag` from the user's data (hence personal).
register_field(FieldSpec("has", _parse_choice("has", HAS_VALUES), personal=True))
