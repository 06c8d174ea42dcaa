"""The whole app as a user sees it, at the seeds, ICLR and 100,000 abstracts.

For each corpus, in one run and interleaved so machine noise hits all alike, each
program runs for real on a pseudo-terminal (120x40) and the bench reads its screen:
  * this app (`abstracts PATH`), with a fresh data dir and with a warm one;
  * a bare Textual line list of the same abstracts (one file read, paragraphs split,
    a line-API list and a substring filter: the floor for a Textual app that shows them);
  * fzf on the same abstracts, one per line, when it is installed (skipped with a note).
It prints, as medians:
  * launch -> first painted screen;
  * launch -> the filter's answer over every abstract (the query typed as soon as the
    screen is up: for this app, the header's count of every abstract with no
    "(2,000 searched)" after it), and for this app on a fresh data dir, launch -> its
    first matches shown (from a partial index of the first abstracts, while the rest
    are read and indexed);
  * for this app, launch -> background work done (search index, similarity, topics
    cached), fresh data dir only;
  * peak memory of the whole process tree (the sum of each process's PSS, sampled
    every 20 ms), from launch to the end of the case;
  * for this app, launch -> its cache child done (the corpus rows written after the caches);
  * `abstracts search` right after the app, then again, and `abstracts list --json`, on a
    warm data dir.
And ratios against the references measured in the same run.

    python bench/scale.py [--runs 3] [--synthetic 100000] [--corpus DIR] [--skip-big]
                          [--big-only] [--cases fresh,warm,bare,fzf,label]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
COLUMNS, LINES = 120, 40
QUERY = "graph neural"
# Typed after the first answer, one key at a time (then erased): keystroke -> settled.
KEYS = [*" network", *"\x7f" * 8]
TIMEOUT = 240.0

BARE = r"""
import sys
from pathlib import Path
from rich.segment import Segment
from textual.app import App
from textual.strip import Strip
from textual.widgets import Input, Static
from textual.scroll_view import ScrollView
from textual.geometry import Size

texts = []
for root in sys.argv[1:]:
    p = Path(root)
    files = sorted(p.rglob("*.txt")) if p.is_dir() else [p]
    for f in files:
        blocks = f.read_text(encoding="utf-8").split("\n\n")
        texts.extend(" ".join(b.split()) for b in blocks[1:] if b.strip())


class Lines(ScrollView):
    def __init__(self):
        super().__init__()
        self.rows = list(range(len(texts)))
        self.virtual_size = Size(200, len(self.rows))

    def show(self, rows):
        self.rows = rows
        self.virtual_size = Size(200, len(rows))
        self.refresh()

    def render_line(self, y):
        i = self.scroll_offset.y + y
        if i >= len(self.rows):
            return Strip.blank(self.size.width)
        return Strip([Segment(texts[self.rows[i]][: self.size.width])])


class Bare(App):
    def compose(self):
        yield Static(f"bare {len(texts):,} lines", id="head")
        yield Input(placeholder="filter")
        yield Lines()

    def on_input_changed(self, event):
        q = event.value.lower()
        rows = [i for i, t in enumerate(texts) if q in t.lower()]
        self.query_one(Lines).show(rows)
        self.query_one("#head").update(f"{len(rows):,} found of {len(texts):,}")


Bare().run()
"""

LABEL = r"""
from textual.app import App
from textual.widgets import Label


class Minimal(App):
    def compose(self):
        yield Label("hello")


Minimal().run()
"""

APP = r"""
import sys
from tui.cli import main
sys.exit(main(sys.argv[1:]))
"""


class Tree:
    """Peak memory of a process group: the sum of its processes' PSS, sampled."""

    def __init__(self, pgid: int) -> None:
        self.pgid = pgid
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _pids(self) -> list[int]:
        out = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                if int(fields[2]) == self.pgid:  # pgrp
                    out.append(int(name))
            except (OSError, IndexError, ValueError):
                continue
        return out

    @staticmethod
    def _pss(pid: int) -> int:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
                for line in f:
                    if line.startswith(b"Pss:"):
                        return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return 0

    def _run(self) -> None:
        while not self._stop.is_set():
            total = sum(self._pss(pid) for pid in self._pids())
            self.peak_kb = max(self.peak_kb, total)
            self._stop.wait(0.02)

    def running(self, word: bytes) -> bool:
        """Whether a process of the group has `word` in its command line."""
        for pid in self._pids():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if word in f.read():
                        return True
            except OSError:
                continue
        return False

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak_kb / 1024


