"""`e`: the current abstract's note in $VISUAL / $EDITOR.

The editor is a small Python script standing in for vim. Under `run_test` the headless
driver cannot suspend, so the app-level tests replace `App.suspend` with a no-op context;
one test checks what happens without that replacement.
"""

from __future__ import annotations

import contextlib
import shlex
import sys
from pathlib import Path

import pytest

from tests.ui.helpers import record_notifications, wait_for_userdata
from tui.ui.app import AbstractsApp, make_app
from tui.ui.external_editor import edit_text, editor_command

# Appends a line to the file it is given, and records the file's name and mode.
EDITOR_SCRIPT = """
import os, sys
path = sys.argv[1]
with open(os.environ["EDITOR_LOG"], "w") as log:
    log.write(f"{path}\\n{os.stat(path).st_mode & 0o777:o}\\n")
with open(path, encoding="utf-8") as f:
    text = f.read()
with open(path, "w", encoding="utf-8") as f:
    f.write(text + "\\nadded in the editor\\n")
sys.exit(int(os.environ.get("EDITOR_STATUS", "0")))
"""


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$VISUAL runs the script; returns the log it writes."""
    script = tmp_path / "editor.py"
    script.write_text(EDITOR_SCRIPT, encoding="utf-8")
    log = tmp_path / "editor.log"
    monkeypatch.setenv("VISUAL", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    monkeypatch.setenv("EDITOR_LOG", str(log))
    return log


def test_the_note_goes_through_a_private_temporary_file_that_is_removed(editor: Path) -> None:
    command = editor_command({"VISUAL": f"{sys.executable} {editor.parent / 'editor.py'}"})
    assert command is not None
    result = edit_text("my note", command)
    assert result.text == "my note\nadded in the editor"
    name, mode = editor.read_text().split()
    assert mode == "600"
    assert not Path(name).exists()


def test_a_failing_or_missing_editor_changes_nothing(
    editor: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR_STATUS", "3")
    command = editor_command({"VISUAL": f"{sys.executable} {editor.parent / 'editor.py'}"})
    assert command is not None
    failed = edit_text("my note", command)
    assert failed.text is None and "status 3" in failed.problem
    assert not Path(editor.read_text().split()[0]).exists()
    missing = edit_text("my note", ["/nonexistent/editor"])
    assert missing.text is None and "/nonexistent/editor" in missing.problem


def test_visual_comes_before_editor() -> None:
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "vi"}) == ["code", "--wait"]
    assert editor_command({"VISUAL": " ", "EDITOR": "vi"}) == ["vi"]
    assert editor_command({}) is None


def suspendable(app: AbstractsApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The headless driver cannot suspend: stand in a no-op. Returns what the app says."""
    monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
    return record_notifications(app, monkeypatch)


async def test_e_edits_the_note_in_the_editor_and_u_undoes_it(
    seeds_dir: Path, editor: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    suspendable(app, monkeypatch)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        data = app.personal.userdata
        await pilot.press("n", *"mine", "escape", "e")
        assert data.note(target.id) == "mine\nadded in the editor"
        assert "added in the editor" in app.detail.text_of("note").plain
        assert not Path(editor.read_text().split()[0]).exists()
        await pilot.press("u")
        assert data.note(target.id) == "mine"


async def test_e_says_so_when_there_is_no_editor_or_it_fails(
    seeds_dir: Path, editor: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    said = suspendable(app, monkeypatch)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        await pilot.press("n", *"mine", "escape")
        monkeypatch.setenv("EDITOR_STATUS", "1")
        await pilot.press("e")
        assert any("status 1" in s for s in said)
        monkeypatch.delenv("VISUAL")
        monkeypatch.delenv("EDITOR", raising=False)
        await pilot.press("e")
        assert any("$VISUAL or $EDITOR" in s for s in said)
        assert app.personal.userdata.note(target.id) == "mine"


async def test_e_where_the_terminal_cannot_be_handed_over(
    seeds_dir: Path, editor: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app([seeds_dir])
    said = suspendable(app, monkeypatch)
    monkeypatch.setattr(app, "suspend", AbstractsApp.suspend.__get__(app))  # the real one
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_userdata(pilot)
        target = app.abstract_list.current
        await pilot.press("e")
        assert any("cannot be handed" in s for s in said)
        assert app.personal.userdata.note(target.id) is None
        assert not editor.exists()  # the editor never ran


async def test_e_is_in_the_palette(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Edit note in $EDITOR" in titles


# Writes its file, then ignores hangups and termination and waits: an editor left open
# when the terminal closes. It logs its process id and the file's name.
STUBBORN_TEXT = "saved in the editor before the terminal closed"
STUBBORN_EDITOR = """
import os, signal, sys, time
for number in (signal.SIGHUP, signal.SIGTERM):
    signal.signal(number, signal.SIG_IGN)
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write("saved in the editor before the terminal closed\\n")
with open(os.environ["EDITOR_LOG"], "w") as log:
    log.write(f"{os.getpid()}\\n{sys.argv[1]}\\n")
time.sleep(600)
"""


def test_an_editor_that_ignores_hangups_is_ended_and_its_save_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import threading
    import time

    from tui.ui.external_editor import take_running_edit

    script = tmp_path / "stubborn.py"
    script.write_text(STUBBORN_EDITOR, encoding="utf-8")
    log = tmp_path / "editor.log"
    monkeypatch.setenv("EDITOR_LOG", str(log))
    results = []
    editing = threading.Thread(
        target=lambda: results.append(edit_text("before", [sys.executable, str(script)]))
    )
    editing.start()
    deadline = time.monotonic() + 20
    while not log.exists() or len(log.read_text().split()) < 2:
        assert time.monotonic() < deadline, "the editor never started"
        time.sleep(0.02)
    pid, name = log.read_text().split()
    text, kept = take_running_edit()
    editing.join(10)
    assert text == STUBBORN_TEXT and kept is None
    assert not Path(name).exists()
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid), 0)  # ended, not left running with nobody to read its save
    assert results[0].text is None and "quitting" in results[0].problem


def test_a_note_longer_than_the_limit_is_refused_and_its_file_kept(editor: Path) -> None:
    command = editor_command({"VISUAL": f"{sys.executable} {editor.parent / 'editor.py'}"})
    assert command is not None
    result = edit_text("x" * 50, command, max_chars=60)
    name = editor.read_text().split()[0]
    assert result.text is None
    assert "at most 60 characters" in result.problem and name in result.problem
    assert Path(name).read_text(encoding="utf-8").startswith("x" * 50)
    Path(name).unlink()
