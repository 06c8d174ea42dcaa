"""The command line on warm caches, against an FTS5 query on the same abstracts, in one run.

For each corpus (ICLR when /work/shared/corpora/iclr or --corpus exists, and N
synthetic abstracts made from it by bench/scale.py's generator), with one data
dir warmed by a first run of each command, it times fresh processes, interleaved
so machine noise hits all alike:
  * `abstracts search QUERY PATH --limit 10` (text), the same with --json;
  * `abstracts list PATH --json` (every abstract, with its text);
  * references: a Python process that opens a prebuilt FTS5 table of the same
    abstracts and prints the top 10 of the same words (bm25) as JSON, and one that
    prints every row as JSON; and `python -c pass`, the interpreter's own start-up.
  * with --before REV, the same commands of the code at REV (git archive), on its own
    warmed data dir, in the same rounds;
  * the search index cache loaded alone (`search.cache.load_by` in a fresh process,
    after the imports): the load's wall time and the process's peak RSS, above what
    the imports left (now and, with --before, at REV).
It prints medians of the wall time and of the CPU time (user + sys of the process:
on a machine shared with other work, the steadier figure), the first runs on a
fresh data dir (which build the caches), and the ratios to the FTS5 references.
Targets: search warm at 100,000 <= 1 s; list --json <= 3 s.

    python bench/cli.py [--runs 5] [--synthetic 100000] [--corpus DIR] [--skip-big]
                        [--before REV]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
QUERY = "graph neural"

FTS_TOP = r"""
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute(
    "SELECT id, headline FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10", (sys.argv[2],)
)
for i, headline in rows:
    sys.stdout.write(json.dumps({"id": i, "headline": headline}, ensure_ascii=False) + "\n")
"""

FTS_ALL = r"""
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
out = sys.stdout
for i, headline, body in db.execute("SELECT id, headline, body FROM t"):
    out.write(json.dumps({"id": i, "headline": headline, "text": body}, ensure_ascii=False) + "\n")
