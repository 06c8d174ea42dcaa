"""The query language: what a user types into the filter, parsed into clauses.

    contrastive "vision language" -survey venue:iclr year:2022..2024 is:bookmarked

Bare words are terms (ANDed, typo-tolerant); quoted text is an exact phrase;
a leading `-` excludes; `name:value` is a field. Fields live in a registry
(`register_field`), so a new one (a personal field answered by the store, say)
is one function, not a change to the parser or the index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz.distance import OSA

from tui.corpus.tokens import fold, tokenize
from tui.search.fields import (
    _FIELDS,
    FieldParser,
    FieldSpec,
    QueryError,
    _parse_choice,
    field_names,
    register_field,
)
from tui.tagnames import TagError, normalise_tag

__all__ = ["FieldParser", "FieldSpec", "QueryError", "field_names", "register_field"]


# Mathematical symbols are not word characters to the tokenizer, so `×` alone
# would be no term at all. The index holds the LaTeX macro names of the source
# twice: as plain words (`\times` -> `times`, so the word `times` finds
# `$3\times$`) and as marked words (a backslash and the name) that only a symbol or macro
# query reaches, so `×` finds the symbol, not every "test-time" abstract.
SYMBOL_MARK = "\\"


def symbol_word(name: str) -> str:
    """The index word for a symbol or macro occurrence: `times` -> `\\times`.

    The mark is no word character, so no typed word is ever one of these, and
    it sorts before every letter, so they form one range of the vocabulary.
    """
    return SYMBOL_MARK + name


SYMBOL_NAMES: dict[str, str] = {
    "×": "times",
    "÷": "div",
    "±": "pm",
    "∓": "mp",
    "√": "sqrt",
    "∞": "infty",
    "≤": "leq",
    "≥": "geq",
    "≠": "neq",
    "≈": "approx",
    "∼": "sim",
    "∈": "in",
    "∑": "sum",
    "∏": "prod",
    "∫": "int",
    "∂": "partial",
    "∇": "nabla",
    "→": "rightarrow",
    "←": "leftarrow",
    "⊂": "subset",
    "∪": "cup",
    "∩": "cap",
    "⊗": "otimes",
    "⊕": "oplus",
    "∘": "circ",
    "·": "cdot",
}


@dataclass(frozen=True, slots=True)
class Term:
    """One folded word. `prefix` is set on the word being typed (it also matches as a prefix)."""

    word: str
    prefix: bool = False
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Phrase:
    """Folded words that must occur in this order, adjacent."""

    words: tuple[str, ...]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class FieldClause:
    """`name:value` after validation. `arg` is the parsed value the field's selector reads.

    `personal` marks fields answered from the user's data (bookmarks, notes,
    read state) rather than from the corpus.
    """

    name: str
    value: str
    arg: object
    personal: bool = False
    negated: bool = False
    # The value is still being typed (last in the text, no space after it):
    # a field may then match its last word as a prefix, as terms do.
    typing: bool = False


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: the clauses in the order typed, and the text they came from."""

    text: str
    terms: tuple[Term, ...] = ()
    phrases: tuple[Phrase, ...] = ()
    fields: tuple[FieldClause, ...] = ()

    @property
    def is_empty(self) -> bool:
        """True when nothing restricts the result (every abstract matches)."""
        return not (self.terms or self.phrases or self.fields)

    @property
    def needs_personal(self) -> bool:
        """True when a clause must be answered from the user's data."""
        return any(f.personal for f in self.fields)


def _parse_text_value(name: str) -> FieldParser:
    def parse(value: str) -> object:
        folded = fold(value.strip())
        if not folded:
            raise QueryError(f"{name}: needs a value, for example {name}:iclr")
        return folded

    return parse


_YEAR = re.compile(r"\d{4}")


