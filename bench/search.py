"""Search benchmark: our index against SQLite FTS5 on the same abstracts, in one run.

    python bench/search.py [--corpus DIR] [--synthetic N] [--json]

For the corpus (default ../shared/corpora/iclr) and a synthetic corpus of N
abstracts recombined from its sentences (default 100,000; 0 skips it): index
build (cold, and warm from the cache), per-keystroke query time (every prefix
of a fixed set of 1-3 term queries with typos and prefixes, typed from scratch
with cold term caches), list update (headlines and highlight spans of the first
50 rows), a pasted 20,000-word query (`graph ` repeated: answered or refused), peak
RSS, and the same keystrokes through FTS5 (bm25, prefix `term*`).
session_* figures come from fresh processes doing what a user's session does
(load the files, build the index or read it from the cache, type the queries):
the first run builds (cold), the second starts from the cache (warm).
bench_process_peak_rss_mb is this process, which holds everything at once.
The table ends with each target (keystroke times, FTS5 ratio,
build, warm start, session peak RSS against 1 GB), met or not.
Prints figures; never fails on slow machines.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tui.corpus.model import Abstract, Corpus, FileInfo, SourceRef  # noqa: E402
from tui.corpus.tokens import tokenize  # noqa: E402
from tui.search import cache  # noqa: E402
from tui.search.index import SearchIndex  # noqa: E402
from tui.search.query import QueryError, parse_query  # noqa: E402

QUERIES = [
    "contrastive",
    "contrastve learning",
    "vison langage",
    "graph neural network",
    "diffusion models",
    "reinforcment learning",
    "adversarial robustness",
    "gan",
    "meta learn",
    "bayesian optimisation",
    "knowledge distilation",
    "langauge model",
    "transformer attention",
    "federated",
    "sparse reward exploration",
]
ROWS = 50  # list rows painted after a new result
LONG_QUERY = "graph " * 20_000


def peak_rss_mb() -> float:
    """Peak RSS of this process in MiB. VmHWM where available: ru_maxrss survives exec on
    Linux, so a child started by a big parent would report the parent's peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def keystrokes(query: str) -> list[str]:
    return [query[:i] for i in range(1, len(query) + 1)]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def synthetic(base: Corpus, n: int, seed: int = 0) -> Corpus:
    """N abstracts of 4-9 sentences drawn at random from the base corpus: realistic words."""
    rng = random.Random(seed)
    sentences = [s for a in base.abstracts for s in a.plain.split(". ") if len(s) > 20]
    collections = [a.collection for a in base.abstracts]
    abstracts: list[Abstract] = []
    files: list[FileInfo] = []
    per_file = 1000
    for f in range(0, n, per_file):
        path = Path(f"synthetic/{f // per_file:03d}.txt")
        h = hashlib.blake2b(digest_size=16)
        count = min(per_file, n - f)
        collection = rng.choice(collections)
        for pos in range(count):
            text = ". ".join(rng.choice(sentences) for _ in range(rng.randint(4, 9))) + "."
            ident = hashlib.blake2b(f"{f + pos}:{text}".encode(), digest_size=8).hexdigest()
            h.update(ident.encode())
            abstract = Abstract(ident, text, collection, [SourceRef(path, pos + 1)])
            abstract._plain = text
            abstracts.append(abstract)
        files.append(FileInfo(path, collection, count, h.hexdigest()))
    return Corpus(abstracts, files, [])


def fts_query(text: str) -> str | None:
    words = tokenize(text)
    if not words:
        return None
    parts = [f'"{w}"' for w in words]
    if not text[-1].isspace():
        parts[-1] += "*"
    return " ".join(parts)


def write_corpus(corpus: Corpus, folder: Path) -> None:
    """Write a corpus as abstract files, so a fresh process can load it the way users do."""
    by_file: dict[Path, list[Abstract]] = {}
    for a in corpus.abstracts:
        by_file.setdefault(a.source.path, []).append(a)
    for path, abstracts in by_file.items():
        target = folder / path.name
        header = abstracts[0].collection.label
        target.write_text(header + "\n\n" + "\n\n".join(a.text for a in abstracts) + "\n")


