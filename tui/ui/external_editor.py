"""Editing a note in the user's own editor ($VISUAL, else $EDITOR).

The note goes into a private temporary file (mode 0600: notes are personal), the
editor runs on it in the terminal the app handed over, and the file is read back and
removed whatever happened. Nothing here raises: the caller runs it while the app is
suspended and must resume the terminal afterwards, so problems come back as text.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EditResult:
    """The edited text, or None and `problem` saying why nothing changed."""

    text: str | None
    problem: str = ""


def editor_command(environ: Mapping[str, str]) -> list[str] | None:
    """The editor's command line from $VISUAL or $EDITOR (`code --wait` is two words)."""
    for name in ("VISUAL", "EDITOR"):
        value = environ.get(name, "").strip()
        if value:
            try:
                return shlex.split(value)
            except ValueError:
                return [value]
    return None


def edit_text(text: str, command: list[str]) -> EditResult:
    """Run `command` on a 0600 temporary file holding `text`; return what it holds after."""
    fd, name = tempfile.mkstemp(prefix="abstracts-note-", suffix=".md")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        try:
            code = subprocess.run([*command, name], check=False).returncode
        except OSError as e:
            return EditResult(None, f"Could not start the editor {command[0]!r}: {e.strerror or e}")
        if code != 0:
            return EditResult(None, f"The editor exited with status {code}; the note is unchanged.")
        with open(name, encoding="utf-8", errors="replace") as back:
            edited = back.read()
    except OSError as e:
        return EditResult(None, f"The note could not go through a temporary file: {e}")
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)
    if not text.endswith("\n"):
        # Editors end the last line with a newline; that alone is not a change.
        edited = edited.removesuffix("\n")
    return EditResult(edited)
