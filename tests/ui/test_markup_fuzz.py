"""Strings from data and the user (tags, saved-search names, paths, notes, file names)
reach every screen as text: markup, escape and format characters in them are shown,
never parsed or obeyed, and never raise.

Hypothesis draws the strings; each surface is driven in one running app per test (an
app per example would take minutes), and a failure names the string. The default run
draws 8 per surface; `ABSTRACTS_FUZZ_EXAMPLES=500` draws the full count.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.command import CommandPalette
from textual.content import Content
from textual.widgets import Input, OptionList, Static
from textual.widgets._toast import Toast

from tests.ui.helpers import wait_for_userdata, wait_until
from tui.corpus.load import load_corpus
from tui.corpus.model import Corpus, LoadProblem
from tui.sanitize import visible, visible_line
from tui.store.names import NameProblem, normalise_name
from tui.tagnames import TagError, normalise_tag
from tui.ui.app import AbstractsApp, make_app
from tui.ui.screens.export import ExportScreen
from tui.ui.screens.load_report import LoadReportScreen
from tui.ui.screens.notes import NotesScreen
from tui.ui.screens.saved import SavedSearchesScreen
from tui.ui.screens.tags import TagsScreen
from tui.ui.widgets.header import AppHeader

EXAMPLES = int(os.environ.get("ABSTRACTS_FUZZ_EXAMPLES", "8"))

#: Pieces that mean something to Textual's or Rich's markup, to a terminal, or to
#: string formatting; mixed with arbitrary text.
TRICKY = [
    "[", "]", "[/]", "[b]", "[/b]", "[/w code]", "[draft]", "x[/]", "[@click=app.quit]",
    "[link=https://x]", "[$accent]", "[red on blue]", "[bold italic]", "\\", "\\[", "\\\\[",
    "$", "{", "}", "{0}", "%s", "%(x)s", ":smile:", "\x1b[2J", "\x1b]52;c;aGk=\x07", "\x9b",
    "\u200b", "\ufeff", "\u202e", "\u2066", "\u00ad", "\t", "\n", "\r", "&", "<b>", "'", '"',
]  # fmt: skip
STRINGS = st.lists(
    st.one_of(st.sampled_from(TRICKY), st.text(max_size=3)), min_size=1, max_size=6
).map("".join)


def drawn(usable: Callable[[str], str | None], count: int = EXAMPLES) -> list[str]:
    """`count` distinct strings from hypothesis, as `usable` makes them (None: skipped,
    a name the store refuses)."""
    found: dict[str, None] = {}

    @settings(
        max_examples=count * 6,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(STRINGS)
    def collect(text: str) -> None:
        made = usable(text)
        if made is not None and len(found) < count:
            found[made] = None

    collect()
    return list(found)


def plain(visual: object) -> str:
    """What a widget's renderable shows, as plain text."""
    if isinstance(visual, Content):
        return visual.plain
    return getattr(visual, "plain", str(visual))


def tag_or_none(text: str) -> str | None:
    try:
        tag = normalise_tag(text)
    except TagError:
        return None
    return tag if len(tag) <= 16 else None


def name_or_none(text: str) -> str | None:
    try:
        return normalise_name(text)
    except NameProblem:
        return None


def still_running(app: AbstractsApp, example: str) -> None:
    assert app.is_running and app._exception is None, f"crashed on {example!r}"


async def test_tags_view_and_rename_show_tag_names_as_text(seeds_dir: Path) -> None:
    tags = drawn(tag_or_none)
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_userdata(pilot)
        data, abstract = app.personal.userdata, app.abstract_list.current
        for tag in tags:
            data.set_tags(on=[(abstract.id, tag)])
            await pilot.press("number_sign")
            await wait_until(pilot, lambda: isinstance(app.screen, TagsScreen))
            listing = app.screen.query_one(OptionList)
            shown = plain(listing.get_option_at_index(0).prompt)
            assert shown.startswith(visible_line(f"#{tag}")), tag
            await pilot.press("r")
            line = app.screen.query_one("#tags-rename", Input)
            assert line._border_title is not None
            assert (
                line._border_title.plain == f"Rename #{visible_line(tag)} to (a tag in use: merge)"
            )
            await pilot.pause()
            still_running(app, tag)
            await pilot.press("escape", "escape")
            await wait_until(pilot, lambda: len(app.screen_stack) == 1)
            data.set_tags(off=[(abstract.id, tag)])