class Run:
    """One program on a pty: read its output, send keys, time markers from launch."""

    def __init__(self, argv: list[str], env: dict[str, str], sample_memory: bool = True) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=REPO,
            start_new_session=True,
        )
        os.close(slave)
        self.tree = Tree(self.proc.pid) if sample_memory else None
        self.seen = b""

    def wait_for(self, marker: bytes, timeout: float = TIMEOUT, keep: bool = False) -> float:
        """Seconds from launch until `marker` is on the terminal (output since the last mark;
        `keep`: this one is no mark, what follows it is searched from before it again)."""
        deadline = time.perf_counter() + timeout
        while marker not in self.seen:
            left = deadline - time.perf_counter()
            ready, _, _ = select.select([self.master], [], [], max(left, 0))
            if not ready:
                raise TimeoutError(marker.decode())
            try:
                self.seen += os.read(self.master, 1 << 16)
            except OSError as err:
                raise TimeoutError(f"{marker.decode()}: {err}") from err
        at = time.perf_counter() - self.start
        if not keep:
            self.seen = self.seen[self.seen.index(marker) + len(marker) :]
        return at

    def wait_for_text(self, pattern: re.Pattern[bytes], timeout: float = TIMEOUT) -> float:
        """Seconds from launch until `pattern` matches the terminal's text (output since the
        last mark, its escape sequences taken out); a mark, as `wait_for`'s."""
        deadline = time.perf_counter() + timeout
        while (found := pattern.search(_ESCAPES.sub(b"", self.seen))) is None:
            left = deadline - time.perf_counter()
            ready, _, _ = select.select([self.master], [], [], max(left, 0))
            if not ready:
                raise TimeoutError(pattern.pattern.decode())
            try:
                self.seen += os.read(self.master, 1 << 16)
            except OSError as err:
                raise TimeoutError(f"{pattern.pattern.decode()}: {err}") from err
        at = time.perf_counter() - self.start
        self.seen = _ESCAPES.sub(b"", self.seen)[found.end() :]
        return at

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def settle(self, key: str, quiet: float = 0.2, cap: float = 3.0) -> float:
        """Seconds from sending `key` to the last output before `quiet` seconds of silence."""
        self.drain(quiet)
        sent = time.perf_counter()
        os.write(self.master, key.encode())
        last = sent
        wait = cap  # the first output may take long (a slow filter); then until it pauses
        while time.perf_counter() - sent < cap:
            ready, _, _ = select.select([self.master], [], [], wait)
            wait = quiet
            if not ready:
                break
            try:
                self.seen += os.read(self.master, 1 << 16)
            except OSError:
                break
            last = time.perf_counter()
        return last - sent

    def drain(self, quiet: float) -> None:
        """Read until the terminal has been silent for `quiet` seconds (at most 5 s)."""
        deadline = time.perf_counter() + 5
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([self.master], [], [], quiet)
            if not ready:
                return
            with contextlib.suppress(OSError):
                self.seen += os.read(self.master, 1 << 16)

    def pump(self, seconds: float) -> None:
        """Read whatever the program writes for `seconds` (its output is kept)."""
        deadline = time.perf_counter() + seconds
        while (left := deadline - time.perf_counter()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                with contextlib.suppress(OSError):
                    self.seen = (self.seen + os.read(self.master, 1 << 16))[-(1 << 16) :]

    def end(self) -> float:
        """Kill the whole group; the peak memory in MB (0 when not sampled)."""
        peak = self.tree.stop() if self.tree is not None else 0.0
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        os.close(self.master)
        return peak


# Complete CSI sequences (colours, cursor moves): what a terminal does not show as text.
_ESCAPES = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]")


def whole_answer(size: int) -> re.Pattern[bytes]:
    """The header's count over every abstract: `of 100,000` followed by two characters of
    text that are not ` (`, the partial index's `(2,000 searched)` (nor an escape
    sequence not yet complete, which could be that)."""
    return re.compile(rb"of " + f"{size:,}".encode() + rb"(?! \()[^\n\x1b]{2}")


def base_env(data_dir: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        ABSTRACTS_DATA_DIR=data_dir, TERM="xterm-256color", COLUMNS=str(COLUMNS), LINES=str(LINES)
    )
    return env


def caches_done(data_dir: str) -> bool:
    cache = Path(data_dir) / "cache"
    try:
        names = [p.name for p in cache.iterdir()]
    except OSError:
        return False
    return all(
        any(n.startswith(k) and n.endswith(".npz") for n in names)
        for k in ("search", "similar", "topics")
    )


