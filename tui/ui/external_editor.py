"""Editing a note in the user's own editor ($VISUAL, else $EDITOR).

The note goes into a private temporary file (mode 0600: notes are personal), the
editor runs on it in the terminal the app handed over, and the file is read back and
removed once its text is taken (kept, and named, only when it cannot be saved as a
note). If the app must end while the editor runs (the terminal closed), the quit ends
the editor and saves what it had written: nothing is left running or lost silently. Nothing here raises: the caller runs it while the app is
suspended and must resume the terminal afterwards, so problems come back as text.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
import threading
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


def edit_text(text: str, command: list[str], max_chars: int | None = None) -> EditResult:
    """Run `command` on a 0600 temporary file holding `text`; return what it holds after.

    A text longer than `max_chars` is refused and its file kept (the message names it):
    the user's writing is never dropped. While the editor runs, `take_running_edit` can
    end it from another thread (the terminal closed) and take what it saved.
    """
    global _running
    fd, name = tempfile.mkstemp(prefix="abstracts-note-", suffix=".md")
    keep = False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        try:
            process = subprocess.Popen([*command, name])
        except OSError as e:
            return EditResult(None, f"Could not start the editor {command[0]!r}: {e.strerror or e}")
        edit = _Edit(name, text, process)
        with _lock:
            _running = edit
        try:
            code = process.wait()
        finally:
            with _lock:
                _running = None
        if edit.taken:
            keep = True  # `take_running_edit` reads and removes the file
            return EditResult(None, "The app is quitting; what the editor saved was kept.")
        if code > 0:
            return EditResult(None, f"The editor exited with status {code}; the note is unchanged.")
        edited = _read(name)
        if code < 0 and edited == text:
            return EditResult(
                None, f"The editor was ended (signal {-code}); the note is unchanged."
            )
        if max_chars is not None and len(edited) > max_chars:
            keep = True
            return EditResult(
                None,
                f"A note takes at most {max_chars:,} characters; the editor saved "
                f"{len(edited):,}, so the note is unchanged. Your text is kept in {name}.",
            )
    except OSError as e:
        return EditResult(None, f"The note could not go through a temporary file: {e}")
    finally:
        if not keep:
            with contextlib.suppress(OSError):
                os.unlink(name)
    return EditResult(_without_final_newline(edited, text))


def take_running_edit(
    max_chars: int | None = None, grace: float = 0.5
) -> tuple[str | None, str | None]:
    """From another thread, while an editor runs and the app must end (the terminal
    closed): end the editor (SIGTERM, then SIGKILL after `grace` seconds, so an editor
    that ignores the hangup is not left running with nobody to read its save), and
    take what its file holds.

    Returns (text, kept): the edited text when it differs from the note it started
    from (None otherwise, or when no editor runs), and the file's path when the file
    was kept (it could not be read, or its text is longer than `max_chars`); the file
    is removed otherwise.
    """
    with _lock:
        edit = _running
        if edit is None or edit.taken:
            return None, None
        edit.taken = True
    process = edit.process
    with contextlib.suppress(OSError):
        process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(grace)
    try:
        edited = _read(edit.path)
    except OSError:
        return None, edit.path
    if max_chars is not None and len(edited) > max_chars:
        return None, edit.path
    with contextlib.suppress(OSError):
        os.unlink(edit.path)
    edited = _without_final_newline(edited, edit.original)
    return (edited if edited != edit.original else None), None


@dataclass(slots=True)
class _Edit:
    """The editor running now: its file, the note it started from, its process."""

    path: str
    original: str
    process: subprocess.Popen[bytes]
    #: Set once `take_running_edit` has ended it and taken its text.
    taken: bool = False


_lock = threading.Lock()
_running: _Edit | None = None


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as back:
        return back.read()


def _without_final_newline(edited: str, original: str) -> str:
    # Editors end the last line with a newline; that alone is not a change.
    return edited if original.endswith("\n") else edited.removesuffix("\n")