async def test_saved_searches_view_and_palette_show_names_as_text(seeds_dir: Path) -> None:
    names = drawn(name_or_none)
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_userdata(pilot)
        data = app.personal.userdata
        for name in names:
            data.save_search(name, "graph", "relevance")
            await pilot.press("at")
            await wait_until(pilot, lambda: isinstance(app.screen, SavedSearchesScreen))
            listing = app.screen.query_one(OptionList)
            shown = visible_line(name)
            shown = shown if len(shown) <= 28 else shown[:27] + "…"  # a long name is cut
            assert plain(listing.get_option_at_index(0).prompt).startswith(shown), name
            await pilot.press("escape")
            await pilot.press("ctrl+p")
            await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
            palette = app.screen
            # With nothing typed the palette lists every command (each saved search too).
            await wait_until(pilot, lambda: app.screen.query_one(OptionList).option_count > 0)
            await pilot.pause()
            still_running(app, name)
            options = palette.query_one(OptionList)
            prompts = [
                plain(options.get_option_at_index(i).prompt) for i in range(options.option_count)
            ]
            assert any(f"Saved search: {visible_line(name)}" in p for p in prompts), (name, prompts)
            await pilot.press("escape")
            await wait_until(pilot, lambda: len(app.screen_stack) == 1)
            data.delete_search(name)


async def test_the_export_dialog_shows_a_bad_path_as_text(seeds_dir: Path) -> None:
    paths = drawn(lambda text: f"/nonexist{text}/x.md" if "\x00" not in text else None)
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_userdata(pilot)
        app.exporting.open_dialog()
        await wait_until(pilot, lambda: isinstance(app.screen, ExportScreen))
        field = app.screen.query_one("#export-path", Input)
        for path in paths:
            field.value = path
            await field.action_submit()
            await pilot.pause()
            still_running(app, path)
            problem = plain(app.screen.query_one("#export-problem", Static).render())
            # The folder named is the path's parent, exactly as typed.
            assert visible_line(str(Path(path).parent)) in problem, (path, problem)


async def test_the_notes_view_and_detail_pane_show_notes_as_text(seeds_dir: Path) -> None:
    notes = drawn(lambda text: text if text.strip() else None)
    app = make_app([seeds_dir])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_userdata(pilot)
        data, abstract = app.personal.userdata, app.abstract_list.current
        for note in notes:
            data.save_note(abstract, note)
            app.session.user.changed()  # changed behind the session's back
            shown = app.detail.text_of("note").plain
            assert shown == visible(note), note
            await pilot.press("N")
            await wait_until(pilot, lambda: isinstance(app.screen, NotesScreen))
            listing = app.screen.query_one(OptionList)
            preview = plain(listing.get_option_at_index(0).prompt)
            first = next((line for line in note.splitlines() if line.strip()), "")
            assert visible_line(first.strip())[:20] in preview, (note, preview)
            await pilot.pause()
            still_running(app, note)
            await pilot.press("escape")
            await wait_until(pilot, lambda: len(app.screen_stack) == 1)


async def test_the_load_report_and_its_toast_show_file_names_as_text(
    seeds_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    names = drawn(lambda text: text if "\x00" not in text and "/" not in text else None)
    base = load_corpus([seeds_dir])
    app = make_app(corpus=base)
    notify = app.notify

    def lasting(message, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        # The toast is read after the report opens; on a loaded machine that can be
        # later than its 8 s.
        notify(message, *args, **{**kwargs, "timeout": 3600})

    monkeypatch.setattr(app, "notify", lasting)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        for name in names:
            corpus = Corpus(base.abstracts, base.files, [LoadProblem(Path(name), "unreadable")])
            app.corpus = corpus
            app.clear_notifications()
            app._report_problems()
            await pilot.press("L")
            await wait_until(pilot, lambda: isinstance(app.screen, LoadReportScreen))
            report = plain(app.screen.query_one("#report-problems", Static).render())
            assert f"{visible_line(name)}: unreadable" in report, name
            await pilot.pause()
            still_running(app, name)
            toasts = [plain(toast.render()) for toast in app.screen.query(Toast)]
            assert any(visible_line(name) in t for t in toasts), (name, toasts)
            await pilot.press("escape")
            await wait_until(pilot, lambda: len(app.screen_stack) == 1)
        app.corpus = base


async def test_the_header_shows_collection_names_as_text(tmp_path: Path) -> None:
    labels = drawn(lambda text: text if text.strip() and "\n" not in text else None, 12)
    folder = tmp_path / "corpus"
    folder.mkdir()
    for number, label in enumerate(labels):
        (folder / f"{number:03}.txt").write_text(
            f"{label}\n\nAbstract number {number} about graphs and attention.\n",
            encoding="utf-8",
            errors="surrogateescape",
        )
    corpus = load_corpus([folder])
    app = make_app(corpus=corpus)
    async with app.run_test(size=(200, 30)) as pilot:
        title = app.query_one(AppHeader).render_line(0).text
        shown = sorted({visible_line(info.collection.short) for info in corpus.files})
        assert ", ".join(shown[:3]) in title
        await pilot.pause()
        still_running(app, repr(labels))
