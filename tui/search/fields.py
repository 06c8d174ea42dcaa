"""The query language's fields: the registry that `query.py` parses with and that
modules adding fields (`paperquery.py`) register into, and the error a query raises."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tui.corpus.tokens import fold


class QueryError(ValueError):
    """A query the user typed cannot be understood; `str(error)` is the message to show."""


FieldParser = Callable[[str], object]


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """How a field's value is checked: `parse(value)` returns its argument or raises QueryError."""

    name: str
    parse: FieldParser
    personal: bool = False


_FIELDS: dict[str, FieldSpec] = {}


def register_field(spec: FieldSpec) -> None:
    """Add (or replace) a field; the index must know a selector for `spec.name` too."""
    _FIELDS[spec.name] = spec


def field_names() -> list[str]:
    """The fields the parser accepts, sorted (for help text and error messages)."""
    return sorted(_FIELDS)


def _parse_choice(name: str, choices: tuple[str, ...]) -> FieldParser:
    def parse(value: str) -> object:
        folded = fold(value)
        if folded not in choices:
            options = ", ".join(f"{name}:{c}" for c in choices)
            raise QueryError(f"unknown value {name}:{value}; try {options}")
        return folded

    return parse
