"""Pilot tests of tags: `t` on one abstract, the whole list as one step, the row and the
detail pane, `tag:` filters, and the tags view's filter, rename, merge and delete."""

from __future__ import annotations

from pathlib import Path

from tests.ui.helpers import record_notifications, wait_for_userdata, wait_until
from tui.ui.app import make_app
from tui.ui.screens.tag_input import TagInputScreen, complete
from tui.ui.screens.tags import TagsScreen


def _row_text(app, position: int) -> str:
    abstract = app.corpus.abstracts[app.abstract_list.rows[position]]
    width = app.abstract_list.scrollable_content_region.width
    return "".join(s.text for s in app.abstract_list._row_segments(abstract, width, False))


async def _type(pilot, text: str) -> None:
    for char in text:
        await pilot.press("space" if char == " " else char)


async def test_t_tags_the_current_abstract_and_u_undoes(seeds_dir: Path, data_dir: Path) -> None:
    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        data = app.personal.userdata
        current = app.abstract_list.current
        await pilot.press("t")
        assert isinstance(app.screen, TagInputScreen)
        await _type(pilot, "To Cite, #rg")
        await pilot.press("enter")
        assert not isinstance(app.screen, TagInputScreen)
        assert data.tags_of(current.id) == {"to-cite", "rg"}
        # The row shows the tags compactly and still fits the 80 columns.
        row = _row_text(app, app.abstract_list.cursor)
        assert "#rg" in row and len(row) == app.abstract_list.scrollable_content_region.width
        assert "Tags: #rg #to-cite" in app.detail.text_of("meta").plain
        await pilot.press("t")
        await _type(pilot, "-rg")
        await pilot.press("enter")
        assert data.tags_of(current.id) == {"to-cite"}
        await pilot.press("u")
        assert data.tags_of(current.id) == {"to-cite", "rg"}
        await pilot.press("u")
        assert data.tags_of(current.id) == frozenset()
        await pilot.press("ctrl+r")
        assert data.tags_of(current.id) == {"to-cite", "rg"}
        assert data.flush()
    again = make_app([seeds_dir], data_dir=data_dir)
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        assert again.personal.userdata.tags_of(current.id) == {"to-cite", "rg"}


