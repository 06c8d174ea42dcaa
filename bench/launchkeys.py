"""Keys typed at random moments while the app starts: none lost, none misrouted, no crash.

Each launch runs the whole app on a pseudo-terminal (120x40) and, after a random wait
of 0–2 s from the spawn (before, during or after the first paint and the opening of
the user's data), types `/`, a query and Enter as a user would, one key every 15 ms,
then `q` 3 s later (a quit before the user's data has opened saves no resume state;
that is not what is measured here). The oracle is what the app itself saved on quit:
the resume state in the data dir's database must hold exactly the query typed (not a
mix with the filter restored from the previous launch, not short of a key), and the
app must exit 0 (the `q` went to the list, not into the filter) with no traceback. Half the launches use a fresh data dir each, half one warm data dir whose
previous launch left a different query to restore. Queries alternate between launches.

    python bench/launchkeys.py [--launches 50] [--corpus DIR] [--seed 1]

Prints the counts of crashes, wrong filters and hung exits per case, and each failure.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from scale import Run, base_env  # noqa: E402

QUERIES = ["graph neural", "diffusion model", "contrastive", "reinforcement learning"]


def saved_filter(data_dir: Path) -> str | None:
    """The filter the app saved for resume (None: no resume state saved)."""
    from tui import locations

    path = locations.database_path(data_dir)
    if not path.exists():
        return None
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT value FROM state WHERE key LIKE 'resume:%'").fetchall()
    finally:
        db.close()
    if not rows:
        return None
    return str(json.loads(rows[0][0]).get("filter"))


def launch(corpus: str, data_dir: Path, query: str, wait: float) -> tuple[str, str]:
    """One launch; (outcome, detail): outcome is `ok`, `crash`, `hung` or `wrong`."""
    run = Run(
        [sys.executable, "-m", "tui", "--data-dir", str(data_dir), corpus],
        base_env(str(data_dir)),
        sample_memory=False,
    )
    try:
        time.sleep(wait)
        for key in ["/", *query, "\r"]:
            run.type(key)
            time.sleep(0.015)
        time.sleep(3.0)
        run.type("q")
        deadline = time.perf_counter() + 60
        while run.proc.poll() is None and time.perf_counter() < deadline:
            with contextlib.suppress(TimeoutError):
                run.wait_for(b"\x00never", timeout=0.2)
        output = run.seen
        status = run.proc.poll()
    finally:
        run.end()
    if status is None:
        return "hung", f"no exit 60 s after q (wait {wait:.2f} s)"
    if status != 0 or b"Traceback" in output:
        logs = sorted(data_dir.glob("crash-*.log"))
        last = logs[-1].read_text(errors="replace").strip().splitlines()[-12:] if logs else []
        for log in logs:  # the next launch in a warm dir must not report it again
            log.unlink()
        return "crash", f"exit {status} (wait {wait:.2f} s)" + "".join(
            f"\n        {line}" for line in last
        )
    saved = saved_filter(data_dir)
    if saved != query:
        return "wrong", f"typed {query!r}, saved filter {saved!r} (wait {wait:.2f} s)"
    return "ok", ""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--launches", type=int, default=50, help="per case (fresh, warm)")
    parser.add_argument("--corpus", default=str(REPO / "seeds"))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm"
        launch(args.corpus, warm, "attention", 3.0)  # caches built, a filter to restore
        for case in ("fresh", "warm"):
            outcomes: dict[str, int] = {"ok": 0, "crash": 0, "wrong": 0, "hung": 0}
            failures = []
            started = time.perf_counter()
            for n in range(args.launches):
                data_dir = Path(tmp) / f"fresh-{n}" if case == "fresh" else warm
                query = QUERIES[n % len(QUERIES)]
                outcome, detail = launch(args.corpus, data_dir, query, rng.uniform(0.0, 2.0))
                outcomes[outcome] += 1
                if detail:
                    failures.append(f"    {case} #{n}: {outcome}: {detail}")
            took = time.perf_counter() - started
            counts = ", ".join(f"{k} {v}" for k, v in outcomes.items())
            print(f"{case:6} {args.launches} launches in {took:.0f} s: {counts}")
            print("\n".join(failures[:20]))


if __name__ == "__main__":
    main()
