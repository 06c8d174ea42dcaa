"""A BibTeX file split into blocks: entries, `@string` macros and what could not be read.

`blocks(text)` gives, in file order, every `Entry` (citekey, entry type, line, fields as
written), every `String` and every `Failed` block (its line and what is wrong), exactly
as bibtexparser 2's splitter reads the file, but without stepping through it in Python
where it need not: the splitter visits every brace, quote, comma, `=` and newline, and
spent most of a large library's load doing so.

A scanner reads each block with a few compiled patterns, and keeps it only when the
patterns prove the splitter would read it the same way: a `{`-delimited block whose
citekey and field names hold no splitter mark, whose values are braced groups (up to five
deep), quoted strings, numbers and macro names joined by anything else that holds no mark,
with no `@word{` anywhere inside it (the splitter may start a new block there), and
without a field name used twice. Anything else (a parenthesised block, an unclosed
entry, `{"}` inside quotes, deeper nesting, a repeated field) is handed to bibtexparser
with the text up to the next block that starts a line (the splitter always starts a new
block there, whatever state it is in), a run of such blocks in one piece, with the long
braced values hidden from it (`_hide_long_values`). Which citekeys are used twice is
left to the reader. tests/corpus/test_read_bibtex_scanner.py holds the two together.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple


class Entry(NamedTuple):
    """One `@type{key, name = value, ...}` block: its fields in order, names and values as
    written (the value with its braces, quotes and `#`, stripped of surrounding space)."""

    key: str
    kind: str  # the entry type, lower-cased
    line: int  # 1-based, of its `@`
    fields: dict[str, str]  # no name twice: the splitter fails such an entry


class String(NamedTuple):
    """One `@string{name = value}` macro, its value as written."""

    key: str
    value: str
    line: int  # 1-based, of its `@`


class Failed(NamedTuple):
    """A block that could not be read: its line and the message for the load report."""

    line: int
    message: str


Block = Entry | String | Failed

# What the splitter treats as marks (bibtexparser/splitter.py): `{ } " , = \n` unless right
# after a backslash, and a block start `@word{` (or `(`) wherever it stands, even after one.
# The scanner's patterns only accept text whose marks they account for. Inside a block, a
# block start after other text on its line (`pass@1 (`) is passed over; one after only
# space may end the block, and is not accepted.
_NOT_A_BLOCK = r"(?:@(?!\w*[ \t]*[{(])|(?<=\S)@)"
# Backslashes and the character after them (never a mark), or before an `@` (which may be).
_ESCAPED = r"\\++[^@]?"
_IN_GROUP = rf"(?:[^{{}}@\\]++|{_ESCAPED}|{_NOT_A_BLOCK})"


def _group_body(depth: int) -> str:
    """The inside of a braced group with up to `depth` levels of groups nested in it."""
    body = rf"{_IN_GROUP}*+"
    for _ in range(depth):
        body = rf"(?:{_IN_GROUP}|\{{{body}\}})*+"
    return body


_BODY = _group_body(5)
# Inside quotes the splitter counts no braces and ends the value at the next `"`, unless
# that quote is `{"}`: a quoted value ending in `{` is left to bibtexparser.
_QUOTED = rf'"(?:[^"@\\]++|{_ESCAPED}|{_NOT_A_BLOCK})*+(?<!\{{)"'
# A value runs to the first `,` or `}` outside groups and quotes.
_VALUE = rf'(?:[^{{}}",@\\]++|{_ESCAPED}|{_NOT_A_BLOCK}|\{{{_BODY}\}}|{_QUOTED})*+'
# A citekey or field name: no mark, no space (the splitter would keep inner space).
_NAME = r'[^\s{}",=@\\#%()]++'

_BLOCK_START = re.compile(r"@(\w*)[ \t]*([{(])")
# A block start with only space before it on its line: every state of the splitter ends
# there, so what follows reads the same whatever came before.
_LINE_BLOCK_START = re.compile(r"\n[^\S\n]*+(@\w*[ \t]*[{(])")
_ENTRY_KEY = re.compile(rf"\s*+({_NAME})\s*+([,}}])")
_FIELD = re.compile(rf"\s*+({_NAME})\s*+=({_VALUE})([,}}])")
_ENTRY_END = re.compile(r"\s*+\}")
_STRING = re.compile(rf"\s*+({_NAME})\s*+=({_BODY})\}}")
_GROUP_REST = re.compile(rf"{_BODY}\}}")


def blocks(text: str) -> list[Block]:
    """Every block of `text` in order, as bibtexparser's splitter reads them."""
    try:
        return _scanned(text)
    except _Unexpected:
        return parsed_blocks(text)


