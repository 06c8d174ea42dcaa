"""Time from process start to the first painted screen.

Runs, in one go and interleaved so machine noise hits all alike:
  * a minimal Textual app (one Label): the floor no Textual app can beat;
  * abstracts on the bundled seeds;
  * abstracts on the ICLR corpus (6,943 abstracts in 369 files).
Each child runs for real on a pseudo-terminal (120x40, xterm-256color), and
the parent times from spawning it to reading its first frame off the
terminal (a marker text inside the first full-screen update), then kills it.
Prints medians and ratios against the floor. Targets: seeds <= 1.3x, ICLR <= 2x.

    python bench/startup.py [--runs 9] [--corpus DIR] [--json]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COLUMNS, LINES = 120, 40

CHILD = r"""
import sys
kind, target = sys.argv[1], sys.argv[2]
if kind == "minimal":
    from textual.app import App
    from textual.widgets import Label

    class Minimal(App):
        def compose(self):
            yield Label("hello")

    Minimal().run()
else:
    from tui.cli import main

    sys.exit(main([target] if target else []))
"""

# Text each app paints in its first frame (Textual writes the whole screen as one update).
MARKERS = {"minimal": b"hello", "app": b"abstracts"}


def time_child(kind: str, target: str, data_dir: str) -> float:
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    # As installed by pip, every module has its bytecode cached. A development shell that
    # sets PYTHONDONTWRITEBYTECODE would make only this project (not Textual, installed
    # with its caches) compile from source at every start; the warm-up run writes them.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        ABSTRACTS_DATA_DIR=data_dir,
        TERM="xterm-256color",
        COLUMNS=str(COLUMNS),
        LINES=str(LINES),
    )
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, kind, target],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=REPO,
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    marker = MARKERS[kind]
    try:
        while marker not in seen:
            ready, _, _ = select.select([master], [], [], 30)
            if not ready:
                raise RuntimeError(f"{kind} never painted")
            seen = seen[-len(marker) :] + os.read(master, 65536)
        return time.perf_counter() - start
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        os.close(master)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpora" / "iclr"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    cases = [("minimal Textual app", "minimal", ""), ("abstracts: bundled seeds (76)", "app", "")]
    if Path(args.corpus).is_dir():
        cases.append(("abstracts: ICLR corpus (6,506 abstracts)", "app", args.corpus))
    else:
        print(f"(corpus {args.corpus} not found: ICLR case skipped)", file=sys.stderr)

    times: dict[str, list[float]] = {label: [] for label, _, _ in cases}
    with tempfile.TemporaryDirectory() as data_dir:
        for _label, kind, target in cases:  # warm the OS file cache and the index cache once
            time_child(kind, target, data_dir)
        for _ in range(args.runs):
            for label, kind, target in cases:
                times[label].append(time_child(kind, target, data_dir))

    floor = statistics.median(times[cases[0][0]])
    rows = []
    for label, _, _ in cases:
        median = statistics.median(times[label])
        rows.append(
            {
                "case": label,
                "median_ms": median * 1000,
                "min_ms": min(times[label]) * 1000,
                "ratio": median / floor,
            }
        )
    if args.json:
        print(json.dumps(rows))
        return
    print(
        f"Start-up to first painted screen, {args.runs} runs each (median, min, ratio to the floor)"
    )
    print(f"{'case':42} {'median':>9} {'min':>9} {'ratio':>7}")
    for row in rows:
        print(
            f"{row['case']:42} {row['median_ms']:7.0f}ms {row['min_ms']:7.0f}ms {row['ratio']:6.2f}x"
        )
    print("targets: seeds <= 1.30x, ICLR <= 2.00x")


if __name__ == "__main__":
    main()
