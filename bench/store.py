"""How long the UI waits on the store, against how long the disk takes.

Prints the median (and p95) time to toggle a bookmark, to save a 10 KB note and to add
or remove a tag with 100,000 abstracts loaded (each already carrying a tag, so the tag
index the search reads is as large as it gets), measured twice: until the `UserData`
call returns (what the UI waits for) and until the change is committed (`flush`: WAL
fsync with synchronous=FULL).

Then the bulk steps, at the corpus as loaded (ICLR: 6,506) and at 100,000 (the corpus
and synthetic abstracts): tagging every abstract with a first tag (each record made
and written with its text) and with a later one, and marking every abstract read (`A`).
Each prints the median time until the call returns, until committed after it returns
(the "saving…" the header shows) and the two together (asked to committed), against a
reference measured in the same run: SQLite alone writing the same data as plain rows (a
row per record, as the `records` table of the code measured holds one; tags; read
marks) with executemany in one transaction on the same settings (from schema 6 the
store keeps a first tag's records in one pack instead); and the process's CPU time from
asked to committed, which other work on a shared machine sways less. `--before REV`
measures the bulk steps of the code at REV too (and its reference, with its schema's
records), in turns with this code's, and prints old / new. The machine's load is
printed with them. A temporary data directory is used; `--corpus` (default
../shared/corpora/iclr) supplies real abstracts when present, otherwise synthetic ones.
Never fails a build.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    parser.add_argument("--bulk-runs", type=int, default=3, help="runs of each bulk step")
    parser.add_argument("--before", metavar="REV", help="also time the bulk steps at REV (git)")
    parser.add_argument("--bulk-json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bulk_json:  # a turn of `--before`: this file run on the tui of another revision
        print(json.dumps(_bench_bulk(args.corpus, 1)))
        return
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
    load = os.getloadavg()
    bulk = _bench_bulk_turns(args.corpus, args.bulk_runs, args.before)
    print(f"store bench: {args.rounds} rounds each, data dir on {tmp}")
    print(f"{'':18}{'UI waits (call returns)':>38}   {'disk (until committed)':>38}")
    for label, (ui, disk) in rows.items():
        ratio = statistics.median(disk) / max(statistics.median(ui), 1e-9)
        print(f"{label:18}{_stats(ui):>38}   {_stats(disk):>38}   disk/UI {ratio:,.0f}x")
    print(attach_line)
    _print_bulk(bulk, args.before)
    print(f"machine load (1, 5, 15 min) before the bulk steps {load}, after {os.getloadavg()}")


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
    """Tag add/remove at 100,000 abstracts, every one tagged `all` first."""
    from tui.corpus.model import Corpus
    from tui.store.userdata import UserData

    everything = _abstracts(corpus, TAG_CORPUS)
    ids = [a.id for a in everything]
    rows: dict[str, tuple[list[float], list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        ud = UserData.open(Path(tmp))
        ud.attach(Corpus(everything, [], []))
        ud.set_tags(on=[(i, "all") for i in ids])
        ud.flush(timeout=None)
        picked = [ids[k * 7 % len(ids)] for k in range(rounds)]
        rows["add a tag (100k)"] = _timed(
            ud, [lambda i=i, k=k: ud.set_tags(on=[(i, f"t{k % 5}")]) for k, i in enumerate(picked)]
        )
        rows["remove a tag (100k)"] = _timed(
            ud, [lambda i=i: ud.set_tags(off=[(i, "all")]) for i in picked]
        )
        ud.close()
    return rows


#: A bulk step's figures: label -> (call returned, committed after the call, reference,
#: CPU time of the process from the call to the commit: all threads, so less swayed by
#: other work on the machine than the wall clock).
Bulk = dict[str, tuple[list[float], list[float], list[float], list[float]]]


def _bulk_corpora(corpus: Path) -> list[tuple[str, list[Abstract]]]:
    """The corpus as the app loads it, and 100,000 abstracts: it and synthetic ones."""
    from tui.corpus.load import load_corpus

    loaded = load_corpus([corpus]).abstracts if corpus.is_dir() else []
    coll = Collection("ICLR 2023 Papers", "ICLR", 2023)
    path = Path("bench.txt")
    extra = [f"Synthetic abstract number {i}. It studies things." for i in range(TAG_CORPUS)]
    more = [
        Abstract(abstract_id(t), t, coll, [SourceRef(path, i + 1)])
        for i, t in enumerate(extra[: TAG_CORPUS - len(loaded)])
    ]
    sizes = [(f"{len(loaded):,}", loaded)] if loaded else []
    return [*sizes, (f"{TAG_CORPUS:,}", loaded + more)]


def _bench_bulk(corpus: Path, runs: int) -> Bulk:
    """Each bulk step on a fresh data dir, `runs` times, and its SQLite reference."""
    from tui.corpus.model import Corpus
    from tui.store.userdata import UserData

    out: Bulk = {}
    for size, abstracts in _bulk_corpora(corpus):
        ids = [a.id for a in abstracts]
        for _ in range(runs):
            references = _sqlite_reference(abstracts)
            with tempfile.TemporaryDirectory() as tmp:
                ud = UserData.open(Path(tmp))
                ud.attach(Corpus(abstracts, [], []))
                steps: list[tuple[str, Callable[[], object]]] = [
                    (f"tag all {size}, first tag", partial(ud.set_tags, [(i, "a") for i in ids])),
                    (f"tag all {size}, later tag", partial(ud.set_tags, [(i, "b") for i in ids])),
                    (f"A: all {size} read", partial(ud.set_read, abstracts, True)),
                ]
                for (label, action), reference in zip(steps, references, strict=True):
                    cpu, t0 = time.process_time(), time.perf_counter()
                    action()
                    t1 = time.perf_counter()
                    ud.flush(timeout=None)
                    t2, cpu = time.perf_counter(), time.process_time() - cpu
                    calls, afters, refs, cpus = out.setdefault(label, ([], [], [], []))
                    calls.append(t1 - t0)
                    afters.append(t2 - t1)
                    refs.append(reference)
                    cpus.append(cpu)
                ud.close()
    return out


def _sqlite_reference(abstracts: list[Abstract]) -> tuple[float, float, float]:
    """SQLite alone, on the store's settings (WAL, synchronous=FULL, its cache size): the
    same rows as a first tag (records with their text, and tags), a later tag and `A`
    written with executemany in one transaction each; the rows are made beforehand.

    The records are those of the schema of the code measured: from version 6 a record
    names its origin (file, collection, venue, year: one row for them all here), before
    it each record held them (so `--before` a revision of schema 5 writes those rows)."""
    import sqlite3

    from tui.store.schema import MIGRATIONS

    now = time.time()
    marks: list[tuple[Any, ...]] = [(a.id, now) for a in abstracts]
    with tempfile.TemporaryDirectory() as tmp:
        conn = sqlite3.connect(Path(tmp) / "reference.db", isolation_level=None)
        for pragma in ("journal_mode = WAL", "synchronous = FULL", "cache_size = -32768"):
            conn.execute(f"PRAGMA {pragma}")
        MIGRATIONS[0][1](conn)  # the tables of a new store
        columns = {r[1] for r in conn.execute("SELECT * FROM pragma_table_info('records')")}
        statements: list[tuple[str, list[tuple[Any, ...]]]] = [
            _reference_records(abstracts, "origin" in columns, now),
            ("INSERT OR IGNORE INTO tags(id, tag, created) VALUES (?, 'a', ?)", marks),
            ("INSERT OR IGNORE INTO tags(id, tag, created) VALUES (?, 'b', ?)", marks),
            ("INSERT OR IGNORE INTO reads(id, read_at) VALUES (?, ?)", marks),
        ]
        took = []
        for group in ((0, 1), (2,), (3,)):
            t0 = time.perf_counter()
            conn.execute("BEGIN IMMEDIATE")
            if group[0] == 0 and "origin" in columns:
                conn.execute(
                    "INSERT INTO origins(origin, source, collection, venue, year) "
                    "VALUES (1, ?, ?, ?, ?)",
                    (
                        str(abstracts[0].sources[0].path.absolute()),
                        *abstracts[0].collection._fields(),
                    ),
                )
            for k in group:
                conn.executemany(*statements[k])
            conn.execute("COMMIT")
            took.append(time.perf_counter() - t0)
        conn.close()
    return took[0], took[1], took[2]


def _reference_records(
    abstracts: list[Abstract], origins: bool, now: float
) -> tuple[str, list[tuple[Any, ...]]]:
    """The reference's statement and rows for the records of a first tag."""
    if origins:
        return (
            "INSERT OR IGNORE INTO records(id, text, headline, origin, position, paper, "
            "created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(a.id, a.text, "", 1, a.sources[0].position, None, now, now) for a in abstracts],
        )
    return (
        "INSERT OR IGNORE INTO records(id, text, headline, source, position, collection, "
        "venue, year, paper, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                a.id,
                a.text,
                "",
                str(a.sources[0].path.absolute()),
                a.sources[0].position,
                a.collection.label,
                a.collection.venue,
                a.collection.year,
                None,
                now,
                now,
            )
            for a in abstracts
        ],
    )


