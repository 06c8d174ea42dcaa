"""The user's `config.toml` (in `locations.config_dir()`): reading it, and the app's
settings in it.

    theme = "gruvbox"              # the theme at every start (Textual's theme names)
    auto_read = false              # dwell time never marks an abstract read
    default_sort = "file"          # filtered results in file order ("relevance" or "file")

    [keys]                         # binding id = "key" or "key,key2" (see the help screen)
    "abstracts.bookmark" = "s"

The followed sources (`follow`, `api_url`) are the inbox's (`tui/inbox/config.py`), read
from the same file. A setting that is wrong is reported (the file and the key named) and
left out; the others still apply, and a file that is not TOML applies none.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Sort = Literal["relevance", "file"]
SORTS: tuple[Sort, ...] = ("relevance", "file")


class ConfigError(Exception):
    """The config file cannot be read or written; the message names it and says why."""


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    """`text` (the content of `path`) as TOML; ConfigError names the file when it is not."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML ({e}); fix or remove it") from e


def read_text(path: Path) -> str:
    """The config file's text; empty when there is none."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot be read ({e})") from e


@dataclass(frozen=True, slots=True)
class Settings:
    """The app's settings from the config file; None (or no keys): the file leaves it out."""

    keys: Mapping[str, str] = field(default_factory=dict)
    theme: str | None = None
    auto_read: bool | None = None
    default_sort: Sort | None = None


def read_settings(path: Path) -> tuple[Settings, list[str]]:
    """The settings in the config file at `path`, and what is wrong with it: one message per
    problem, naming the file and the key. What is wrong is left out; the rest applies."""
    try:
        data = parse_toml(read_text(path), path)
    except ConfigError as e:
        return Settings(), [f"{e}; no settings from it apply"]
    problems: list[str] = []

    def wrong(key: str, why: str) -> None:
        problems.append(f"{path}: {key}: {why}; ignored")

    theme = data.get("theme")
    if theme is not None and not (isinstance(theme, str) and theme.strip()):
        wrong("theme", 'must be a theme\'s name, such as "gruvbox"')
        theme = None
    auto_read = data.get("auto_read")
    if auto_read is not None and not isinstance(auto_read, bool):
        wrong("auto_read", "must be true or false")
        auto_read = None
    sort = data.get("default_sort")
    if sort is not None and sort not in SORTS:
        wrong("default_sort", "must be " + " or ".join(f'"{s}"' for s in SORTS))
        sort = None
    keys: dict[str, str] = {}
    table = data.get("keys", {})
    if not isinstance(table, dict):
        wrong("keys", 'must be a table: [keys] then lines such as "abstracts.bookmark" = "s"')
        table = {}
    for binding_id, value in table.items():
        if isinstance(value, str) and value.strip():
            keys[binding_id] = value
        else:
            wrong(f"[keys] {binding_id}", 'must be a key or keys, such as "s" or "s,ctrl+b"')
    return Settings(keys, theme, auto_read, sort), problems
