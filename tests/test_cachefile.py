"""The cache file format shared by the search and similarity caches: no pickles, private folder."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.search.helpers import make_corpus
from tui import cachefile

ROWS = [("a.txt", "ICLR", 2022, "Contrastive learning of visual features.")]
STRINGS = {"words": ["", "café", "\udcff surrogate", "line\nbreak", ""], "none": []}


def _saved(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    corpus = make_corpus(ROWS)
    head = cachefile.header("test", 1, corpus)
    path = cachefile.path_for(tmp_path / "cache", "test", 1, corpus)
    arrays = {"ints": np.arange(5, dtype=np.int32), "empty": np.zeros(0, dtype=np.float32)}
    cachefile.save(path, head, arrays, STRINGS)
    return path, head


def test_arrays_and_strings_round_trip_exactly(tmp_path: Path) -> None:
    path, head = _saved(tmp_path)
    contents = cachefile.load(path, head)
    assert contents is not None
    assert contents.strings == STRINGS
    assert contents.arrays["ints"].dtype == np.int32
    assert contents.arrays["ints"].tolist() == [0, 1, 2, 3, 4]
    assert contents.arrays["empty"].shape == (0,)
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize("field", ["kind", "version", "render", "fingerprint", "ids", "layout"])
def test_any_other_header_is_no_cache(tmp_path: Path, field: str) -> None:
    path, head = _saved(tmp_path)
    assert cachefile.load(path, {**head, field: "other"}) is None


@pytest.mark.parametrize("cut", [1, 100, 1000])
def test_a_truncated_file_is_no_cache(tmp_path: Path, cut: int) -> None:
    path, head = _saved(tmp_path)
    path.write_bytes(path.read_bytes()[:-cut])
    assert cachefile.load(path, head) is None


def test_a_plain_npy_file_is_no_cache(tmp_path: Path) -> None:
    path, head = _saved(tmp_path)
    with path.open("wb") as f:
        np.save(f, np.arange(3))
    assert cachefile.load(path, head) is None


def test_a_string_holding_nul_is_refused_when_saving(tmp_path: Path) -> None:
    corpus = make_corpus(ROWS)
    path = cachefile.path_for(tmp_path, "test", 1, corpus)
    with pytest.raises(ValueError, match="NUL"):
        cachefile.save(path, cachefile.header("test", 1, corpus), {}, {"bad": ["a\0b"]})
    assert not path.exists()


def test_ids_digest_depends_on_order_and_separates_ids() -> None:
    assert cachefile.ids_digest(["a", "b"]) != cachefile.ids_digest(["b", "a"])
    assert cachefile.ids_digest(["ab"]) != cachefile.ids_digest(["a", "b"])


def test_a_cache_folder_that_is_a_file_is_an_error_when_saving(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file")
    with pytest.raises(OSError):
        cachefile.ensure_dir(tmp_path / "cache")


def _npy_member(header: dict[str, object], data: bytes) -> bytes:
    import io

    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, header)  # type: ignore[no-untyped-call]
    return out.getvalue() + data


def test_an_array_declaring_more_than_it_holds_is_no_cache_and_never_allocated(
    tmp_path: Path,
) -> None:
    import tracemalloc
    import zipfile

    path, head = _saved(tmp_path)
    huge = {"descr": "<f8", "fortran_order": False, "shape": (2**27,)}  # 1 GiB declared
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("a:huge.npy", _npy_member(huge, b"\0" * 64))
    tracemalloc.start()
    try:
        assert cachefile.load(path, head) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20


@pytest.mark.parametrize(
    "header",
    [
        {"descr": "|O", "fortran_order": False, "shape": (1,)},
        {"descr": "<i4", "fortran_order": False, "shape": (3,)},  # 4 elements stored
    ],
    ids=["objects", "fewer-than-stored"],
)
def test_an_array_not_exactly_as_its_header_says_is_no_cache(
    tmp_path: Path, header: dict[str, object]
) -> None:
    import zipfile

    path, head = _saved(tmp_path)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("a:odd.npy", _npy_member(header, b"\0" * 16))
    assert cachefile.load(path, head) is None


def test_a_compressed_member_is_no_cache(tmp_path: Path) -> None:
    import zipfile

    path, head = _saved(tmp_path)
    member = _npy_member({"descr": "<i4", "fortran_order": False, "shape": (4,)}, b"\0" * 16)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("a:packed.npy", member, compress_type=zipfile.ZIP_DEFLATED)
    assert cachefile.load(path, head) is None


def test_a_mapped_file_round_trips_with_its_arrays_read_only(tmp_path: Path) -> None:
    corpus = make_corpus(ROWS)
    head = cachefile.header("test", 1, corpus)
    path = cachefile.path_for(tmp_path / "cache", "test", 1, corpus)
    arrays = {"ints": np.arange(5, dtype=np.int32), "flags": np.array([True, False])}
    cachefile.save_mapped(path, head, arrays, STRINGS)
    mapped = cachefile.load_mapped(path, head)
    assert mapped is not None
    assert mapped.strings == STRINGS
    assert mapped.arrays["ints"].tolist() == [0, 1, 2, 3, 4]
    assert mapped.arrays["flags"].tolist() == [True, False]
    assert not mapped.arrays["ints"].flags.writeable
    assert cachefile.load_mapped(path, {**head, "version": 2}) is None


def test_a_mapped_file_whose_strings_were_changed_is_refused(tmp_path: Path) -> None:
    corpus = make_corpus(ROWS)
    head = cachefile.header("test", 1, corpus)
    path = cachefile.path_for(tmp_path / "cache", "test", 1, corpus)
    cachefile.save_mapped(path, head, {}, {"words": ["graph", "network"]})
    data = path.read_bytes()
    path.write_bytes(data.replace(b"network", b"netwerk"))  # same length, other word
    assert cachefile.load_mapped(path, head) is None


def test_pruning_removes_files_of_other_versions_of_the_kind(tmp_path: Path) -> None:
    corpus = make_corpus(ROWS)
    old = cachefile.path_for(tmp_path, "test", 1, corpus)
    cachefile.save(old, cachefile.header("test", 1, corpus), {}, {})
    other_kind = cachefile.path_for(tmp_path, "other", 1, corpus)
    cachefile.save(other_kind, cachefile.header("other", 1, corpus), {}, {})
    new = cachefile.path_for(tmp_path, "test", 2, corpus)
    cachefile.save_mapped(new, cachefile.header("test", 2, corpus), {}, {})
    assert sorted(p.name for p in tmp_path.glob("*.npz")) == sorted([other_kind.name, new.name])


def test_runs_read_from_the_file_are_the_mapped_arrays_items(tmp_path: Path) -> None:
    corpus = make_corpus(ROWS)
    head = cachefile.header("test", 1, corpus)
    path = cachefile.path_for(tmp_path / "cache", "test", 1, corpus)
    values = np.random.default_rng(0).integers(0, 1 << 30, 50_000).astype(np.int32)
    cachefile.save_mapped(path, head, {"words": values}, STRINGS)
    mapped = cachefile.load_mapped(path, head)
    assert mapped is not None
    runs = mapped.runs(mapped.arrays["words"])
    assert runs is not None
    rng = np.random.default_rng(1)
    # Runs in any order, overlapping, far apart and next to each other, some empty.
    for count in (1, 2, 7, 40, 300):
        starts = rng.integers(0, 49_000, count)
        lengths = rng.integers(0, 1_000, count)
        expected = np.concatenate([values[s : s + n] for s, n in zip(starts, lengths, strict=True)])
        assert runs.take(starts, lengths).tolist() == expected.tolist()
    assert runs.take(np.array([49_990]), np.array([10])).tolist() == values[-10:].tolist()
    with pytest.raises(IndexError):
        runs.take(np.array([49_995]), np.array([10]))


def test_a_mapped_file_takes_arrays_written_in_pieces_or_made_when_their_turn_comes(
    tmp_path: Path,
) -> None:
    corpus = make_corpus(ROWS)
    head = cachefile.header("test", 1, corpus)
    path = cachefile.path_for(tmp_path / "cache", "test", 1, corpus)
    made: list[str] = []

    def pieces() -> Iterator[np.ndarray[Any, Any]]:
        made.append("pieces")
        yield from (np.arange(0, 3, dtype=np.int32), np.arange(3, 7, dtype=np.int32))

    def later() -> np.ndarray[Any, Any]:
        made.append("later")
        return np.array([0.5], dtype=np.float32)

    arrays: dict[str, Any] = {
        "pieces": cachefile.Streamed(np.dtype(np.int32), 7, pieces),
        "later": cachefile.Deferred(later),
    }
    cachefile.save_mapped(path, head, arrays, {})
    assert made == ["pieces", "later"]
    mapped = cachefile.load_mapped(path, head)
    assert mapped is not None
    assert mapped.arrays["pieces"].tolist() == list(range(7))
    assert mapped.arrays["later"].tolist() == [0.5]


def test_pieces_that_do_not_add_up_to_their_length_are_not_saved(tmp_path: Path) -> None:
    corpus = make_corpus(ROWS)
    head = cachefile.header("test", 1, corpus)
    path = cachefile.path_for(tmp_path / "cache", "test", 1, corpus)
    short = cachefile.Streamed(np.dtype(np.int32), 5, lambda: iter([np.arange(3, dtype=np.int32)]))
    with pytest.raises(ValueError):
        cachefile.save_mapped(path, head, {"short": short}, {})
    assert not path.exists()