async def test_a_bad_name_is_explained_and_nothing_changes(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        await pilot.press("t")
        app.screen.query_one("#tag-line").value = 'fine, bad"name'
        await pilot.press("enter")
        assert isinstance(app.screen, TagInputScreen)
        error = app.screen.query_one("#tag-error").render().plain
        assert "cannot" in error and "bad" in error
        await pilot.press("escape")
        assert app.personal.userdata.tag_counts() == {}


async def test_tagging_the_whole_filtered_list_is_one_undo_step(
    seeds_dir: Path, monkeypatch
) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        said = record_notifications(app, monkeypatch)
        app.filter_input.value = "graph "
        await wait_until(pilot, lambda: app.search.match_counts is not None)
        listed = [app.corpus.abstracts[i].id for i in app.abstract_list.rows]
        assert 1 < len(listed) < len(app.corpus)
        app.tags.tag_list()
        await wait_until(pilot, lambda: isinstance(app.screen, TagInputScreen))
        await _type(pilot, "graphs")
        await pilot.press("enter")
        data = app.personal.userdata
        assert data.tag_index()["graphs"] == set(listed)
        assert any(f"Tagged {len(listed)} abstracts #graphs" in s for s in said)
        await pilot.press("u")
        assert data.tag_counts() == {}
        assert any(f"Undid: tagged {len(listed)} abstracts #graphs" in s for s in said)


async def test_tag_filters_prefix_typo_exclusion_and_has_tag(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_userdata(pilot)
        data = app.personal.userdata
        first, second, third = (a.id for a in app.corpus.abstracts[:3])
        data.set_tags(on=[(first, "to-cite"), (second, "to-cite"), (third, "to-read")])

        async def shown(query: str) -> set[str]:
            app.filter_input.value = query
            await wait_until(pilot, lambda: app.search.query_text == query)
            await wait_until(pilot, lambda: not app.search.filtered or app.search.match_counts)
            return {app.corpus.abstracts[i].id for i in app.abstract_list.rows}

        assert await shown("tag:to-cite ") == {first, second}
        assert await shown("tag:to-") == {first, second, third}  # still typing: a prefix
        assert await shown("tag:to-ctie ") == {first, second}  # a typo
        assert await shown("has:tag") == {first, second, third}
        excluded = await shown("-tag:to-cite ")
        assert first not in excluded and third in excluded
        assert len(excluded) == len(app.corpus) - 2


async def test_tags_view_filters_renames_merges_and_deletes_with_undo(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        data = app.personal.userdata
        a, b, c = (x.id for x in app.corpus.abstracts[:3])
        data.set_tags(on=[(a, "old"), (b, "old"), (b, "new"), (c, "other")])
        await pilot.press("number_sign")
        assert isinstance(app.screen, TagsScreen)
        screen = app.screen
        assert screen.rows == [("old", 2), ("new", 1), ("other", 1)]
        # Rename old onto new: a merge, one step.
        await pilot.press("r")
        line = screen.query_one("#tags-rename")
        line.value = "New"
        await pilot.press("enter")
        assert data.tag_index() == {"new": {a, b}, "other": {c}}
        assert screen.rows == [("new", 2), ("other", 1)]
        await pilot.press("u")  # undo, with the view still open: its counts follow
        assert data.tag_index() == {"old": {a, b}, "new": {b}, "other": {c}}
        assert screen.rows == [("old", 2), ("new", 1), ("other", 1)]
        await pilot.press("ctrl+r")
        # Delete the highlighted tag (new, after the redo), then undo it.
        assert screen.highlighted == "new"
        await pilot.press("d")
        assert data.tag_index() == {"other": {c}}
        await pilot.press("u")
        assert data.tag_index() == {"new": {a, b}, "other": {c}}
        # Enter filters the list by the tag (the first, most used).
        await pilot.press("g", "enter")
        assert not isinstance(app.screen, TagsScreen)
        assert app.filter_input.value == "tag:new "
        await wait_until(pilot, lambda: len(app.abstract_list.rows) == 2)
        assert {app.corpus.abstracts[i].id for i in app.abstract_list.rows} == {a, b}


async def test_the_tags_view_reads_at_80_columns(seeds_dir: Path) -> None:
    app = make_app([seeds_dir])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        ids = [x.id for x in app.corpus.abstracts]
        long_name = "a-very-long-tag-name-that-goes-on-and-on-and-on"
        app.personal.userdata.set_tags(
            on=[(i, "to-cite") for i in ids[:12]] + [(ids[0], long_name)]
        )
        await pilot.press("number_sign")
        screen = app.screen
        rendered = [
            screen.query_one("#tags-list").get_option_at_index(k).prompt.plain for k in range(2)
        ]
        assert rendered[0].startswith("#to-cite") and rendered[0].rstrip().endswith("12")
        assert "…" in rendered[1] and len(rendered[1]) < 70


def test_completion_completes_the_last_tag_whatever_its_case() -> None:
    tags = ["to-cite", "to-read", "rg"]
    assert complete("To", tags) == "To-cite"
    assert complete("rg, to-r", tags) == "rg, to-read"
    assert complete("-R", tags) == "-Rg"
    assert complete("rg", tags) is None  # already whole
    assert complete("x, ", tags) is None


async def test_ctrl_l_shows_tags_another_instance_saved(seeds_dir: Path, data_dir: Path) -> None:
    from tui.store.userdata import UserData

    app = make_app([seeds_dir], data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_userdata(pilot)
        current = app.abstract_list.current
        other = UserData.open(data_dir)
        other.attach(app.corpus)
        other.set_tags(on=[(current.id, "from-there")])
        other.close()
        await pilot.press("ctrl+l")
        assert app.personal.userdata.tags_of(current.id) == {"from-there"}
        assert "#from-there" in _row_text(app, app.abstract_list.cursor)