"""

# Peak RSS from /proc (VmHWM): ru_maxrss would carry over the forking parent's peak.
LOAD_INDEX = r"""
import json, os, sys, time
from pathlib import Path
from tui import locations
from tui.search import cache
import numpy
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
cache_dir = locations.cache_dir(Path(os.environ["ABSTRACTS_DATA_DIR"]))
before = status("VmHWM")
start = time.perf_counter()
index = cache.load_by(cache_dir, sys.argv[1], sys.argv[2])
took = time.perf_counter() - start
peak = status("VmHWM")
out = {"found": index is not None, "seconds": took, "peak": peak, "added": peak - before}
print(json.dumps({**out, "after": status("VmRSS")}))
"""


def index_load(env: dict[str, str], cwd: Path, fingerprint: str, ids: str) -> dict[str, float]:
    """One load of the search index cache alone, in a fresh process (see LOAD_INDEX)."""
    out = subprocess.run(
        [sys.executable, "-c", LOAD_INDEX, fingerprint, ids],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, float] = json.loads(out.stdout)
    return found


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one process, its output thrown away."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def fts_table(path: str, target: Path) -> tuple[int, str, str]:
    """An FTS5 table of the abstracts `path` loads (id, headline, rendered text); their
    number, fingerprint and ids digest (what names their search index cache)."""
    from tui.corpus.load import load_corpus
    from tui.corpus.model import ids_digest

    corpus = load_corpus([path])
    db = sqlite3.connect(target)
    db.execute("CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, headline, body)")
    db.executemany(
        "INSERT INTO t(id, headline, body) VALUES (?, ?, ?)",
        ((a.id, a.headline, a.plain) for a in corpus.abstracts),
    )
    db.commit()
    db.close()
    return len(corpus), corpus.fingerprint, ids_digest(a.id for a in corpus.abstracts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--synthetic", type=int, default=100_000)
    parser.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpora" / "iclr"))
    parser.add_argument("--skip-big", action="store_true", help="ICLR only")
    parser.add_argument("--before", metavar="REV", help="also time the code at REV (git)")
    args = parser.parse_args()

    from scale import write_synthetic

    tmp = Path(tempfile.mkdtemp(prefix="abstracts-cli-bench-"))
    if not Path(args.corpus).is_dir():
        print(f"(corpus {args.corpus} not found: nothing to measure)")
        return
    corpora = [("ICLR", args.corpus)]
    if not args.skip_big:
        big = tmp / "synthetic"
        write_synthetic(args.corpus, args.synthetic, big)
        corpora.append((f"{args.synthetic:,} synthetic", str(big)))
    abstracts = [sys.executable, "-m", "tui"]
    before_dir = None
    if args.before:
        # `python -m tui` run in this folder imports its tui before the installed one.
        before_dir = tmp / "before"
        before_dir.mkdir()
        archive = subprocess.run(
            ["git", "archive", args.before, "tui"], cwd=REPO, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(before_dir)], input=archive.stdout, check=True)
    match = " ".join(f'"{w}"' for w in QUERY.split())
    try:
        for label, path in corpora:
            data_dir = tmp / f"data-{label}"
            env = {**os.environ, "ABSTRACTS_DATA_DIR": str(data_dir)}
            db = tmp / f"{label}.fts5.sqlite"
            size, fingerprint, ids = fts_table(path, db)
            commands = {
                "search": ["search", QUERY, path, "--limit", "10"],
                "search --json": ["search", QUERY, path, "--limit", "10", "--json"],
                "list --json": ["list", path, "--json"],
            }
            cases: dict[str, tuple[list[str], dict[str, str], Path]] = {
                name: ([*abstracts, *argv], env, REPO) for name, argv in commands.items()
            }
            if before_dir is not None:
                old_env = {**env, "ABSTRACTS_DATA_DIR": str(tmp / f"before-{label}")}
                for name, argv in commands.items():
                    cases[f"{name} ({args.before})"] = ([*abstracts, *argv], old_env, before_dir)
            cases["FTS5 top 10 (python)"] = (
                [sys.executable, "-c", FTS_TOP, str(db), match],
                env,
                REPO,
            )
            cases["FTS5 every row (python)"] = ([sys.executable, "-c", FTS_ALL, str(db)], env, REPO)
            cases["python -c pass"] = ([sys.executable, "-c", "pass"], env, REPO)
            cold: dict[str, tuple[float, float]] = {}
            for name in ("search", "list --json"):
                fresh = {**env, "ABSTRACTS_DATA_DIR": str(tmp / f"fresh-{label}-{len(cold)}")}
                cold[f"{name}, fresh data dir"] = timed(cases[name][0], fresh, REPO)
            for name in cases:  # warms each data dir
                timed(*cases[name])
            results: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
            for _ in range(args.runs):
                for name, case in cases.items():
                    results[name].append(timed(*case))
            print(f"\n{label}: {size:,} abstracts, {args.runs} runs (medians)")
            print(f"{'':30} {'wall':>8} {'CPU':>8}")
            for name, (wall, cpu) in cold.items():
                print(f"{name:30} {wall:7.2f}s {cpu:7.2f}s")
            medians = {}
            for name, runs in results.items():
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                medians[name] = (wall, cpu)
                print(f"{name:30} {wall:7.2f}s {cpu:7.2f}s")
            top, every = medians["FTS5 top 10 (python)"], medians["FTS5 every row (python)"]
            search, listing = medians["search"], medians["list --json"]
            print(
                f"  search / FTS5 top 10: wall {search[0] / top[0]:.1f}x, CPU {search[1] / top[1]:.1f}x; "
                f"list --json / FTS5 every row: wall {listing[0] / every[0]:.1f}x, "
                f"CPU {listing[1] / every[1]:.1f}x"
            )
            for name in commands if args.before else ():
                old = medians[f"{name} ({args.before})"]
                now = medians[name]
                print(
                    f"  {name}: {args.before} / now: wall {old[0] / now[0]:.1f}x, "
                    f"CPU {old[1] / now[1]:.1f}x"
                )
            print(
                "  targets at 100,000: search <= 1 s "
                f"({'met' if search[0] <= 1 else 'FAILED'} on wall time here), "
                f"list --json <= 3 s ({'met' if listing[0] <= 3 else 'FAILED'})"
                if size >= 100_000
                else "  (the targets are set at 100,000 abstracts)"
            )
            loads = {"now": (env, REPO)}
            if before_dir is not None:
                loads[args.before] = (old_env, before_dir)
            for name, (load_env, cwd) in loads.items():
                trials = [index_load(load_env, cwd, fingerprint, ids) for _ in range(args.runs)]
                if not all(r["found"] for r in trials):
                    print(f"  index load ({name}): no cache found")
                    continue
                seconds = statistics.median(r["seconds"] for r in trials)
                peak = statistics.median(r["peak"] for r in trials) / 1024
                added = statistics.median(r["added"] for r in trials) / 1024
                after = statistics.median(r["after"] for r in trials) / 1024
                medians[f"index load ({name})"] = (seconds, peak)
                print(
                    f"  index load alone ({name}): {seconds:.3f}s, "
                    f"peak RSS {peak:.0f} MB (+{added:.0f} MB over the imports), "
                    f"RSS once loaded {after:.0f} MB"
                )
            print(json.dumps({"corpus": label, "size": size, "medians": medians}), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