def session(corpus_dir: str, cache_dir: str) -> tuple[float, float]:
    """(start seconds, peak RSS MiB) of a fresh process doing what a user's session does:
    load the files, load or build the index, type every query."""
    code = "import sys; sys.path.insert(0, sys.argv[1]); import bench.search as b; b.probe()"
    out = subprocess.run(
        [sys.executable, "-c", code, str(REPO), corpus_dir, cache_dir],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        start, rss = out.stdout.split()[-2:]
        return float(start), float(rss)
    except ValueError:
        print(out.stderr, file=sys.stderr)
        return float("nan"), float("nan")


def probe() -> None:
    """The child side of `session` (arguments in sys.argv)."""
    from tui.corpus.load import load_corpus

    corpus_dir, cache_dir = sys.argv[2], sys.argv[3]
    t0 = time.perf_counter()
    corpus = load_corpus([corpus_dir])
    index = cache.load_or_build(corpus, Path(cache_dir))
    start = time.perf_counter() - t0
    for q in QUERIES:
        for text in keystrokes(q):
            query = parse_query(text)
            result = index.search(query, corpus)
            highlighter = index.highlighter(query)
            for i in result.indices[:ROWS]:
                highlighter.spans(corpus.abstracts[i].headline)
    print(start, peak_rss_mb())


def tantivy_keystrokes(corpus: Corpus) -> tuple[float, list[float]]:
    """(build seconds, per-keystroke query seconds) of tantivy (en_stem, BM25, the typed
    words ORed, the last one also as a prefix: `phrase_prefix` is tantivy's nearest), on
    the same abstracts and keystrokes. (nan, []) when tantivy is not installed."""
    from bench.quality import build_tantivy

    with tempfile.TemporaryDirectory() as tmp:
        made = build_tantivy(corpus, Path(tmp))
        if made is None:
            return float("nan"), []
        index, searcher, built = made
        times: list[float] = []
        for q in QUERIES:
            for text in keystrokes(q):
                words = tokenize(text)
                t0 = time.perf_counter()
                if words:
                    query = index.parse_query(" ".join(words), ["body"])
                    searcher.search(query, 50, count=True)
                times.append(time.perf_counter() - t0)
        return built, times


def measure(name: str, corpus: Corpus, corpus_dir: str | None) -> dict[str, float | int | str]:
    n = len(corpus.abstracts)
    with tempfile.TemporaryDirectory() as tmp:
        if corpus_dir is None:
            corpus_dir = str(Path(tmp) / "corpus")
            Path(corpus_dir).mkdir()
            write_corpus(corpus, Path(corpus_dir))
        cold_start, cold_rss = session(corpus_dir, str(Path(tmp) / "cache"))
        warm_start, warm_rss = session(corpus_dir, str(Path(tmp) / "cache"))
    start = time.perf_counter()
    for a in corpus.abstracts:
        _ = a.plain, a.headline
    render = time.perf_counter() - start

    start = time.perf_counter()
    built = SearchIndex.build(corpus)
    cold = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        cache.save(built, corpus, Path(tmp))
        del built
        start = time.perf_counter()
        index = cache.load_or_build(corpus, Path(tmp))
        warm = time.perf_counter() - start

    query_t: list[float] = []
    update_t: list[float] = []
    key_t: list[float] = []
    for q in QUERIES:
        index.clear_caches()  # each query typed from scratch
        for text in keystrokes(q):
            t0 = time.perf_counter()
            query = parse_query(text)
            result = index.search(query, corpus)
            t1 = time.perf_counter()
            highlighter = index.highlighter(query)
            for i in result.indices[:ROWS]:
                highlighter.spans(corpus.abstracts[i].headline)
            t2 = time.perf_counter()
            query_t.append(t1 - t0)
            update_t.append(t2 - t1)
            key_t.append(t2 - t0)
    rss = peak_rss_mb()
    # A pasted page: answered (or refused with the cap message) as fast as a keystroke.
    t0 = time.perf_counter()
    with contextlib.suppress(QueryError):
        index.search(parse_query(LONG_QUERY), corpus)
    long_query = time.perf_counter() - t0

    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(headline, body, prefix='2 3')")
    db.executemany(
        "INSERT INTO t(rowid, headline, body) VALUES (?, ?, ?)",
        ((i, a.headline, a.plain) for i, a in enumerate(corpus.abstracts)),
    )
    db.commit()
    fts_t: list[float] = []
    for q in QUERIES:
        for text in keystrokes(q):
            match = fts_query(text)
            t0 = time.perf_counter()
            if match is not None:
                db.execute(
                    "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t)", (match,)
                ).fetchall()
            fts_t.append(time.perf_counter() - t0)
    db.close()
    tantivy_build, tantivy_t = tantivy_keystrokes(corpus)

    ms = 1000.0
    return {
        "corpus": name,
        "abstracts": n,
        "vocabulary": len(index.data.vocab),
        "render_s": render,
        "build_cold_s": cold,
        "start_warm_s": warm,
        "keystrokes": len(key_t),
        "query_median_ms": statistics.median(query_t) * ms,
        "query_p95_ms": pct(query_t, 95) * ms,
        "list_update_median_ms": statistics.median(update_t) * ms,
        "list_update_p95_ms": pct(update_t, 95) * ms,
        "keystroke_median_ms": statistics.median(key_t) * ms,
        "keystroke_p95_ms": pct(key_t, 95) * ms,
        "long_query_ms": long_query * ms,
        "fts5_median_ms": statistics.median(fts_t) * ms,
        "fts5_p95_ms": pct(fts_t, 95) * ms,
        "ratio_median_vs_fts5": statistics.median(query_t) / max(statistics.median(fts_t), 1e-9),
        "tantivy_build_s": tantivy_build,
        "tantivy_median_ms": statistics.median(tantivy_t) * ms if tantivy_t else float("nan"),
        "tantivy_p95_ms": pct(tantivy_t, 95) * ms if tantivy_t else float("nan"),
        "session_cold_start_s": cold_start,
        "session_warm_start_s": warm_start,
        "session_cold_peak_rss_mb": cold_rss,
        "session_warm_peak_rss_mb": warm_rss,
        "bench_process_peak_rss_mb": rss,
    }


GB_MIB = 1e9 / 2**20  # 1 GB (10^9 bytes) in MiB, the unit RSS is printed in
# (row: 0 = the corpus, 1 = the synthetic one; figure; upper limit; what is asked,
# for 6,943 and 100,000 abstracts)
TARGETS: list[tuple[int, str, float, str]] = [
    (0, "keystroke_median_ms", 10.0, "per keystroke median at {n:,}"),
    (0, "keystroke_p95_ms", 25.0, "per keystroke p95 at {n:,}"),
    (1, "keystroke_p95_ms", 25.0, "per keystroke p95 at {n:,}"),
    (0, "long_query_ms", 1000.0, "a 20,000-word query answered or refused at {n:,}"),
    (1, "long_query_ms", 1000.0, "a 20,000-word query answered or refused at {n:,}"),
    (0, "ratio_median_vs_fts5", 1.0, "median query / FTS5's at {n:,}"),
    (1, "ratio_median_vs_fts5", 1.0, "median query / FTS5's at {n:,}"),
    (0, "session_cold_start_s", 1.5, "fresh data dir: files loaded + index built at {n:,}"),
    (1, "session_cold_start_s", 8.0, "fresh data dir: files loaded + index built at {n:,}"),
    (1, "session_warm_start_s", 2.0, "start with a warm cache at {n:,} (load files + index)"),
    (1, "start_warm_s", 2.0, "index from the cache at {n:,} (files already loaded)"),
    (1, "session_cold_peak_rss_mb", 500.0, "peak RSS, cold session (builds) at {n:,}"),
    (1, "session_warm_peak_rss_mb", 500.0, "peak RSS, warm session (cache) at {n:,}"),
]


def check_targets(rows: list[dict[str, float | int | str]]) -> list[dict[str, object]]:
    """Each target with the measured figure and whether it is met."""
    checks: list[dict[str, object]] = []
    for row, key, limit, what in TARGETS:
        if row >= len(rows):
            continue
        value = float(rows[row][key])
        checks.append(
            {
                "target": what.format(n=rows[row]["abstracts"]),
                "corpus": rows[row]["corpus"],
                "figure": key,
                "value": value,
                "limit": limit,
                "met": value <= limit,
            }
        )
    return checks


def print_targets(checks: list[dict[str, object]]) -> None:
    print()
    print("targets (RSS in MiB; 1 GB = 10^9 bytes = 953.7 MiB)")
    for c in checks:
        verdict = "met" if c["met"] else "NOT MET"
        value, limit = float(str(c["value"])), float(str(c["limit"]))
        print(f"  {verdict:>7}  {value:>10.3f} <= {limit:<8.1f} {c['target']} [{c['figure']}]")


def print_table(rows: list[dict[str, float | int | str]]) -> None:
    keys = [k for k in rows[0] if k != "corpus"]
    width = max(len(k) for k in keys)
    print(f"{'':{width}}  " + "  ".join(f"{r['corpus']!s:>14}" for r in rows))
    for k in keys:
        cells = []
        for r in rows:
            v = r[k]
            cells.append(f"{v:>14,}" if isinstance(v, int) else f"{v:>14.3f}")
        print(f"{k:{width}}  " + "  ".join(cells))


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/search.py", description=__doc__)
    parser.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpora" / "iclr"))
    parser.add_argument("--synthetic", type=int, default=100_000, metavar="N")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from tui.corpus.load import load_corpus

    base = load_corpus([args.corpus])
    if not base.abstracts:
        print(f"no abstracts under {args.corpus}", file=sys.stderr)
        return 0
    rows = [measure(Path(args.corpus).name, base, args.corpus)]
    if args.synthetic:
        big = synthetic(base, args.synthetic)
        rows.append(measure(f"synthetic {args.synthetic:,}", big, None))
    checks = check_targets(rows)
    if args.json:
        for row in rows:
            print(json.dumps(row))
        for check in checks:
            print(json.dumps(check))
    else:
        print_table(rows)
        print_targets(checks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
