"""Dismissals ("not interested", the `x` key): stored like bookmarks, with a snapshot, through
restarts, re-attachment, two instances, export and import, a rescue file and SIGKILL."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.store.helpers import PARAGRAPHS, load, make_abstract, write_file
from tui.commands.export import main_export, main_import
from tui.store.db import Store
from tui.store.export import parse_export
from tui.store.rescue import rescue_document
from tui.store.userdata import UserData

A, B, C = (
    make_abstract(p, path="/c/iclr2023.txt", position=i) for i, p in enumerate(PARAGRAPHS[:3], 1)
)
REPO = Path(__file__).resolve().parents[2]


def _open(d: Path) -> UserData:
    return UserData.open(d, retry_initial=0.02, retry_max=0.1)


def test_round_trip_through_restart_with_a_snapshot(data_dir: Path) -> None:
    ud = _open(data_dir)
    before = ud.dismissed_ids()
    ud.set_dismissed(A, True)
    ud.set_dismissed(B, True)
    ud.set_dismissed(B, False)
    # Memory answers at once; the set handed out earlier is never changed under a reader.
    assert ud.dismissed_ids() == {A.id} and before == set()
    assert ud.is_dismissed(A.id) and not ud.is_dismissed(B.id)
    assert not ud.is_bookmarked(A.id)  # independent of bookmarks
    assert ud.flush() and ud.pending_count == 0
    ud.close()
    stored = Store.open(data_dir).load()
    assert set(stored.dismissals) == {A.id} and stored.records[A.id].text == A.text
    again = _open(data_dir)
    assert again.dismissed_ids() == {A.id}
    again.set_dismissed(A, False)
    again.close()
    assert _open(data_dir).dismissed_ids() == set()


def test_a_dismissal_follows_its_abstract_when_the_file_changes(
    tmp_path: Path, data_dir: Path
) -> None:
    f = tmp_path / "iclr2023.txt"
    write_file(f, "ICLR 2023 Papers", PARAGRAPHS)
    corpus = load([f])
    target = corpus.abstracts[1]
    ud = _open(data_dir)
    ud.attach(corpus)
    ud.set_dismissed(target, True)
    assert ud.flush()
    edited = PARAGRAPHS[1].replace("transformative", "transformational")
    write_file(f, "ICLR 2023 Papers", [PARAGRAPHS[0], edited, *PARAGRAPHS[2:]])
    corpus2 = load([f])
    new = next(a for a in corpus2.abstracts if a.text.startswith("Achieving"))
    report = ud.attach(corpus2)
    assert [(r.old_id, r.new_id) for r in report.reattached] == [(target.id, new.id)]
    assert ud.dismissed_ids() == {new.id}
    assert ud.flush()
    ud.close()
    assert set(Store.open(data_dir).load().dismissals) == {new.id}

    # Its file not opened: kept, and not announced as an orphaned bookmark or note.
    ud = _open(data_dir)
    report = ud.attach(load([write_file(tmp_path / "other.txt", "NeurIPS 2022", ["Other."])]))
    assert report.orphans == [] and ud.dismissed_ids() == {new.id}
    assert ud.snapshot(new.id) is not None
    ud.close()


def test_two_instances_see_each_others_dismissals_and_keep_their_own(data_dir: Path) -> None:
    first, second = _open(data_dir), _open(data_dir)
    try:
        first.set_dismissed(A, True)
        assert first.flush()
        assert second.refresh() and second.dismissed_ids() == {A.id}
        # A change still queued in `second` is not overwritten by what the disk says.
        second.writer.stop(5)  # keep second's change pending (no thread to save it)
        second.set_dismissed(B, True)
        first.set_dismissed(C, True)
        assert first.flush()
        with second.memory.lock:
            second.memory.merge(Store.open(data_dir).load(), second.writer.held_keys())
        assert second.dismissed_ids() == {A.id, B.id, C.id}
    finally:
        first.close()
        second.writer.close_store()


def test_json_export_and_import_round_trip(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ud = _open(data_dir)
    ud.set_dismissed(A, True)
    ud.set_bookmark(B, True)
    ud.close()
    out = tmp_path / "export.json"
    assert main_export(["--format", "json", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert [d["id"] for d in doc["dismissals"]] == [A.id]
    assert {r["id"] for r in doc["records"]} == {A.id, B.id}
    other = tmp_path / "elsewhere"
    assert main_import([str(out), "--data-dir", str(other)]) == 0
    assert "1 dismissal" in capsys.readouterr().out
    imported = Store.open(other).load()
    assert set(imported.dismissals) == {A.id} and imported.records[A.id].text == A.text
    assert main_import([str(out), "--data-dir", str(other)]) == 0
    assert "Nothing new" in capsys.readouterr().out
    # And back out again, unchanged.
    assert main_export(["--format", "json", "--data-dir", str(other)]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["dismissals"] == doc["dismissals"]


def test_a_bad_dismissal_in_an_import_is_named() -> None:
    doc = {"format": "abstracts-export", "version": 1, "dismissals": [{"id": "x"}]}
    with pytest.raises(ValueError, match=r'dismissals\[0\].*no "created"'):
        parse_export(json.dumps(doc))


def test_markdown_and_csv_say_dismissed(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ud = _open(data_dir)
    ud.set_bookmark(A, True)
    ud.set_dismissed(A, True)
    ud.set_bookmark(B, True)
    ud.close()
    assert main_export(["--format", "csv"]) == 0
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert rows[A.id]["dismissed"] == "yes" and rows[B.id]["dismissed"] == ""
    assert main_export(["--format", "md"]) == 0
    markdown = capsys.readouterr().out
    assert markdown.count("not interested") == 1


def test_a_pending_dismissal_goes_to_the_rescue_file() -> None:
    from tui.store.operations import SetDismissed
    from tui.store.records import Snapshot

    snap = Snapshot.of(A)
    doc = rescue_document(
        [SetDismissed(A.id, True, snap, 5.0), SetDismissed(B.id, False, None, 6.0)],
        {},
        lambda _: 0,
        "test",
    )
    assert doc["dismissals"] == [{"id": A.id, "created": 5.0}]
    assert [r["id"] for r in doc["records"]] == [A.id]
    assert doc["unsaved_removals"] == [{"kind": "dismissal", "id": B.id}]
    parse_export(json.dumps(doc))  # importable


CHILD = """
import sys
from tests.store.helpers import make_abstract
from tui.store.userdata import UserData
data = UserData.open(__import__("pathlib").Path(sys.argv[1]))
data.set_dismissed(make_abstract(sys.argv[2]), True)
assert data.flush()
print("saved", flush=True)
sys.stdin.read()  # wait to be killed
"""


def test_sigkill_after_the_save_keeps_the_dismissal(data_dir: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(data_dir), PARAGRAPHS[0]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "saved\n"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL
    stored = Store.open(data_dir).load()
    assert set(stored.dismissals) == {make_abstract(PARAGRAPHS[0]).id}
