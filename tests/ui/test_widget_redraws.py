"""What a change of what is shown costs: the widgets redraw what changed, and ask for a
layout of the screen (every widget reflowed, every one it moves repainted) only when a
size may change. Each widget runs alone in a small app; layouts are counted where the
screen performs them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.segment import Segment
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.widget import Widget

from tui.corpus.load import load_corpus
from tui.corpus.model import Corpus
from tui.triage.marks import RowMarks
from tui.ui.widgets.abstract_list import AbstractList
from tui.ui.widgets.detail import DetailPane, DetailView
from tui.ui.widgets.filter_input import FilterInput
from tui.ui.widgets.header import AppHeader


class Host(App[None]):
    """One widget on a screen of its own."""

    CSS = """
    AbstractList { height: 12; overflow-x: hidden; scrollbar-size-vertical: 1; }
    Input { width: 20; height: 1; border: none; }
    """

    def __init__(self, make: Callable[[], Widget]) -> None:
        super().__init__()
        self._make = make

    def compose(self) -> ComposeResult:
        yield self._make()


@contextmanager
def counting_layouts(app: App[Any]) -> Iterator[list[int]]:
    """Count the screen's layouts while the block runs (and the frames after it)."""
    screen = app.screen
    count = [0]
    original = screen._refresh_layout

    def counted(*args: Any, **kwargs: Any) -> None:
        count[0] += 1
        original(*args, **kwargs)

    screen._refresh_layout = counted  # type: ignore[method-assign]
    try:
        yield count
    finally:
        screen._refresh_layout = original  # type: ignore[method-assign]


async def settle(app: App[Any], pilot: Any) -> None:
    """Wait for the start-up's own layouts (mount, focus) to be over."""
    for _ in range(20):
        with counting_layouts(app) as layouts:
            await pilot.pause()
        if not layouts[0]:
            return
    raise AssertionError("the screen kept laying out")


@asynccontextmanager
async def shown_list(corpus: Corpus) -> AsyncIterator[tuple[Host, Any, AbstractList]]:
    """The list of `corpus` on a screen of its own (80x20), its start-up layouts over."""
    app = Host(lambda: AbstractList(corpus))
    async with app.run_test(size=(80, 20)) as pilot:
        listing = app.query_one(AbstractList)
        await settle(app, pilot)
        yield app, pilot, listing


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load_corpus([Path(__file__).resolve().parents[2] / "seeds"])


# -- the list ------------------------------------------------------------------------


def _rows_drawn(listing: AbstractList) -> list[str]:
    """The ids of the rows `listing` builds from now on, in order."""
    drawn: list[str] = []
    row_segments = listing._row_segments

    def spy(abstract: Any, width: int, is_cursor: bool, matches: Any = None) -> list[Segment]:
        drawn.append(abstract.id)
        return row_segments(abstract, width, is_cursor, matches)

    listing._row_segments = spy  # type: ignore[method-assign]
    return drawn


async def test_a_bookmark_redraws_only_its_row(corpus: Corpus) -> None:
    bookmarked: set[str] = set()
    marks = RowMarks(bookmarked=bookmarked)  # the store's sets change in place
    app = Host(lambda: AbstractList(corpus))
    async with app.run_test(size=(80, 20)) as pilot:
        listing = app.query_one(AbstractList)
        listing.set_marks(marks)
        await pilot.pause()
        drawn = _rows_drawn(listing)
        target = corpus.abstracts[listing.rows[3]]
        bookmarked.add(target.id)
        listing.set_marks(marks)
        await pilot.pause()
        assert drawn == [target.id]
        assert listing.render_line(3).text.startswith("★")
        # Marks that change nothing on screen redraw nothing.
        drawn.clear()
        listing.set_marks(marks)
        await pilot.pause()
        assert drawn == []
        # After a change of styles (theme, focus) the rows drawn are forgotten; a mark
        # set then still reaches the screen.
        listing.notify_style_update()
        await pilot.pause()
        drawn.clear()
        other = corpus.abstracts[listing.rows[5]]
        bookmarked.add(other.id)
        listing.set_marks(marks)
        await pilot.pause()
        assert other.id in drawn