def _scanned(text: str) -> list[Block]:
    """`blocks`, each read by the scanner or, where it is not sure, by bibtexparser."""
    out: list[Block] = []
    line = 1  # of `counted`
    counted = 0
    pos = 0
    # (offset, line) where the run of blocks left to bibtexparser starts, if there is one:
    # a run ends at a block starting a line, so it is handed over in one piece.
    odd: tuple[int, int] | None = None
    while (start := _BLOCK_START.search(text, pos)) is not None:
        at = start.start()
        # The splitter counts the newlines that no backslash escapes.
        line += text.count("\n", counted, at) - text.count("\\\n", counted, at)
        counted = at
        scanned: list[Block] = out if odd is None else []
        end = _scan_block(text, start, line, scanned)
        if end is None:
            odd = odd or (at, line)
            following = _LINE_BLOCK_START.search(text, at + 1)
            pos = len(text) if following is None else following.start(1)
            continue
        if odd is not None:
            # The opening of the block after the run is kept, so that the splitter meets
            # it (and says so) as in the whole file; it then fails at the end, and is dropped.
            run = text[odd[0] : start.end()]
            out.extend(parsed_blocks(run, odd[1], last_dropped=True))
            out.extend(scanned)
            odd = None
        pos = end
    if odd is not None:
        out.extend(parsed_blocks(text[odd[0] :], odd[1]))
    return out


def _scan_block(text: str, start: re.Match[str], line: int, out: list[Block]) -> int | None:
    """Where the block opening at `start` ends, once appended to `out`; None (and nothing
    appended) when the patterns cannot prove the splitter reads it so."""
    if start.group(2) == "(":
        return None
    kind = start.group(1).lower()
    pos = start.end()
    if kind.startswith(("comment", "preamble")):  # nothing the reader uses
        group = _GROUP_REST.match(text, pos)
        return None if group is None else group.end()
    if kind.startswith("string"):
        string = _STRING.match(text, pos)
        if string is None:
            return None
        out.append(String(string.group(1), string.group(2).strip(), line))
        return string.end()
    head = _ENTRY_KEY.match(text, pos)
    if head is None:
        return None
    fields: dict[str, str] = {}
    count = 0
    pos = head.end()
    closed = head.group(2) == "}"
    match = _FIELD.match
    while not closed:
        field = match(text, pos)
        if field is None:
            end = _ENTRY_END.match(text, pos)  # after a trailing comma
            if end is None:
                return None
            pos = end.end()
            break
        name, value, after = field.group(1, 2, 3)
        fields[name] = value.strip()
        count += 1
        pos = field.end()
        closed = after == "}"
    if len(fields) != count:
        return None  # the splitter reports a repeated field: leave it to it
    out.append(Entry(head.group(1), kind, line, fields))
    return pos


class _Unexpected(Exception):
    """The splitter did not read a segment as the scanner expected it to."""


def parsed_blocks(text: str, first_line: int = 1, last_dropped: bool = False) -> list[Block]:
    """The blocks of `text` as bibtexparser 2's splitter reads them, `first_line` being the
    line of the text's first character. With `last_dropped`, the last block (a failed
    one at the end of the text) is left out."""
    from bibtexparser.entrypoint import parse_string
    from bibtexparser.model import DuplicateBlockKeyBlock, ParsingFailedBlock
    from bibtexparser.model import Entry as ParsedEntry
    from bibtexparser.model import String as ParsedString

    _quiet_parser_log()
    hidden, values = _hide_long_values(text)
    parsed = parse_string(hidden, parse_stack=[]).blocks
    offset = first_line - 1
    if last_dropped:
        if not parsed or not isinstance(parsed[-1], ParsingFailedBlock):
            raise _Unexpected(text[:80])
        parsed = parsed[:-1]
    out: list[Block] = []
    for found in parsed:
        # The reader sees every citekey of the file, and says which are used twice.
        block = found.ignore_error_block if isinstance(found, DuplicateBlockKeyBlock) else found
        if isinstance(block, ParsedEntry):
            fields = {f.key: _shown(str(f.value), values) for f in block.fields}
            out.append(Entry(block.key, block.entry_type.lower(), _line(block) + offset, fields))
        elif isinstance(block, ParsedString):
            value = _shown(str(block.value), values)
            out.append(String(block.key, value, _line(block) + offset))
        elif isinstance(block, ParsingFailedBlock):
            out.append(Failed(_line(block) + offset, _shown(_failure(block, offset), values)))
    return out


