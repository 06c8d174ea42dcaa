"""Checking a JSON export (or rescue file) field by field before anything is written.

An import writes values straight into SQLite, whose columns accept any type: a
`"updated": "yesterday"` would be stored and then break every later load. So the
whole document is checked first, and the first bad field rejects the whole file
with a message naming the section, the record and the field.

Before that, the file itself is bounded: only a regular file is read, at most
`MAX_IMPORT_BYTES` of it, and JSON nested deeper than `MAX_DEPTH` (an export is
six levels deep) is refused.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tui.store.names import is_valid_name
from tui.tagnames import TagError, normalise_tag

# Timestamps are Unix times; beyond this range `time.localtime` fails when exporting.
_TIME_MIN, _TIME_MAX = -(10**11), 10**11
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1  # what an SQLite INTEGER holds


#: Well above a real export (about 1.7 KB per abstract it keeps, on the seeds: some
#: 150,000 abstracts), and small enough to parse in memory.
MAX_IMPORT_BYTES = 256 * 1024 * 1024
#: An export is an object of lists of objects of strings and numbers (depth 3), a
#: record's paper three more (paper, its authors, an author).
MAX_DEPTH = 16


class ImportProblem(ValueError):
    """The file is not an abstracts JSON export this version can read."""


class ImportLimit(ImportProblem):
    """The file is beyond what an import reads: too large, nested too deeply, not a file."""


def read_export(path: Path, limit: int | None = None) -> str:
    """The text of the export at `path`, read only if it is a regular file within `limit`
    bytes (default `MAX_IMPORT_BYTES`).

    Raises `ImportLimit` for anything else (a FIFO would block, a device never end),
    OSError when it cannot be read, UnicodeDecodeError when it is not UTF-8 (a leading
    byte order mark is dropped).
    """
    limit = MAX_IMPORT_BYTES if limit is None else limit
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ImportLimit("not a regular file; only a file can be imported")
    if info.st_size > limit:
        raise ImportLimit(f"{info.st_size:,} bytes, more than the {limit:,} an import reads")
    with open(path, "rb") as f:
        data = f.read(limit + 1)  # the file may have grown since stat
    if len(data) > limit:
        raise ImportLimit(f"more than the {limit:,} bytes an import reads")
    # A byte order mark, which some editors put first, is no part of the JSON.
    return data.decode("utf-8-sig")


def check_nesting(doc: Any, limit: int = MAX_DEPTH) -> None:
    """Raise `ImportLimit` when the parsed JSON `doc` nests lists or objects deeper than `limit`.

    (Deeper than Python's recursion limit, the parser itself fails: see `parse_export`.)
    """
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value
        if depth > limit:
            raise ImportLimit(f"nested more than {limit} levels deep; an export has 6")
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))


def _show(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _is_text(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")  # lone surrogates (legal in JSON escapes) cannot be stored
    except UnicodeEncodeError:
        return False
    return True


def _id(value: Any) -> bool:
    return _is_text(value) and bool(value.strip())


def _time(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and _TIME_MIN <= value <= _TIME_MAX
    )


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and _INT_MIN <= value <= _INT_MAX


def _optional(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or check(value)


_WANTED: dict[Callable[[Any], bool], str] = {}


def _rule(check: Callable[[Any], bool], wanted: str) -> Callable[[Any], bool]:
    _WANTED[check] = wanted
    return check


ID = _rule(_id, "a non-empty string")
TEXT = _rule(_is_text, "a string")
TIME = _rule(_time, "a number (a Unix time)")
OPT_TIME = _rule(_optional(_time), "a number (a Unix time) or null")
OPT_TEXT = _rule(_optional(_is_text), "a string or null")
OPT_INT = _rule(_optional(_int), "a whole number or null")
NAME = _rule(is_valid_name, "a trimmed name of at most 80 characters with no control characters")


def _tag(value: Any) -> bool:
    if not _is_text(value):
        return False
    try:
        normalise_tag(value)
    except TagError:
        return False
    return True


TAG = _rule(_tag, "a tag name (not empty, no control character, comma or quote)")


def _paper(value: Any) -> bool:
    """An object as `Paper.to_json()` writes it: every string in it storable (a field of
    the wrong type is dropped when read, as a paper from any source is)."""
    if not isinstance(value, dict):
        return False
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if not all(_is_text(k) for k in item):
                return False
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and not _is_text(item):
            return False
    return True


OPT_PAPER = _rule(_optional(_paper), "an object (title, authors, ids, ...) or null")

#: Per section: field -> (check, required). Fields not listed are ignored.
SECTIONS: dict[str, dict[str, tuple[Callable[[Any], bool], bool]]] = {
    "records": {
        "id": (ID, True),
        "text": (TEXT, True),
        "headline": (TEXT, True),
        "source": (TEXT, False),
        "position": (OPT_INT, False),
        "collection": (TEXT, False),
        "venue": (OPT_TEXT, False),
        "year": (OPT_INT, False),
        "paper": (OPT_PAPER, False),
    },
    "bookmarks": {"id": (ID, True), "created": (TIME, True)},
    "dismissals": {"id": (ID, True), "created": (TIME, True)},
    "reads": {"id": (ID, True), "read_at": (TIME, True)},
    "notes": {
        "id": (ID, True),
        "text": (TEXT, True),
        "updated": (OPT_TIME, False),
        "version": (OPT_INT, False),
        "base_version": (OPT_INT, False),
    },
    "conflict_copies": {
        "id": (ID, True),
        "text": (TEXT, True),
        "created": (OPT_TIME, False),
        "origin": (OPT_TEXT, False),
    },
    "aliases": {"old_id": (ID, True), "new_id": (ID, True)},
    "tags": {"id": (ID, True), "tag": (TAG, True), "created": (OPT_TIME, False)},
    "saved_searches": {
        "name": (NAME, True),
        "query": (TEXT, True),
        "sort": (TEXT, False),
        "created": (OPT_TIME, False),
        "updated": (OPT_TIME, False),
    },
}


# The field that names an entry, where it is not "id".
_NAMED_BY = {"saved_searches": "name", "aliases": "old_id"}


def _where(section: str, index: int, entry: Mapping[str, Any]) -> str:
    """`notes[3] (id 'x')`: the entry's place, and the field that names it."""
    label = _NAMED_BY.get(section, "id")
    key = entry.get(label)
    return f"{section}[{index}]" + (f" ({label} {key!r})" if _id(key) else "")


def check_document(doc: Mapping[str, Any]) -> None:
    """Raise `ImportProblem` naming the first field of `doc` with a wrong type or value."""
    for section, fields in SECTIONS.items():
        entries = doc.get(section, [])
        if not isinstance(entries, list):
            raise ImportProblem(f'"{section}" must be a list, not {_show(entries)}')
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise ImportProblem(f"{section}[{index}] must be an object, not {_show(entry)}")
            for name, (check, required) in fields.items():
                if name not in entry:
                    if required:
                        raise ImportProblem(f'{_where(section, index, entry)}: no "{name}"')
                    continue
                if not check(entry[name]):
                    raise ImportProblem(
                        f'{_where(section, index, entry)}: "{name}" must be '
                        f"{_WANTED[check]}, not {_show(entry[name])}"
                    )
    state = doc.get("state", {})
    if not isinstance(state, dict):
        raise ImportProblem(f'"state" must be an object of strings, not {_show(state)}')
    for key, value in state.items():
        if not _is_text(key) or not _is_text(value):
            raise ImportProblem(f"state[{key!r}] must be a string, not {_show(value)}")
