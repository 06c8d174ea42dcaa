from __future__ import annotations

from collections.abc import Collection, Iterable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.similar.fixtures import make_corpus
from tui.corpus.model import Abstract, Corpus
from tui.triage.undo import (
    ChangeTags,
    CorpusTarget,
    SetBookmarks,
    SetDismissed,
    SetNote,
    SetRead,
    UndoStack,
    redo_notice,
    undo_notice,
)


class FakeUserData:
    """Records state and every write, like the UserData adaptor would receive them."""

    def __init__(self) -> None:
        self.bookmarked: set[str] = set()
        self.read: set[str] = set()
        self.dismissed: set[str] = set()
        self.notes: dict[str, str] = {}
        self.tags: set[tuple[str, str]] = set()
        self.writes: list[tuple[str, object, object]] = []

    def set_bookmark(self, id: str, on: bool) -> None:
        self.writes.append(("bookmark", id, on))
        (self.bookmarked.add if on else self.bookmarked.discard)(id)

    def set_read(self, ids: Collection[str], on: bool) -> None:
        self.writes.append(("read", tuple(ids), on))
        if on:
            self.read.update(ids)
        else:
            self.read.difference_update(ids)

    def set_dismissed(self, id: str, on: bool) -> None:
        self.writes.append(("dismiss", id, on))
        (self.dismissed.add if on else self.dismissed.discard)(id)

    def set_note(self, id: str, text: str | None) -> None:
        self.writes.append(("note", id, text))
        if text is None:
            self.notes.pop(id, None)
        else:
            self.notes[id] = text

    def set_tags(self, on: Collection[tuple[str, str]], off: Collection[tuple[str, str]]) -> None:
        self.writes.append(("tags", tuple(on), tuple(off)))
        self.tags |= set(on)
        self.tags -= set(off)


@pytest.fixture
def data() -> FakeUserData:
    return FakeUserData()


def test_bulk_mark_read_is_one_undo_and_restores_exactly(data: FakeUserData) -> None:
    data.read = {"a", "c"}
    stack = UndoStack(data)
    ids = ["a", "b", "c", "d"]
    action = SetRead.capture(ids, True, data.read.__contains__)
    assert stack.do(action)
    assert data.read == {"a", "b", "c", "d"}
    assert action.description == "marked 2 as read"
    assert len(data.writes) == 1  # one bulk write, only the ids that change

    undone = stack.undo()
    assert undone is action
    assert data.read == {"a", "c"}  # the already-read ones stay read
    assert undo_notice(undone) == "Undid: marked 2 as read"
    assert not stack.can_undo and stack.can_redo

    redone = stack.redo()
    assert redone is action and redo_notice(redone) == "Redid: marked 2 as read"
    assert data.read == {"a", "b", "c", "d"}


def test_dismissing_undoes_to_exactly_what_was_there(data: FakeUserData) -> None:
    data.dismissed = {"b"}
    stack = UndoStack(data)
    action = SetDismissed.capture(["a", "b"], True, data.dismissed.__contains__)
    assert action.description == "dismissed 1 abstract"
    assert stack.do(action) and data.dismissed == {"a", "b"}
    assert data.writes == [("dismiss", "a", True)]  # only what changes
    stack.undo()
    assert data.dismissed == {"b"}  # the one dismissed before stays dismissed
    stack.redo()
    back = SetDismissed.capture(["a"], False, data.dismissed.__contains__)
    assert stack.do(back) and back.description == "took back 1 dismissal"
    assert data.dismissed == {"b"}
    assert not stack.do(SetDismissed.capture(["b"], True, data.dismissed.__contains__))


def test_corpus_target_dismisses_loaded_abstracts_only() -> None:
    corpus = make_corpus()
    ids = [a.id for a in corpus.abstracts]
    writer = FakeWriter()
    stack = UndoStack(CorpusTarget(writer, corpus))
    stack.do(SetDismissed([ids[0], "gone"], {ids[0]: False, "gone": False}, True))
    stack.undo()
    assert writer.calls == [("dismiss", [ids[0]], True), ("dismiss", [ids[0]], False)]


