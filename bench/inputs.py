"""Peak memory of loading one huge one-paragraph file (issue 9, finding 5).

For each size, writes a file holding a header and then one paragraph of that
many megabytes (words, no blank line), loads it with `load_corpus` in a fresh
child process and prints the child's peak RSS (ru_maxrss from wait4), the
time taken and the problems reported. Target: <= 300 MB peak for 200 MB.

    python bench/inputs.py [--sizes 50 200] [--dir DIR]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200], help="sizes in MB")
    parser.add_argument("--dir", type=Path, default=None, help="where to write the test files")
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
