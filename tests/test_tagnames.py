"""Tag names: one normalisation for the store, search, import and the UI."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.tagnames import MAX_LENGTH, TagEdit, TagError, format_tags, normalise_tag, parse_tag_edit


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("to-cite", "to-cite"),
        ("#To-Cite", "to-cite"),
        ("  Related   Work ", "related-work"),
        ("##rg", "rg"),
        ("# spaced", "spaced"),
        ("Café", "café"),
        ("cafe\u0301", "café"),  # NFC: the same tag however the accent was typed
        ("section\t3", "section-3"),
        ("a:b", "a:b"),
    ],
)
def test_normalise(typed: str, stored: str) -> None:
    assert normalise_tag(typed) == stored


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("", "needs a name"),
        ("   ", "needs a name"),
        ("#", "needs a name"),
        ("a\x1bb", "control character (U+001B)"),
        ("a\u202eb", "control character"),
        ("a,b", "','"),
        ('say"hi', "'\"'"),
        ("-x", "starts with -"),
        ("x" * (MAX_LENGTH + 1), f"longer than {MAX_LENGTH}"),
    ],
)
def test_bad_names_are_refused_with_a_reason(typed: str, says: str) -> None:
    with pytest.raises(TagError, match=None) as caught:
        normalise_tag(typed)
    assert says in str(caught.value)


def test_parse_edit_adds_removes_and_separates() -> None:
    assert parse_tag_edit("to cite, reading group") == TagEdit(("to-cite", "reading-group"))
    assert parse_tag_edit("#a #b -c") == TagEdit(("a", "b"), ("c",))
    assert parse_tag_edit("-Old, New") == TagEdit(("new",), ("old",))
    assert parse_tag_edit("x -x") == TagEdit((), ("x",))  # the last intent wins
    assert parse_tag_edit(" , ").is_empty


def test_parse_edit_names_the_bad_tag() -> None:
    with pytest.raises(TagError, match="control character"):
        parse_tag_edit("good, b\x07d")


def test_format_tags_sorted_with_hashes() -> None:
    assert format_tags({"b", "a"}) == "#a #b"


@given(st.text(max_size=80))
def test_normalising_never_crashes_and_is_idempotent(text: str) -> None:
    try:
        name = normalise_tag(text)
    except TagError:
        return
    assert normalise_tag(name) == name
    assert name == name.lower().strip() and " " not in name and name
