"""Saved searches in the store: names, save/rename/delete, two instances, export and import,
rescue files and a SIGKILL after the save."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.store.helpers import open_userdata
from tests.store.test_userdata import _events, _open
from tui.commands.export import main_export, main_import
from tui.store import export
from tui.store.db import Store
from tui.store.importcheck import ImportProblem, check_document
from tui.store.names import NAME_LIMIT, NameProblem, free_name, name_key, normalise_name
from tui.store.records import (
    Notice,
    StoreEvent,
)
from tui.store.rescue import rescue_document
from tui.store.searchdata import NameTaken
from tui.store.searchops import DeleteSearch, RenameSearch, SaveSearch
from tui.store.userdata import UserData

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("reading group", "reading group"),
        ("  to   cite \t", "to cite"),
        ("@weekly", "weekly"),
        ("@ weekly", "weekly"),
        ("Ünïcode ✓ names", "Ünïcode ✓ names"),
        ("x" * NAME_LIMIT, "x" * NAME_LIMIT),
    ],
)
def test_names_are_trimmed(typed: str, kept: str) -> None:
    assert normalise_name(typed) == kept


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("", "a name is needed"),
        ("   ", "a name is needed"),
        ("@", "a name is needed"),
        ("bad\x1bname", "control characters (U+001B"),
        ("line\nbreak", "control characters (U+000A"),
        ("bidi\u202eeman", "control characters (U+202E"),
        ("x" * (NAME_LIMIT + 1), f"at most {NAME_LIMIT}"),
    ],
)
def test_bad_names_say_what_is_wrong(typed: str, said: str) -> None:
    with pytest.raises(NameProblem, match=re.escape(said)):
        normalise_name(typed)


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("lone\ud800surrogate", 0xD800),  # what a file name that is not UTF-8 decodes to
        ("two\u2028lines", 0x2028),  # LINE SEPARATOR: white space to `str.split`
        ("two\u2029paragraphs", 0x2029),  # PARAGRAPH SEPARATOR, likewise
    ],
)
def test_surrogates_and_line_or_paragraph_separators_are_refused(typed: str, code: int) -> None:
    """Not made one space (as a tab is): a name holding them cannot be stored or shown."""
    with pytest.raises(NameProblem) as refused:
        normalise_name(typed)
    assert str(refused.value) == (
        f"a name cannot hold control characters (U+{code:04X} found); "
        "type it with letters, digits and punctuation"
    )


def test_an_empty_name_is_refused_in_so_many_words() -> None:
    with pytest.raises(NameProblem) as refused:
        normalise_name(" @ ")
    assert str(refused.value) == "a name is needed (anything but spaces)"


def test_an_order_the_filter_does_not_know_is_kept_as_relevance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A saved search keeps `file` or `relevance`: anything else (typed by a script, or in
    an export from elsewhere) is saved, and imported, as `relevance`."""
    ud = _open(tmp_path / "a")
    assert ud.save_search("newest", "graph", "newest").sort == "relevance"
    assert ud.flush()
    ud.close()
    doc = {
        "format": "abstracts-export",
        "version": 1,
        "saved_searches": [{"name": "dated", "query": "survey", "sort": "date"}],
    }
    source = tmp_path / "in.json"
    source.write_text(json.dumps(doc), encoding="utf-8")
    assert main_import([str(source), "--data-dir", str(tmp_path / "a")]) == 0
    capsys.readouterr()
    stored = Store.open(tmp_path / "a").load().searches.values()
    assert sorted((s.name, s.sort) for s in stored) == [
        ("dated", "relevance"),
        ("newest", "relevance"),
    ]


def test_names_are_one_ignoring_case_and_free_names_count_up() -> None:
    assert name_key("Reading GROUP") == name_key("reading group")
    taken = {name_key("Weekly"), name_key("weekly (2)")}
    assert free_name("new", taken) == "new"
    assert free_name("WEEKLY", taken) == "WEEKLY (3)"
    assert len(free_name("y" * NAME_LIMIT, {name_key("y" * NAME_LIMIT)})) == NAME_LIMIT