def _parse_year(value: str) -> object:
    """`2023` -> (2023, 2023); `2022..2024` -> (2022, 2024); open ends `2022..` and `..2024`."""
    example = "year: expects a year like 2023 or a range like 2022..2024"
    if ".." in value:
        low_s, _, high_s = value.partition("..")
        if not low_s and not high_s:
            raise QueryError(f"{example}, not {value!r}")
        for part in (low_s, high_s):
            if part and not _YEAR.fullmatch(part):
                raise QueryError(f"{example}, not {value!r}")
        low = int(low_s) if low_s else 0
        high = int(high_s) if high_s else 9999
        if low > high:
            raise QueryError(f"year:{value} is an empty range ({low} is after {high})")
        return (low, high)
    if not _YEAR.fullmatch(value):
        raise QueryError(f"{example}, not {value!r}" if value else example)
    return (int(value), int(value))


def _parse_note(value: str) -> object:
    words = tokenize(value)
    if not words:
        raise QueryError("note: needs a word, for example note:revisit")
    return tuple(words)


def _parse_tag(value: str) -> object:
    if not value.strip().lstrip("#"):
        raise QueryError("tag: needs a tag name, for example tag:to-cite")
    try:
        return normalise_tag(value)
    except TagError as e:
        raise QueryError(f"tag:{value}: {e}") from e


register_field(FieldSpec("venue", _parse_text_value("venue")))
register_field(FieldSpec("year", _parse_year))
register_field(FieldSpec("file", _parse_text_value("file")))
_IS_VALUES = ("bookmarked", "read", "unread", "dismissed", "new")
register_field(FieldSpec("is", _parse_choice("is", _IS_VALUES), personal=True))
register_field(FieldSpec("has", _parse_choice("has", ("note", "tag")), personal=True))
register_field(FieldSpec("note", _parse_note, personal=True))
register_field(FieldSpec("tag", _parse_tag, personal=True))


def _parse_topic(value: str) -> object:
    """`topic:3`: a topic's number as the topic view (T) shows it, 1 the largest."""
    if not value.isdigit() or int(value) < 1:
        shown = f", not {value!r}" if value else ""
        raise QueryError(f"topic: expects a topic number like topic:3 (T lists them){shown}")
    return int(value)


register_field(FieldSpec("topic", _parse_topic))
# The fields about papers (author:, title:, id:, has:abstract) register their parsers.
from tui.search import paperquery as _paperquery  # noqa: E402, F401


def _parse_new(value: str) -> object:
    """`new:2026-12-01`: papers that arrived (`abstracts fetch`) on or after that day."""
    from datetime import date

    try:
        return date.fromisoformat(value)
    except ValueError:
        shown = f", not {value!r}" if value else ""
        raise QueryError(
            f"new: expects a date like new:2026-12-01 (is:new: since you last opened){shown}"
        ) from None


register_field(FieldSpec("new", _parse_new))


# A field is `letters:` at the start of a chunk; anything else with a colon
# (`3:1`, a URL's `https:`) is ordinary text.
_FIELD_NAME = re.compile(r"([A-Za-z]+):")


@dataclass(slots=True)
class _Chunk:
    text: str
    quoted: bool
    negated: bool
    field_name: str | None = None


def _split(text: str) -> list[_Chunk]:
    """Split on whitespace, keeping quoted runs together; `-` and `name:` are chunk prefixes."""
    chunks: list[_Chunk] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start = i
        negated = text[i] == "-" and i + 1 < n and not text[i + 1].isspace()
        if negated:
            i += 1
        field_name = None
        m = _FIELD_NAME.match(text, i)
        if m:
            field_name = m.group(1).lower()
            i = m.end()
        if i < n and text[i] == '"':
            close = text.find('"', i + 1)
            if close < 0:
                raise QueryError(f'unclosed quote: {text[start:].strip()} (add a closing ")')
            chunks.append(_Chunk(text[i + 1 : close], True, negated, field_name))
            i = close + 1
            continue
        j = i
        while j < n and not text[j].isspace():
            if text[j] == '"':
                raise QueryError(
                    f"a quote inside a word: {text[start:].split()[0]} "
                    '(put a space before the opening ")'
                )
            j += 1
        chunks.append(_Chunk(text[i:j], False, negated, field_name))
        i = j
    return chunks


# A typed macro (`\\sqrt`) searches for the macro, like its symbol would.
_MACRO = re.compile(r"\\([A-Za-z]+)")


