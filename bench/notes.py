"""A large note against the first paint and the keys: with and without a note of N MB.

For each case a data dir is made whose first abstract (the one shown at start) has a
note of that size. The app runs for real on a pseudo-terminal (120x40); the parent
times from spawning it to its first frame, waits for the user's data to open, then
presses keys one at a time (down, up, the notes view, Esc, the note editor, the LaTeX
source twice) and times each until the terminal receives the app's answer. Prints medians of the first
paint, the slowest key, and the ratio of the first paint to the case without a note.
Targets: a 50 MB note paints within 1.5x of no note; every key answered within 100 ms.

    python bench/notes.py [--runs 5] [--mb 50]
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from scale import Run, base_env  # noqa: E402

# Each timed key changes the screen, so its answer is the next thing drawn. The Esc after
# `n` is not timed: with the large note the editor refuses it (a toast says why), and
# Esc on the list draws nothing. Esc's own times include Textual's wait (about 100 ms)
# for the rest of an escape sequence.
KEYS = [(b"j", "down"), (b"k", "up"), (b"N", "notes view"), (b"\x1b", "Esc (view)")]
KEYS += [(b"n", "n"), (b"\x1b", ""), (b"v", "v (source)"), (b"v", "v (rendered)")]


def make_data_dir(folder: Path, megabytes: float) -> None:
    """A data dir whose first abstract has a note of `megabytes` MB (none for 0)."""
    from tui import locations
    from tui.corpus.load import load_corpus
    from tui.store.userdata import UserData

    first = load_corpus([locations.seeds_dir()]).abstracts[0]
    data = UserData.open(folder)
    try:
        if megabytes:
            line = "a line of a long note, written over many sessions of reading.\n"
            data.save_note(first, line * int(megabytes * 1_000_000 / len(line)))
        assert data.flush()
    finally:
        data.close()


def read_for(master: int, seconds: float) -> bytes:
    seen, deadline = b"", time.perf_counter() + seconds
    while (left := deadline - time.perf_counter()) > 0:
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            seen += os.read(master, 65536)
    return seen


def run_once(data_dir: Path) -> tuple[float, dict[str, float]]:
    """(seconds to the first frame, seconds to each key's answer)."""
    # Memory is not sampled: reading /proc every 20 ms would delay the answers timed here.
    run = Run(
        [sys.executable, "-m", "tui", "--data-dir", str(data_dir)],
        base_env(str(data_dir)),
        sample_memory=False,
    )
    try:
        painted = run.wait_for(b"abstracts", timeout=120)
        read_for(run.master, 3.0)  # the user's data opens after the first paint
        answers = {}
        for key, label in KEYS:
            if not label:
                os.write(run.master, key)
                read_for(run.master, 0.5)
                continue
            sent = time.perf_counter()
            os.write(run.master, key)
            ready, _, _ = select.select([run.master], [], [], 30)
            answers[label] = time.perf_counter() - sent if ready else float("inf")
            read_for(run.master, 0.5)  # let it settle before the next key
        return painted, answers
    finally:
        run.end()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mb", type=float, default=50.0)
    args = parser.parse_args()
    cases = {"no note": 0.0, f"{args.mb:g} MB note": args.mb}
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {}
        for label, megabytes in cases.items():
            dirs[label] = Path(tmp) / label.replace(" ", "-")
            make_data_dir(dirs[label], megabytes)
            run_once(dirs[label])  # warm the caches and the OS file cache
        paints: dict[str, list[float]] = {label: [] for label in cases}
        slowest: dict[str, list[float]] = {label: [] for label in cases}
        per_key: dict[str, dict[str, list[float]]] = {label: {} for label in cases}
        for _ in range(args.runs):
            for label in cases:
                painted, answers = run_once(dirs[label])
                paints[label].append(painted)
                slowest[label].append(max(answers.values()))
                for key, took in answers.items():
                    per_key[label].setdefault(key, []).append(took)
    floor = statistics.median(paints["no note"])
    print(f"First paint and key answers, {args.runs} runs each (medians; keys: slowest run)")
    print(f"{'case':16} {'first paint':>12} {'ratio':>7} {'slowest key':>12}")
    for label in cases:
        paint = statistics.median(paints[label])
        print(
            f"{label:16} {paint * 1000:10.0f}ms {paint / floor:6.2f}x "
            f"{max(slowest[label]) * 1000:10.0f}ms"
        )
        keys = ", ".join(
            f"{k} {statistics.median(v) * 1000:.0f}/{max(v) * 1000:.0f}"
            for k, v in per_key[label].items()
        )
        print(f"{'':16} per key (ms, median/slowest): {keys}")


if __name__ == "__main__":
    main()
