"""config.toml's settings applied to the app: keys remapped by binding id (Textual's
`App.set_keymap`), the theme, auto-read and the order of filtered results.

What the file says applies at every start; the palette changes theme, auto-read and order
for the session. A setting that cannot apply (an id no binding has, a key Textual has no
name for, a key another binding of the same place already has, a theme not offered) is
reported once the app shows, naming the file and the key, and left out.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType
from textual.keys import REPLACED_KEYS, Keys, _character_to_key, key_to_character

from tui.config import Settings, read_settings
from tui.sanitize import visible_line

if TYPE_CHECKING:
    from tui.ui.host import Host

MODIFIERS = frozenset({"ctrl", "alt", "shift", "meta", "super", "hyper"})
_KEY_NAMES = frozenset(k.value for k in Keys)


def binding_groups() -> Iterator[tuple[str, Sequence[BindingType]]]:
    """Every place that has bindings (the app, each screen and widget class) and its
    bindings. Imports every screen and widget module: only for checking a keymap."""
    from tui.ui import screens, widgets
    from tui.ui.keys import APP_BINDINGS

    yield "the app", APP_BINDINGS
    for package in (screens, widgets):
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for value in vars(module).values():
                if isinstance(value, type) and value.__module__ == module.__name__:
                    own = value.__dict__.get("BINDINGS")
                    if own:
                        yield value.__qualname__, own


def normalise_key(key: str) -> str:
    """A key as Textual names it: `?` -> `question_mark`, modifiers kept."""
    key = key.strip()
    return _character_to_key(key) if len(key) == 1 else key


def key_problem(key: str) -> str | None:
    """Why Textual would never match `key` (None: it is a key it can match)."""
    *modifiers, base = key.split("+")
    unknown = [m for m in modifiers if m not in MODIFIERS]
    if unknown:
        return f"{unknown[0]!r} is not a modifier (ctrl, alt, shift, meta, super, hyper)"
    if len(base) == 1 or base in _KEY_NAMES or base in REPLACED_KEYS:
        return None
    if key_to_character(base) is not None:
        return None
    return f"{key!r} is not a key name (a character, or names such as f5, pageup, space, comma)"


def check_key_names(keys: Mapping[str, str], path: Path) -> tuple[dict[str, str], list[str]]:
    """The keymap to apply (ids to keys as Textual names them) and the entries left out
    because a key has no name Textual matches."""
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, value in keys.items():
        wanted = [normalise_key(k) for k in value.split(",")]
        bad = next((p for k in wanted if (p := key_problem(k)) is not None), None)
        if bad is None:
            keymap[binding_id] = ",".join(wanted)
        else:
            problems.append(_wrong(path, binding_id, bad))
    return keymap, problems


def check_against_bindings(
    keymap: Mapping[str, str], path: Path
) -> tuple[dict[str, str], list[str]]:
    """`keymap` without the ids no binding has and the keys another binding of the same
    place keeps or is given too (Textual would let only one of them have it), and why
    each was left out. Imports every screen: run off the UI thread."""
    groups = list(binding_groups())
    known = {b.id for _, bindings in groups for b in bindings if isinstance(b, Binding)}
    kept = {i: keys for i, keys in keymap.items() if i in known}
    problems = [
        _wrong(path, i, "no key binding has this id (the README lists them)")
        for i in keymap
        if i not in known
    ]
    while (clash := _clash(kept, groups)) is not None:
        ours, key, theirs, place = clash
        del kept[ours]
        problems.append(
            _wrong(
                path,
                ours,
                f"{key} is already the key of {theirs} ({place}); remap both to swap them",
            )
        )
    return kept, problems


def _wrong(path: Path, binding_id: str, why: str) -> str:
    return f"{path}: [keys] {binding_id}: {why}; ignored"


def _clash(
    keymap: Mapping[str, str], groups: Sequence[tuple[str, Sequence[BindingType]]]
) -> tuple[str, str, str, str] | None:
    """A key the keymap gives to a binding while another of the same place keeps it or is
    given it too: (the remapped id, the key, the other id, the place), or None."""
    for place, bindings in groups:
        holder: dict[str, str] = {}
        for binding in bindings:
            if not isinstance(binding, Binding) or binding.id is None:
                continue
            for key in (normalise_key(k) for k in keymap.get(binding.id, binding.key).split(",")):
                other = holder.setdefault(key, binding.id)
                if other == binding.id or not (binding.id in keymap or other in keymap):
                    continue
                if binding.id in keymap:
                    return binding.id, key, other, place
                return other, key, binding.id, place
    return None


def apply_settings(app: Host, settings: Settings, path: Path) -> list[str]:
    """Apply `settings` (from the file at `path`) to `app` before it runs; returns what
    could not apply. The keymap's ids are checked against the bindings after the first
    paint (`check_against_bindings`), which takes out what cannot apply and reports it."""
    problems: list[str] = []
    if settings.keys:
        keymap, problems = check_key_names(settings.keys, path)
        app.set_keymap(keymap)
        app.call_later(app.call_after_refresh, _check_later, app, keymap, path)
    if settings.theme is not None:
        if settings.theme in app.available_themes:
            app.theme = settings.theme
        else:
            names = ", ".join(sorted(app.available_themes))
            problems.append(f"{path}: theme: no theme {settings.theme!r} (one of {names}); ignored")
            settings = Settings(settings.keys, None, settings.auto_read, settings.default_sort)
    if settings.default_sort is not None:
        app.session.filter.order = settings.default_sort
    app.session.settings = settings
    return problems


def _check_later(app: Host, keymap: dict[str, str], path: Path) -> None:
    def check() -> None:
        kept, problems = check_against_bindings(keymap, path)
        app.call_later(_checked, app, keymap, kept, problems)  # posted: safe from a thread

    app.run_worker(check, thread=True, group="config-keys", exclusive=True)


def _checked(app: Host, keymap: dict[str, str], kept: dict[str, str], problems: list[str]) -> None:
    if kept != keymap:
        app.set_keymap(kept)
    report(app, problems)


def report(app: Host, problems: Sequence[str]) -> None:
    """Show what is wrong with the config file once the app's screen is up."""
    for problem in problems:
        app.notify(
            visible_line(problem), title="config.toml", severity="warning", timeout=15, markup=False
        )


def configure(app: Host, path: Path) -> None:
    """Read the config file at `path` and apply it to `app` before it runs; what is wrong
    with it shows as notifications once the app's screen is up."""
    settings, problems = read_settings(path)
    report(app, [*problems, *apply_settings(app, settings, path)])