def _quiet_parser_log() -> None:
    """bibtexparser logs every broken block; the reader reports them itself."""
    import logging

    log = logging.getLogger("bibtexparser")
    if not log.handlers:
        log.addHandler(logging.NullHandler())
        log.propagate = False


# The pre-pass that hides long braced values from bibtexparser's splitter (see
# `_hide_long_values`). The splitter's rules: a character right after a backslash is
# never one of its marks; `@word{` (or `(`) starts a block wherever it stands; `"`
# matters in some states. A group's inside is hidden only when it holds no unescaped
# `"`, no block start, and balanced unescaped braces (up to three deep): such a group
# reads the same to the splitter in every state it can be in (a value, a quoted value,
# a comment, between blocks), so a placeholder of the same line count changes nothing.
_PLAIN = r'(?:[^{}"@\\]++|\\+[^@]|@(?!\w*[ \t]*[{(]))'
_DEPTH2 = rf"{_PLAIN}*+"
_DEPTH1 = rf"(?:{_PLAIN}|\{{{_DEPTH2}\}})*+"
_DEPTH0 = rf"(?:{_PLAIN}|\{{{_DEPTH1}\}})*+"
# `= {inside}`: after `=`, so never the brace that opens an entry (`@article{`).
_BRACED_VALUE = re.compile(rf"(=[ \t\r\n]*\{{)({_DEPTH0})\}}")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00\n*")
# Shorter insides are left in place: hiding them saves the splitter too little.
_LONG_VALUE = 64


def _hide_long_values(text: str) -> tuple[str, list[str]]:
    """`text` with the inside of each long braced field value replaced by a placeholder
    of the same line count, and the insides, for `_shown` to put back.

    bibtexparser's splitter steps through every brace, quote, comma, `=` and newline of
    the file in Python; abstracts are long and full of commas. Hiding them leaves it
    less to step through: entries, fields, line numbers and errors come out as before.
    A value the pattern is not sure of is left for the splitter as it is.
    """
    values: list[str] = []
    if "\x00" in text:  # the placeholders' mark: never hide anything then
        return text, values

    def hide(m: re.Match[str]) -> str:
        inside = m.group(2)
        if len(inside) < _LONG_VALUE:
            return m.group(0)
        # The splitter counts lines by the newlines not escaped by a backslash.
        lines = inside.count("\n") - inside.count("\\\n")
        values.append(inside)
        return "".join((m.group(1), f"\x00{len(values) - 1}\x00", "\n" * lines, "}"))

    return _BRACED_VALUE.sub(hide, text), values


def _shown(text: str, values: list[str]) -> str:
    """`text` with the values `_hide_long_values` hid put back."""
    if not values or "\x00" not in text:
        return text
    return _PLACEHOLDER.sub(lambda m: values[int(m.group(1))], text)


def _line(block: Any) -> int:
    """The 1-based line a block starts on (bibtexparser counts from 0)."""
    return (block.start_line or 0) + 1


_NOT_CLOSED = ("Unexpectedly reached end of file", "Unexpected block start")


def _failure(block: Any, offset: int) -> str:
    """`BibTeX: entry starting at line 42 is not closed`, or what else went wrong there."""
    raw = (block.raw or "").lstrip()
    kind = raw[1:].split("{", 1)[0].split("(", 1)[0].strip().lower() if raw else ""
    what = f"@{kind}" if kind in ("string", "preamble", "comment") else "entry"
    line = _line(block) + offset
    reason = str(getattr(block.error, "abort_reason", block.error)).strip()
    if reason.startswith(_NOT_CLOSED):
        return f"BibTeX: {what} starting at line {line} is not closed"
    return f"BibTeX: {what} starting at line {line} could not be read ({reason.replace('`', '')})"