def test_save_rename_delete_survive_a_restart(data_dir: Path) -> None:
    ud = _open(data_dir)
    seen: list[StoreEvent] = []
    ud.listener = seen.append
    ud.save_search("Weekly", "graph year:2023", "relevance")
    ud.save_search("to cite", "is:bookmarked", "file")
    ud.save_search("gone", "survey", "relevance")
    # Memory answers at once; the same name in another case is the same search.
    assert ud.saved_search("WEEKLY").query == "graph year:2023"
    # As typed in the search bar: "@name", spaces around either part ignored.
    found = ud.saved_search(" @ weekly ")
    assert found is not None and found.query == "graph year:2023"
    ud.save_search("weekly", "graph year:2024", "file")
    assert [s.name for s in ud.saved_searches()] == ["gone", "to cite", "weekly"]
    ud.rename_search("to cite", "Cite later")
    assert ud.delete_search("gone") and not ud.delete_search("gone")
    assert ud.flush()
    ud.close()
    assert seen == []  # nothing to tell: no other window was involved

    again = _open(data_dir)
    shown = {s.name: (s.query, s.sort) for s in again.saved_searches()}
    assert shown == {"Cite later": ("is:bookmarked", "file"), "weekly": ("graph year:2024", "file")}
    again.close()


def test_rename_refuses_a_name_in_use_and_unknown_names(data_dir: Path) -> None:
    ud = _open(data_dir)
    ud.save_search("a", "x", "relevance")
    ud.save_search("b", "y", "relevance")
    with pytest.raises(NameTaken, match="already a saved search named “B”"):
        ud.rename_search("a", "B")
    with pytest.raises(KeyError, match="nope"):  # the UI's warning names it
        ud.rename_search("nope", "c")
    with pytest.raises(NameProblem):
        ud.save_search(" ", "x", "relevance")
    ud.rename_search("a", "A")  # only its case: allowed
    assert ud.flush()
    assert [s.name for s in ud.saved_searches()] == ["A", "b"]
    ud.close()
    assert {s.name for s in Store.open(data_dir).load().searches.values()} == {"A", "b"}


def test_queued_changes_of_one_name_apply_in_order(data_dir: Path) -> None:
    ud = _open(data_dir)
    ud.save_search("a", "one", "relevance")
    assert ud.flush()
    # None of these is committed before the next: they go in one batch.
    ud.save_search("a", "two", "relevance")  # replaces, based on "one"
    ud.rename_search("a", "b")
    ud.save_search("a", "three", "relevance")
    ud.delete_search("b")
    assert ud.flush()
    ud.close()
    rows = {s.name: s.query for s in Store.open(data_dir).load().searches.values()}
    assert rows == {"a": "three"}


def _pause_in_commit(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """The next commit waits, inside `Store.apply`, until released: (in_commit, release)."""
    in_commit, release = threading.Event(), threading.Event()
    real_apply = Store.apply

    def apply(self: Store, ops: list[object]) -> object:
        if not release.is_set():
            in_commit.set()
            assert release.wait(10)
        return real_apply(self, ops)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "apply", apply)
    return in_commit, release


@pytest.mark.parametrize("then", ["save", "delete"])
def test_a_change_while_the_last_save_of_that_name_is_written_applies(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, then: str
) -> None:
    """Saving a name again, or deleting it, while its first save is still being written is
    the same user's second thought: it applies, with no "name (2)" and no "kept" notice."""
    ud = _open(data_dir)
    seen = _events(ud)
    in_commit, release = _pause_in_commit(monkeypatch)
    ud.save_search("weekly", "one", "relevance")
    assert in_commit.wait(10)  # the first save is in the writer's hands
    if then == "save":
        ud.save_search("weekly", "two", "file")
    else:
        ud.delete_search("weekly")
    release.set()
    assert ud.flush()
    want = [("weekly", "two", "file")] if then == "save" else []
    assert [(s.name, s.query, s.sort) for s in ud.saved_searches()] == want
    ud.close()
    rows = [(s.name, s.query, s.sort) for s in Store.open(data_dir).load().searches.values()]
    assert rows == want
    assert not [e for e in seen if isinstance(e, Notice)]