async def test_a_cursor_move_asks_the_list_for_its_two_changed_lines_alone(
    corpus: Corpus,
) -> None:
    async with shown_list(corpus) as (_app, pilot, listing):
        asked = _lines_drawn(listing)
        listing.action_cursor_down()
        await pilot.pause()
        await pilot.pause()
        assert sorted(asked) == [0, 1]  # the rows the cursor left and reached
        # A repaint of the whole list asks for every line again.
        asked.clear()
        listing.refresh()
        await pilot.pause()
        assert sorted(asked) == list(range(listing.size.height))


async def test_new_rows_are_shown_without_a_layout_while_the_scrollbar_stays(
    corpus: Corpus,
) -> None:
    async with shown_list(corpus) as (app, pilot, listing):
        assert listing.show_vertical_scrollbar
        with counting_layouts(app) as layouts:
            listing.set_rows(range(10, 40))
            await pilot.pause()
        assert layouts[0] == 0
        assert listing.virtual_size.height == 30
        assert listing.vertical_scrollbar.window_virtual_size == 30
        headline = corpus.abstracts[10].headline
        assert headline[:20] in listing.render_line(0).text
        # Rows that fit: the scrollbar goes, which changes the rows' width (a layout).
        with counting_layouts(app) as layouts:
            listing.set_rows(range(3))
            await pilot.pause()
        assert layouts[0] >= 1
        assert not listing.show_vertical_scrollbar


async def test_the_list_looks_its_styles_up_again_only_after_a_change_of_styles(
    corpus: Corpus,
) -> None:
    async with shown_list(corpus) as (app, pilot, listing):
        looked_up: list[str] = []
        lookup = listing.get_component_rich_style

        def spy(*names: str, partial: bool = False) -> Any:
            looked_up.extend(names)
            return lookup(*names, partial=partial)

        listing.get_component_rich_style = spy  # type: ignore[method-assign]
        listing.cursor = 3
        await pilot.pause()
        listing.cursor = 4
        await pilot.pause()
        assert looked_up == []
        # A new theme: the rows are drawn in its colours.
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        assert looked_up
        first = next(iter(listing.render_line(0)))
        assert first.style is not None and first.style.bgcolor == listing.rich_style.bgcolor


async def test_new_rows_that_leave_the_thumb_in_place_do_not_redraw_the_scrollbar(
    corpus: Corpus,
) -> None:
    async with shown_list(corpus) as (_app, pilot, listing):
        bar = listing.vertical_scrollbar
        drawn = _drawings(bar, lambda: bar.window_virtual_size)
        # 76 rows or 75 in 12 lines: the same thumb, at the top.
        listing.set_rows(range(75))
        await pilot.pause()
        assert drawn == []
        assert bar.window_virtual_size == 75  # what the next drawing of the bar uses
        # 30 rows: a longer thumb.
        listing.set_rows(range(30))
        await pilot.pause()
        assert drawn == [30]


async def test_new_rows_keeping_the_cursor_where_it_was_leave_the_scrollbar_as_drawn(
    corpus: Corpus,
) -> None:
    async with shown_list(corpus) as (_app, pilot, listing):
        listing.cursor = 40  # the list scrolls to show it
        await pilot.pause()
        scrolled = listing.scroll_y
        assert scrolled > 0
        bar = listing.vertical_scrollbar
        drawn = _drawings(bar, lambda: bar.position)
        # The same abstracts in another order, the cursor's on the same line: the thumb
        # does not move (it went to the top and back).
        kept = corpus.abstracts[listing.rows[40]].id
        rows = list(listing.rows)
        rows[:40] = reversed(rows[:40])
        listing.set_rows(rows, keep=kept)
        await pilot.pause()
        assert listing.cursor == 40 and listing.scroll_y == scrolled
        assert drawn == []
        # Rows where it is nearer the top: scrolled up just enough to show it.
        listing.set_rows(rows[30:], keep=kept)
        await pilot.pause()
        assert listing.cursor == 10 and listing.scroll_y == 0
        assert drawn