def _symbol_terms(raw: str) -> list[str]:
    """Marked words for a chunk of symbols (`×`) or a typed macro (`\\times`), else []."""
    macro = _MACRO.fullmatch(raw)
    if macro:
        return [symbol_word(fold(macro.group(1)))]
    if tokenize(raw):
        return []
    return [symbol_word(SYMBOL_NAMES[c]) for c in raw if c in SYMBOL_NAMES]


def _fields_listed() -> str:
    return ", ".join(f"{f}:" for f in field_names())


def _check_unknown_field(name: str, value: str, quoted: bool) -> None:
    """Raise for `yaer:2023` (a name one letter off a field's, with a value right after
    it) and for `author:smith` (any name with a word or a quote right after it): a field
    the language does not have. `Mixup: Beyond` (a space after the colon: a pasted title),
    `arXiv:2301.00001` and `https://...` (no word after it) are plain text."""
    if not value and not quoted:
        return
    if len(name) >= 3:
        for known in field_names():
            if len(known) >= 3 and OSA.distance(name, known) <= 1:
                raise QueryError(
                    f"unknown field {name}: (did you mean {known}:? fields: {_fields_listed()})"
                )
    if len(name) >= 2 and (quoted or value[0].isalpha()):
        raise QueryError(
            f"unknown field {name}: (fields: {_fields_listed()}); "
            f'to search the words, put a space after the colon or quote them: "{name}:{value}"'
        )


# Terms a query may hold (words, phrase words included): proximity weighs every pair,
# and nobody types more to find an abstract; a pasted page gets this message at once.
MAX_QUERY_WORDS = 32


def _too_long() -> QueryError:
    return QueryError(
        f"too long: a query reads at most {MAX_QUERY_WORDS} words "
        "(a title or a few of its words find an abstract)"
    )


def parse_query(text: str) -> Query:
    """Parse what the user typed. Raises QueryError (only) with a message to show them.

    The last bare word is "being typed" (it also matches as a prefix) unless the
    text ends in whitespace.
    """
    terms: list[Term] = []
    phrases: list[Phrase] = []
    fields: list[FieldClause] = []
    chunks = _split(text)
    typing_at_end = bool(text) and not text[-1].isspace()
    for k, chunk in enumerate(chunks):
        spec = _FIELDS.get(chunk.field_name) if chunk.field_name is not None else None
        if len(terms) + sum(len(p.words) for p in phrases) > MAX_QUERY_WORDS:
            raise _too_long()
        if chunk.field_name is not None and spec is None:
            _check_unknown_field(chunk.field_name, chunk.text, chunk.quoted)
            # `Mixup: Beyond ...` (a pasted title) or `arXiv:2301`: ordinary words.
            chunk.text = f"{chunk.field_name} {chunk.text}"
            chunk.field_name = None
        if spec is not None:
            value = chunk.text
            arg = spec.parse(value)
            typing = k == len(chunks) - 1 and typing_at_end and not chunk.quoted
            fields.append(FieldClause(spec.name, value, arg, spec.personal, chunk.negated, typing))
            continue
        symbols = _symbol_terms(chunk.text)
        if symbols:
            # A macro being typed (`\\sq`) completes to the macros it starts;
            # a symbol is complete as soon as it is typed.
            typed_macro = chunk.text.startswith(SYMBOL_MARK) and not chunk.quoted
            last = k == len(chunks) - 1 and typing_at_end and typed_macro and not chunk.negated
            if chunk.quoted:
                phrases.append(Phrase(tuple(symbols), chunk.negated))
            else:
                terms.extend(Term(w, last, chunk.negated) for w in symbols)
            continue
        words = tokenize(chunk.text)
        if not words:
            continue
        if chunk.quoted or (chunk.negated and len(words) > 1):
            phrases.append(Phrase(tuple(words), chunk.negated))
            continue
        # `vision-language` is two terms, each typo-tolerant; only the very
        # last word of the text can be half-typed.
        last_chunk = k == len(chunks) - 1 and typing_at_end
        for w_i, word in enumerate(words):
            prefix = last_chunk and w_i == len(words) - 1 and not chunk.negated
            terms.append(Term(word, prefix, chunk.negated))
    if len(terms) + sum(len(p.words) for p in phrases) > MAX_QUERY_WORDS:
        raise _too_long()
    return Query(text, tuple(terms), tuple(phrases), tuple(fields))