def test_a_second_save_never_overwrites_another_instances_search_met_by_the_first(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first save met another instance's search of that name (kept beside it): the
    second save, made while the first was written, must not replace theirs either."""
    mine, theirs = _open(data_dir), _open(data_dir)
    theirs.save_search("weekly", "theirs", "relevance")
    assert theirs.flush()
    theirs.close()
    in_commit, release = _pause_in_commit(monkeypatch)
    mine.save_search("weekly", "one", "relevance")
    assert in_commit.wait(10)
    mine.save_search("weekly", "two", "relevance")
    release.set()
    assert mine.flush()
    mine.close()
    rows = {s.name: s.query for s in Store.open(data_dir).load().searches.values()}
    assert rows["weekly"] == "theirs"
    assert sorted(rows.values()) == ["one", "theirs", "two"]


def test_another_instances_search_of_the_same_name_is_kept(data_dir: Path) -> None:
    mine, theirs = _open(data_dir), _open(data_dir)
    seen = _events(mine)
    theirs.save_search("weekly", "their query", "relevance")
    assert theirs.flush()
    # `mine` has not seen theirs: saving the same name keeps both.
    mine.save_search("Weekly", "my query", "file")
    assert mine.flush()
    queries = {s.name: s.query for s in mine.saved_searches()}
    assert queries == {"weekly": "their query", "Weekly (2)": "my query"}
    assert any(isinstance(e, Notice) and "both are kept" in e.message for e in seen)
    # A replace the user confirmed, based on what they saw, replaces.
    mine.save_search("weekly", "replaced", "relevance")
    assert mine.flush()
    assert theirs.refresh()
    assert theirs.saved_search("weekly").query == "replaced"
    assert theirs.saved_search("weekly (2)").query == "my query"
    mine.close()
    theirs.close()


def test_both_searches_show_when_the_name_is_saved_again_during_the_write(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saving a name another window took keeps both; when the user saves that name once
    more while the first save is being written, theirs waits for the newer save, but
    the user's first search shows under its new name at once."""
    mine, theirs = _open(data_dir), _open(data_dir)
    theirs.save_search("weekly", "their query", "relevance")
    assert theirs.flush()
    real_apply = Store.apply
    typed = []

    def apply(self: Store, ops: list[object]) -> object:
        result = real_apply(self, ops)  # type: ignore[arg-type]
        if self is mine.writer.store and not typed:
            typed.append(True)
            mine.save_search("weekly", "typed meanwhile", "file")
        return result

    monkeypatch.setattr(Store, "apply", apply)
    mine.save_search("Weekly", "my query", "file")
    assert mine.flush(timeout=5)
    found = mine.saved_search("Weekly (2)")
    assert found is not None and found.query == "my query"
    mine.close()
    theirs.close()


def test_a_delete_keeps_a_search_changed_elsewhere(data_dir: Path) -> None:
    mine, theirs = _open(data_dir), _open(data_dir)
    mine.save_search("x", "old", "relevance")
    assert mine.flush() and theirs.refresh()
    theirs.save_search("x", "changed", "relevance")
    assert theirs.flush()
    seen = _events(mine)
    assert mine.delete_search("x")
    assert mine.flush()
    assert mine.saved_search("x").query == "changed"
    assert any("kept, not deleted" in e.message for e in seen)
    mine.close()
    theirs.close()


def test_a_rename_onto_a_name_taken_elsewhere_keeps_both(data_dir: Path) -> None:
    mine, theirs = _open(data_dir), _open(data_dir)
    mine.save_search("a", "mine", "relevance")
    assert mine.flush()
    theirs.save_search("b", "theirs", "relevance")
    assert theirs.flush()
    mine.rename_search("a", "b")
    assert mine.flush()
    rows = {s.name: s.query for s in Store.open(data_dir).load().searches.values()}
    assert rows == {"b": "theirs", "b (2)": "mine"}
    # Memory mirrors the database without a refresh.
    assert {s.name: s.query for s in mine.saved_searches()} == rows
    mine.close()
    theirs.close()


def test_refresh_shows_another_instances_saved_searches(data_dir: Path) -> None:
    mine, theirs = _open(data_dir), _open(data_dir)
    theirs.save_search("theirs", "diffusion", "relevance")
    assert theirs.flush()
    assert mine.saved_searches() == []
    assert mine.refresh()
    assert [s.name for s in mine.saved_searches()] == ["theirs"]
    theirs.delete_search("theirs")
    assert theirs.flush()
    assert mine.refresh() and mine.saved_searches() == []
    mine.close()
    theirs.close()


def test_json_export_import_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, fresh = tmp_path / "a", tmp_path / "b"
    ud = _open(source)
    ud.save_search("Weekly", 'graph "neural network" year:2023', "file")
    ud.save_search("ünï", "-survey is:unread", "relevance")
    assert ud.flush()
    ud.close()
    out = tmp_path / "all.json"
    assert main_export(["--format", "json", "-o", str(out), "--data-dir", str(source)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert {s["name"] for s in doc["saved_searches"]} == {"Weekly", "ünï"}
    assert main_import([str(out), "--data-dir", str(fresh)]) == 0
    assert "2 saved searches" in capsys.readouterr().out
    loaded = Store.open(fresh).load().searches
    assert {(s.name, s.query, s.sort) for s in loaded.values()} == {
        ("Weekly", 'graph "neural network" year:2023', "file"),
        ("ünï", "-survey is:unread", "relevance"),
    }
    # Twice changes nothing.
    assert main_import([str(out), "--data-dir", str(fresh)]) == 0
    assert "Nothing new" in capsys.readouterr().out
    assert len(Store.open(fresh).load().searches) == 2


def test_import_keeps_a_local_search_of_the_same_name(tmp_path: Path) -> None:
    ud = _open(tmp_path)
    ud.save_search("weekly", "mine", "relevance")
    assert ud.flush()
    ud.close()
    doc = export.parse_export(
        json.dumps(
            {
                "format": "abstracts-export",
                "version": 1,
                "saved_searches": [{"name": "Weekly", "query": "theirs"}],
            }
        )
    )
    store = Store.open(tmp_path)
    report = export.merge(store, doc, "test")
    assert report.searches == 1 and report.renamed_searches == [("Weekly", "Weekly (2)")]
    assert export.merge(store, doc, "test").searches == 0  # already kept
    rows = {s.name: s.query for s in store.load().searches.values()}
    store.close()
    assert rows == {"weekly": "mine", "Weekly (2)": "theirs"}


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"query": "x"}, 'no "name"'),
        ({"name": " padded ", "query": "x"}, '"name" must be a trimmed name'),
        ({"name": "bad\x1b", "query": "x"}, '"name" must be a trimmed name'),
        ({"name": "ok", "query": 3}, '"query" must be a string'),
        ({"name": "ok", "query": "x", "updated": "yesterday"}, '"updated" must be a number'),
    ],
)
def test_import_checks_saved_searches(entry: dict[str, object], said: str) -> None:
    with pytest.raises(ImportProblem, match=said):
        check_document({"saved_searches": [entry]})


