"""What a record keeps of its abstract (`Snapshot.of`), so it can be shown, exported and
re-attached without the corpus files: even when the headline code fails, and for an
abstract that came from no file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.helpers import PARAGRAPHS, make_abstract
from tui.corpus.model import Abstract, Collection, abstract_id, normalise
from tui.store.db import Store
from tui.store.records import Snapshot, fallback_headline
from tui.store.userdata import UserData


@pytest.mark.parametrize(
    ("text", "limit", "headline"),
    [
        ("A first sentence. And a second one.", 100, "A first sentence."),
        ("  Spaced\n out   words! Then more? Yes.", 100, "Spaced out words!"),
        # Exactly the limit: kept whole.
        ("Ten chars. More.", 10, "Ten chars."),
        # Longer: cut to the limit, the ellipsis included, no space left before it.
        ("Twelve chars and more.", 8, "Twelve…"),
        ("Twelve chars and more.", 10, "Twelve ch…"),
    ],
)
def test_the_fallback_headline_is_the_first_sentence_cut_to_the_limit(
    text: str, limit: int, headline: str
) -> None:
    assert fallback_headline(text, limit) == headline
    assert len(headline) <= limit


def test_a_bookmark_saves_when_the_headline_code_fails(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The headline renderer is optional to the store: the record takes the first sentence."""

    def broken(plain: str, limit: int = 100) -> str:
        raise ValueError("a rendering problem")

    monkeypatch.setattr("tui.corpus.headline.make_headline", broken)
    abstract = make_abstract(PARAGRAPHS[0])
    with pytest.raises(ValueError):
        abstract.headline  # noqa: B018 (the property is what fails)
    ud = UserData.open(data_dir)
    ud.set_bookmark(abstract, True)
    assert ud.close() is None
    record = Store.open(data_dir).load().records[abstract.id]
    first = "We prove bounds on the generalization error of convolutional networks."
    assert (record.text, record.headline) == (abstract.text, first)


def test_an_abstract_from_no_file_is_kept_with_no_source() -> None:
    text = normalise(PARAGRAPHS[1])
    collection = Collection("Pasted abstracts")  # no venue, no year: the label shows
    snap = Snapshot.of(Abstract(abstract_id(text), text, collection, []))
    assert (snap.source, snap.position) == ("", 0)
    assert snap.collection == "Pasted abstracts" and snap.venue_year == "Pasted abstracts"


def test_a_record_keeps_its_file_position_and_collection() -> None:
    abstract = make_abstract(PARAGRAPHS[2], path="iclr.txt", position=7)
    snap = Snapshot.of(abstract)
    assert (snap.source, snap.position) == (str(Path("iclr.txt").absolute()), 7)
    assert (snap.collection, snap.venue, snap.year) == ("ICLR 2023 Papers", "ICLR", 2023)


def test_a_relative_source_is_made_absolute_from_the_directory_of_the_moment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same relative file name, opened from two directories, names two files."""
    abstract = make_abstract(PARAGRAPHS[0], path="corpus/list.txt")
    for where in ("one", "two"):
        (tmp_path / where).mkdir()
        monkeypatch.chdir(tmp_path / where)
        assert Snapshot.of(abstract).source == str(tmp_path / where / "corpus" / "list.txt")
