"""Saved searches in the reader: S saves the filter, @ lists them with counts, Enter
applies one, r renames, d deletes; counts follow bookmarks and read marks."""

from __future__ import annotations

from pathlib import Path

from tests.ui.helpers import record_notifications, wait_for_userdata, wait_until
from tui.store.names import name_key
from tui.store.userdata import UserData
from tui.ui.app import AbstractsApp, make_app
from tui.ui.screens.saved import ConfirmScreen, NameScreen, SavedSearchesScreen


async def _filter(pilot, text: str) -> None:
    app = pilot.app
    await pilot.press("slash", *text, "enter")
    await wait_until(pilot, lambda: app.search.match_counts is not None)


async def _save_as(pilot, name: str) -> None:
    await pilot.press("S")
    assert isinstance(pilot.app.screen, NameScreen)
    await pilot.press(*name, "enter")


async def _open_view(pilot) -> SavedSearchesScreen:
    app: AbstractsApp = pilot.app
    await pilot.press("@")
    assert isinstance(app.screen, SavedSearchesScreen)
    await wait_until(pilot, lambda: not app.screen.counting)
    return app.screen


def _counts(app: AbstractsApp, name: str) -> tuple[int, int]:
    shown = app.saved.counts[name_key(name)]
    return shown.matched, shown.unread


def _listed(screen: SavedSearchesScreen) -> list[str]:
    listing = screen.query_one("#saved-list")
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


