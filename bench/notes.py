"""A large note against the first paint and the keys: with and without a note of N MB.

For each case a data dir is made whose first abstract (the one shown at start) has a
note of that size. The app runs for real on a pseudo-terminal (120x40); the parent
times from spawning it to its first frame, waits for the user's data to open, then
presses keys one at a time (down, up, the notes view, Esc, the note editor, the LaTeX
source twice) and times each until the terminal receives the app's answer (output other
than a pointer-shape change, which Textual sends as soon as the mouse's widget may have
changed, before the answer is drawn). Prints medians of the first paint, the slowest
key, and the ratio of the first paint to the case without a note; then each key's
median, 95th percentile and slowest answer.
Targets: a 50 MB note paints within 1.5x of no note; every key answered within 100 ms.

With --reference, each run is made twice, interleaved: with the app's driver and with
Textual's input loop (`TEXTUAL_DRIVER` naming tui.ui.terminal's SafeLinuxDriver, the
driver the app's own replaces), which waits 0.1 s before it looks for a lone Esc.

    python bench/notes.py [--runs 5] [--mb 50] [--reference]
"""

from __future__ import annotations

import argparse
import math
import os
import re
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
# Esc on the list draws nothing. Esc's own times include the driver's wait for the rest
# of an escape sequence (25 ms; Textual's input loop: 100 to 200 ms).
KEYS = [(b"j", "down"), (b"k", "up"), (b"N", "notes view"), (b"\x1b", "Esc (view)")]
KEYS += [(b"n", "n"), (b"\x1b", ""), (b"v", "v (source)"), (b"v", "v (rendered)")]
DRIVERS = {"app's driver": None, "Textual's loop": "tui.ui.terminal:SafeLinuxDriver"}
# Operating system commands only (a pointer shape, a title): not the key's answer.
_ONLY_OSC = re.compile(rb"(?:\x1b\][^\x07\x1b]*(?:\x07|\x1b\\))+")


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


def answered(master: int, sent: float) -> float:
    """Seconds from `sent` to the app's answer: its first output that draws something."""
    seen = b""
    while _ONLY_OSC.fullmatch(seen) or not seen:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            return math.inf
        seen += os.read(master, 65536)
    return time.perf_counter() - sent


def run_once(data_dir: Path, driver: str | None) -> tuple[float, dict[str, float]]:
    """(seconds to the first frame, seconds to each key's answer); `driver` as DRIVERS."""
    env = base_env(str(data_dir))
    if driver is not None:
        env["TEXTUAL_DRIVER"] = driver
    # Memory is not sampled: reading /proc every 20 ms would delay the answers timed here.
    run = Run([sys.executable, "-m", "tui", "--data-dir", str(data_dir)], env, sample_memory=False)
    try:
        painted = run.wait_for(b"abstracts", timeout=120)
        read_for(run.master, 3.0)  # the user's data opens after the first paint
        answers = {}
        for key, label in KEYS:
            run.drain(0.3)  # the screen settled: what comes next answers this key
            sent = time.perf_counter()
            os.write(run.master, key)
            if label:
                answers[label] = answered(run.master, sent)
        run.drain(0.3)
        return painted, answers
    finally:
        run.end()


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank)."""
    ranked = sorted(values)
    return ranked[math.ceil(0.95 * len(ranked)) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--reference", action="store_true", help="also run on Textual's input loop")
    args = parser.parse_args()
    cases = {"no note": 0.0, f"{args.mb:g} MB note": args.mb}
    drivers = DRIVERS if args.reference else {"app's driver": None}
    runs = [(case, name) for case in cases for name in drivers]
    paints: dict[tuple[str, str], list[float]] = {run: [] for run in runs}
    per_key: dict[tuple[str, str], dict[str, list[float]]] = {run: {} for run in runs}
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {}
        for case, megabytes in cases.items():
            dirs[case] = Path(tmp) / case.replace(" ", "-")
            make_data_dir(dirs[case], megabytes)
            run_once(dirs[case], None)  # warm the caches and the OS file cache
        for _ in range(args.runs):
            for case, name in runs:  # interleaved, so machine noise hits all alike
                painted, answers = run_once(dirs[case], drivers[name])
                paints[case, name].append(painted)
                for key, took in answers.items():
                    per_key[case, name].setdefault(key, []).append(took)
    first = next(iter(drivers))
    floor = statistics.median(paints["no note", first])
    print(f"First paint and key answers, {args.runs} runs each (medians; keys: slowest run)")
    print(f"{'case':16} {'driver':15} {'first paint':>12} {'ratio':>7} {'slowest key':>12}")
    for case, name in runs:
        paint = statistics.median(paints[case, name])
        slowest = max(max(took) for took in per_key[case, name].values())
        print(
            f"{case:16} {name:15} {paint * 1000:10.0f}ms {paint / floor:6.2f}x "
            f"{slowest * 1000:10.0f}ms"
        )
    print("\nKey answers (ms): median / 95th percentile / slowest")
    labels = [label for _, label in KEYS if label]
    print(f"{'case':16} {'driver':15} " + " ".join(f"{label:>14}" for label in labels))
    for case, name in runs:
        figures = []
        for label in labels:
            times = per_key[case, name][label]
            figures.append(
                f"{statistics.median(times) * 1000:.0f}/{p95(times) * 1000:.0f}/"
                f"{max(times) * 1000:.0f}"
            )
        print(f"{case:16} {name:15} " + " ".join(f"{f:>14}" for f in figures))


if __name__ == "__main__":
    main()
