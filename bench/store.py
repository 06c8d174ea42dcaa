"""How long the UI waits on the store, against how long the disk takes.

Prints the median (and p95) time to toggle a bookmark, to save a 10 KB note and to add
or remove a tag with 100,000 abstracts loaded (each already carrying a tag, so the tag
index the search reads is as large as it gets), and to tag all 100,000 at once,
first with no abstract tagged yet (each needs its record made) and then again,
measured twice: until the `UserData` call returns (what the UI waits for) and until
the change is committed (`flush`: WAL fsync with synchronous=FULL). A temporary data
directory is used; `--corpus` (default ../shared/corpora/iclr) supplies real abstracts
when present, otherwise synthetic ones. Never fails a build.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tui.corpus.model import Abstract, Collection, SourceRef, abstract_id

if TYPE_CHECKING:
    from tui.store.userdata import UserData

REPO = Path(__file__).resolve().parent.parent


def _abstracts(corpus: Path, n: int) -> list[Abstract]:
    texts: list[str] = []
    if corpus.is_dir():
        for f in sorted(corpus.glob("*.txt")):
            body = f.read_text(encoding="utf-8").split("\n\n")[1:]
            texts += [p.strip() for p in body if p.strip()]
            if len(texts) >= n:
                break
    texts += [f"Synthetic abstract number {i}. It studies things." for i in range(n - len(texts))]
    coll = Collection("ICLR 2023 Papers", "ICLR", 2023)
    path = Path("bench.txt")  # one Path per file, shared by its abstracts, as the loader does
    return [
        Abstract(abstract_id(t), t, coll, [SourceRef(path, i + 1)]) for i, t in enumerate(texts[:n])
    ]


def _stats(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"median {statistics.median(ms):8.3f} ms   p95 {p95:8.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpora" / "iclr")
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    from tui.store.userdata import UserData

    abstracts = _abstracts(args.corpus, args.rounds)
    note = ("A ten kilobyte note about this abstract. " * 300)[:10_240]
    with tempfile.TemporaryDirectory() as tmp:
        ud = UserData.open(Path(tmp))
        rows = {}
        for label, action in (
            ("toggle bookmark", lambda a, i: ud.set_bookmark(a, i % 2 == 0)),
            ("save 10 KB note", lambda a, i: ud.save_note(a, f"{i} {note}")),
        ):
            rows[label] = _timed(
                ud, [lambda a=a, i=i, f=action: f(a, i) for i, a in enumerate(abstracts)]
            )
        ud.close()
    attach_line = _bench_attach(args.corpus)
    rows.update(_bench_tags(args.corpus, args.rounds))
    print(f"store bench: {args.rounds} rounds each, data dir on {tmp}")
    print(f"{'':18}{'UI waits (call returns)':>38}   {'disk (until committed)':>38}")
    for label, (ui, disk) in rows.items():
        ratio = statistics.median(disk) / max(statistics.median(ui), 1e-9)
        print(f"{label:18}{_stats(ui):>38}   {_stats(disk):>38}   disk/UI {ratio:,.0f}x")
    print(attach_line)


TAG_CORPUS = 100_000


def _timed(ud: UserData, actions: list[Callable[[], object]]) -> tuple[list[float], list[float]]:
    """Per action: until the call returns (what the UI waits for) and until committed."""
    ui, disk = [], []
    for action in actions:
        t0 = time.perf_counter()
        action()
        t1 = time.perf_counter()
        ud.flush(timeout=None)
        ui.append(t1 - t0)
        disk.append(time.perf_counter() - t0)
    return ui, disk


def _bench_tags(corpus: Path, rounds: int) -> dict[str, tuple[list[float], list[float]]]:
    """Tag add/remove at 100,000 abstracts, every one tagged `all` first; then one bulk
    step putting a new tag on all of them (what "Tag every abstract in the list" does)."""
    from tui.corpus.model import Corpus
    from tui.store.userdata import UserData

    everything = _abstracts(corpus, TAG_CORPUS)
    ids = [a.id for a in everything]
    rows: dict[str, tuple[list[float], list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        ud = UserData.open(Path(tmp))
        ud.attach(Corpus(everything, [], []))
        # The first tag on each abstract also makes its record (a snapshot with headline).
        rows["tag all 100k, first tag"] = _timed(
            ud, [lambda: ud.set_tags(on=[(i, "all") for i in ids])]
        )
        picked = [ids[k * 7 % len(ids)] for k in range(rounds)]
        rows["add a tag (100k)"] = _timed(
            ud, [lambda i=i, k=k: ud.set_tags(on=[(i, f"t{k % 5}")]) for k, i in enumerate(picked)]
        )
        rows["remove a tag (100k)"] = _timed(
            ud, [lambda i=i: ud.set_tags(off=[(i, "all")]) for i in picked]
        )
        rows["tag all 100k"] = _timed(
            ud, [lambda k=k: ud.set_tags(on=[(i, f"bulk{k}") for i in ids]) for k in range(3)]
        )
        ud.close()
    return rows


def _bench_attach(corpus: Path) -> str:
    """attach(): 30 orphans (lightly edited abstracts) against the whole corpus."""
    from tui.corpus.model import Corpus
    from tui.store.userdata import UserData

    everything = _abstracts(corpus, 7_000)
    coll = everything[0].collection
    with tempfile.TemporaryDirectory() as tmp:
        ud = UserData.open(Path(tmp))
        for a in everything[:30]:
            edited = a.text.replace(" the ", " a ", 1)
            ud.save_note(Abstract(abstract_id(edited), edited, coll, a.sources), "note")
        ud.flush(timeout=None)
        t0 = time.perf_counter()
        report = ud.attach(Corpus(everything, [], []))
        elapsed = time.perf_counter() - t0
        ud.close()
    return (
        f"attach: {len(everything):,} abstracts x 30 orphans: {elapsed * 1000:.1f} ms "
        f"({len(report.reattached)} re-attached, {len(report.ambiguous)} ambiguous)"
    )


if __name__ == "__main__":
    main()