def test_many_levels_of_undo_and_redo(data: FakeUserData) -> None:
    stack = UndoStack(data)
    for i in range(5):
        stack.do(SetBookmarks.capture([f"p{i}"], True, data.bookmarked.__contains__))
    stack.do(SetBookmarks.capture(["p0", "p1"], False, data.bookmarked.__contains__))
    assert data.bookmarked == {"p2", "p3", "p4"}
    states = []
    while stack.can_undo:
        stack.undo()
        states.append(set(data.bookmarked))
    assert states == [
        {"p0", "p1", "p2", "p3", "p4"},
        {"p0", "p1", "p2", "p3"},
        {"p0", "p1", "p2"},
        {"p0", "p1"},
        {"p0"},
        set(),
    ]
    assert stack.undo() is None
    while stack.can_redo:
        stack.redo()
    assert data.bookmarked == {"p2", "p3", "p4"}
    assert stack.redo() is None


def test_a_new_action_clears_redo(data: FakeUserData) -> None:
    stack = UndoStack(data)
    stack.do(SetRead.capture(["a"], True, data.read.__contains__))
    stack.undo()
    assert stack.can_redo
    stack.do(SetBookmarks.capture(["b"], True, data.bookmarked.__contains__))
    assert not stack.can_redo
    assert stack.redo() is None
    assert data.read == set()


def test_no_op_is_not_recorded(data: FakeUserData) -> None:
    data.read = {"a"}
    stack = UndoStack(data)
    assert not stack.do(SetRead.capture(["a"], True, data.read.__contains__))
    assert not stack.can_undo
    assert data.writes == []


def test_undo_writes_previous_values_not_toggles(data: FakeUserData) -> None:
    stack = UndoStack(data)
    stack.do(SetBookmarks.capture(["x"], True, data.bookmarked.__contains__))
    data.bookmarked.discard("x")  # changed behind the stack's back (another window, say)
    stack.undo()
    assert "x" not in data.bookmarked  # a toggle would have re-added it


def test_descriptions(data: FakeUserData) -> None:
    assert SetBookmarks(["a"], {"a": False}, True).description == "bookmarked 1 abstract"
    assert SetBookmarks(["a", "b"], {"a": True, "b": True}, False).description == (
        "removed 2 bookmarks"
    )
    assert SetRead(["a"], {"a": True}, False).description == "marked 1 as unread"
    many = [f"i{n}" for n in range(1212)]
    assert SetRead(many, dict.fromkeys(many, False), True).description == "marked 1,212 as read"


def test_missing_previous_value_is_refused() -> None:
    with pytest.raises(ValueError):
        SetRead(["a", "b"], {"a": False}, True)


def test_limit_drops_the_oldest(data: FakeUserData) -> None:
    stack = UndoStack(data, limit=3)
    for i in range(5):
        stack.do(SetRead.capture([f"r{i}"], True, data.read.__contains__))
    undone = 0
    while stack.undo() is not None:
        undone += 1
    assert undone == 3
    assert data.read == {"r0", "r1"}


def test_failed_undo_keeps_the_action(data: FakeUserData) -> None:
    stack = UndoStack(data)
    stack.do(SetRead.capture(["a"], True, data.read.__contains__))

    def broken(ids: Collection[str], on: bool) -> None:
        raise OSError("disk full")

    data.set_read = broken  # type: ignore[method-assign]
    with pytest.raises(OSError):
        stack.undo()
    assert stack.can_undo and not stack.can_redo


class FakeWriter:
    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str], object]] = []

    def set_bookmark(self, abstract: Abstract, on: bool) -> None:
        self.calls.append(("bookmark", [abstract.id], on))

    def set_read(self, abstracts: Iterable[Abstract], on: bool) -> None:
        self.calls.append(("read", [a.id for a in abstracts], on))

    def save_note(self, abstract: Abstract, text: str) -> None:
        self.calls.append(("note", [abstract.id], text))

    def delete_note(self, abstract_id: str) -> None:
        self.calls.append(("delete", [abstract_id], None))

    def set_dismissed(self, abstract: Abstract, on: bool) -> None:
        self.calls.append(("dismiss", [abstract.id], on))

    def set_tags(
        self, on: Iterable[tuple[str, str]] = (), off: Iterable[tuple[str, str]] = ()
    ) -> None:
        self.calls.append(("tags", [i for i, _ in on], [i for i, _ in off]))


def test_corpus_target_maps_ids_to_abstracts_and_skips_unknown() -> None:
    corpus = make_corpus()
    ids = [a.id for a in corpus.abstracts]
    writer = FakeWriter()
    stack = UndoStack(CorpusTarget(writer, corpus))
    stack.do(SetRead([ids[0], "gone", ids[1]], {ids[0]: False, "gone": False, ids[1]: True}, True))
    stack.do(SetBookmarks(["gone"], {"gone": False}, True))
    stack.undo()
    stack.undo()
    assert writer.calls == [("read", [ids[0]], True), ("read", [ids[0]], False)]


