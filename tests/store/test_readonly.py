"""A data directory that cannot be written.

A WAL database without its -wal/-shm files cannot be read in place by SQLite when
the directory is unwritable ("unable to open database file"): every note seemed
gone and `abstracts export` failed. The store is now read from a private copy:
every note and bookmark shows, the user is told changes go to a rescue file, and
export works. Three ways to make the directory unwritable: SQLite's side files
replaced by folders (works as root, as CI runs), a real chmod (not as root), and a
real chmod for root with the capabilities that bypass it dropped (setpriv).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.store.helpers import PARAGRAPHS, make_abstract
from tests.store.test_opening import newer_notice
from tui.cli import main
from tui.store import schema
from tui.store.db import Store
from tui.store.userdata import UserData

REPO = Path(__file__).resolve().parents[2]
ABSTRACTS = [make_abstract(p, position=i) for i, p in enumerate(PARAGRAPHS, start=1)]
NOTES = {a.id: f"note {i}: ünïcødé ✓ 100% & $x^2$\nsecond line" for i, a in enumerate(ABSTRACTS)}
BOOKMARKED = {ABSTRACTS[0].id, ABSTRACTS[2].id}


def _fill(directory: Path) -> bytes:
    """A store with notes and bookmarks, closed cleanly: a WAL database, no -wal/-shm."""
    data = UserData.open(directory)
    for abstract in ABSTRACTS:
        data.save_note(abstract, NOTES[abstract.id])
        if abstract.id in BOOKMARKED:
            data.set_bookmark(abstract, True)
    assert data.close() is None
    database = directory / "abstracts.db"
    assert sorted(p.name for p in directory.iterdir()) == ["abstracts.db"]
    return database.read_bytes()


def check(directory: str) -> None:
    """Everything a user of an unwritable data directory relies on (also run as a child)."""
    data_dir = Path(directory)
    data = UserData.open(data_dir, retry_initial=0.05, retry_max=0.1)
    try:
        assert dict(data.note_items()) == NOTES
        assert data.bookmarked_ids() == BOOKMARKED
        assert any("rescue file" in n for n in data.notices), data.notices
        data.save_note(ABSTRACTS[1], "written while read-only")
    finally:
        rescue = data.close(timeout=0.5)
    assert rescue is not None
    assert "written while read-only" in rescue.read_text(encoding="utf-8")
    rescue.unlink()


def _export(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["export", "--format", "json", "--data-dir", str(data_dir)]) == 0
    return json.loads(capsys.readouterr().out)


def _assert_export(doc: dict) -> None:
    assert {n["id"]: n["text"] for n in doc["notes"]} == NOTES
    assert {b["id"] for b in doc["bookmarks"]} == BOOKMARKED


def test_sqlite_side_files_that_cannot_be_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    data_dir = tmp_path / "data"
    before = _fill(data_dir)
    for suffix in ("-wal", "-shm"):
        (data_dir / f"abstracts.db{suffix}").mkdir()  # what SQLite cannot create or open
    check(str(data_dir))
    _assert_export(_export(data_dir, capsys))
    assert (data_dir / "abstracts.db").read_bytes() == before
    assert not list(tmp_path.glob("abstracts-readonly-*"))  # the private copy is removed


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to any directory")
def test_a_real_read_only_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _fill(tmp_path)
    tmp_path.chmod(0o555)
    try:
        check(str(tmp_path))
        _assert_export(_export(tmp_path, capsys))
    finally:
        tmp_path.chmod(0o755)
    assert (tmp_path / "abstracts.db").read_bytes() == before


def test_a_real_read_only_directory_for_root_without_its_override(tmp_path: Path) -> None:
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv (without root, the test above runs)")
    drop = [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner"]
    if subprocess.run([*drop, "true"], capture_output=True).returncode != 0:
        pytest.skip("capabilities cannot be dropped here")
    before = _fill(tmp_path / "data")
    (tmp_path / "data").chmod(0o555)
    try:
        env = dict(os.environ, TMPDIR=str(tmp_path))
        script = f"from tests.store.test_readonly import check; check({str(tmp_path / 'data')!r})"
        done = subprocess.run(
            [*drop, sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True
        )
        assert done.returncode == 0, done.stderr.decode()
        command = ["-m", "tui", "export", "--format", "json", "--data-dir", str(tmp_path / "data")]
        export = subprocess.run(
            [*drop, sys.executable, *command],
            cwd=REPO,
            env=env,
            capture_output=True,
        )
        assert export.returncode == 0, export.stderr.decode()
        _assert_export(json.loads(export.stdout))
    finally:
        (tmp_path / "data").chmod(0o755)
    assert (tmp_path / "data" / "abstracts.db").read_bytes() == before
    assert not list(tmp_path.glob("abstracts-readonly-*"))  # the private copy is removed


def _side_files_that_cannot_be_created(directory: Path) -> None:
    for suffix in ("-wal", "-shm"):
        (directory / f"abstracts.db{suffix}").mkdir()


@pytest.mark.parametrize("version", [schema.SCHEMA_VERSION + 1, 2**31 - 1])
def test_a_newer_versions_store_in_a_folder_that_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: int
) -> None:
    """Read from a private copy, it is still a newer version's store: the user is told to
    update abstracts (not that saving fails and is retried), sees every note, and what
    they write goes to a rescue file, never into the copy (removed at close, unsaved)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    data_dir = tmp_path / "data"
    _fill(data_dir)
    conn = sqlite3.connect(data_dir / "abstracts.db")
    conn.execute(f"PRAGMA user_version = {version}")  # up to the largest SQLite holds
    conn.close()
    before = (data_dir / "abstracts.db").read_bytes()
    _side_files_that_cannot_be_created(data_dir)
    data = UserData.open(data_dir)
    try:
        assert data.notices == [newer_notice(data_dir / "abstracts.db", version)]
        assert dict(data.note_items()) == NOTES and not data.saving_available
        data.save_note(ABSTRACTS[1], "written while read-only")
    finally:
        rescue = data.close(timeout=0.5)
    assert rescue is not None and "written while read-only" in rescue.read_text("utf-8")
    assert (data_dir / "abstracts.db").read_bytes() == before
    assert not list(tmp_path.glob("abstracts-readonly-*"))


