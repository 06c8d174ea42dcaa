"""Names of saved searches: what the user typed, trimmed, unique ignoring case.

A leading `@` (as in `abstracts search @NAME`) is dropped and runs of spaces made
one; control and format characters are refused. Kept apart from the store code so
the import checks and the UI can validate a name without it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection
from typing import Any

#: Long enough for any real name, short enough to show in a list row.
NAME_LIMIT = 80
#: The orders a saved search can keep (the filter's; anything else reads as relevance).
SORTS = ("relevance", "file")


class NameProblem(ValueError):
    """A name that cannot be used; the message says why, ready to show."""


def normalise_name(raw: str) -> str:
    """The name to store for what the user typed, or `NameProblem` saying what is wrong.

    Trimmed, a leading `@` dropped, inner runs of white space made one space; empty
    names, control or format characters (bidi overrides included) and names longer
    than `NAME_LIMIT` are refused.
    """
    for ch in raw:
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") and ch not in " \t":
            raise NameProblem(
                f"a name cannot hold control characters (U+{ord(ch):04X} found); "
                "type it with letters, digits and punctuation"
            )
    name = " ".join(raw.split())
    if name.startswith("@"):
        name = name[1:].lstrip()
    if not name:
        raise NameProblem("a name is needed (anything but spaces)")
    if len(name) > NAME_LIMIT:
        raise NameProblem(f"a name has at most {NAME_LIMIT} characters, not {len(name)}")
    return name


def name_key(name: str) -> str:
    """What makes two names the same: case ignored (`casefold`)."""
    return name.casefold()


def is_valid_name(value: Any) -> bool:
    """True when `value` is a string `normalise_name` keeps as it is (used by imports)."""
    if not isinstance(value, str):
        return False
    try:
        return normalise_name(value) == value
    except NameProblem:
        return False


def free_name(name: str, taken: Collection[str]) -> str:
    """`name`, or `name (2)`, `name (3)`... : the first whose key is not in `taken`."""
    if name_key(name) not in taken:
        return name
    number = 2
    while True:
        suffix = f" ({number})"
        candidate = name[: NAME_LIMIT - len(suffix)] + suffix
        if name_key(candidate) not in taken:
            return candidate
        number += 1


def sort_of(value: str) -> str:
    """A stored order as the filter knows it: `file`, else `relevance`."""
    return value if value in SORTS else "relevance"
