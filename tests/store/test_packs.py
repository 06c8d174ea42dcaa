"""Records made by a bulk step kept together, one pack per step: read back exactly as
written (whatever their texts), read from `records` when also written on their own,
passed over when damaged without closing the store, and merged by an import like any
record kept here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.store.helpers import make_abstract
from tui.corpus.model import Abstract, Collection, Corpus, SourceRef, abstract_id
from tui.corpus.paper import Paper
from tui.store.db import Store
from tui.store.export import merge, to_json
from tui.store.memory import Memory
from tui.store.operations import SetBookmark, SetTags, complete_batch
from tui.store.packs import packed, put_pack
from tui.store.records import Snapshot
from tui.store.userdata import UserData

_PAPER = Paper(title="A paper", year=2021)

#: Texts a pack must keep exactly: empty, beyond ASCII (and outside the BMP, where a
#: character is two UTF-16 units), a NUL, a megabyte, and one of many of a file.
_TEXTS = ["", "Ünïcode — “quotes” ✓ 𝔸𝔹", "before\x00after", "Long abstract. " * 70_000]


def _records() -> list[tuple[str, Snapshot]]:
    odd = [
        (f"odd{n}", Snapshot(t, "", "/d/odd.txt", n, "ICLR 2023 Papers", "ICLR", 2023))
        for n, t in enumerate(_TEXTS)
    ]
    shared = [
        (f"shared{n}", Snapshot(f"Text {n}.", "", "/d/many.txt", n, "Workshop")) for n in range(200)
    ]
    more = [
        ("headline", Snapshot("Given.", "A headline", "/d/café ✓.txt", 1, "Ärger", "Ä", 1999)),
        (
            "paper",
            Snapshot("With a paper.", "", "/d/lib.bib", 1, "NeurIPS", "NeurIPS", 2021, _PAPER),
        ),
        ("no file", Snapshot("No file.")),
    ]
    return odd + shared + more


def test_a_pack_reads_back_every_record_as_written(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    records = _records()
    with store.transaction() as conn:
        put_pack(conn, records, 5.0)
    assert store.load().records == dict(records)
    assert store.conn.execute("SELECT count(*) FROM record_packs").fetchone() == (1,)
    assert store.conn.execute("SELECT count(*) FROM records").fetchone() == (0,)
    assert store.conn.execute("SELECT count(*) FROM origins").fetchone() == (5,)
    store.close()


def test_no_records_make_no_pack(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    with store.transaction() as conn:
        put_pack(conn, [], 5.0)
    assert store.conn.execute("SELECT count(*) FROM record_packs").fetchone() == (0,)
    store.close()


def test_a_bulk_tag_keeps_its_new_records_in_one_pack(tmp_path: Path) -> None:
    abstracts = [make_abstract(f"Abstract {n} about graphs.", "f.txt", n) for n in range(1, 151)]
    store = Store.open(tmp_path)
    made = [(a.id, Snapshot.of(a, headline=False)) for a in abstracts]
    store.apply([SetTags("t", tuple(a.id for a in abstracts), True, 1.0, tuple(made))])
    data = store.load()
    assert data.records == dict(made)
    assert set(data.tags) == {a.id for a in abstracts}
    assert store.conn.execute("SELECT count(*) FROM record_packs").fetchone() == (1,)
    store.close()


def test_a_record_also_written_on_its_own_is_read_from_records(tmp_path: Path) -> None:
    a = make_abstract("Tagged in bulk, then bookmarked from another file.", "old.txt", 7)
    moved = Abstract(a.id, a.text, Collection("Misc"), [SourceRef(Path("new.txt"), 1)])
    store = Store.open(tmp_path)
    with store.transaction() as conn:
        put_pack(conn, [(a.id, Snapshot.of(a, headline=False))], 1.0)
    store.apply([SetBookmark(a.id, True, Snapshot.of(moved), 2.0)])
    with store.transaction() as conn:  # and a later pack of the same record
        put_pack(conn, [(a.id, Snapshot.of(a, headline=False))], 3.0)
    assert store.load().records[a.id] == Snapshot.of(moved)
    store.close()


def test_of_one_record_in_two_packs_the_later_is_read(tmp_path: Path) -> None:
    a = make_abstract("In two packs.", "one.txt", 1)
    b = Abstract(a.id, a.text, a.collection, [SourceRef(Path("two.txt"), 2)])
    store = Store.open(tmp_path)
    for at, abstract in ((1.0, a), (2.0, b)):
        with store.transaction() as conn:
            put_pack(conn, [(a.id, Snapshot.of(abstract, headline=False))], at)
    assert store.load().records[a.id] == Snapshot.of(b, headline=False)
    assert packed(store.conn)[a.id] == Snapshot.of(b, headline=False)
    store.close()


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("ids", "not json"),
        ("ids", '{"a": 1}'),
        ("ids", "[1]"),
        ("origins", "[1, 1]"),
        ("lengths", "[1000]"),
        ("lengths", '["3"]'),
        ("papers", "[" * 100_000),
    ],
)
def test_a_damaged_pack_is_passed_over_and_the_rest_is_read(
    tmp_path: Path, column: str, value: str
) -> None:
    store = Store.open(tmp_path)
    a, b = make_abstract("In the damaged pack."), make_abstract("In a sound pack.")
    for x in (a, b):
        with store.transaction() as conn:
            put_pack(conn, [(x.id, Snapshot.of(x, headline=False))], 1.0)
    with store.transaction() as conn:
        conn.execute(f"UPDATE record_packs SET {column} = ? WHERE pack = 1", (value,))
    records = store.load().records
    assert records == {b.id: Snapshot.of(b, headline=False)}  # nothing of the damaged pack
    store.close()


def test_an_import_gives_a_packed_record_its_paper_once(tmp_path: Path) -> None:
    a = make_abstract("Tagged in bulk, its paper known elsewhere.")
    store = Store.open(tmp_path)
    with store.transaction() as conn:
        put_pack(conn, [(a.id, Snapshot.of(a, headline=False))], 1.0)
    record = {"id": a.id, "text": a.text, "headline": "h", "paper": _PAPER.to_json()}
    doc = {"format": "abstracts", "version": 1, "records": [record]}
    assert merge(store, dict(doc), "import").records == 1
    kept = store.load().records[a.id]
    assert kept.paper == _PAPER and kept.source == Snapshot.of(a).source
    assert merge(store, dict(doc), "import").records == 0  # it has one now
    without = {**record, "paper": None, "text": "Other text."}
    assert merge(store, {**doc, "records": [without]}, "import").records == 0
    assert store.load().records[a.id] == kept
    store.close()


def test_an_import_of_many_records_goes_past_packed_ones_and_counts_each_it_adds(
    tmp_path: Path,
) -> None:
    """Packed records among new ones in one import: those without a paper learn the one
    the import brings, one with a paper keeps its own, one the import brings without a
    paper is left as it is, and every record after them is still added."""
    bare, papered, plain = (make_abstract(f"Packed abstract {n}. More.") for n in range(3))
    other = Paper(title="Another paper", year=1999)
    store = Store.open(tmp_path)
    with store.transaction() as conn:
        put_pack(
            conn,
            [
                (bare.id, Snapshot.of(bare, headline=False)),
                (papered.id, Snapshot.at(Snapshot.of(papered).origin, papered.text, "", 1, _PAPER)),
                (plain.id, Snapshot.of(plain, headline=False)),
            ],
            1.0,
        )
    before = store.load().records

    def record(i: str, text: str, paper: Paper | None) -> dict[str, object]:
        return {"id": i, "text": text, "headline": "h", "paper": paper and paper.to_json()}

    doc = {
        "format": "abstracts",
        "version": 1,
        "records": [
            record("new-1", "First new.", None),
            record(bare.id, bare.text, _PAPER),
            record(papered.id, papered.text, other),
            record(plain.id, plain.text, None),
            record("new-2", "Second new.", None),
        ],
    }
    assert merge(store, doc, "import").records == 3
    after = store.load().records
    assert after[bare.id].paper == _PAPER
    assert after[papered.id] == before[papered.id]
    assert after[plain.id] == before[plain.id]
    assert {"new-1", "new-2"} <= after.keys()
    store.close()


def test_the_export_of_packed_records_is_that_of_records_written_one_by_one(
    tmp_path: Path,
) -> None:
    abstracts = [make_abstract(f"Exported abstract {n}. More.", "f.txt", n) for n in range(1, 5)]
    made = [(a.id, Snapshot.of(a, headline=False)) for a in abstracts]
    packs, rows = Store.open(tmp_path / "packs"), Store.open(tmp_path / "rows")
    with packs.transaction() as conn:
        put_pack(conn, made, 1.0)
    rows.apply([SetBookmark(i, True, s, 1.0) for i, s in made])
    rows.apply([SetBookmark(i, False, None, 1.0) for i, _ in made])
    exported = [json.loads(to_json(s.load()))["records"] for s in (packs, rows)]
    assert exported[0] == exported[1] and len(exported[0]) == 4
    packs.close()
    rows.close()


def test_a_bulk_tag_from_userdata_survives_a_reopen_in_one_pack(data_dir: Path) -> None:
    collection = Collection("ICLR 2023 Papers", "ICLR", 2023)
    texts = [f"Abstract {n}: 𝔸 ✓ text." for n in range(300)]
    abstracts = [
        Abstract(abstract_id(t), t, collection, [SourceRef(Path("f.txt"), n + 1)])
        for n, t in enumerate(texts)
    ]
    ud = UserData.open(data_dir)
    ud.attach(Corpus(abstracts, [], []))
    ud.set_tags(on=[(a.id, "first") for a in abstracts])
    assert ud.flush(timeout=10)
    ud.set_tags(on=[(a.id, "later") for a in abstracts])  # records kept: no second pack
    assert ud.close() is None
    store = Store.open(data_dir)
    assert store.load().records == {a.id: Snapshot.of(a, headline=False) for a in abstracts}
    assert store.conn.execute("SELECT count(*) FROM record_packs").fetchone() == (1,)
    store.close()


def test_a_pack_whose_lengths_cut_a_character_is_passed_over(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    a, b = make_abstract("é"), make_abstract("ü")
    with store.transaction() as conn:
        put_pack(conn, [(x.id, Snapshot.of(x, headline=False)) for x in (a, b)], 1.0)
        conn.execute("UPDATE record_packs SET lengths = '[1, 3]'")  # the sum still matches
    assert store.load().records == {}
    store.close()


def _tagged_corpus(n: int) -> list[Abstract]:
    collection = Collection("ICLR 2023 Papers", "ICLR", 2023)
    texts = [f"Abstract {k}: about graphs and more." for k in range(n)]
    return [
        Abstract(abstract_id(t), t, collection, [SourceRef(Path("f.txt"), k + 1)])
        for k, t in enumerate(texts)
    ]


def test_two_tag_steps_completed_together_make_each_record_once() -> None:
    abstracts = _tagged_corpus(50)
    memory = Memory()
    memory.corpus = Corpus(abstracts, [], [])
    ids = tuple(a.id for a in abstracts)
    first, second = complete_batch(
        [SetTags("a", ids, True, 1.0), SetTags("b", ids[::-1], True, 2.0)], memory
    )
    assert dict(first.records_made()) == {a.id: Snapshot.of(a, headline=False) for a in abstracts}
    assert second.records_made() == ()


def test_two_tag_steps_written_in_one_batch_keep_their_records_in_one_pack(
    data_dir: Path,
) -> None:
    abstracts = _tagged_corpus(300)
    ud = UserData.open(data_dir)
    ud.attach(Corpus(abstracts, [], []))
    ids = tuple(a.id for a in abstracts)
    # Both queued at once, as two bulk steps are when the writer is busy with a third.
    with ud.memory.lock:
        ud.writer.queue_many([SetTags("first", ids, True, 1.0), SetTags("later", ids, True, 2.0)])
    assert ud.flush(timeout=10)
    assert ud.close() is None
    store = Store.open(data_dir)
    data = store.load()
    assert data.records == {a.id: Snapshot.of(a, headline=False) for a in abstracts}
    assert {t for tags in data.tags.values() for t in tags} == {"first", "later"}
    assert store.conn.execute("SELECT count(*) FROM record_packs").fetchone() == (1,)
    store.close()