async def test_save_list_with_counts_and_apply(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        await _filter(pilot, "graph")
        matched = app.search.match_counts[0]
        await pilot.press("o")  # file order is part of what is saved
        await _save_as(pilot, "  Graphs ")
        saved = app.personal.userdata.saved_search("graphs")
        assert (saved.name, saved.query, saved.sort) == ("Graphs", "graph", "file")

        await pilot.press("escape")  # clear the filter, back to everything
        await wait_until(pilot, lambda: not app.search.filtered)
        app.search.set_order("relevance")
        screen = await _open_view(pilot)
        assert _counts(app, "Graphs") == (matched, matched)  # nothing read yet
        row = _listed(screen)[0]
        assert "Graphs" in row and f"{matched} matches · {matched} unread" in row
        assert "graph" in row and "(file order)" in row

        await pilot.press("enter")
        assert not isinstance(app.screen, SavedSearchesScreen)
        await wait_until(pilot, lambda: app.search.match_counts is not None)
        assert app.filter_input.value == "graph" and app.search.order == "file"
        assert app.search.match_counts[0] == matched


async def test_saving_an_empty_filter_says_there_is_nothing(
    seeds_dir: Path, data_dir: Path, monkeypatch
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        said = record_notifications(app, monkeypatch)
        await pilot.press("S")
        assert not isinstance(app.screen, NameScreen)
        assert any("Nothing to save" in s for s in said)


async def test_esc_cancels_and_bad_names_are_explained(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        await _filter(pilot, "diffusion")
        await pilot.press("S")
        assert "diffusion" in str(app.screen.query_one("#name-query").render())
        await pilot.press("enter")  # no name
        assert isinstance(app.screen, NameScreen)
        assert "a name is needed" in str(app.screen.query_one("#name-problem").render())
        await pilot.press("escape")
        assert not isinstance(app.screen, NameScreen)
        assert app.personal.userdata.saved_searches() == []


async def test_an_existing_name_is_replaced_only_when_confirmed(
    seeds_dir: Path, data_dir: Path
) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        app.personal.userdata.save_search("weekly", "graph", "relevance")
        await _filter(pilot, "diffusion")
        await _save_as(pilot, "WEEKLY")
        # Asked, not overwritten.
        assert isinstance(app.screen, NameScreen)
        assert "exists (graph)" in str(app.screen.query_one("#name-problem").render())
        assert app.personal.userdata.saved_search("weekly").query == "graph"
        await pilot.press("enter")  # yes, replace
        assert not isinstance(app.screen, NameScreen)
        assert app.personal.userdata.saved_search("weekly").query == "diffusion"
        assert len(app.personal.userdata.saved_searches()) == 1


async def test_counts_follow_a_bookmark_and_a_read_mark(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        data = app.personal.userdata
        data.save_search("starred", "is:bookmarked", "relevance")
        await _open_view(pilot)
        assert _counts(app, "starred") == (0, 0)
        await pilot.press("escape")
        await pilot.press("b")  # bookmark the abstract under the cursor
        target = app.abstract_list.current
        await _open_view(pilot)
        assert _counts(app, "starred") == (1, 1)
        # While the view is open: another instance marks it read; a refresh recounts.
        other = UserData.open(data_dir)
        other.set_read([target], True)
        assert other.flush()
        other.close()
        app.personal.refresh_data(quiet=True)
        await wait_until(pilot, lambda: _counts(app, "starred") == (1, 0))
        assert not app.screen.counting


async def test_a_stale_count_is_never_shown(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        app.personal.userdata.save_search("starred", "is:bookmarked", "relevance")
        screen = await _open_view(pilot)
        searches = app.personal.userdata.saved_searches()
        old = dict(app.saved.counts)
        app.saved.recount()  # a newer run starts: the old run's answer is out of date
        stale = {name_key("starred"): type(old[name_key("starred")])(99, 99)}
        app.saved._show_counts(app.saved.generation - 1, searches, stale)
        assert app.saved.counts.get(name_key("starred")) != stale[name_key("starred")]
        assert "99 matches" not in _listed(screen)[0]
        await wait_until(pilot, lambda: not screen.counting)
        assert _counts(app, "starred") == (0, 0)


async def test_rename_and_delete_from_the_view(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        data = app.personal.userdata
        data.save_search("alpha", "graph", "relevance")
        data.save_search("beta", "diffusion", "relevance")
        screen = await _open_view(pilot)
        await pilot.press("r")
        assert isinstance(app.screen, NameScreen)
        await pilot.press(*["backspace"] * 5, *"beta", "enter")
        assert "already a saved search" in str(app.screen.query_one("#name-problem").render())
        await pilot.press(*"-2", "enter")
        assert app.screen is screen
        assert [s.name for s in data.saved_searches()] == ["beta", "beta-2"]
        await wait_until(pilot, lambda: "beta-2" in _listed(screen)[1])

        await pilot.press("j", "d")  # "beta-2", the second row
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # kept
        assert len(data.saved_searches()) == 2
        await pilot.press("d", "y")
        assert [s.name for s in data.saved_searches()] == ["beta"]
        await wait_until(pilot, lambda: len(_listed(screen)) == 1)
        assert data.flush()

    again = make_app([seeds_dir], data_dir=data_dir)
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        assert [(s.name, s.query) for s in again.personal.userdata.saved_searches()] == [
            ("beta", "diffusion")
        ]


async def test_the_palette_lists_each_saved_search(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        app.personal.userdata.save_search("Weekly", "graph", "relevance")
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert {"Saved searches", "Save search", "Saved search: Weekly"} <= set(commands)
        commands["Saved search: Weekly"].callback()
        await wait_until(pilot, lambda: app.search.match_counts is not None)
        assert app.filter_input.value == "graph"


async def test_a_large_corpus_is_counted_in_a_child_process(
    seeds_dir: Path, data_dir: Path, monkeypatch
) -> None:
    from tui import caches

    monkeypatch.setattr(caches, "SUBPROCESS_THRESHOLD", 10)  # the seeds count as large
    monkeypatch.setattr("tui.session.loaders.APP_INDEX_SIZE", 0)  # by the child too
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        await wait_until(pilot, lambda: app.search.index is not None, timeout=60)
        app.personal.userdata.save_search("starred", "is:bookmarked", "relevance")
        await _open_view(pilot)
        assert app.saved._process is not None and app.saved._process.alive
        assert _counts(app, "starred") == (0, 0)
        app.personal.userdata.set_bookmark(app.corpus.abstracts[3], True)
        app.session.user.changed()  # changed behind the session's back
        await wait_until(pilot, lambda: _counts(app, "starred") == (1, 1))
        process = app.saved._process
    assert not process.alive  # quitting ended it


async def test_counts_follow_a_tag(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        app.personal.userdata.save_search("to cite", "tag:to-cite", "relevance")
        await _open_view(pilot)
        assert _counts(app, "to cite") == (0, 0)
        await pilot.press("escape", "t", *"to-cite", "enter")  # tag the abstract shown
        assert app.personal.userdata.tags_of(app.abstract_list.current.id) == {"to-cite"}
        await _open_view(pilot)
        assert _counts(app, "to cite") == (1, 1)


BIB = Path(__file__).resolve().parent.parent / "corpus" / "fixtures" / "bib-zotero.bib"


async def _count_paper_fields(data_dir: Path) -> AbstractsApp:
    """The app on a BibTeX library with saved searches on its paper fields, counted."""
    app = make_app([BIB], data_dir=data_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        await wait_until(pilot, lambda: app.search.index is not None, timeout=60)
        userdata = app.personal.userdata
        userdata.save_search("kraska", "author:kraska", "relevance")
        userdata.save_search("ermon or nobody", "author:ermon has:abstract", "relevance")
        userdata.save_search("by id", f"id:{app.corpus.abstracts[0].paper.ids[0][1]}", "file")
        userdata.save_search("everything", "", "relevance")
        await _open_view(pilot)
    return app


async def test_saved_searches_on_paper_fields_are_counted(data_dir: Path) -> None:
    app = await _count_paper_fields(data_dir)
    assert _counts(app, "kraska") == (1, 1)
    assert _counts(app, "ermon or nobody") == (1, 1)
    assert _counts(app, "by id") == (1, 1)


async def test_paper_fields_are_counted_in_the_app_when_a_child_counts_the_rest(
    data_dir: Path, monkeypatch
) -> None:
    from tui import caches

    monkeypatch.setattr(caches, "SUBPROCESS_THRESHOLD", 2)  # the library counts as large
    monkeypatch.setattr("tui.session.loaders.APP_INDEX_SIZE", 0)  # by the child too
    app = await _count_paper_fields(data_dir)
    assert app.saved._process is not None  # the child counted what it could
    assert _counts(app, "kraska") == (1, 1)
    assert _counts(app, "by id") == (1, 1)
    assert _counts(app, "everything") == (4, 4)