def app_case(path: str, size: int, data_dir: str | None, background: bool) -> dict[str, float]:
    """This app on `path`; a fresh data dir when `data_dir` is None."""
    fresh = data_dir is None
    data_dir = data_dir or tempfile.mkdtemp(prefix="abstracts-scale-data-")
    run = Run([sys.executable, "-c", APP, path], base_env(data_dir))
    out: dict[str, float] = {}
    try:
        out["paint"] = run.wait_for(b"abstracts")
        run.type("/" + QUERY)
        # The first matches shown: while the files are still read, from the first ones.
        out["first"] = run.wait_for(" · of ".encode(), keep=True)
        # Over every abstract: the whole count, and no "(2,000 searched)" after it (the
        # answer from a partial index says so once every file is read, too).
        out["answer"] = run.wait_for_text(whole_answer(size))
        if background:
            deadline = time.perf_counter() + TIMEOUT
            while not caches_done(data_dir) and time.perf_counter() < deadline:
                run.pump(0.05)  # read what the app writes, as a terminal does (else it waits)
            out["background"] = (
                time.perf_counter() - run.start if caches_done(data_dir) else float("nan")
            )
            # The cache child writes the corpus rows after the caches, then exits.
            while run.tree is not None and run.tree.running(b"tui.caches"):
                if time.perf_counter() > deadline:
                    break
                run.pump(0.05)
            out["child"] = time.perf_counter() - run.start
        else:
            time.sleep(1.0)  # the warm start's own loading finishes within this
            out.update(keystrokes(run))
    finally:
        out["peak_mb"] = run.end()
        if fresh:
            shutil.rmtree(data_dir, ignore_errors=True)
    return out


def bare_case(path: str, size: int) -> dict[str, float]:
    run = Run([sys.executable, "-c", BARE, path], base_env(tempfile.gettempdir()))
    out: dict[str, float] = {}
    try:
        out["paint"] = run.wait_for(b"lines")
        run.type(QUERY)
        out["answer"] = run.wait_for(b" found of ")
        time.sleep(0.5)
        out.update(keystrokes(run))
    finally:
        out["peak_mb"] = run.end()
    return out


def keystrokes(run: Run) -> dict[str, float]:
    """Keys typed into the filter one at a time, each once the screen has settled: the
    seconds from each key to the screen settled again (median and the slowest)."""
    times = [run.settle(key) for key in KEYS]
    return {"key": statistics.median(times), "key_max": max(times)}


def label_case() -> dict[str, float]:
    """The floor for any Textual app: one label painted."""
    run = Run([sys.executable, "-c", LABEL], base_env(tempfile.gettempdir()))
    try:
        return {"paint": run.wait_for(b"hello")}
    finally:
        run.end()


def fzf_case(lines_file: str) -> dict[str, float]:
    env = base_env(tempfile.gettempdir())
    run = Run(["sh", "-c", f"fzf < '{lines_file}'"], env)
    out: dict[str, float] = {}
    try:
        total = Path(lines_file).read_text(encoding="utf-8").count("\n")
        out["paint"] = run.wait_for(f"{total}/{total}".encode(), timeout=60)
        run.type(QUERY)
        out["answer"] = run.wait_for(f"/{total}".encode(), timeout=60)
        time.sleep(0.3)
    finally:
        out["peak_mb"] = run.end()
    return out


