"""The conference text format: a header line, then one abstract per paragraph."""

from __future__ import annotations

from pathlib import Path

from tui.corpus.parse import parse_text
from tui.corpus.readers import ReadResult


def read(text: str, path: Path) -> ReadResult:
    """Every paragraph of a conference text file as an entry (no paper record)."""
    parsed = parse_text(text, path)
    warnings = list(parsed.warnings)
    if not parsed.paragraphs:
        if parsed.has_header:
            error = f"header only ({parsed.collection.label!r}): no abstracts"
        else:
            error = "empty file (only whitespace)"
        return ReadResult("text", parsed.collection, [], None, warnings, error)
    return ReadResult("text", parsed.collection, parsed.paragraphs, None, warnings)
