"""Where a cold start's memory goes: each process of the app's tree, stage by stage.

Runs the app on a fresh data dir on a pseudo-terminal (as bench/scale.py does, a
query typed once the screen is up), samples every process of its group every 20 ms
(PSS, as scale.py sums it) and names each by its role: the app, the cache child
(`python -m tui.caches`), and the child's forked helpers (the index's second half,
the near-duplicates). The child's stage is read from the cache folder: which cache
files exist (a temporary one being written counts as its stage under way). Prints,
per stage, the seconds it lasted and the peak of each role and of their sum, the CPU
seconds each role used in it (user and system: where the two cores go), then the
moment of the whole tree's peak and what each role held then.

    python bench/stages.py [--synthetic 100000] [--corpus DIR] [--path DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale import APP, QUERY, Run, Tree, base_env, caches_done, write_synthetic


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def _stage(cache: Path) -> str:
    """The child's stage, from the cache files written so far."""
    try:
        names = [p.name for p in cache.iterdir()]
    except OSError:
        return "reading"
    if not any(n.startswith("read-") and n.endswith(".sqlite") for n in names):
        return "reading"  # until the read cache is saved
    done = [
        k
        for k in ("search", "similar", "topics")
        if any(n.startswith(k) and n.endswith(".npz") for n in names)
    ]
    if not done:
        return "index"
    if done == ["search"]:
        return "similar+topics"
    if "similar" in done and "topics" not in done:
        return "topics (after similar)"
    return "done"


_HZ = os.sysconf("SC_CLK_TCK")


def _ticks(pid: int) -> int | None:
    """The CPU time (user + system, in clock ticks) `pid` has used so far."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


class Roles(Tree):
    """A `Tree` that also keeps, per sample, the PSS of each role and the child's stage."""

    def __init__(self, pgid: int, cache: Path) -> None:
        self.cache = cache
        self.start = time.perf_counter()
        self.samples: list[tuple[float, str, dict[str, int]]] = []
        self.roles: dict[int, str] = {}
        # CPU seconds (user + system) per stage and role, and each process's last reading.
        self.cpu: dict[str, dict[str, float]] = {}
        self._ticks: dict[int, int] = {}
        super().__init__(pgid)

    def _role(self, pid: int) -> str:
        role = self.roles.get(pid)
        if role is None:
            if pid == self.pgid:
                role = "app"
            elif "tui.caches" in _cmdline(pid):
                role = "child" if self.roles.get(_parent(pid)) == "app" else "helper"
            else:
                parent = self.roles.get(_parent(pid), "")
                role = "helper" if parent in ("child", "helper") else "other"
            self.roles[pid] = role
        return role

    def _run(self) -> None:
        while not self._stop.is_set():
            by_role: dict[str, int] = {}
            stage = _stage(self.cache)
            cpu = self.cpu.setdefault(stage, {})
            for pid in sorted(self._pids()):
                role = self._role(pid)
                by_role[role] = by_role.get(role, 0) + self._pss(pid)
                ticks = _ticks(pid)
                if ticks is not None:
                    used = ticks - self._ticks.get(pid, 0)
                    self._ticks[pid] = ticks
                    cpu[role] = cpu.get(role, 0.0) + used / _HZ
            total = sum(by_role.values())
            self.peak_kb = max(self.peak_kb, total)
            self.samples.append((time.perf_counter() - self.start, stage, by_role))
            self._stop.wait(0.02)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=100_000)
    parser.add_argument("--corpus", default="/work/shared/corpora/iclr")
    parser.add_argument("--path", help="a corpus folder to use as is (no synthetic one written)")
    parser.add_argument(
        "--every",
        type=float,
        default=0.0,
        help="also print each role's PSS every this many seconds",
    )
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="abstracts-stages-"))
    try:
        path = args.path
        if path is None:
            path = str(tmp / "synthetic")
            write_synthetic(args.corpus, args.synthetic, Path(path))
        data_dir = tmp / "data"
        data_dir.mkdir()
        run = Run([sys.executable, "-c", APP, path], base_env(str(data_dir)), sample_memory=False)
        roles = Roles(run.proc.pid, data_dir / "cache")
        run.tree = roles
        try:
            paint = run.wait_for(b"abstracts")
            run.type("/" + QUERY)
            while not caches_done(str(data_dir)) and time.perf_counter() - run.start < 240:
                run.pump(0.05)  # a terminal reads what the app writes (else it waits)
            done = time.perf_counter() - run.start
            run.drain(0.5)
        finally:
            run.end()
        report(roles, paint, done)
        if args.every > 0:
            timeline(roles, args.every)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def report(roles: Roles, paint: float, done: float) -> None:
    started = next((at for at, _, by_role in roles.samples if "child" in by_role), float("nan"))
    print(
        f"first paint {paint:.2f}s, cache child started {started:.1f}s,"
        f" background done {done:.1f}s (from launch)"
    )
    names = ["app", "child", "helper", "other"]
    print(f"{'stage':24} {'from':>6} {'to':>6}  " + " ".join(f"{n:>7}" for n in names) + "    sum")
    stages: dict[str, list[tuple[float, dict[str, int]]]] = {}
    for at, stage, by_role in roles.samples:
        stages.setdefault(stage, []).append((at, by_role))
    for stage, rows in stages.items():
        peaks = [max(r.get(n, 0) for _, r in rows) / 1024 for n in names]
        total = max(sum(r.values()) for _, r in rows) / 1024
        print(
            f"{stage:24} {rows[0][0]:6.1f} {rows[-1][0]:6.1f}  "
            + " ".join(f"{p:7.0f}" for p in peaks)
            + f" {total:6.0f}"
        )
    print("CPU seconds used in each stage (a core's worth per second of wall time):")
    print(f"{'stage':24} {'':13}  " + " ".join(f"{n:>7}" for n in names) + "    sum")
    for stage, used in roles.cpu.items():
        print(
            f"{stage:24} {'':13}  "
            + " ".join(f"{used.get(n, 0.0):7.1f}" for n in names)
            + f" {sum(used.values()):6.1f}"
        )
    at, stage, by_role = max(roles.samples, key=lambda s: sum(s[2].values()))
    print(
        f"tree peak {sum(by_role.values()) / 1024:.0f} MB at {at:.1f}s ({stage}): "
        + ", ".join(f"{n} {v / 1024:.0f}" for n, v in sorted(by_role.items()))
    )


def timeline(roles: Roles, every: float) -> None:
    """Each role's PSS (MB) and the stage, at the first sample of every `every` seconds."""
    names = ["app", "child", "helper", "other"]
    print(f"{'at':>6}  " + " ".join(f"{n:>7}" for n in names) + "    sum  stage")
    due = 0.0
    for at, stage, by_role in roles.samples:
        if at >= due:
            due = at + every
            row = " ".join(f"{by_role.get(n, 0) / 1024:7.0f}" for n in names)
            print(f"{at:6.1f}  {row} {sum(by_role.values()) / 1024:6.0f}  {stage}")


if __name__ == "__main__":
    main()