def test_rescue_files_carry_unsaved_saved_searches() -> None:
    ops = [
        SaveSearch("weekly", "graph", "file", 1.0, None),
        RenameSearch("old", "new", "q", "relevance", 2.0),
        DeleteSearch("gone", ("x", "relevance")),
    ]
    doc = rescue_document(ops, {}, lambda _: 0, "test")
    check_document(doc)
    assert doc["saved_searches"] == [
        {"name": "weekly", "query": "graph", "sort": "file", "updated": 1.0},
        {"name": "new", "query": "q", "sort": "relevance", "updated": 2.0},
    ]
    assert {"kind": "saved_search", "name": "gone"} in doc["unsaved_removals"]
    assert {"kind": "saved_search", "name": "old"} in doc["unsaved_removals"]


CHILD = """
import sys, time
from pathlib import Path
from tui.store.userdata import UserData
ud = UserData.open(Path(sys.argv[1]))
ud.save_search("kept", "graph year:2023", "file")
assert ud.flush()
print("saved", flush=True)
time.sleep(60)
"""


def test_a_saved_search_survives_sigkill_after_the_save(data_dir: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(data_dir)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "saved"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    store = Store.open(data_dir)
    rows = store.load().searches
    store.close()
    assert [(s.name, s.query, s.sort) for s in rows.values()] == [
        ("kept", "graph year:2023", "file")
    ]


def test_a_saved_search_keeps_when_it_was_made_and_last_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`created` is the first save; `updated` the last save or rename: in memory, in the
    database, in a JSON export and after importing it elsewhere."""
    now = [1000.0]
    monkeypatch.setattr("tui.store.searchdata.time.time", lambda: now[0])
    source, fresh = tmp_path / "a", tmp_path / "b"
    ud = _open(source)
    ud.save_search("weekly", "one", "relevance")
    assert ud.flush()
    now[0] = 2000.0
    ud.save_search("weekly", "two", "relevance")  # replaces: made at 1000 still
    assert ud.flush()
    now[0] = 3000.0
    ud.rename_search("weekly", "monthly")
    assert ud.flush()
    want = [("monthly", "two", 1000.0, 3000.0)]
    assert [(s.name, s.query, s.created, s.updated) for s in ud.saved_searches()] == want
    ud.close()
    stored = Store.open(source).load().searches.values()
    assert [(s.name, s.query, s.created, s.updated) for s in stored] == want
    out = tmp_path / "all.json"
    assert main_export(["--format", "json", "-o", str(out), "--data-dir", str(source)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert [(s["name"], s["created"], s["updated"]) for s in doc["saved_searches"]] == [
        ("monthly", 1000.0, 3000.0)
    ]
    assert main_import([str(out), "--data-dir", str(fresh)]) == 0
    capsys.readouterr()
    imported = Store.open(fresh).load().searches.values()
    assert [(s.name, s.query, s.created, s.updated) for s in imported] == want


def test_a_saved_search_shows_its_times_before_its_write_lands(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory answers at once with the row the database will hold: made at the first
    save, changed at the last save or rename (each write here held in the writer's hands)."""
    now = [1000.0]
    monkeypatch.setattr("tui.store.searchdata.time.time", lambda: now[0])
    ud = _open(data_dir)
    ud.save_search("weekly", "one", "relevance")
    assert ud.flush()
    in_commit, release = _pause_in_commit(monkeypatch)
    now[0] = 2000.0
    saved = ud.save_search("weekly", "two", "file")
    assert in_commit.wait(10)
    assert (saved.created, saved.updated) == (1000.0, 2000.0)
    assert [(s.name, s.created, s.updated) for s in ud.saved_searches()] == [
        ("weekly", 1000.0, 2000.0)
    ]
    now[0] = 3000.0
    renamed = ud.rename_search("weekly", "monthly")
    want = [("monthly", 1000.0, 3000.0)]
    assert [(renamed.name, renamed.created, renamed.updated)] == want
    assert [(s.name, s.created, s.updated) for s in ud.saved_searches()] == want
    release.set()
    assert ud.flush()
    assert [(s.name, s.created, s.updated) for s in ud.saved_searches()] == want
    ud.close()
    stored = Store.open(data_dir).load().searches.values()
    assert [(s.name, s.created, s.updated) for s in stored] == want


def test_renaming_a_search_another_instance_changed_keeps_their_version(data_dir: Path) -> None:
    """The database holds another text under the old name than the one the user renames:
    that version keeps the name, the user's moves to the new one, and both are said."""
    mine, theirs = _open(data_dir), _open(data_dir)
    seen = _events(mine)
    mine.save_search("a", "one", "relevance")
    assert mine.flush() and theirs.refresh()
    theirs.save_search("a", "theirs", "file")
    assert theirs.flush()
    theirs.close()
    mine.rename_search("a", "b")  # `mine` still shows "a" as "one"
    assert mine.flush()
    rows = {s.name: (s.query, s.sort) for s in Store.open(data_dir).load().searches.values()}
    assert rows == {"a": ("theirs", "file"), "b": ("one", "relevance")}
    assert {s.name: (s.query, s.sort) for s in mine.saved_searches()} == rows
    said = [e.message for e in seen if isinstance(e, Notice)]
    assert said == [
        "“a” was changed in another instance; that version is kept. Your search is saved as “b”."
    ]
    mine.close()


def _shown(ud: UserData) -> dict[str, tuple[str, str, float, float]]:
    """What an instance shows: name -> (query, sort, created, updated)."""
    return {s.name: (s.query, s.sort, s.created, s.updated) for s in ud.saved_searches()}


def _on_disk(data_dir: Path) -> dict[str, tuple[str, str, float, float]]:
    """What a fresh load of the database gives, in the same form."""
    store = Store.open(data_dir)
    rows = store.load().searches.values()
    store.close()
    return {s.name: (s.query, s.sort, s.created, s.updated) for s in rows}


def _notices(seen: list[StoreEvent]) -> list[str]:
    return [e.message for e in seen if isinstance(e, Notice)]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The time saves and renames are stamped with (both instances of a test share it)."""
    now = [1000.0]
    monkeypatch.setattr("tui.store.searchdata.time.time", lambda: now[0])
    return now


def test_a_save_that_meets_another_instances_search_shows_both_as_stored(
    data_dir: Path, clock: list[float]
) -> None:
    """Theirs keeps the name and the times it was saved with; the user's is the new one
    beside it; the notice names both; memory shows the same, times included."""
    mine, theirs = _open(data_dir), _open(data_dir)
    seen = _events(mine)
    theirs.save_search("weekly", "their first query", "relevance")
    assert theirs.flush()
    clock[0] = 1500.0
    theirs.save_search("weekly", "their query", "relevance")
    assert theirs.flush()
    theirs.close()
    clock[0] = 2000.0
    mine.save_search("Weekly", "my query", "file")
    assert mine.flush()
    rows = _on_disk(data_dir)
    assert rows == {
        "weekly": ("their query", "relevance", 1000.0, 1500.0),
        "Weekly (2)": ("my query", "file", 2000.0, 2000.0),
    }
    assert _shown(mine) == rows
    assert _notices(seen) == [
        "A saved search “weekly” was also saved in another instance; both are kept: "
        "yours is “Weekly (2)”."
    ]
    mine.close()


def test_a_delete_that_keeps_a_search_changed_elsewhere_shows_it_as_stored(
    data_dir: Path, clock: list[float]
) -> None:
    mine, theirs = _open(data_dir), _open(data_dir)
    seen = _events(mine)
    mine.save_search("x", "old", "relevance")
    assert mine.flush() and theirs.refresh()
    clock[0] = 3000.0
    theirs.save_search("x", "changed", "file")
    assert theirs.flush()
    theirs.close()
    assert mine.delete_search("x")  # `mine` still shows "old"
    assert mine.flush()
    rows = _on_disk(data_dir)
    assert rows == {"x": ("changed", "file", 1000.0, 3000.0)}
    assert _shown(mine) == rows
    assert _notices(seen) == [
        "The saved search “x” was changed in another instance since you saw it, so it was "
        "kept, not deleted."
    ]
    mine.close()


def test_a_rename_that_meets_another_instances_changes_shows_what_is_stored(
    data_dir: Path, clock: list[float]
) -> None:
    """The old name changed elsewhere keeps that version and its times, and the user's
    search, stored beside it, counts as made at the rename (that row was theirs now);
    a new name taken elsewhere keeps theirs, and the user's search, stored beside it,
    keeps when it was made. Each notice names both; memory shows the same, times included."""
    mine, theirs = _open(data_dir), _open(data_dir)
    seen = _events(mine)
    mine.save_search("a", "one", "relevance")
    mine.save_search("c", "mine", "relevance")
    assert mine.flush() and theirs.refresh()
    clock[0] = 4000.0
    theirs.save_search("a", "theirs", "file")
    theirs.save_search("d", "taken first", "relevance")
    assert theirs.flush()
    clock[0] = 4500.0
    theirs.save_search("d", "taken", "relevance")
    assert theirs.flush()
    theirs.close()
    clock[0] = 5000.0
    mine.rename_search("a", "b")
    mine.rename_search("c", "d")
    assert mine.flush()
    rows = _on_disk(data_dir)
    assert rows == {
        "a": ("theirs", "file", 1000.0, 4000.0),
        "b": ("one", "relevance", 5000.0, 5000.0),
        "d": ("taken", "relevance", 4000.0, 4500.0),
        "d (2)": ("mine", "relevance", 1000.0, 5000.0),
    }
    assert _shown(mine) == rows
    assert _notices(seen) == [
        "“a” was changed in another instance; that version is kept. Your search is saved as “b”.",
        "“d” was taken in another instance meanwhile. Your search is saved as “d (2)”.",
    ]
    mine.close()


def test_a_rename_of_a_search_saved_elsewhere_with_the_same_text_moves_it(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user changes a search and renames it before the change is written; another
    instance meanwhile saved that very text under the old name. Nothing of theirs differs
    from the user's: the rename moves it, with no second copy and nothing to tell."""
    mine, theirs = _open(data_dir), _open(data_dir)
    seen = _events(mine)
    mine.save_search("a", "one", "relevance")
    assert mine.flush() and theirs.refresh()
    in_commit, release = threading.Event(), threading.Event()
    real_apply = Store.apply

    def apply(self: Store, ops: list[object]) -> object:
        if self is mine.writer.store and not release.is_set():  # only `mine` waits
            in_commit.set()
            assert release.wait(10)
        return real_apply(self, ops)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "apply", apply)
    mine.save_search("z", "other", "relevance")
    assert in_commit.wait(10)  # `mine`'s writer is busy: what follows waits in its queue
    mine.save_search("a", "two", "relevance")  # based on "one"
    theirs.save_search("a", "two", "relevance")
    assert theirs.flush()
    theirs.close()
    mine.rename_search("a", "b")
    release.set()
    assert mine.flush()
    rows = {name: row[:2] for name, row in _on_disk(data_dir).items()}
    assert rows == {"b": ("two", "relevance"), "z": ("other", "relevance")}
    assert {name: row[:2] for name, row in _shown(mine).items()} == rows
    assert _notices(seen) == []
    mine.close()


def test_a_search_saved_under_the_old_name_while_a_rename_is_written_stays(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user renames a saved search, then saves a new search under the old name while
    the rename is being written: once the rename is written, the new search still shows
    (the rename's "nothing under the old name now" does not hide it)."""
    ud = open_userdata(data_dir)
    ud.save_search("a", "dropout", "relevance")
    assert ud.flush()
    real_apply = Store.apply
    shown_between: list[str] = []

    def apply(self: Store, ops: list[Any]) -> Any:
        if not shown_between:
            ud.save_search("a", "attention", "relevance")  # typed during the rename's write
            shown_between.append("")
        elif shown_between == [""]:
            found = ud.saved_search("a")
            shown_between[0] = found.query if found else "(none)"
        return real_apply(self, ops)

    monkeypatch.setattr(Store, "apply", apply)
    ud.rename_search("a", "b")
    assert ud.flush(timeout=5)
    assert shown_between == ["attention"]
    assert {s.name: s.query for s in ud.saved_searches()} == {"a": "attention", "b": "dropout"}
    ud.close()