def cli_seconds(args: list[str], data_dir: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", APP, *args],
        env=base_env(data_dir),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def corpus_size(path: str) -> tuple[int, list[str]]:
    from tui.corpus.load import load_corpus

    corpus = load_corpus([path])
    return len(corpus), [" ".join(a.text.split()) for a in corpus.abstracts]


def write_synthetic(base_dir: str, n: int, folder: Path) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from search import synthetic

    from tui.corpus.load import load_corpus

    big = synthetic(load_corpus([base_dir]), n)
    by_file: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    for a in big.abstracts:
        name = a.sources[0].path.name
        by_file.setdefault(name, []).append(a.text)
        labels[name] = a.collection.label
    folder.mkdir(parents=True, exist_ok=True)
    for name, texts in by_file.items():
        (folder / name).write_text(
            labels[name] + "\n\n" + "\n\n".join(texts) + "\n", encoding="utf-8"
        )


def median(rows: list[dict[str, float]], key: str) -> float:
    values = [r[key] for r in rows if key in r and r[key] == r[key]]
    return statistics.median(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--synthetic", type=int, default=100_000)
    parser.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpora" / "iclr"))
    parser.add_argument("--skip-big", action="store_true", help="seeds and ICLR only")
    parser.add_argument("--big-only", action="store_true", help="the synthetic corpus only")
    parser.add_argument(
        "--cases",
        default="fresh,warm,bare,fzf,label",
        help="which cases to run, comma-separated (e.g. warm,bare while working on the warm start)",
    )
    args = parser.parse_args()
    wanted = {name.strip() for name in args.cases.split(",")}

    from tui import locations

    tmp = Path(tempfile.mkdtemp(prefix="abstracts-scale-"))
    corpora = [("seeds", str(locations.seeds_dir()))]
    if Path(args.corpus).is_dir():
        corpora.append(("ICLR", args.corpus))
        if not args.skip_big:
            big = tmp / "synthetic"
            write_synthetic(args.corpus, args.synthetic, big)
            corpora.append((f"{args.synthetic:,} synthetic", str(big)))
            if args.big_only:
                corpora = corpora[-1:]
    else:
        print(f"(corpus {args.corpus} not found: ICLR and synthetic cases skipped)")
    fzf = shutil.which("fzf")
    if fzf is None:
        print("(fzf is not installed: its column is skipped)")

    try:
        for label, path in corpora:
            size, texts = corpus_size(path)
            lines_file = tmp / f"{label}.lines"
            lines_file.write_text("\n".join(texts) + "\n", encoding="utf-8")
            warm_dir = str(tmp / f"warm-{label}")
            if "warm" in wanted:
                app_case(path, size, warm_dir, background=True)  # fills the warm data dir
            results: dict[str, list[dict[str, float]]] = {
                "fresh": [],
                "warm": [],
                "bare": [],
                "fzf": [],
                "one label": [],
            }
            cases: list[tuple[str, Callable[[], dict[str, float]]]] = [
                ("one label", label_case),
                ("fresh", partial(app_case, path, size, None, True)),
                ("warm", partial(app_case, path, size, warm_dir, False)),
                ("bare", partial(bare_case, path, size)),
            ]
            if fzf:
                cases.append(("fzf", partial(fzf_case, str(lines_file))))
            cases = [c for c in cases if c[0].replace("one ", "") in wanted]
            for _ in range(args.runs):
                for name, case in cases:
                    try:
                        results[name].append(case())
                    except TimeoutError as err:
                        print(f"  {label} {name}: timed out waiting for {err}")
            runs = args.runs if "warm" in wanted else 0
            # The first run comes right after the app's runs on the warm data dir: it answers
            # from the corpus rows the app's cache child wrote, or writes them itself.
            search = [
                cli_seconds(["search", QUERY, path, "--limit", "10"], warm_dir)
                for _ in range(runs + 1 if runs else 0)
            ]
            listing = [cli_seconds(["list", path, "--json"], warm_dir) for _ in range(runs)]

            print(f"\n{label}: {size:,} abstracts, {args.runs} runs (medians)")
            print(
                f"{'':28} {'first paint':>12} {'filter answers':>15} {'background':>11} {'peak MB':>8}"
                f" {'key (median, max)':>18}"
            )
            for name in results:
                rows = results[name]
                if not rows:
                    continue
                print(
                    f"{name:28} {median(rows, 'paint'):11.2f}s {median(rows, 'answer'):14.2f}s "
                    f"{median(rows, 'background'):10.1f}s {median(rows, 'peak_mb'):8.0f}"
                    f" {median(rows, 'key') * 1000:8.0f} {median(rows, 'key_max') * 1000:6.0f} ms"
                )
            bare = results["bare"]
            for name in ("fresh", "warm"):
                rows = results[name]
                if rows and bare:
                    print(
                        f"  {name} / bare list: paint {median(rows, 'paint') / median(bare, 'paint'):.2f}x, "
                        f"answer {median(rows, 'answer') / median(bare, 'answer'):.2f}x, "
                        f"peak memory {median(rows, 'peak_mb') / median(bare, 'peak_mb'):.2f}x"
                        + (
                            f", keystroke {median(rows, 'key') / median(bare, 'key'):.2f}x"
                            if name == "warm"
                            else ""
                        )
                    )
                if rows and results["one label"]:
                    label_paint = median(results["one label"], "paint")
                    print(
                        f"  {name} / one-label app: paint {median(rows, 'paint') / label_paint:.2f}x"
                    )
                if rows and results["fzf"]:
                    print(
                        f"  {name} / fzf: answer {median(rows, 'answer') / median(results['fzf'], 'answer'):.2f}x"
                    )
            if results["fresh"]:
                print(
                    f"  fresh: the first matches on screen at {median(results['fresh'], 'first'):.2f}s "
                    f"(from a partial index of the first abstracts, from 10,000 abstracts on; "
                    f"the whole answer below that); the cache child done "
                    f"(corpus rows written) at {median(results['fresh'], 'child'):.1f}s"
                )
            if search and listing:
                print(
                    f"  abstracts search right after the app: {search[0]:.2f}s; "
                    f"abstracts search (warm): {statistics.median(search[1:]):.2f}s; "
                    f"abstracts list --json (warm): {statistics.median(listing):.2f}s"
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
