"""The user's `config.toml` (in `locations.config_dir()`): the followed sources and the API.

    follow = ["cs.LG", 'abs:"diffusion" AND cat:cs.CV']
    api_url = "https://export.arxiv.org/api/query"   # a mirror, or a test server

Read with tomllib (`tui/config.py`, which also reads the app's settings from the same
file). Writing changes only the `follow` array: every other line, key and
comment stays as the user wrote it (the file is edited, not regenerated), the result is
parsed again to check nothing else moved, and it is written atomically.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.config import ConfigError as ConfigError  # re-exported: the inbox's callers catch it
from tui.config import parse_toml, read_text
from tui.fileio import write_text_atomically

DEFAULT_API_URL = "https://export.arxiv.org/api/query"
_TABLE = re.compile(r"^\s*\[")
_FOLLOW = re.compile(r"^\s*follow\s*=")


@dataclass(frozen=True, slots=True)
class Config:
    """What the app reads from the config file (defaults for what it does not say)."""

    follow: tuple[str, ...] = ()
    api_url: str = DEFAULT_API_URL
    raw: dict[str, Any] = field(default_factory=dict)


def read_config(path: Path) -> Config:
    """The config at `path` (defaults when there is no file). Raises ConfigError for a file
    that is not TOML or whose keys have the wrong type."""
    data = parse_toml(read_text(path), path)
    follow = data.get("follow", [])
    if not isinstance(follow, list) or not all(isinstance(s, str) for s in follow):
        raise ConfigError(f"{path}: follow must be a list of strings")
    api_url = data.get("api_url", DEFAULT_API_URL)
    if not isinstance(api_url, str) or not api_url.startswith(("http://", "https://")):
        raise ConfigError(f"{path}: api_url must be an http(s) URL")
    return Config(tuple(follow), api_url, data)


def _follow_block(sources: list[str]) -> list[str]:
    if not sources:
        return ["follow = []"]
    # A JSON string is a TOML basic string (the same escapes).
    return ["follow = [", *(f"    {json.dumps(s, ensure_ascii=False)}," for s in sources), "]"]


def _follow_span(lines: list[str]) -> tuple[int, int] | None:
    """Lines [start, end) of the top-level `follow = ...` assignment, or None."""
    for start, line in enumerate(lines):
        if _TABLE.match(line):
            return None  # past the top level
        if _FOLLOW.match(line):
            for end in range(start + 1, len(lines) + 1):
                try:
                    tomllib.loads("\n".join(lines[start:end]))
                except tomllib.TOMLDecodeError:
                    continue
                return start, end
            return None
    return None


def write_follow(path: Path, sources: list[str]) -> None:
    """Set the config's `follow` list to `sources`, keeping everything else in the file."""
    text = read_text(path)
    before = parse_toml(text, path)
    lines = text.splitlines()
    block = _follow_block(sources)
    span = _follow_span(lines)
    if span is not None:
        lines[span[0] : span[1]] = block
    else:
        # Top-level keys must come before the first table.
        at = next((i for i, line in enumerate(lines) if _TABLE.match(line)), len(lines))
        lines[at:at] = [*block, ""] if at < len(lines) else block
    new_text = "\n".join(lines) + "\n"
    after = parse_toml(new_text, path)
    if after.get("follow") != sources or {k: v for k, v in after.items() if k != "follow"} != {
        k: v for k, v in before.items() if k != "follow"
    }:
        raise ConfigError(f"{path}: could not change follow without changing other keys")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, new_text)