ID_POOL = [f"a{i}" for i in range(6)]


@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(["read", "bookmark", "undo", "redo"]),
            st.lists(st.sampled_from(ID_POOL), min_size=1, max_size=4),
            st.booleans(),
        ),
        max_size=25,
    )
)
def test_any_history_undoes_back_to_the_start(
    steps: list[tuple[str, list[str], bool]],
) -> None:
    data = FakeUserData()
    data.read = {"a0", "a3"}
    data.bookmarked = {"a1"}
    start = (set(data.read), set(data.bookmarked))
    stack = UndoStack(data)
    for kind, ids, on in steps:
        if kind == "read":
            stack.do(SetRead.capture(ids, on, data.read.__contains__))
        elif kind == "bookmark":
            stack.do(SetBookmarks.capture(ids, on, data.bookmarked.__contains__))
        elif kind == "undo":
            stack.undo()
        else:
            stack.redo()
    while stack.can_undo:
        stack.undo()
    assert (data.read, data.bookmarked) == start


def test_a_deleted_note_comes_back_on_undo_and_goes_again_on_redo(data: FakeUserData) -> None:
    data.notes = {"a": "first line\nsecond line"}
    stack = UndoStack(data)
    deleted = SetNote("a", "first line\nsecond line", None)
    data.set_note("a", None)  # the editor already deleted it: the stack only records
    stack.record(deleted)
    assert deleted.description == "deleted a note"
    assert stack.undo() is deleted
    assert data.notes == {"a": "first line\nsecond line"}
    assert stack.redo() is deleted
    assert data.notes == {}


def test_note_edits_undo_step_by_step(data: FakeUserData) -> None:
    stack = UndoStack(data)
    assert stack.do(SetNote("a", None, "draft"))
    assert stack.do(SetNote("a", "draft", "final"))
    assert not stack.do(SetNote("a", "final", "final"))  # unchanged: not a step
    assert [SetNote("a", None, "x").description, SetNote("a", "x", "y").description] == [
        "wrote a note",
        "edited a note",
    ]
    stack.undo()
    assert data.notes == {"a": "draft"}
    stack.undo()
    assert data.notes == {}
    assert not stack.can_undo


def test_corpus_target_restores_notes_and_deletes_even_unloaded_ones() -> None:
    corpus = make_corpus()
    first = corpus.abstracts[0].id
    writer = FakeWriter()
    target = CorpusTarget(writer, corpus)
    target.set_note(first, "kept")
    target.set_note("gone", "cannot be saved without its abstract")
    target.set_note("gone", None)
    assert writer.calls == [("note", [first], "kept"), ("delete", ["gone"], None)]


def test_tag_changes_undo_and_redo_as_one_step(data: FakeUserData) -> None:
    stack = UndoStack(data)
    data.tags = {("a", "old"), ("b", "old"), ("b", "new")}

    def has(i: str, t: str) -> bool:
        return (i, t) in data.tags

    # Renaming old -> new (a merge on b, which has both): one step.
    rename = ChangeTags.capture(
        [("a", "new"), ("b", "new")], [("a", "old"), ("b", "old")], has, "renamed #old to #new"
    )
    assert rename.added == (("a", "new"),)  # b had it already: not added, so not undone
    assert stack.do(rename)
    assert data.tags == {("a", "new"), ("b", "new")}
    assert stack.undo() is rename
    assert data.tags == {("a", "old"), ("b", "old"), ("b", "new")}
    assert stack.redo() is rename and data.tags == {("a", "new"), ("b", "new")}
    # Tagging a whole list with what every row has already is no step at all.
    same = ChangeTags.capture([("a", "new"), ("b", "new")], [], has, "tagged 2")
    assert not stack.do(same)
    assert undo_notice(rename) == "Undid: renamed #old to #new"


def test_corpus_target_changes_tags_by_id_even_for_abstracts_not_loaded() -> None:
    writer = FakeWriter()
    target = CorpusTarget(writer, Corpus([], [], []))
    target.set_tags([("gone", "x")], [("gone", "y")])
    assert writer.calls == [("tags", ["gone"], ["gone"])]
