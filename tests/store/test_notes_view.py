"""The notes view: every note newest first, with its kept conflict copies, and an abstract
whose note was deleted listed while it has copies."""

from __future__ import annotations

import time
from pathlib import Path

from tests.store.helpers import PARAGRAPHS, conflict_on, make_abstract
from tui.store.records import (
    Snapshot,
)

A = make_abstract(PARAGRAPHS[0])


def test_notes_view_is_newest_first_and_copies_alone_are_listed(data_dir: Path) -> None:
    b, c = make_abstract(PARAGRAPHS[1]), make_abstract(PARAGRAPHS[2])
    one = conflict_on(data_dir, A, "from window two")
    one.delete_note(A.id)  # A keeps only its conflict copy
    time.sleep(0.01)
    one.save_note(b, "second")
    time.sleep(0.01)
    one.save_note(c, "third")
    assert one.flush()
    records = one.notes()
    assert [r.id for r in records] == [c.id, b.id, A.id]
    assert [r.updated for r in records] == sorted((r.updated for r in records), reverse=True)
    assert records[2].text == "" and records[2].updated == records[2].conflicts[0].created
    assert records[0].headline == Snapshot.of(c).headline
    one.close()
