"""Reading the files researchers have: speed per format, and huge paragraphs.

`formats` (the default): writes the same papers (the development set's titles and
abstracts, 10,000 by default, with made-up authors and ids: bench/paperfiles.py) in
every format the app reads, then, in one run and interleaved so noise hits all
alike:
  * records per second of `load_corpus` on each file, in a fresh process
    (the interpreter's start is not counted);
  * time from launch to the first painted screen of the whole app on each file,
    as a ratio to the same abstracts as conference text (target <= 3x), with a
    fresh data directory each run; and the CPU time the app used to get there
    (its ratio holds steadier than wall-clock time on a loaded machine).

`huge`: peak memory of loading one huge one-paragraph file: a header and then one
paragraph of that many megabytes (words, no blank line), loaded in a fresh child;
prints its peak RSS (ru_maxrss from wait4), the time and the problems reported.
Target: <= 300 MB peak for 200 MB.

    python bench/inputs.py [formats] [--records 10000] [--runs 5] [--titles FILE.jsonl]
                           [--formats text bibtex ...]
    python bench/inputs.py huge [--sizes 50 200] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MB = 1_000_000

CHILD = r"""
import sys
from tui.corpus.load import load_corpus
corpus = load_corpus([sys.argv[1]])
print(len(corpus.abstracts), "abstracts;", "; ".join(p.message for p in corpus.problems))
"""


def write_one_paragraph(path: Path, megabytes: int, wrapped: bool) -> None:
    """A header, a blank line, then `megabytes` MB of words in one paragraph.

    `wrapped`: lines of ~80 characters (the paragraph is joined and collapsed
    word by word, the costly path); else all on one line.
    """
    words = b"graph neural networks learn molecular representations quickly"
    line = (words + b"\n" if wrapped else words + b" ") * 16
    with path.open("wb") as f:
        f.write(b"ICLR 2023 Papers\n\n")
        left = megabytes * MB
        while left > 0:
            piece = line[:left]
            f.write(piece)
            left -= len(piece)
        f.write(b"\n")


def measure(path: Path) -> tuple[float, float, str]:
    """(peak RSS in MB, seconds, the child's report) for loading `path` in a fresh process."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert child.stdout is not None
    output = child.stdout.read().decode("utf-8", "replace").strip()
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped by wait4
    seconds = time.perf_counter() - start
    return usage.ru_maxrss / 1024, seconds, output.splitlines()[-1][:160] if output else ""


TIMED = r"""
import sys, time
from tui.corpus.load import load_corpus
start = time.perf_counter()
corpus = load_corpus([sys.argv[1]])
seconds = time.perf_counter() - start
fatal = [p.message for p in corpus.problems if p.fatal]
print(len(corpus), seconds, "; ".join(fatal)[:200])
"""


def load_seconds(path: Path) -> tuple[int, float, str]:
    """(papers loaded, seconds in load_corpus, fatal problems) in a fresh process."""
    out = subprocess.run(
        [sys.executable, "-c", TIMED, str(path)], cwd=REPO, capture_output=True, text=True
    )
    if out.returncode != 0:
        return 0, float("nan"), out.stderr.strip().splitlines()[-1][:200]
    count, seconds, *problems = out.stdout.split(" ", 2)
    return int(count), float(seconds), (problems[0].strip() if problems else "")


def _children_cpu() -> float:
    """CPU seconds of this process's reaped children so far (user + system)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def formats(args: argparse.Namespace) -> None:
    """Records per second and first paint per format, against conference text."""
    import statistics

    sys.path.insert(0, str(REPO / "bench"))
    from paperfiles import FORMATS, load_papers, repeat_to, write
    from startup import time_child

    # Conference text is the reference: always measured, first.
    chosen = ["text", *(f for f in args.formats or FORMATS if f != "text")]
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown:
        sys.exit(f"unknown formats {unknown}; known: {', '.join(FORMATS)}")
    papers = repeat_to(load_papers(args.titles, limit=args.records), args.records)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        paths = {fmt: write(fmt, papers, Path(tmp)) for fmt in chosen}
        loads: dict[str, list[float]] = {fmt: [] for fmt in chosen}
        paints: dict[str, list[float]] = {fmt: [] for fmt in chosen}
        cpus: dict[str, list[float]] = {fmt: [] for fmt in chosen}
        counts: dict[str, tuple[int, str]] = {}
        for run in range(args.runs):
            for fmt, path in paths.items():
                count, seconds, problems = load_seconds(path)
                counts[fmt] = (count, problems)
                loads[fmt].append(seconds)
                with tempfile.TemporaryDirectory(dir=args.dir) as data:
                    if run == 0:  # warm the OS file cache and the bytecode once
                        time_child("app", str(path), data)
                    # The child is killed and reaped as soon as it has painted.
                    before = _children_cpu()
                    paints[fmt].append(time_child("app", str(path), data))
                    cpus[fmt].append(_children_cpu() - before)
    base_paint = statistics.median(paints["text"])
    base_cpu = statistics.median(cpus["text"])
    print(
        f"{args.records:,} papers per file, {args.runs} runs (medians); first paint is "
        "launch to first painted screen, fresh data dir"
    )
    print(
        f"{'format':16} {'loaded':>7} {'load':>8} {'records/s':>10} {'paint':>8} {'ratio':>6} "
        f"{'cpu':>8} {'ratio':>6}"
    )
    for fmt in chosen:
        count, problems = counts[fmt]
        load = statistics.median(loads[fmt])
        paint = statistics.median(paints[fmt])
        cpu = statistics.median(cpus[fmt])
        print(
            f"{fmt:16} {count:7,} {load * 1000:6.0f}ms {count / load:10,.0f} "
            f"{paint * 1000:6.0f}ms {paint / base_paint:5.2f}x "
            f"{cpu * 1000:6.0f}ms {cpu / base_cpu:5.2f}x  {problems}"
        )
    print(
        "target: first paint <= 3x the same abstracts as conference text "
        "(cpu: the app's CPU time to its first paint)"
    )


def huge(args: argparse.Namespace) -> None:
    """Peak memory of loading one huge one-paragraph file."""
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for size in args.sizes:
            for wrapped in (False, True):
                path = Path(tmp) / f"one-paragraph-{size}mb.txt"
                write_one_paragraph(path, size, wrapped)
                peak, seconds, report = measure(path)
                shape = "wrapped " if wrapped else "one line"
                print(
                    f"{size:>4} MB paragraph, {shape}: peak RSS {peak:6.0f} MB, "
                    f"{seconds:5.1f} s  ({report})"
                )
                path.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", nargs="?", choices=["formats", "huge"], default="formats")
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200], help="sizes in MB")
    parser.add_argument("--records", type=int, default=10_000, help="papers per format file")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--formats", nargs="+", default=None, help="only these (and text, the reference)"
    )
    parser.add_argument(
        "--titles",
        type=Path,
        default=REPO.parent / "shared" / "corpora" / "iclr-titles.jsonl",
        help="the papers: lines of {title, year, abstract}",
    )
    parser.add_argument("--dir", type=Path, default=None, help="where to write the test files")
    args = parser.parse_args()
    if args.mode == "huge":
        huge(args)
    else:
        formats(args)


if __name__ == "__main__":
    main()