async def test_a_moving_thumb_repaints_only_the_scrollbars_cells_it_changes(
    corpus: Corpus,
) -> None:
    async with shown_list(corpus) as (_app, pilot, listing):
        bar = listing.vertical_scrollbar
        repainted: list[Region] = []
        refresh = bar.refresh

        def spy(*regions: Region, **kwargs: Any) -> Any:
            repainted.extend(regions or [bar.size.region])
            return refresh(*regions, **kwargs)

        bar.refresh = spy  # type: ignore[method-assign]
        listing.cursor = 14  # a scroll of three lines: the thumb moves a cell or two
        await pilot.pause()
        assert listing.scroll_y == 3
        assert repainted and all(region.height < bar.size.height // 2 for region in repainted)
        # The bar shows what it shows when drawn whole: a click on any cell does what
        # its cell says.
        shown = [list(line) for line in bar.render_lines(bar.size.region)]
        assert shown == _textual_lines(bar)
        # Rows of another count: a thumb of another length, drawn right too.
        listing.set_rows(range(30))
        await pilot.pause()
        shown = [list(line) for line in bar.render_lines(bar.size.region)]
        assert shown == _textual_lines(bar)


# -- the detail pane -------------------------------------------------------------------


def _drawings(bar: ScrollBar, seen: Callable[[], float]) -> list[float]:
    """What `seen()` was at each drawing of `bar` from now on."""
    drawn: list[float] = []
    render = bar.render

    def spy() -> Any:
        drawn.append(seen())
        return render()

    bar.render = spy  # type: ignore[method-assign]
    return drawn


def _pane_lines(pane: DetailPane) -> list[str]:
    """The text of every line the pane shows now (its virtual height)."""
    top = int(pane.scroll_y)
    return [pane.render_line(y - top).text for y in range(pane.virtual_size.height)]


def _pane_never_focused() -> DetailPane:
    """A pane the app does not focus when it starts (the focus redraws every line)."""
    pane = DetailPane()
    pane.can_focus = False
    return pane


def _lines_drawn(widget: Widget) -> list[int]:
    """The widget's lines (on screen) drawn from now on, in order."""
    drawn: list[int] = []
    render_line = widget.render_line

    def spy(y: int) -> Any:
        drawn.append(y)
        return render_line(y)

    widget.render_line = spy  # type: ignore[method-assign]
    return drawn


async def test_a_new_mark_on_the_shown_abstract_redraws_only_the_line_it_changes(
    corpus: Corpus,
) -> None:
    app = Host(_pane_never_focused)
    async with app.run_test(size=(80, 30)) as pilot:
        pane = app.query_one(DetailPane)
        view = DetailView(corpus.abstracts[0])
        pane.show(view)
        await settle(app, pilot)
        before = _pane_lines(pane)
        drawn = _lines_drawn(pane)
        with counting_layouts(app) as layouts:
            pane.show(replace(view, bookmarked=True))
            await pilot.pause()
        assert layouts[0] == 0
        repainted = list(drawn)
        after = _pane_lines(pane)
        changed = [y for y, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
        assert len(changed) == 1 and "★ bookmarked" in after[changed[0]]
        assert repainted == changed
        assert pane.text_of("meta") is not None
        # The narrower API: marks alone, the rest of the view kept.
        with counting_layouts(app) as layouts:
            pane.show_marks(bookmarked=False, read=True)
            await pilot.pause()
        assert layouts[0] == 0
        assert pane.view is not None and pane.view.read and not pane.view.bookmarked
        shown = "\n".join(_pane_lines(pane))
        assert "✓ read" in shown and "not bookmarked" in shown


async def test_a_new_mark_builds_the_meta_lines_alone_and_a_new_note_its_box(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.ui.widgets.detail_text import reading_text

    app = Host(_pane_never_focused)
    async with app.run_test(size=(80, 30)) as pilot:
        pane = app.query_one(DetailPane)
        view = DetailView(corpus.abstracts[0], spans=lambda text: [(0, 3)])
        pane.show(view)
        await settle(app, pilot)
        body = pane.text_of("body")
        built: list[str] = []

        def spy(*args: Any, **kwargs: Any) -> Text:
            built.append("body")
            return reading_text(*args, **kwargs)

        monkeypatch.setattr("tui.ui.widgets.detail.reading_text", spy)
        pane.show(replace(view, bookmarked=True, tags=frozenset({"rg"}), note="a note"))
        await pilot.pause()
        assert built == []
        assert pane.text_of("body") is body
        meta, note = pane.text_of("meta"), pane.text_of("note")
        assert meta is not None and "★ bookmarked" in meta.plain and "#rg" in meta.plain
        assert note is not None and note.plain == "a note"
        pane.show_marks(note="")
        await pilot.pause()
        assert pane.text_of("note") is None and built == []
        # Another highlight is the abstract's own: its text is built again.
        pane.show(replace(view, spans=lambda text: [(0, 2)]))
        await pilot.pause()
        assert built == ["body"]


async def test_the_filter_saying_how_it_matched_or_not_on_the_same_abstract_needs_no_layout(
    corpus: Corpus,
) -> None:
    def spans(text: str) -> list[tuple[int, int]]:
        return [(0, 3)]

    app = Host(lambda: DetailPane())
    async with app.run_test(size=(80, 30)) as pilot:
        pane = app.query_one(DetailPane)
        view = DetailView(corpus.abstracts[0], spans=spans, matched="matched: graf ≈ graph")
        pane.show(view)
        await settle(app, pilot)
        # The next key: every word found as typed, so nothing to say; the line stays.
        with counting_layouts(app) as layouts:
            pane.show(replace(view, matched=""))
            await pilot.pause()
        assert layouts[0] == 0
        assert "matched:" not in "\n".join(_pane_lines(pane))


async def test_another_abstract_of_another_length_is_shown_without_a_layout(
    corpus: Corpus,
) -> None:
    first, second = corpus.abstracts[0], corpus.abstracts[1]
    app = Host(lambda: DetailPane())
    async with app.run_test(size=(80, 60)) as pilot:
        pane = app.query_one(DetailPane)
        pane.show(DetailView(first))
        await settle(app, pilot)
        height = pane.virtual_size.height
        with counting_layouts(app) as layouts:
            pane.show(DetailView(second, note="a note"))
            await pilot.pause()
        assert layouts[0] == 0
        assert pane.virtual_size.height != height
        shown = " ".join(_pane_lines(pane))
        assert second.plain[:30] in shown and "a note" in shown
        assert first.plain[:30] not in shown


async def test_an_abstract_drawn_ahead_is_shown_as_drawn_and_as_show_draws_it(
    corpus: Corpus,
) -> None:
    first, second = corpus.abstracts[0], corpus.abstracts[1]
    ahead = DetailView(second, bookmarked=True, note="a note", spans=lambda _: [(0, 4)])
    app = Host(lambda: DetailPane())
    async with app.run_test(size=(80, 60)) as pilot:
        pane = app.query_one(DetailPane)
        pane.show(DetailView(first))
        await settle(app, pilot)
        pane.prepare(ahead)
        drawn: list[str] = []
        draw_block = pane._draw_block

        def spy(name: str, *args: Any) -> list[Any]:
            drawn.append(name)
            return draw_block(name, *args)

        pane._draw_block = spy  # type: ignore[method-assign]
        pane.show(ahead)
        assert drawn == []  # every block as drawn ahead
        lines = list(pane._lines)
        # What the pane draws of it without drawing ahead, line for line.
        pane._forget_drawn()
        pane.show(DetailView(first))
        pane.show(ahead)
        assert drawn and pane._lines == lines
        # A mark changed since: the meta lines alone are drawn again.
        pane.show(DetailView(first))
        pane.prepare(ahead)
        drawn.clear()
        pane.show(replace(ahead, bookmarked=False))
        assert drawn == ["meta"]


async def test_an_abstract_longer_than_the_pane_is_drawn_for_the_width_its_scrollbar_leaves(
    corpus: Corpus,
) -> None:
    longest = max(corpus.abstracts, key=lambda a: len(a.plain))
    app = Host(lambda: DetailPane())
    async with app.run_test(size=(50, 12)) as pilot:
        pane = app.query_one(DetailPane)
        pane.show(DetailView(corpus.abstracts[0], note="n"))
        await pilot.pause()
        pane.show(DetailView(longest))
        await pilot.pause()
        await pilot.pause()
        assert pane.show_vertical_scrollbar
        width = pane.scrollable_content_region.width
        lines = _pane_lines(pane)
        assert all(len(line.rstrip()) <= width for line in lines)
        words = " ".join(line.strip() for line in lines).split()
        assert " ".join(longest.plain.split()[:40]) in " ".join(words)
        # Scrolled to its end, the last words show.
        pane.scroll_end(animate=False)
        await pilot.pause()
        assert pane.at_bottom
        assert longest.plain.split()[-1] in " ".join(_pane_lines(pane))


async def test_a_new_theme_redraws_the_pane_in_its_colours(corpus: Corpus) -> None:
    app = Host(lambda: DetailPane())
    async with app.run_test(size=(80, 30)) as pilot:
        pane = app.query_one(DetailPane)
        pane.show(DetailView(corpus.abstracts[0]))
        await settle(app, pilot)

        def background() -> Any:
            return next(iter(pane.render_line(0))).style.bgcolor  # type: ignore[union-attr]

        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        light = background()
        assert light == pane.background_colors[1].rich_color
        app.theme = "textual-dark"
        await pilot.pause()
        await pilot.pause()
        assert background() != light
        assert background() == pane.background_colors[1].rich_color


# -- the header ----------------------------------------------------------------------


async def header_showing(app: Host, pilot: Any, title: str, status: str) -> AppHeader:
    header = app.query_one(AppHeader)
    header.set_title(Text(title))
    header.set_status(Text(status))
    await settle(app, pilot)
    return header


async def test_a_status_of_another_width_redraws_the_header_without_a_layout() -> None:
    app = Host(lambda: AppHeader())
    async with app.run_test(size=(60, 5)) as pilot:
        header = await header_showing(app, pilot, "abstracts  seeds", "12 matches")
        with counting_layouts(app) as layouts:
            header.set_status(Text("1,234 matches · of 6,506"))
            await pilot.pause()
        assert layouts[0] == 0
        line = header.render_line(0).text
        assert line.startswith(" abstracts  seeds ")
        assert line.endswith(" 1,234 matches · of 6,506 ")
        assert len(line) == 60


async def test_a_new_status_draws_the_status_alone_and_keeps_the_title_as_drawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tui.ui.widgets import header as header_module

    app = Host(lambda: AppHeader())
    async with app.run_test(size=(60, 5)) as pilot:
        header = await header_showing(app, pilot, "abstracts  seeds", "12 matches")
        drawn: list[str] = []
        visualize = header_module.visualize

        def spy(widget: Widget, text: Any, markup: bool = True) -> Any:
            drawn.append(text.plain)
            return visualize(widget, text, markup=markup)

        monkeypatch.setattr(header_module, "visualize", spy)
        header.set_status(Text("13 matches"))
        await pilot.pause()
        assert drawn == ["13 matches"]
        assert header.render_line(0).text.startswith(" abstracts  seeds ")
        # Another width for the title's half draws it again.
        drawn.clear()
        header.set_status(Text("1,234 matches · of 6,506"))
        await pilot.pause()
        assert sorted(drawn) == ["1,234 matches · of 6,506", "abstracts  seeds"]


async def test_the_header_gives_the_status_at_most_its_share_and_the_title_the_rest() -> None:
    app = Host(lambda: AppHeader())
    async with app.run_test(size=(40, 5)) as pilot:
        title = "abstracts  ICLR 2020, ICLR 2021, ICLR 2022, ICLR 2023"
        header = await header_showing(app, pilot, title, "of 6,506")
        line = header.render_line(0).text
        assert header.half_widths(40) == (30, 10)
        # Cut where the title's half ends (as Textual cuts a Static's nowrap text).
        assert line[:30].startswith(" abstracts  ICLR 2020, ICLR")
        assert line[30:] == " of 6,506 "
        header.set_status(Text("s" * 60))
        await pilot.pause()
        line = header.render_line(0).text
        assert header.half_widths(40) == (8, 32)
        assert line[8:] == " " + "s" * 30 + " "


# -- the filter box ------------------------------------------------------------------


async def test_typing_in_the_filter_box_lays_out_nothing_and_keeps_the_cursor_in_view() -> None:
    app = Host(lambda: FilterInput(on_value=lambda _: None))
    async with app.run_test(size=(60, 5)) as pilot:
        field = app.query_one(FilterInput)
        field.focus()
        await settle(app, pilot)
        with counting_layouts(app) as layouts:
            await pilot.press(*"graph neural networks for molecules")
            await pilot.pause()
        assert field.value == "graph neural networks for molecules"
        assert layouts[0] == 0
        # Longer than the box: scrolled so the cursor, at the end, shows.
        assert field.scroll_x > 0
        assert field.scroll_x + field.content_region.width > len(field.value)


async def test_the_filter_box_hands_each_new_text_over_in_the_keys_own_handler() -> None:
    values: list[str] = []
    app = Host(lambda: FilterInput(on_value=values.append))
    async with app.run_test(size=(60, 5)) as pilot:
        field = app.query_one(FilterInput)
        field.focus()
        await settle(app, pilot)
        field.value = "graph"
        # Before any message is processed: the hand-over is not a posted message.
        assert values == ["graph"]
        await pilot.press("s", "backspace")
        assert values == ["graph", "graphs", "graph"]


async def test_a_new_query_draws_again_only_the_rows_whose_matches_changed(
    corpus: Corpus,
) -> None:
    app = Host(lambda: AbstractList(corpus))
    async with app.run_test(size=(80, 20)) as pilot:
        listing = app.query_one(AbstractList)
        first = corpus.abstracts[listing.rows[0]].headline
        word = first.split()[0]

        def spans_of(term: str) -> Any:
            def spans(text: str) -> list[tuple[int, int]]:
                at = text.find(term)
                return [] if at < 0 or not term else [(at, at + len(term))]

            return spans

        listing.set_highlighter(spans_of(word))
        await pilot.pause()
        drawn = _rows_drawn(listing)
        # The same matches from another query (another object): nothing drawn again.
        listing.set_highlighter(spans_of(word))
        await pilot.pause()
        assert drawn == []
        # Matches that differ: the first row, whose headline has them, is drawn again
        # with the new highlight.
        listing.set_highlighter(spans_of(word[:1]))
        await pilot.pause()
        assert corpus.abstracts[listing.rows[0]].id in drawn


def _textual_lines(widget: Widget) -> list[list[Segment]]:
    """The widget's lines as Textual's own rendering finishes them (nothing kept)."""
    widget._styles_cache.clear()
    lines = Widget.render_lines(widget, widget.size.region)
    return [list(line) for line in lines]


async def test_the_lists_lines_are_finished_as_textual_finishes_them(corpus: Corpus) -> None:
    async with shown_list(corpus) as (app, pilot, listing):
        listing.cursor = 3
        listing.set_highlighter(lambda text: [(0, 3)])
        await pilot.pause()
        for theme in ("textual-dark", "textual-light"):
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            ours = [list(line) for line in listing.render_lines(listing.size.region)]
            assert ours == _textual_lines(listing)
            # Part of the width, as the compositor asks for a list cut by the screen.
            part = Region(2, 1, 30, 5)
            ours = [list(line) for line in listing.render_lines(part)]
            listing._styles_cache.clear()
            assert ours == [list(line) for line in Widget.render_lines(listing, part)]


async def test_rows_drawn_before_are_not_finished_by_textual_again(corpus: Corpus) -> None:
    async with shown_list(corpus) as (app, pilot, listing):
        listing.set_rows(range(20))
        await pilot.pause()
        line_filter = app.get_line_filters()[0]
        filtered: list[str] = []
        apply = line_filter.apply

        def spy(segments: list[Segment], background: Any) -> list[Segment]:
            filtered.append("".join(segment.text for segment in segments))
            return apply(segments, background)

        line_filter.apply = spy  # type: ignore[method-assign]
        # The same rows one line lower under a row not drawn yet, the cursor's row kept:
        # every line shows another row, and only the new one is finished again.
        listing.set_rows([19, *range(19)], keep=corpus.abstracts[0].id)
        await pilot.pause()
        assert len(filtered) == 1
        assert corpus.abstracts[19].headline[:20] in filtered[0]