def test_the_private_copy_is_a_folder_named_for_abstracts_in_the_temp_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Left behind by a crash, it can be told apart from other programs' folders."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    data_dir = tmp_path / "data"
    _fill(data_dir)
    _side_files_that_cannot_be_created(data_dir)
    store = Store.open(data_dir, read_only=True)
    try:
        assert store.copy_dir is not None and store.copy_dir.parent == tmp_path
        assert store.copy_dir.name.startswith("abstracts-readonly-")
        assert (store.copy_dir / "abstracts.db").is_file()
    finally:
        store.close()
    assert not store.copy_dir.exists()


def test_export_says_why_when_no_private_copy_can_be_made_either(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No temp folder to copy into: the error is why the store itself could not be read."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-folder"))
    data_dir = tmp_path / "data"
    _fill(data_dir)
    _side_files_that_cannot_be_created(data_dir)
    assert main(["export", "--format", "json", "--data-dir", str(data_dir)]) != 0
    err = capsys.readouterr().err
    assert f"Cannot read {data_dir / 'abstracts.db'}: unable to open database file" in err


def _killed_with_changes_in_its_wal(directory: Path) -> None:
    """A store whose app was killed after saving: a note's last text only in its -wal."""
    running = directory.parent / "running"
    _fill(running)
    store = Store.open(running)
    store.conn.execute("PRAGMA wal_autocheckpoint = 0")
    store.save_note(ABSTRACTS[3].id, "only in the -wal")
    directory.mkdir()
    for name in ("abstracts.db", "abstracts.db-wal"):
        shutil.copyfile(running / name, directory / name)
    store.close()


def test_export_shows_what_is_only_in_the_wal_when_it_reads_a_private_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The private copy takes the -wal along: the last text saved before the app was
    killed is in the export. (SQLite cannot make the -shm here: it is a link into a
    folder that does not exist, as it cannot in a read-only folder.)"""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    data_dir = tmp_path / "data"
    _killed_with_changes_in_its_wal(data_dir)
    (data_dir / "abstracts.db-shm").symlink_to(tmp_path / "no-such-folder" / "shm")
    doc = _export(data_dir, capsys)
    notes = {n["id"]: n["text"] for n in doc["notes"]}
    assert notes == {**NOTES, ABSTRACTS[3].id: "only in the -wal"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "running"]
