"""Loading files, directories and globs into a corpus; every problem named with its file."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui.corpus import load as load_mod
from tui.corpus import parse as parse_mod
from tui.corpus.load import expand_paths, load_corpus
from tui.corpus.model import abstract_id

A1 = "Alpha abstract about transformers and attention."
A2 = "Beta abstract about diffusion models."
A3 = "Gamma abstract about graph neural networks."


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def messages(corpus_problems: list[object]) -> str:
    return "\n".join(str(p) for p in corpus_problems)


def test_load_file_directory_and_glob(tmp_path: Path) -> None:
    write(tmp_path / "d" / "b.txt", f"ICLR 2023 Papers\n\n{A2}\n")
    write(tmp_path / "d" / "sub" / "a.txt", f"ICLR 2022 Papers\n\n{A1}\n")
    write(tmp_path / "d" / "notes.md", "ignored")
    write(tmp_path / "g1.txt", f"NeurIPS 2021\n\n{A3}\n")
    corpus = load_corpus([tmp_path / "d", str(tmp_path / "g*.txt")])
    assert [a.text for a in corpus.abstracts] == [A2, A1, A3]  # sorted: d/b.txt < d/sub/a.txt
    # The folder says what it did not load, without stopping anything.
    [skipped] = corpus.problems
    assert skipped.path == tmp_path / "d" and not skipped.fatal
    assert "skipped 1 file of other kinds (notes.md)" in skipped.message
    assert [f.count for f in corpus.files] == [1, 1, 1]
    assert corpus.abstracts[1].collection.year == 2022
    assert corpus.summary == "3 abstracts · 3 files"


def test_file_reached_twice_is_loaded_once(tmp_path: Path) -> None:
    f = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    files, problems = expand_paths([f, tmp_path, str(tmp_path / "*.txt"), tmp_path / "." / "a.txt"])
    assert files == [f] and problems == []
    corpus = load_corpus([f, tmp_path])
    assert (
        len(corpus.abstracts) == 1
        and corpus.abstracts[0].sources == corpus.abstracts[0].sources[:1]
    )


def test_same_abstract_in_two_files_has_both_sources(tmp_path: Path) -> None:
    a = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n\n{A2}\n")
    b = write(tmp_path / "b.txt", f"ICLR 2024 Papers\n\n{A3}\n\n{A1.replace(' ', '  ')}\n\n{A1}\n")
    corpus = load_corpus([a, b])
    assert len(corpus) == 3
    shared = corpus.by_id[abstract_id(A1)]
    assert [(s.path, s.position) for s in shared.sources] == [(a, 1), (b, 2), (b, 3)]
    assert shared.collection.year == 2023
    assert [f.count for f in corpus.files] == [2, 3]


def test_ids_are_stable_across_rename_and_reorder(tmp_path: Path) -> None:
    write(tmp_path / "one.txt", f"ICLR 2023 Papers\n\n{A1}\n\n{A2}\n")
    first = {a.text: a.id for a in load_corpus([tmp_path / "one.txt"]).abstracts}
    (tmp_path / "one.txt").rename(tmp_path / "renamed.txt")
    write(tmp_path / "renamed.txt", f"Other header\n\n{A2}\n\n{A1}\n")
    second = {a.text: a.id for a in load_corpus([tmp_path / "renamed.txt"]).abstracts}
    assert first == second
    assert first[A1] == abstract_id(A1)


def test_ids_match_model_for_non_ascii_and_odd_whitespace(tmp_path: Path) -> None:
    text = "Cafe\u0301 models\u00a0and  naïve\tBayes\nwrapped."
    f = write(tmp_path / "a.txt", f"H 2020\n\n{text}\n")
    (abstract,) = load_corpus([f]).abstracts
    assert abstract.id == abstract_id(text)


def test_missing_path_and_empty_glob_and_empty_dir(tmp_path: Path) -> None:
    (tmp_path / "empty_dir").mkdir()
    good = write(tmp_path / "ok.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    corpus = load_corpus(
        [tmp_path / "nope.txt", str(tmp_path / "zz*.txt"), tmp_path / "empty_dir", good]
    )
    assert len(corpus) == 1
    text = messages(corpus.problems)
    assert "nope.txt: no such file or directory" in text
    assert "zz*.txt: no files match" in text
    assert "empty_dir: directory has no files to load (" in text
    assert all(p.fatal for p in corpus.problems)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "empty file"),
        (b"  \n\t\n", "empty file"),
        (b"\xef\xbb\xbf", "empty file"),
        (b"ICLR 2023 Papers\n\n", "header only"),
        (b"GIF89a\x00\x01\x02binary", "binary"),
        (bytes(range(1, 32)) * 20, "binary"),
        (bytes(range(128, 256)) * 20, "binary"),
    ],
    ids=["empty", "whitespace", "bom-only", "header-only", "nul", "controls", "high-bytes"],
)
def test_bad_file_is_named_and_does_not_stop_others(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    bad = write(tmp_path / "bad.txt", content)
    good = write(tmp_path / "good.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    corpus = load_corpus([bad, good])
    assert [a.text for a in corpus.abstracts] == [A1]
    (problem,) = corpus.problems
    assert problem.path == bad and problem.fatal
    assert expected in problem.message
    assert "bad.txt" in str(problem)


def test_latin1_file_is_read_and_reported_with_offset(tmp_path: Path) -> None:
    data = "ICLR 2023 Papers\n\nCaf\xe9 and na\xefve.\n".encode("latin-1")
    bad = write(tmp_path / "latin.txt", data)
    corpus = load_corpus([bad])
    assert [a.text for a in corpus.abstracts] == ["Café and naïve."]
    (problem,) = corpus.problems
    assert not problem.fatal
    assert "latin.txt" in problem.message and "offset 21" in problem.message
    assert "Latin-1" in problem.message


def test_utf16_file_is_decoded(tmp_path: Path) -> None:
    f = write(tmp_path / "u16.txt", f"ICLR 2023 Papers\n\n{A1}\n".encode("utf-16"))
    corpus = load_corpus([f])
    assert [a.text for a in corpus.abstracts] == [A1]
    assert "UTF-16" in corpus.problems[0].message and not corpus.problems[0].fatal


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = write(tmp_path / "secret.txt", f"ICLR 2023 Papers\n\n{A2}\n")
    good = write(tmp_path / "good.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    real = load_mod._read_bytes

    def deny(path: Path) -> bytes:
        if path.name == "secret.txt":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(load_mod, "_read_bytes", deny)
    corpus = load_corpus([bad, good])
    assert [a.text for a in corpus.abstracts] == [A1]
    (problem,) = corpus.problems
    assert problem.path == bad and "permission denied" in problem.message


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_by_mode(tmp_path: Path) -> None:
    bad = write(tmp_path / "secret.txt", f"ICLR 2023 Papers\n\n{A2}\n")
    bad.chmod(0)
    corpus = load_corpus([bad])
    assert "permission denied" in corpus.problems[0].message


def test_no_header_file_is_labelled_by_stem(tmp_path: Path) -> None:
    prose = "We study things in depth. This sentence makes the first paragraph clearly prose."
    f = write(tmp_path / "reading_list.txt", f"{prose}\n\n{A1}\n")
    corpus = load_corpus([f])
    assert [a.collection.label for a in corpus.abstracts] == ["reading_list", "reading_list"]
    assert corpus.abstracts[1].sources[0].position == 2


def test_digest_changes_with_content(tmp_path: Path) -> None:
    f = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    before = load_corpus([f])
    write(f, f"ICLR 2023 Papers\n\n{A2}\n")
    after = load_corpus([f])
    assert before.files[0].digest != after.files[0].digest
    assert before.fingerprint != after.fingerprint


def test_loading_does_not_render_latex(tmp_path: Path) -> None:
    f = write(tmp_path / "a.txt", "ICLR 2023 Papers\n\nA $3\\times$ speedup.\n")
    (abstract,) = load_corpus([f]).abstracts
    assert abstract._plain is None
    assert abstract.plain == "A 3× speedup."


def test_label_only_header_is_a_non_fatal_problem(tmp_path: Path) -> None:
    f = write(tmp_path / "list.txt", f"My reading list\n\n{A1}\n\n{A2}\n")
    corpus = load_corpus([f])
    assert [a.text for a in corpus.abstracts] == [A1, A2]
    assert corpus.abstracts[0].collection.label == "My reading list"
    (problem,) = corpus.problems
    assert not problem.fatal and problem.path == f
    assert str(problem) == (
        f"{f}: header 'My reading list' has no venue and year; used as the collection label"
    )


def test_short_sentence_first_paragraph_is_loaded_as_an_abstract(tmp_path: Path) -> None:
    f = write(tmp_path / "notes.txt", f"Deep nets work.\n\n{A1}\n")
    corpus = load_corpus([f])
    assert [a.text for a in corpus.abstracts] == ["Deep nets work.", A1]
    assert {a.collection.label for a in corpus.abstracts} == {"notes"}
    assert corpus.problems == []


class Hung(Exception):
    """Not an OSError (TimeoutError is one), so no `except OSError` in loading swallows it."""


@contextlib.contextmanager
def deadline(seconds: float = 5) -> Iterator[None]:
    """Fail instead of hanging: a signal sent to this thread interrupts a blocking open()."""

    def expire(signum: int, frame: object) -> None:
        raise Hung(f"still loading after {seconds} s")

    # Sent to this very thread: a process-wide alarm may land in another thread
    # and leave the blocked open() waiting.
    me = threading.get_ident()
    timer = threading.Timer(seconds, signal.pthread_kill, (me, signal.SIGUSR1))
    previous = signal.signal(signal.SIGUSR1, expire)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()
        signal.signal(signal.SIGUSR1, previous)


needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


@needs_fifo
def test_fifo_in_a_directory_is_named_and_never_opened(tmp_path: Path) -> None:
    good = write(tmp_path / "d" / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    fifo = tmp_path / "d" / "x.txt"
    os.mkfifo(fifo)
    with deadline():
        corpus = load_corpus([tmp_path / "d"])
    assert [a.text for a in corpus.abstracts] == [A1]
    assert [f.path for f in corpus.files] == [good]
    (problem,) = corpus.problems
    assert problem.path == fifo and problem.fatal
    assert "named pipe" in problem.message and "not a regular file" in problem.message


@needs_fifo
def test_fifo_named_directly_or_by_glob_is_named_and_never_opened(tmp_path: Path) -> None:
    good = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    fifo = tmp_path / "x.txt"
    os.mkfifo(fifo)
    with deadline():
        direct = load_corpus([fifo, good])
        globbed = load_corpus([str(tmp_path / "*.txt")])
    for corpus in (direct, globbed):
        assert [a.text for a in corpus.abstracts] == [A1]
        assert [str(p) for p in corpus.problems] == [
            f"{fifo}: is a named pipe (FIFO), not a regular file: skipped without reading it"
        ]


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_is_named_and_skipped(tmp_path: Path, device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    good = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    with deadline():
        corpus = load_corpus([device, good])
    assert [a.text for a in corpus.abstracts] == [A1]
    (problem,) = corpus.problems
    assert problem.path == Path(device) and problem.fatal
    assert "character device, not a regular file" in problem.message


@needs_fifo
def test_a_path_swapped_for_a_fifo_after_the_check_is_refused_after_opening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    regular = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    fifo = tmp_path / "x.txt"
    os.mkfifo(fifo)
    real_stat = os.stat
    # The check before opening sees a regular file; the FIFO is what gets opened.
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: real_stat(regular))
    with deadline(), pytest.raises(load_mod._Skipped, match="named pipe"):
        load_mod._read_bytes(fifo)


def test_a_file_over_the_size_limit_is_named_and_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(load_mod, "MAX_FILE_BYTES", 4096)
    big = write(tmp_path / "big.txt", f"ICLR 2023 Papers\n\n{A2 * 200}\n")
    good = write(tmp_path / "good.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    corpus = load_corpus([big, good])
    assert [a.text for a in corpus.abstracts] == [A1]
    (problem,) = corpus.problems
    assert problem.path == big and problem.fatal
    assert "limit for one file: skipped" in problem.message


def test_a_file_that_grows_after_the_check_is_still_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(load_mod, "MAX_FILE_BYTES", 4096)
    small = write(tmp_path / "small.txt", "tiny")
    big = write(tmp_path / "big.txt", f"ICLR 2023 Papers\n\n{A2 * 200}\n")
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: real_stat(small))
    with pytest.raises(load_mod._Skipped, match="limit for one file"):
        load_mod._read_bytes(big)


def test_a_huge_paragraph_is_cut_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse_mod, "MAX_PARAGRAPH_CHARS", 100)
    huge = "word " * 100 + "\nwrapped " * 100
    f = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n\n{huge}\n\n{A3}\n")
    corpus = load_corpus([f])
    texts = [a.text for a in corpus.abstracts]
    assert texts[0] == A1 and texts[2] == A3
    assert texts[1] == " ".join(huge[:100].split())
    (problem,) = corpus.problems
    assert problem.path == f and not problem.fatal
    assert problem.message.startswith("abstract 2 is 1,400 characters long: only its first 100")


def test_repeated_paragraphs_are_counted_per_file_and_add_up(tmp_path: Path) -> None:
    a = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n\n{A2}\n")
    b = write(tmp_path / "b.txt", f"ICLR 2024 Papers\n\n{A3}\n\n{A1.replace(' ', '  ')}\n\n{A1}\n")
    c = write(tmp_path / "c.txt", f"ICLR 2025 Papers\n\n{A2}\n\n{A3}\n\n{A1}\n")
    corpus = load_corpus([a, b, c])
    assert [(f.count, f.repeated, f.added) for f in corpus.files] == [
        (2, 0, 2),
        (3, 2, 1),
        (3, 3, 0),
    ]
    # Distinct abstracts plus repeated paragraphs are every paragraph of every file.
    assert sum(f.added for f in corpus.files) == len(corpus) == 3
    assert corpus.repeated == 5 == sum(f.count for f in corpus.files) - len(corpus)
    assert corpus.repeated_summary.startswith("5 repeated paragraphs merged")
    repeats = corpus.repeats()
    assert [(r.path, r.count) for r in repeats] == [(b, 2), (c, 3)]
    assert repeats[0].first_in == ((a, 2),)
    assert repeats[1].first_in == ((a, 2), (b, 1))


def test_no_repeats_no_repeated_summary(tmp_path: Path) -> None:
    corpus = load_corpus([write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n\n{A2}\n")])
    assert corpus.repeated == 0 and corpus.repeated_summary == "" and corpus.repeats() == []


def test_a_title_read_later_becomes_the_headline_of_an_abstract_already_shown(
    tmp_path: Path,
) -> None:
    import json

    from tui.corpus.load import Loading

    text = write(tmp_path / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n\n{A2}\n")
    papers = [{"title": "Attention, Transformed", "abstract": A1, "authors": ["Ada Lovelace"]}]
    library = write(tmp_path / "b.json", json.dumps(papers))
    loading = Loading([text, library], None)
    loading.read_next()
    shown = loading.publish()  # the first file on screen: its rows' headlines made
    assert shown.by_id[abstract_id(A1)].headline.startswith("Alpha abstract")
    loading.read_next()
    corpus = loading.finish(shown)
    merged = next(a for a in corpus.abstracts if a.text == A1)
    assert merged.title == "Attention, Transformed"
    assert merged.headline == "Attention, Transformed"


def test_a_broken_link_in_a_folder_is_named_and_the_rest_loads(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    write(folder / "a.txt", f"ICLR 2023 Papers\n\n{A1}\n")
    (folder / "gone.bib").symlink_to(folder / "nowhere.bib")
    (folder / "loop.txt").symlink_to(folder / "loop.txt")
    corpus = load_corpus([folder])
    assert [a.text for a in corpus.abstracts] == [A1]
    named = {p.path.name: p for p in corpus.problems}
    assert set(named) == {"gone.bib", "loop.txt"}
    assert all("broken symbolic link" in p.message and not p.fatal for p in named.values())
