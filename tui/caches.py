"""Build the search-index, similarity and topics caches in a separate process.

For a large corpus the builds are seconds of pure-Python work. In a thread of
the app they would hold the GIL and make every key press wait (measured at
100,000 abstracts: several seconds per key while building), so the app runs
`python -m tui.caches CACHE_DIR` with the loaded files on stdin (and the arguments
of the read cache it read them through); this process loads those same files
(through that cache), printing `files READ TOTAL` as it goes, builds and saves each
cache, printing a line as each is saved, then writes the corpus rows a command answers
from (`tui.corpus.rows`: `abstracts search` right after the app need not load and
render every abstract itself), and exits. The app loads each cache as soon as it is reported, which
takes milliseconds. Small corpora build in a thread: starting a second
interpreter would cost more than the build. The app keeps the child's stdin open
after the list of files: when the app ends, however it ends (even SIGKILL), the
child reads end-of-file and exits too. A thread waits for the child, so once it
has finished it is reaped at once (no `<defunct>` entry), whoever reads its reports.

A corpus the app indexes itself (`tui.session.loaders.APP_INDEX_SIZE`) may be indexed
half by the child: asked with its files (`send`'s `index_from`), it indexes the
abstracts from there on first, writes them to a pipe of their own (its second argument:
the pipe's descriptor) for the app to merge (`tui.search.parallel.OtherHalf`), reports
`half` and `index`, and goes on to the rest; the app saves the index.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import select
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from tui import progress
from tui.corpus.model import Corpus

if TYPE_CHECKING:
    from tui.corpus.rows import Snapshot
    from tui.search.parallel import OtherHalf

# Below this many abstracts a build in the app's own thread is quicker than a process.
SUBPROCESS_THRESHOLD = 2_000
_TIMEOUT_SECONDS = 900
# At most this long, the child waits for the app to be done with the half of the index it
# sent before it goes on (`_send_half`).
_HALF_WAIT_SECONDS = 30
# The child reports the files it has read at most this often.
_PROGRESS_SECONDS = 0.25
#: The stages the child reports, in order, and what the app says while each is under way.
STAGES = (
    ("index", "building the search index"),
    ("similar", "similarity"),
    ("topics", "topics"),
)
#: The builds' steps (`tui.progress`) as a share of their stage: from, to (at 100,000
#: abstracts the index's blocks were 90% of its time, the merge and the save the rest; the
#: model's count 50%, its writing 20%, the near-duplicates 30%; the k-means rounds 70%).
_STEPS = {
    "index": ("index", 0.0, 0.9),
    "similar.count": ("similar", 0.0, 0.4),
    "similar.write": ("similar", 0.5, 0.7),
    "similar.pairs": ("similar", 0.7, 1.0),
    "topics.rounds": ("topics", 0.1, 0.8),
}


class CacheBuild:
    """A child process building the caches for `corpus`; it reports each one as it is saved.

    The child loads the same files, in the same order, so its corpus has the
    same fingerprint and the caches it writes are the ones the app looks for.
    The search index comes first: the app can filter while similarity builds.
    """

    def __init__(
        self,
        corpus: Corpus | None,
        cache_dir: Path,
        on_report: Callable[[], object] | None = None,
        read_args: Sequence[str] | None = None,
    ) -> None:
        """`read_args`: the arguments of the read cache (in `cache_dir`) the app read the
        files through: the child reads them the same way instead of parsing them again.
        No `corpus`: the child is started, and starts its interpreter and imports, but is
        sent its files later (`send`), once the app has saved the read cache."""
        self.done: set[str] = set()
        #: How far each stage under way has gone, in percent, as the child last said.
        self.percent: dict[str, int] = {}
        # One thread reads the reports at a time (the partial index's and the start-up's).
        self._reading = threading.Lock()
        # The requests written one at a time; none for a partial index after the files.
        self._writing = threading.Lock()
        self._sent = False
        #: (files read, files) while the child reads them.
        self.files_read: tuple[int, int] | None = None
        # Called (on the thread reading the reports) after each report, progress too.
        self._on_report = on_report
        self._process: subprocess.Popen[bytes] | None = None
        # Where the child writes the half of an index it is asked for (`other_half`), and
        # the pipe's end held open until the app has used it (`release_half`).
        self._half: io.BufferedReader | None = None
        self._half_held: int | None = None
        try:
            half_read, half_write = os.pipe()
        except OSError:
            return
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "tui.caches", str(cache_dir), str(half_write)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                pass_fds=(half_write,),
            )
        except OSError:
            os.close(half_read)
            return
        finally:
            os.close(half_write)
        self._half = os.fdopen(half_read, "rb")
        threading.Thread(
            target=self._reap, args=(self._process,), name="abstracts-cache-reaper", daemon=True
        ).start()
        if corpus is not None:
            self.send(corpus, read_args)

    def send(
        self, corpus: Corpus, read_args: Sequence[str] | None = None, index_from: int | None = None
    ) -> None:
        """Give the child the files of `corpus` to build the caches of (once); with
        `index_from`, it first indexes the abstracts from there on for the app to merge
        (`other_half`) instead of building the index."""
        listed = "\0".join(str(info.path) for info in corpus.files)
        if read_args is not None:  # two NULs: no path is empty
            listed += "\0\0" + "\0".join(read_args)
        files = listed.encode("utf-8", "surrogateescape")
        half = b"" if index_from is None else b"half %d\n" % index_from
        # The length first: the pipe stays open after the list (see the module doc).
        with self._writing:
            self._sent = True
            self._write(half + b"%d\n" % len(files) + files)

    def other_half(self, corpus: Corpus, lo: int) -> OtherHalf | None:
        """The abstracts of `corpus` from `lo` on as the child indexes them, when it was
        sent `index_from=lo` (once: the pipe is then the caller's to close). Should the
        child fail, or have read other abstracts, receiving them fails."""
        from tui.search.parallel import OtherHalf

        pipe, self._half = self._half, None
        if pipe is None:
            return None
        with contextlib.suppress(OSError):
            self._half_held = os.dup(pipe.fileno())
        return OtherHalf(pipe, corpus.abstracts, lo)

    def release_half(self) -> None:
        """The index the child's half went into is done: the child, which waits for the
        pipe to close (once read, the caller closes its end), goes on to the model.
        Until then the app's merge and first search have both cores to themselves."""
        held, self._half_held = self._half_held, None
        if held is not None:
            with contextlib.suppress(OSError):
                os.close(held)

    def _close_half(self) -> None:
        pipe, self._half = self._half, None
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
        self.release_half()

    def _write(self, request: bytes) -> bool:
        process = self._process
        if process is None:
            return False
        try:
            assert process.stdin is not None
            process.stdin.write(request)
            process.stdin.flush()
        except (OSError, ValueError):  # the child died or was stopped: no report will come
            self.stop()
            return False
        return True

    def ask_partial(self, count: int, paths: Sequence[Path]) -> bool:
        """Before `send`: ask the child to index the first `count` abstracts of `paths`
        (read by it, in order) and save that index (`search.cache.save_partial`); it
        reports "partial" once saved. False when it cannot be asked: it died, or it was
        sent its files already (it would never read the request)."""
        files = "\0".join(str(p) for p in paths).encode("utf-8", "surrogateescape")
        with self._writing:
            return not self._sent and self._write(b"partial %d %d\n" % (count, len(files)) + files)

    def stop(self) -> None:
        """Stop the child (the app is quitting); a waiting `wait_for` returns False."""
        self._close_half()
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            process.kill()
            process.wait()
        _close_stdin(process)

    def discard(self) -> None:
        """Stop a child whose reports nobody reads, and let go of their pipe."""
        self.stop()
        process = self._process
        if process is not None and process.stdout is not None:
            with contextlib.suppress(OSError):
                process.stdout.close()
        self._process = None

    def wait_for(self, stage: str) -> bool:
        """Block until the child reports `stage` ("partial", "index", "similar" or
        "topics"); False if it never will."""
        while stage not in self.done:
            with self._reading:
                if stage in self.done:  # read meanwhile by another thread
                    break
                process = self._process
                if process is None or process.stdout is None:
                    return False
                try:
                    line = process.stdout.readline()
                except (OSError, ValueError):  # discarded meanwhile: its pipe closed
                    return False
                if not line:  # the child exited (or died) without reporting it
                    process.wait(timeout=_TIMEOUT_SECONDS)
                    _close_stdin(process)
                    with contextlib.suppress(OSError):
                        process.stdout.close()  # read to its end: nothing more will come
                    self._process = None
                    return False
                self._take(line)
            if self._on_report is not None:
                self._on_report()
        return True

    def _take(self, line: bytes) -> None:
        """Note one report of the child's."""
        report = line.decode("ascii", "replace").split()
        if len(report) == 3 and report[0] == "files" and report[1].isdigit():
            read, files = int(report[1]), report[2]
            self.files_read = (read, int(files) if files.isdigit() else 0)
        elif len(report) == 3 and report[0] == "step" and report[2].isdigit():
            self.percent[report[1]] = min(int(report[2]), 100)
        elif report:
            self.done.add(report[0])

    def _reap(self, process: subprocess.Popen[bytes]) -> None:
        """Wait for the child to end (it exits after its last report, or when stopped),
        then take the reports nobody read and close their pipe (each one `wait_for`
        asks for later is there already)."""
        process.wait()
        _close_stdin(process)
        self._close_half()  # unless it was taken: then a reader sees the end of it
        with self._reading, contextlib.suppress(OSError, ValueError):
            if process.stdout is not None and not process.stdout.closed:
                for line in process.stdout:  # the child has ended: no read waits
                    self._take(line)
                process.stdout.close()

    def progress_text(self) -> str:
        """What the child is doing: `indexing: files 40 / 369`, `similarity 35%`…; "" once
        done (or gone)."""
        if self._process is None:
            return ""
        for stage, doing in STAGES:
            if stage not in self.done:
                if stage == "index" and self.files_read is not None:
                    read, files = self.files_read
                    if read < files:
                        return f"indexing: files {read:,} / {files:,}"
                percent = self.percent.get(stage)
                return doing if percent is None else f"{doing} {percent}%"
        return ""


def _close_stdin(process: subprocess.Popen[bytes]) -> None:
    if process.stdin is not None:
        with contextlib.suppress(OSError):  # a pipe the dead child no longer reads
            process.stdin.close()


def _exit_with_the_app() -> None:
    """Child side: the app holds our stdin open; end-of-file means it has gone."""
    sys.stdin.buffer.read()
    os._exit(1)


def main(argv: Sequence[str]) -> int:
    """Child side: read the file paths on stdin (their length in bytes on a line, then
    the paths separated by NUL, then optionally two NULs and the read cache's arguments),
    build and save the caches."""
    from tui.search.cache import load_or_build as load_or_build_index

    if len(argv) not in (1, 2) or not all(a.isdigit() for a in argv[1:]):
        print(
            "usage: python -m tui.caches CACHE_DIR [HALF_FD] < LENGTH NEWLINE PATHS",
            file=sys.stderr,
        )
        return 2
    cache_dir = Path(argv[0])
    half_fd = int(argv[1]) if len(argv) == 2 else None
    header = sys.stdin.buffer.readline()
    if header.startswith(b"partial "):
        if not _partial_index(header, cache_dir):
            return 1  # the app went away while asking
        header = sys.stdin.buffer.readline()
    index_from = None
    if header.startswith(b"half ") and header[5:].strip().isdigit():
        index_from = int(header[5:])
        header = sys.stdin.buffer.readline()
    size = int(header) if header.strip().isdigit() else -1
    payload = sys.stdin.buffer.read(size) if size >= 0 else b""
    if size < 0 or len(payload) < size:
        return 1  # the app went away while sending the list
    threading.Thread(target=_exit_with_the_app, daemon=True).start()
    progress.watch(_Steps().report)
    raw, _, args = payload.decode("utf-8", "surrogateescape").partition("\0\0")
    read_args = [a for a in args.split("\0") if a]
    corpus, before = _load([p for p in raw.split("\0") if p], cache_dir, read_args)
    if not corpus.abstracts:
        return 1
    if index_from is not None:
        # The app indexes the rest, merges and saves (a failure here is its to mend).
        _send_half(corpus, index_from, half_fd)
        print("half", flush=True)
    else:
        # The one other thread only waits on stdin and ends the process: it holds
        # nothing a forked build helper needs, so the index may be built by two processes.
        load_or_build_index(corpus, cache_dir, fork_safe=True)
    print("index", flush=True)
    _similarity_and_topics(corpus, cache_dir)
    if before is not None:
        # Last: what a command prints of each abstract, so `abstracts search` after the
        # app answers without loading and rendering every abstract itself.
        from tui.corpus import rows

        rows.save(cache_dir, read_args, corpus, before)
        print("rows", flush=True)
    return 0


def _send_half(corpus: Corpus, lo: int, fd: int | None) -> None:
    """Child side: the abstracts from `lo` on indexed and written to the pipe `fd` (closed
    after), for the app to merge (`CacheBuild.other_half`)."""
    if fd is None:
        return
    from tui.search.build import BLOCK_SIZE
    from tui.search.parallel import send_half

    try:
        with os.fdopen(fd, "wb") as out:
            send_half(out, corpus.abstracts, lo, BLOCK_SIZE)
            out.flush()
            # The app closes its ends once its index is made (`release_half`): until
            # then its merge and first search have both cores to themselves.
            poller = select.poll()
            poller.register(out.fileno(), 0)  # a pipe's write end: POLLERR when unread
            poller.poll(_HALF_WAIT_SECONDS * 1000)
    except OSError:  # the app stopped reading (closed or gone): it indexes them itself
        pass


class _Steps:
    """Child side: the builds' steps (`tui.progress`) reported to the app as each stage's
    percent (`_STEPS`), `step STAGE PERCENT`, at most every `_PROGRESS_SECONDS`."""

    def __init__(self) -> None:
        self._said: tuple[str, int] | None = None
        self._at = 0.0

    def report(self, step: str, done: int, total: int) -> None:
        found = _STEPS.get(step)
        if found is None or total <= 0:
            return
        stage, low, high = found
        percent = int(100 * (low + (high - low) * min(done, total) / total))
        now = time.monotonic()
        if self._said != (stage, percent) and now - self._at >= _PROGRESS_SECONDS:
            print(f"step {stage} {percent}", flush=True)
            self._said, self._at = (stage, percent), now


def _partial_index(header: bytes, cache_dir: Path) -> bool:
    """Child side, asked by `CacheBuild.ask_partial` while the app still reads the files:
    the index of the first abstracts of the files named, saved for the app's filter to
    answer from meanwhile (else it would build it on the thread reading the files, and
    take turns with it for the interpreter). False when the request was cut short."""
    from tui.corpus.load import Loading
    from tui.search import cache as search_cache
    from tui.search.index import SearchIndex

    fields = header.split()
    if len(fields) != 3 or not (fields[1].isdigit() and fields[2].isdigit()):
        return False
    count, size = int(fields[1]), int(fields[2])
    payload = sys.stdin.buffer.read(size)
    if len(payload) < size:
        return False
    paths = [p for p in payload.decode("utf-8", "surrogateescape").split("\0") if p]
    loading = Loading(paths, None)  # parsed: the read cache is written after the reading
    while not loading.finished:
        loading.read_next()
    first = Corpus(loading.finish().abstracts[:count], [], [])
    search_cache.save_partial(SearchIndex.build(first), first, cache_dir)
    print("partial", flush=True)
    return True


def _load(
    paths: list[str], cache_dir: Path, read_args: list[str]
) -> tuple[Corpus, Snapshot | None]:
    """Child side: the app's files (`paths`) read through its read cache, and, when they
    were read from the arguments the app was given (`read_args`) as a command reads
    them, what those arguments named before (the corpus rows' `Snapshot`): then the
    corpus is the one a command loads, its load problems too, and its rows are written."""
    if read_args:
        from tui.corpus.rows import Snapshot

        before = Snapshot.take(read_args)  # before loading, as a command takes it
        corpus = _read(read_args, cache_dir, read_args)
        if [str(info.path) for info in corpus.files] == paths:
            return corpus, before
        # The files changed since the app read them: its own files, for the caches it
        # looks for, and no rows (they would not be a command's).
    return _read(paths, cache_dir if read_args else None, read_args or None), None


def _read(paths: list[str], cache_dir: Path | None, read_args: list[str] | None) -> Corpus:
    """Child side: load `paths`, printing `files READ TOTAL` as it goes."""
    from tui.corpus.load import Loading

    # The texts stay in the read cache, each block's read while it is indexed or counted
    # (the corpus holding them all would be 150 MB more at 100,000 abstracts).
    loading = Loading(paths, cache_dir, cache_args=read_args, keep_texts=False)
    reported = time.monotonic()
    while not loading.finished:
        loading.read_next()
        if time.monotonic() - reported >= _PROGRESS_SECONDS:
            print(f"files {loading.read} {len(loading.paths)}", flush=True)
            reported = time.monotonic()
    print(f"files {loading.read} {len(loading.paths)}", flush=True)
    return loading.finish()


def _similarity_and_topics(corpus: Corpus, cache_dir: Path) -> None:
    """Child side: the similarity model, then the topics, each reported once saved.

    One after the other: at once (the topics computed in a forked helper while this
    process searched the near-duplicates, or wrote the inverted index) their working
    memory added up, 100 to 400 MB more than either alone at 100,000 abstracts, for a few
    seconds sooner on an idle machine. The count of terms and the near-duplicates each
    use a helper of their own (see `weigh`, `find_duplicates`), with no more memory.
    """
    import numpy as np

    from tui.search.blocks import release_memory
    from tui.similar import cache as similar_cache
    from tui.similar import topic_cache
    from tui.similar.duplicates import Duplicates, find_duplicates
    from tui.similar.model import SimilarityTexts, weigh
    from tui.similar.topics import compute_topics

    model = similar_cache.load(corpus, cache_dir)
    if model is not None:
        print("similar", flush=True)
        topic_cache.load_or_build(corpus, cache_dir, model)
        print("topics", flush=True)
        return
    texts = SimilarityTexts(corpus.abstracts)
    # The one other thread only waits on stdin (see `main`): a helper may be forked.
    terms, weights = weigh(*texts.in_two(fork_safe=True))
    release_memory()  # what counting freed
    # The counts are needed again only by the topics' labels: handed to the file, let go
    # of once written, mapped back from it after (`save_built`).
    counts = [terms.counts]
    terms = dataclasses.replace(terms, counts=np.zeros(0, dtype=np.int32))

    def duplicates() -> Duplicates:
        release_memory()  # what writing the inverted index freed
        return find_duplicates(terms, weights, texts, fork_safe=True)

    with contextlib.suppress(OSError):  # the near-duplicates are found as the file's last part
        similar_cache.save_built(terms, weights, duplicates, corpus, cache_dir, counts)
    release_memory()
    print("similar", flush=True)
    topics = topic_cache.load(corpus, cache_dir)
    if topics is None:
        entries = len(terms.indices)
        mapped = counts[0] if counts else similar_cache.saved_counts(corpus, cache_dir, entries)
        if mapped is None:  # written, but not readable: counted again
            terms, weights = weigh(*texts.in_two(fork_safe=True))
        else:
            terms = dataclasses.replace(terms, counts=mapped)
        topics = compute_topics(terms, weights)
    with contextlib.suppress(OSError):
        topic_cache.save(topics, corpus, cache_dir)
    print("topics", flush=True)


def _run(argv: Sequence[str]) -> NoReturn:
    """Child side: `main`, then out without the interpreter's shutdown. The thread
    waiting on stdin holds the stdin buffer's lock, and finalising a buffer a daemon
    thread holds aborts the process (SIGABRT: a crash report, a core file where they are
    kept) after every build; everything the child writes is flushed or closed by then."""
    code = 1
    try:
        code = main(argv)
    except BaseException:
        traceback.print_exc()  # to the terminal of whoever ran the child by hand
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    _run(sys.argv[1:])
