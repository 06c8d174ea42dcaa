"""Quitting: how long `UserData.close` waits for what is still being saved.

A save that works is waited for up to the whole bound the app gives (so a slow disk
does not cost the user a rescue file); when saving is failing, quitting gives the
write one immediate try and does not keep the user looking at a frozen terminal for
the whole bound. The bound is recorded where the writer waits, so no test sleeps.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.store.helpers import PARAGRAPHS, make_abstract
from tui.store.db import Store
from tui.store.userdata import UserData
from tui.store.writer import Writer

A = make_abstract(PARAGRAPHS[0])


@pytest.mark.parametrize(
    ("saving", "asked", "waited"),
    [(True, 5.0, 5.0), (False, 5.0, 1.0), (False, 0.4, 0.4)],
    ids=["saving-works", "saving-fails", "saving-fails-short-bound"],
)
def test_quitting_waits_the_whole_bound_only_while_saving_works(
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    saving: bool,
    asked: float,
    waited: float,
) -> None:
    Store.open(data_dir).close()
    if not saving:
        real_open = Store.open

        def failing_open(directory: Path, *, read_only: bool = False) -> Store:
            if not read_only:
                raise sqlite3.OperationalError("disk I/O error")
            return real_open(directory, read_only=read_only)

        monkeypatch.setattr(Store, "open", failing_open)
    ud = UserData.open(data_dir)
    assert ud.saving_available is saving
    bounds: list[float | None] = []
    real_wait = Writer.wait_flushed

    def recording_wait(self: Writer, timeout: float | None) -> bool:
        bounds.append(timeout)
        # A failing write would fail again: the test does not wait it out.
        return real_wait(self, timeout) if saving else False

    monkeypatch.setattr(Writer, "wait_flushed", recording_wait)
    ud.set_bookmark(A, True)
    rescue = ud.close(timeout=asked)
    assert bounds == [waited]
    # Either way nothing is lost: saved, or written to a rescue file.
    assert (rescue is None) is saving
    if rescue is not None:
        assert A.id in rescue.read_text(encoding="utf-8")
