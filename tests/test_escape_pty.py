"""Black-box: hostile file names, abstracts and notes on a real pseudo-terminal.

The command runs as users run it, its stdout and stderr on a pty; every byte the
terminal would receive is collected. The CLI writes no escape sequence of its own,
so none may appear; the app draws with its own sequences, so there the hostile
payloads themselves must never appear.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tui.corpus.load import load_corpus

OSC52 = "\x1b]52;c;aGVsbG8=\x07"  # sets the clipboard
TITLE = "\x1b]0;TITLE\x07"  # sets the window title
CLEAR = "\x1b[2JCLEARED"  # clears the screen
# What reaches a terminal of each payload; rich drops BEL, so match up to it.
PAYLOADS = [b"\x1b]52;c;aGVsbG8=", b"\x1b]0;TITLE", b"\x1b[2JCLEARED"]


class Pty:
    """A command on a pseudo-terminal, everything it writes collected in `seen`."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
        )
        os.close(slave)
        self.seen = b""

    def read(self, seconds: float, until: bytes | None = None) -> None:
        """Collect output for `seconds`, or until `until` has been seen."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if until is not None and until in self.seen:
                return
            ready, _, _ = select.select([self.master], [], [], min(left, 0.05))
            if ready:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:  # the child has gone and closed its side
                    return
        if until is not None and until not in self.seen:
            raise AssertionError(f"never saw {until!r}")

    def finish(self, timeout: float = 30) -> int:
        """Keep reading (a full pty would block the child) until it exits."""
        deadline = time.monotonic() + timeout
        try:
            while self.proc.poll() is None and time.monotonic() < deadline:
                self.read(0.1)
            self.read(0.2)
            return self.proc.wait(timeout=5)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            os.close(self.master)


@pytest.fixture
def hostile_dir(tmp_path: Path) -> Path:
    """A hostile corpus: files named with escape sequences, an abstract full of them."""
    corpus = tmp_path / "d"
    corpus.mkdir()
    (corpus / f"b{OSC52}.txt").write_bytes(b"x\0")  # binary: a load problem naming it
    (corpus / f"c{TITLE}{CLEAR}.txt").write_bytes(b"y\0")
    (corpus / "[@click=app.quit]CLICKME.txt").write_bytes(b"z\0")
    (corpus / "good.txt").write_text(
        "ICLR 2023 Papers\n\n"
        f"About attention{OSC52} in transformers{TITLE} and {CLEAR} more text.\n\n"
        "A second abstract about sparse attention, so there is a list.\n",
        encoding="utf-8",
    )
    return corpus


def _env(data_dir: Path) -> dict[str, str]:
    return dict(os.environ, ABSTRACTS_DATA_DIR=str(data_dir), TERM="xterm-256color")


def _run_cli(argv: list[str], data_dir: Path) -> tuple[int, bytes]:
    pty = Pty([sys.executable, "-m", "tui", *argv], _env(data_dir))
    code = pty.finish()
    return code, pty.seen


def _assert_nothing_obeyed(seen: bytes) -> None:
    assert b"\x1b" not in seen and b"\x07" not in seen, seen
    assert "\u202e".encode() not in seen and b"\xc2\x9b" not in seen, seen


def _note_on_first_abstract(corpus: Path, data_dir: Path, tmp_path: Path) -> None:
    first = load_corpus([corpus]).abstracts[0]
    doc = {
        "format": "abstracts-export",
        "version": 1,
        "records": [{"id": first.id, "text": first.text, "headline": f"Stored{OSC52} headline"}],
        "notes": [{"id": first.id, "text": f"my note{TITLE} with{CLEAR}\u202ertl"}],
        "bookmarks": [{"id": first.id, "created": 1.0}],
    }
    path = tmp_path / "notes.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, seen = _run_cli(["import", str(path)], data_dir)
    assert code == 0, seen


@pytest.mark.parametrize("json_rows", [False, True])
def test_search_prints_names_and_text_never_escapes(
    hostile_dir: Path, data_dir: Path, json_rows: bool
) -> None:
    code, seen = _run_cli(
        ["search", "attention", str(hostile_dir), *(["--json"] if json_rows else [])], data_dir
    )
    assert code == 0, seen
    _assert_nothing_obeyed(seen)
    # The names are there, shown: the problems name every file that could not be read.
    assert "b␛]52;c;aGVsbG8=␇.txt".encode() in seen
    assert b"[@click=app.quit]CLICKME.txt" in seen


@pytest.mark.parametrize("fmt", ["md", "csv", "bibtex", "json"])
def test_export_writes_no_escape_to_the_terminal(
    hostile_dir: Path, data_dir: Path, tmp_path: Path, fmt: str
) -> None:
    _note_on_first_abstract(hostile_dir, data_dir, tmp_path)
    code, seen = _run_cli(["export", "--format", fmt], data_dir)
    assert code == 0, seen
    _assert_nothing_obeyed(seen)
    assert b"my note" in seen


@pytest.mark.slow
def test_the_app_never_sends_a_hostile_payload_to_the_terminal(
    hostile_dir: Path, data_dir: Path, tmp_path: Path
) -> None:
    """Start on the hostile corpus, open the load report, the LaTeX source view, the
    overview, the notes view and the note editor, quit: the payloads never reach the terminal, not
    even in the problem list printed after the app exits."""
    _note_on_first_abstract(hostile_dir, data_dir, tmp_path)
    pty = Pty([sys.executable, "-m", "tui", str(hostile_dir)], _env(data_dir))
    # Each key, and what shows that it was handled. L and N close what they open; Esc
    # is followed by a pause, or the next key would be read as Alt+key.
    steps = [
        (b"L", b"Load report"),
        (b"L", None),
        (b"v", b"Showing LaTeX source"),
        (b"v", b"Showing rendered text"),
        (b"O", b"Overview"),
        (b"O", None),
        (b"N", b"Notes (1)"),
        (b"N", None),
        (b"n", b"saved as you type"),
        (b"\x1b", None),
    ]
    try:
        pty.read(30, until=b"load report")  # the problems' toast, after the first paint
        pty.read(30, until=b"my note")  # the user's data opens after the first paint
        for keys, shows in steps:
            os.write(pty.master, keys)
            pty.read(0.5 if shows is None else 30, until=shows)
        os.write(pty.master, b"q")
    finally:
        code = pty.finish()
    assert code == 0
    for payload in PAYLOADS:
        assert payload not in pty.seen, payload
    # The names, the abstract and the note were drawn, shown as symbols.
    shown = pty.seen.decode("utf-8", "replace")
    assert "b␛]52;c;aGVsbG8=␇.txt" in shown  # the load report and the printout after exit
    assert "my note␛]0;TITLE␇" in shown
    assert "About attention␛]52;c;aGVsbG8=␇" in shown


def test_a_file_name_used_as_the_collection_label_is_never_obeyed(
    tmp_path: Path, data_dir: Path
) -> None:
    corpus = tmp_path / "d"
    corpus.mkdir()
    (corpus / f"t{TITLE}.txt").write_text(
        "A headerless file: its name becomes the collection label.\n", encoding="utf-8"
    )
    pty = Pty([sys.executable, "-m", "tui", str(corpus)], _env(data_dir))
    try:
        pty.read(30, until=b"headerless")
        pty.read(0.5)
        os.write(pty.master, b"q")
    finally:
        assert pty.finish() == 0
    assert PAYLOADS[1] not in pty.seen
