"""An unhandled exception ends the app with the store flushed, the traceback in a log
file in the data dir, and a non-zero exit status."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.helpers import wait_for_userdata
from tui.store.userdata import UserData
from tui.ui.app import make_app
from tui.ui.crash import EXIT_CRASHED


class Boom(Exception):
    pass


async def test_an_unhandled_exception_is_logged_saved_and_exits_non_zero(
    seeds_dir: Path,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)

    def broken() -> None:
        raise Boom("the action failed")

    monkeypatch.setattr(app, "action_toggle_raw", broken)
    with pytest.raises(Boom):
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for_userdata(pilot)
            target = app.abstract_list.current
            await pilot.press("b", "n", *"typed before the crash")
            await pilot.press("escape", "v")  # v runs the broken action
            await pilot.pause()
    assert app.return_value == EXIT_CRASHED
    logs = list(data_dir.glob("crash-*.log"))
    assert len(logs) == 1
    assert "Boom: the action failed" in logs[0].read_text(encoding="utf-8")
    assert f"\n{logs[0]}\n" in capsys.readouterr().err  # printed, on a line of its own
    data = UserData.open(data_dir)
    try:
        assert data.is_bookmarked(target.id)
        assert data.note(target.id) == "typed before the crash"
    finally:
        data.close()


async def test_the_note_open_in_the_editor_is_saved_when_the_app_crashes(
    seeds_dir: Path, data_dir: Path
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    with pytest.raises(Boom):
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for_userdata(pilot)
            target = app.abstract_list.current
            await pilot.press("n", *"still typing")  # within the debounce: not saved yet
            app.call_later(_raise)
            await pilot.pause()
    data = UserData.open(data_dir)
    try:
        assert data.note(target.id) == "still typing"
    finally:
        data.close()


def _raise() -> None:
    raise Boom("from a callback")


def test_a_workers_failure_is_logged_with_the_traceback_of_its_error(tmp_path: Path) -> None:
    """Textual raises WorkerFailed without the failing code's frames; the log has them."""
    from textual.worker import WorkerFailed

    from tui.ui.crash import write_crash_log

    def fault_in_the_worker() -> None:
        raise ValueError("zip() argument 2 is shorter than argument 1")

    try:
        fault_in_the_worker()
    except ValueError as error:
        failed = WorkerFailed(error)
    path = write_crash_log(tmp_path, failed)
    assert path is not None
    text = path.read_text(encoding="utf-8")
    assert "fault_in_the_worker" in text and "zip() argument 2" in text
