"""The palette's Export… dialog: format, scope and path; an existing file is never
replaced; nothing to export writes nothing; the current list exports exactly the rows
shown."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from tests.ui.helpers import wait_for_userdata, wait_until
from tui import locations
from tui.ui.app import AbstractsApp, make_app
from tui.ui.clock import ManualClock
from tui.ui.screens.export import ExportScreen


async def _open(pilot) -> ExportScreen:
    app: AbstractsApp = pilot.app
    commands = {c.title: c for c in app.get_system_commands(app.screen)}
    commands["Export…"].callback()
    await pilot.pause()
    assert isinstance(app.screen, ExportScreen)
    return app.screen


async def _choose(pilot, screen: ExportScreen, fmt: str, scope: str, path: Path) -> None:
    for selector, name in (("#export-format", fmt), ("#export-scope", scope)):
        button = next(b for b in screen.query(f"{selector} RadioButton") if b.name == name)
        await pilot.click(button)
    screen.query_one("#export-path").value = str(path)
    await pilot.pause()
    await pilot.click("#export-go")
    await pilot.pause()


def _messages(app: AbstractsApp) -> str:
    return " | ".join(n.message for n in app._notifications)


async def test_the_default_path_is_a_new_file_in_the_documents_or_data_folder(
    seeds_dir: Path, data_dir: Path
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir, clock=ManualClock())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        screen = await _open(pilot)
        default = Path(screen.query_one("#export-path").value)
        assert default.parent == locations.export_dir(data_dir)
        assert not default.exists() and default.suffix == ".md"
        bibtex = next(b for b in screen.query("#export-format RadioButton") if b.name == "bibtex")
        await pilot.click(bibtex)
        await pilot.pause()
        assert Path(screen.query_one("#export-path").value).suffix == ".bib"
        await pilot.press("escape")
        assert not isinstance(app.screen, ExportScreen)


async def test_bookmarks_export_as_csv_where_the_user_said(
    seeds_dir: Path, data_dir: Path, tmp_path: Path
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir, clock=ManualClock())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("b", "j", "j", "b")
        marked = {app.corpus.abstracts[0].id, app.corpus.abstracts[2].id}
        target = tmp_path / "picked.csv"
        await _choose(pilot, await _open(pilot), "csv", "bookmarked", target)
        await wait_until(pilot, target.exists)
        rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"))))
        assert {row["id"] for row in rows} == marked
        assert str(target) in _messages(app)


async def test_an_existing_file_is_never_replaced(
    seeds_dir: Path, data_dir: Path, tmp_path: Path
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir, clock=ManualClock())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("b")
        target = tmp_path / "mine.md"
        target.write_text("the user's own file", encoding="utf-8")
        screen = await _open(pilot)
        await _choose(pilot, screen, "md", "all", target)
        assert app.screen is screen  # still open, saying why
        assert "exists" in str(screen.query_one("#export-problem").render())
        assert target.read_text(encoding="utf-8") == "the user's own file"


async def test_nothing_to_export_says_so_and_writes_nothing(
    seeds_dir: Path, data_dir: Path, tmp_path: Path
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir, clock=ManualClock())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        target = tmp_path / "refs.bib"
        await _choose(pilot, await _open(pilot), "bibtex", "bookmarked", target)
        await wait_until(pilot, lambda: "Nothing to export" in _messages(app))
        assert "no abstract is bookmarked" in _messages(app)
        assert not target.exists()


async def test_the_current_list_exports_exactly_the_rows_shown(
    seeds_dir: Path, data_dir: Path, tmp_path: Path
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir, clock=ManualClock())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("b")  # a bookmark outside the list must not come along
        await pilot.press("slash", *"graph", "enter")
        await wait_until(pilot, lambda: 0 < len(app.abstract_list.rows) < len(app.corpus))
        shown = [app.corpus.abstracts[i].id for i in app.abstract_list.rows]
        target = tmp_path / "list.json"
        await _choose(pilot, await _open(pilot), "json", "list", target)
        await wait_until(pilot, target.exists)
        doc = json.loads(target.read_text(encoding="utf-8"))
        exported = (
            {r["id"] for r in doc["records"]}
            if isinstance(doc["records"], list)
            else set(doc["records"])
        )
        assert exported == set(shown)


async def test_the_current_list_exports_as_ris_and_csl_json_for_zotero(
    seeds_dir: Path, data_dir: Path, tmp_path: Path
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir, clock=ManualClock())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("slash", *"graph", "enter")
        await wait_until(pilot, lambda: 0 < len(app.abstract_list.rows) < len(app.corpus))
        shown = len(app.abstract_list.rows)
        ris, csl = tmp_path / "list.ris", tmp_path / "list.json"
        await _choose(pilot, await _open(pilot), "ris", "list", ris)
        await wait_until(pilot, ris.exists)
        await _choose(pilot, await _open(pilot), "csljson", "list", csl)
        await wait_until(pilot, csl.exists)
        records = ris.read_text(encoding="utf-8").split("\n\n")
        assert len(records) == shown and all(r.startswith("TY  - GEN\nID  - ") for r in records)
        items = json.loads(csl.read_text(encoding="utf-8"))
        assert [i["id"] for i in items] == [r.split("\n")[1][6:] for r in records]
