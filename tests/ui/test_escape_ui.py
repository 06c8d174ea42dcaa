"""Text from data in the app's widgets and toasts: shown, never obeyed."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widgets._toast import Toast

from tests.ui.helpers import wait_until
from tui.corpus.load import load_corpus
from tui.corpus.model import Abstract, Collection, Corpus, LoadProblem, SourceRef
from tui.ui.app import make_app
from tui.ui.screens.load_report import LoadReportScreen
from tui.ui.screens.note_editor import NoteEditorScreen
from tui.ui.widgets.detail_text import DetailView, meta_text

OSC52 = "\x1b]52;c;aGVsbG8=\x07"
CLICK = "[@click=app.quit]CLICKME.txt"


def _corpus_with(tmp_path: Path, bad_name: str) -> Corpus:
    corpus = tmp_path / "d"
    corpus.mkdir()
    (corpus / bad_name).write_bytes(b"x\0")  # binary: a load problem naming the file
    (corpus / "good.txt").write_text(
        "ICLR 2023 Papers\n\nAn abstract about attention.\n", encoding="utf-8"
    )
    return load_corpus([corpus])


async def test_clicking_a_file_name_in_the_problem_toast_does_not_quit(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Markup in a file name is text: `[@click=app.quit]` showed as a link that quit."""
    monkeypatch.chdir(tmp_path)  # a short relative name: the toast shows it on one line
    app = make_app(corpus=_corpus_with(Path("."), CLICK), data_dir=data_dir)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await wait_until(pilot, lambda: bool(app.screen.query(Toast)))
        toast = app.screen.query_one(Toast)
        lines = [s.text for s in toast.render_lines(Region(0, 0, *toast.size))]
        y = next(i for i, line in enumerate(lines) if "CLICKME" in line)
        await pilot.click(toast, offset=(lines[y].index("CLICKME") + 2, y))
        await pilot.pause(0.2)
        assert app.return_code is None and app.is_running
        assert f"d/{CLICK}" in lines[y]


async def test_the_load_report_shows_escape_sequences_as_symbols(
    tmp_path: Path, data_dir: Path
) -> None:
    app = make_app(corpus=_corpus_with(tmp_path, f"b{OSC52}.txt"), data_dir=data_dir)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("L")
        await wait_until(pilot, lambda: isinstance(app.screen, LoadReportScreen))
        problems = str(app.screen.query_one("#report-problems").render())
        assert "b␛]52;c;aGVsbG8=␇.txt" in problems and "\x1b" not in problems


def test_the_detail_header_shows_names_as_symbols() -> None:
    source = SourceRef(Path(f"/c/t{OSC52}.txt"), 1)
    other = SourceRef(Path("/c/a\x1b[31mred.txt"), 2)
    abstract = Abstract("0123456789abcdef", "Text.", Collection("L\x1b[2J"), [source, other])
    meta = meta_text(DetailView(abstract)).plain
    assert "\x1b" not in meta and "\x07" not in meta
    assert "t␛]52;c;aGVsbG8=␇.txt #1" in meta and "a␛[31mred.txt #2" in meta and "L␛[2J" in meta


async def test_the_note_editor_shows_controls_and_keeps_the_note_as_it_is(
    tmp_path: Path, data_dir: Path
) -> None:
    """The TextArea draws control pictures, but the note's text is never changed by it."""
    corpus = load_corpus([_corpus_with(tmp_path, "bad.txt").files[0].path])
    note = f"line one{OSC52}\nline\ttwo \u202eend"
    app = make_app(corpus=corpus, data_dir=data_dir)
    async with app.run_test(size=(120, 30)) as pilot:
        editor = NoteEditorScreen(corpus.abstracts[0], note)
        await app.push_screen(editor)
        await pilot.pause()
        area = editor.query_one("#note-text")
        drawn = "\n".join(area.get_line(i).plain for i in range(2))
        assert drawn == "line one␛]52;c;aGVsbG8=␇\nline\ttwo \ufffdend"
        assert editor.text == note


def test_load_problems_are_data_in_the_report_even_when_they_look_like_markup() -> None:
    corpus = Corpus([], [], [LoadProblem(Path(CLICK), "not text [bold]x[/]")])
    report = LoadReportScreen(corpus)._problems()
    assert f"{CLICK}: not text [bold]x[/]" in report.plain


async def test_a_file_name_that_is_not_utf8_shows_and_its_marks_and_notes_are_saved(
    tmp_path: Path, data_dir: Path
) -> None:
    """Byte 0xff in a file name reaches Python as a lone surrogate, which neither the
    terminal, SQLite nor a rescue file can take: saving failed for good (every change
    was retried, then the rescue file raised on quit and the note was lost)."""
    import os
    import sqlite3

    from tests.ui.helpers import wait_for_userdata

    folder = tmp_path / "d"
    folder.mkdir()
    name = os.fsencode(folder) + b"/caf\xff.txt"
    try:
        with open(name, "wb") as f:
            f.write(b"ICLR 2023 Papers\n\nAn abstract about attention in graphs.\n")
    except OSError:
        pytest.skip("this file system refuses file names that are not UTF-8")
    corpus = load_corpus([folder])
    assert "\udcff" in str(corpus.abstracts[0].sources[0].path)
    app = make_app(corpus=corpus, data_dir=data_dir)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_userdata(pilot)
        assert "caf\ufffd.txt" in meta_text(app.detail.view).plain
        await pilot.press("b", "n", *"kept", "escape")
        assert app.personal.userdata.flush(5)
        await pilot.press("q")
    assert app.return_code == 0
    assert not list(data_dir.glob("abstracts-unsaved-*"))
    with sqlite3.connect(data_dir / "abstracts.db") as conn:
        assert conn.execute("SELECT text FROM notes").fetchall() == [("kept",)]
        (source,) = conn.execute(
            "SELECT source FROM records JOIN origins USING (origin)"
        ).fetchone()
    assert source.endswith("caf\ufffd.txt")
