"""Pilot tests of the reader: what a user sees and does on the bundled seeds."""

from __future__ import annotations

from pathlib import Path

from tests.ui.helpers import wait_until
from tui.corpus.load import load_corpus
from tui.ui.app import make_app
from tui.ui.screens.help import HelpScreen
from tui.ui.screens.load_report import LoadReportScreen
from tui.ui.widgets.header import AppHeader


def body_text(app) -> str:
    return app.detail.text_of("body").plain


async def test_opens_on_the_seeds_with_76_rows(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert len(app.abstract_list.rows) == 76
        header = app.query_one(AppHeader).status_text.plain
        assert "76 abstracts · 4 files" in header
        assert app.focused is app.abstract_list


async def test_text_dragged_over_in_the_detail_pane_is_selected_and_highlighted(
    seeds_dir: Path,
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.detail.view is not None)
        pane = app.detail
        top = int(pane.scroll_y)
        lines = [pane.render_line(y - top).text for y in range(pane.virtual_size.height)]
        body = pane.text_of("body").plain
        row = next(y for y, line in enumerate(lines) if line.strip() and line.strip() in body)
        # From the body's first line to a few lines down, then from the meta lines.
        await pilot.mouse_down(pane, offset=(2, row))
        await pilot.hover(pane, offset=(30, row + 2))
        await pilot.mouse_up(pane, offset=(30, row + 2))
        selected = app.screen.get_selected_text() or ""
        words = selected.split()
        assert len(words) > 10 and " ".join(words) in " ".join(body.split())
        # The selection is drawn highlighted on the lines it covers.
        styles = {segment.style for segment in pane.render_line(row + 1 - top)}
        unselected = {segment.style for segment in pane.render_line(row + 4 - top)}
        assert styles != unselected
        await pilot.click(pane, offset=(2, row + 6))
        await pilot.mouse_down(pane, offset=(2, 1))
        await pilot.hover(pane, offset=(10, 1))
        await pilot.mouse_up(pane, offset=(10, 1))
        in_meta = (app.screen.get_selected_text() or "").strip()
        assert in_meta and in_meta in pane.text_of("meta").plain


async def test_a_cursor_move_shows_its_abstract_in_the_same_frame_as_the_cursor(
    seeds_dir: Path,
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.detail.view is not None)
        listed = app.abstract_list
        listed.action_cursor_down()
        # No message handled since: the move itself showed the abstract.
        assert app.detail.view is not None
        assert app.detail.view.abstract is listed.current is app.corpus.abstracts[1]
        await pilot.pause()  # its `Highlighted` handled before the app closes


async def test_navigation_changes_the_detail(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        first = app.detail.view.abstract
        await pilot.press("j")
        second = app.detail.view.abstract
        assert second is not first
        assert second is app.corpus.abstracts[1]
        await pilot.press("G")
        assert app.detail.view.abstract is app.corpus.abstracts[-1]
        await pilot.press("g")
        assert app.detail.view.abstract is first
        await pilot.press("end")
        assert app.abstract_list.cursor == 75
        await pilot.press("home", "pagedown")
        assert app.abstract_list.cursor > 5


async def test_enter_and_escape_move_focus(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("enter")
        assert app.focused is app.detail
        await pilot.press("escape")
        assert app.focused is app.abstract_list
        await pilot.press("tab")
        assert app.focused is app.detail


async def test_help_lists_the_bindings(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        shown = " ".join(d for _, rows in app.screen.sections for _, d in rows)
        for words in ("Filter", "Bookmark", "Note", "Quit", "LaTeX source"):
            assert words in shown
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_q_quits_with_status_zero(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test() as pilot:
        await pilot.press("q")
    assert app.return_code == 0


async def test_hostile_text_renders_literally(tmp_path: Path) -> None:
    hostile = (
        "ICLR 2023 Papers\n\n"
        "We show [bold red]x[/] and [link=http://evil]click[/link] and a lone [/] "
        "with \x1b[31mred\x1b[0m escapes and a bell \x07 in the text.\n"
    )
    (tmp_path / "bad.txt").write_text(hostile, encoding="utf-8")
    app = make_app([tmp_path])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        body = body_text(app)
        assert "[bold red]x[/]" in body
        assert "[link=http://evil]click[/link]" in body
        assert "\x1b" not in body
        row = "".join(
            s.text for s in app.abstract_list._row_segments(app.corpus.abstracts[0], 100, False)
        )
        assert "[bold red]" in row
        await pilot.press("v")  # the LaTeX source view is just as harmless
        source = body_text(app)
        assert "[bold red]x[/]" in source
        assert "\x1b" not in source and "\x07" not in source


async def test_load_report_lists_a_bad_file(tmp_path: Path, seeds_dir: Path) -> None:
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    (tmp_path / "binary.txt").write_bytes(b"\x00\x01\x02garbage\x00")
    corpus = load_corpus(
        [seeds_dir, tmp_path / "empty.txt", tmp_path / "binary.txt", tmp_path / "missing.txt"]
    )
    app = make_app(corpus=corpus)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert len(app.abstract_list.rows) == 76
        await pilot.press("L")
        assert isinstance(app.screen, LoadReportScreen)
        report = str(app.screen.query_one("#report-problems").render())
        for name in ("empty.txt", "binary.txt", "missing.txt"):
            assert name in report


async def test_raw_source_toggle(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text(
        "ICLR 2023 Papers\n\nWe get a $3\\times$ speedup.\n", encoding="utf-8"
    )
    app = make_app([tmp_path])
    async with app.run_test(size=(140, 40)) as pilot:
        assert "3×" in body_text(app)
        await pilot.press("v")
        assert "$3\\times$" in body_text(app)


async def test_narrow_terminal_stacks_the_panes(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.has_class("-narrow")
        list_region = app.abstract_list.region
        detail_region = app.detail.region
        assert detail_region.y > list_region.y
        assert detail_region.width >= 78
        await pilot.resize_terminal(150, 40)
        await pilot.pause()
        assert not app.screen.has_class("-narrow")
        assert app.detail.region.x > app.abstract_list.region.x


async def test_click_selects_a_row(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.click("#list", offset=(10, 4))
        assert app.abstract_list.cursor == 4
        assert app.detail.view.abstract is app.corpus.abstracts[4]


async def test_the_palette_offers_the_apps_commands(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for title in (
            "Filter",
            "Help",
            "Notes",
            "More like this",
            "Overview",
            "Export…",
            "Auto-read: on",
        ):
            assert title in titles
        await pilot.press("ctrl+p")
        assert app.screen.__class__.__name__ == "CommandPalette"


async def test_a_paragraph_of_many_abstracts_is_reported_and_shown_in_part(tmp_path: Path) -> None:
    sentence = "We study $x^2$ models of language and vision with care and rigour. "
    huge = sentence * 20_000  # about 1.3 MB: abstracts with the blank lines between them missing
    (tmp_path / "run-together.txt").write_text(f"ICLR 2023 Papers\n\n{huge}\n", encoding="utf-8")
    corpus = load_corpus([tmp_path])
    assert any("blank lines between abstracts may be missing" in p.message for p in corpus.problems)
    # Nothing here waits on time: the app's timers are on the manual clock (conftest.py)
    # and the test waits for what it checks (the paragraph shown, the index built from
    # it), not for a number of seconds or event-loop turns.
    app = make_app(corpus=corpus)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: "more words" in body_text(app))
        await wait_until(pilot, lambda: app.search.index is not None)
        body = body_text(app)
        assert len(body) < 15_000
        assert "more words" in body
        assert "x²" in body
        assert "words" in app.detail.text_of("meta").plain


async def test_load_report_lists_repeated_paragraphs_and_its_counts_add_up(
    tmp_path: Path,
) -> None:
    first = "We study graph networks. They work."
    second = "We study diffusion models. They sample."
    (tmp_path / "a.txt").write_text(f"ICLR 2023 Papers\n\n{first}\n\n{second}\n")
    (tmp_path / "b.txt").write_text(f"ICLR 2024 Papers\n\n{second}\n\nA third one.\n\n{first}\n")
    app = make_app(corpus=load_corpus([tmp_path]))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("L")
        assert isinstance(app.screen, LoadReportScreen)
        repeats = str(app.screen.query_one("#report-repeats").render())
        assert "2 repeated paragraphs merged" in repeats
        assert "b.txt · first found in" in repeats and "a.txt (2)" in repeats
        files = app.screen._files().renderables[0]
        assert "3 abstracts · 2 files (from 5 paragraphs: 2 repeated)" in str(files.title)
        added = list(files.columns[2].cells)
        assert added == ["2", "1", "3"]  # a.txt, b.txt, then the total: it adds up
        assert list(files.columns[3].cells) == ["", "2", "2"]


async def test_load_report_names_each_files_format_and_counts_entries_without_abstract(
    tmp_path: Path, seeds_dir: Path
) -> None:
    from tui.corpus.model import FileInfo

    corpus = load_corpus([seeds_dir])
    first = corpus.files[0]
    corpus.files[0] = FileInfo(
        first.path, first.collection, first.count, first.digest, 0, "bibtex-like", 3
    )
    app = make_app(corpus=corpus)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("L")
        assert isinstance(app.screen, LoadReportScreen)
        table = app.screen._files().renderables[0]
        assert [str(c.header) for c in table.columns][4:] == ["Format", "No abstract"]
        assert list(table.columns[4].cells)[:2] == ["bibtex-like", "text"]
        assert list(table.columns[5].cells) == ["3", "", "", "", "3"]


async def test_a_click_on_a_scrolled_list_selects_the_row_under_the_pointer(
    seeds_dir: Path,
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(140, 20)) as pilot:
        await pilot.pause()
        listing = app.abstract_list
        await pilot.press("end")
        await pilot.pause()
        top = int(listing.scroll_y)
        assert top > 0
        await pilot.click("#list", offset=(10, 2))
        assert listing.cursor == top + 2
        assert app.detail.view.abstract is app.corpus.abstracts[listing.rows[top + 2]]