def _bench_bulk_turns(corpus: Path, runs: int, before: str | None) -> dict[str, Bulk]:
    """This code's bulk steps, and with `before` those of REV in a child process, in turns."""
    if before is None:
        return {"now": _bench_bulk(corpus, runs)}
    import subprocess

    results: dict[str, Bulk] = {"now": {}, before: {}}
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "archive", before, "tui"], cwd=REPO, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        child = [sys.executable, __file__, "--bulk-json", "--corpus", str(corpus)]
        for _ in range(runs):
            for name, path in (("now", str(REPO)), (before, tmp)):
                env = {**os.environ, "PYTHONPATH": path}
                done = subprocess.run(child, env=env, capture_output=True, text=True, check=True)
                for label, samples in json.loads(done.stdout).items():
                    kept = results[name].setdefault(label, ([], [], [], []))
                    for column, more in zip(kept, samples, strict=True):
                        column.extend(more)
    return results


def _print_bulk(results: dict[str, Bulk], before: str | None) -> None:
    med = statistics.median
    print(
        "\nbulk steps (medians): call returns | committed after the call | asked to committed"
        " | SQLite alone, same rows | asked to committed / SQLite | CPU, asked to committed"
    )
    for name, bulk in results.items():
        for label, (calls, afters, refs, cpus) in bulk.items():
            whole = med([c + a for c, a in zip(calls, afters, strict=True)])
            print(
                f"{name:>8} {label:32} {med(calls):6.3f} s | {med(afters):6.3f} s | "
                f"{whole:6.3f} s | {med(refs):6.3f} s | {whole / med(refs):5.2f}x | "
                f"{med(cpus):6.3f} s   ({len(calls)} runs)"
            )
    if before is not None:
        for label, (calls, afters, _, cpus) in results["now"].items():
            old_calls, old_afters, _, old_cpus = results[before][label]
            whole = med([c + a for c, a in zip(calls, afters, strict=True)])
            old = med([c + a for c, a in zip(old_calls, old_afters, strict=True)])
            print(
                f"{label:32} asked to committed: {before} / now {old / whole:.2f}x; "
                f"CPU {med(old_cpus) / med(cpus):.2f}x"
            )


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
