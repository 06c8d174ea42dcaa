"""Tag names: the one rule for what a tag is, shared by the store, search, import and UI.

A tag is kept as typed after normalising: surrounding whitespace trimmed, a leading
`#` dropped, lower case, Unicode NFC, and every run of whitespace inside as one `-`
(`#Related Work` -> `related-work`). A name that is empty, longer than `MAX_LENGTH`,
starts with `-` (that means "remove" where tags are typed), or holds a control
character, a comma (the separator) or a double quote (the query language's) is
refused with a message naming it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

MAX_LENGTH = 64
_SPACES = re.compile(r"\s+")
# Where typed text starts another tag: a comma, or whitespace before `#` or `-`
# (`to cite, reading group`, `#a #b -c`); other spaces are part of a name.
_SEPARATOR = re.compile(r",|\s+(?=[#-])")


class TagError(ValueError):
    """A tag name that cannot be used; `str(error)` is the message to show."""


def normalise_tag(text: str) -> str:
    """The stored form of a tag name: `  #To Cite ` -> `to-cite`. Raises TagError."""
    name = unicodedata.normalize("NFC", text).strip()
    name = name.lstrip("#").strip()
    name = _SPACES.sub("-", name).lower()
    shown = text.strip()[:20]
    if not name:
        raise TagError("a tag needs a name (letters, digits or -), e.g. to-cite")
    bad = next((c for c in name if unicodedata.category(c) in ("Cc", "Cf", "Cs")), None)
    if bad is not None:
        raise TagError(f"tag {shown!r} contains a control character (U+{ord(bad):04X})")
    for separator in (",", '"'):
        if separator in name:
            raise TagError(f"tag {shown!r} contains {separator!r}, which a tag cannot")
    if name.startswith("-"):
        raise TagError(f"tag {shown!r} starts with -, which means 'remove' when typing tags")
    if len(name) > MAX_LENGTH:
        raise TagError(f"tag {shown!r}… is longer than {MAX_LENGTH} characters")
    return name


@dataclass(frozen=True, slots=True)
class TagEdit:
    """What a line typed into the tag input asks for: names to add and names to remove."""

    add: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.add or self.remove)


def parse_tag_edit(text: str) -> TagEdit:
    """`to cite, -draft #rg` -> add (to-cite, rg), remove (draft). Raises TagError.

    Tags are separated by commas, or by spaces before `#` or `-`; other spaces
    become part of the name. A leading `-` removes the tag. Naming a tag twice keeps
    the last intent.
    """
    wanted: dict[str, bool] = {}
    for part in _SEPARATOR.split(text):
        part = part.strip()
        if not part:
            continue
        removing = part.startswith("-")
        name = normalise_tag(part[1:] if removing else part)
        wanted.pop(name, None)
        wanted[name] = not removing
    return TagEdit(
        tuple(n for n, on in wanted.items() if on), tuple(n for n, on in wanted.items() if not on)
    )


def format_tags(tags: Iterable[str]) -> str:
    """`#a #b`: tags sorted, each with its `#`, for a row or a pane."""
    return " ".join(f"#{t}" for t in sorted(tags))
