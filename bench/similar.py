"""Similarity timings on a real corpus, against a reference measured in the same run.

Prints, for the ICLR corpus by default (6,943 abstracts in 369 files):
  * model build with a cold cache (tokenize, weight, write) and a warm one (read);
  * "more like this" (`similar(i, 10)`) median and p95 over random abstracts;
  * "more like my bookmarks" (`like(50 random seeds, all others, 10)`) median and p95;
  * the same two queries done the obvious way (pure Python dicts of TF-IDF
    weights, cosine with every abstract) on the same vectors, with the speed-up
    and the top-10 agreement, which checks the fast path computes the same thing.
Targets: more-like-this median <= 50 ms, bookmarks <= 200 ms, build <= 1 s.

Then, at the corpus's size and at `--synthetic` abstracts (default 100,000, recombined
from the corpus's sentences as bench/search.py makes them; 0 skips), the model as the
app meets it: the build with its parts (term counting, near-duplicates; CPU seconds
beside wall seconds, as the machine may be shared), the cache's load, its memory
(peak resident growth while loading, and what stays resident after), and a
near-duplicate look-up per call. "Before" lines are measured in the same run: a load
that reads the term counts and recomputes the weights and inverted index (what the
cache did before it held the whole model), and near-duplicates found by scoring the
abstract against every other one (what each call did).
`--calibrate` prints the closest pairs with their character ratio, the data the
near-duplicate thresholds in tui/similar/model.py were chosen from.

    python bench/similar.py [--corpus DIR] [--queries 300] [--synthetic N] [--calibrate]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from search import synthetic  # noqa: E402  (bench/search.py: the same synthetic corpus)

from tui import cachefile  # noqa: E402
from tui.corpus.load import load_corpus  # noqa: E402
from tui.corpus.model import Corpus  # noqa: E402
from tui.similar import SimilarityModel, cache  # noqa: E402
from tui.similar.duplicates import (  # noqa: E402
    DUPLICATE_COSINE,
    comparison_key,
    find_duplicates,
    is_reworded,
)
from tui.similar.model import _invert, _tfidf  # noqa: E402
from tui.similar.terms import TermMatrix, count_terms  # noqa: E402

Vector = dict[int, float]


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def dict_vectors(model: SimilarityModel) -> list[Vector]:
    """The model's vectors as plain dicts: the input of the reference implementation."""
    t = model.terms
    return [
        {
            int(term): float(w)
            for term, w in zip(
                t.indices[t.indptr[i] : t.indptr[i + 1]],
                model.weights[t.indptr[i] : t.indptr[i + 1]],
                strict=True,
            )
        }
        for i in range(t.n_docs)
    ]


def dot(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(w * b.get(term, 0.0) for term, w in a.items())


def reference_similar(vectors: list[Vector], i: int, k: int) -> list[int]:
    scores = [(dot(vectors[i], v), j) for j, v in enumerate(vectors) if j != i]
    scores.sort(key=lambda pair: (-pair[0], pair[1]))
    return [j for s, j in scores[:k] if s > 0]


def reference_like(vectors: list[Vector], seeds: Sequence[int], k: int) -> list[int]:
    centroid: Vector = {}
    for s in seeds:
        for term, w in vectors[s].items():
            centroid[term] = centroid.get(term, 0.0) + w / len(seeds)
    norm = math.sqrt(sum(w * w for w in centroid.values())) or 1.0
    seed_set = set(seeds)
    scored = []
    for j, v in enumerate(vectors):
        if j in seed_set:
            continue
        best = max(dot(vectors[s], v) for s in seeds)
        scored.append((0.5 * dot(centroid, v) / norm + 0.5 * best, j))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [j for s, j in scored[:k] if s > 0]


def overlap(a: Sequence[int], b: Sequence[int]) -> float:
    return len(set(a) & set(b)) / max(len(a), len(b), 1)


def calibrate(model: SimilarityModel, texts: Sequence[str]) -> None:
    from rapidfuzz import fuzz

    pairs = []
    for i in range(len(texts)):
        scores = model.scores(i)
        for found in (scores >= 0.45).nonzero()[0]:
            j = int(found)
            if j > i:
                ratio = fuzz.ratio(comparison_key(texts[i]), comparison_key(texts[j]))
                pairs.append((float(scores[j]), ratio, i, j))
    pairs.sort(reverse=True)
    print("\nclosest pairs (cosine, character ratio, near-duplicate?):")
    for cosine, ratio, i, j in pairs[:15]:
        flag = model.is_near_duplicate(i, j, cosine)
        print(f"  {cosine:.3f}  {ratio:5.1f}  {'yes' if flag else 'no ':3}  {i} {j}")


def cpu_timed(fn: Callable[[], object]) -> tuple[float, float, object]:
    """Wall and CPU seconds of `fn()`, and its value."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, value


def _status(field: str) -> int:
    """A memory figure of this process from /proc (kB); 0 where there is none."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def memory_of(fn: Callable[[], object]) -> tuple[float, float, float, object]:
    """Seconds, peak resident growth and resident growth after (MB) of `fn()`; the peak
    is reset first (Linux: /proc/self/clear_refs), so it is this call's own."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")
    before = _status("VmRSS")
    start = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - start
    return seconds, (_status("VmHWM") - before) / 1024, (_status("VmRSS") - before) / 1024, value


def rebuild_from_counts(path: Path, head: dict[str, object]) -> object:
    """The load before the whole model was cached: read the term counts, then compute
    the weights and the inverted index again."""
    contents = cachefile.load(path, head)
    assert contents is not None
    a = contents.arrays
    terms = TermMatrix(
        contents.strings["vocab"],
        a["indptr"].astype(np.int64),
        a["indices"].astype(np.int32),
        a["counts"].astype(np.int32),
        a["parts"].astype(np.int32).reshape(-1, 2),
    )
    weights = _tfidf(terms)
    return terms, weights, _invert(terms, weights)


def scanned_duplicates(model: SimilarityModel, key: Callable[[int], str], i: int) -> list[int]:
    """Near-duplicates found the way each call found them before: a cosine with every
    abstract, then the character ratio of those above the threshold (`key`: an
    abstract's comparison key, kept once made, as the model kept them)."""
    scores = model.scores(i)
    return [
        int(j)
        for j in np.flatnonzero(scores >= DUPLICATE_COSINE)
        if j != i and is_reworded(key(i), key(int(j)))
    ]


def build_parts(texts: list[str]) -> None:
    """The build's two costly parts, timed: counting terms and finding near-duplicates."""
    wall, cpu, terms = cpu_timed(lambda: count_terms(texts))
    print(f"count terms                       {wall:7.2f} s   cpu {cpu:6.2f} s")
    assert isinstance(terms, TermMatrix)
    weights = _tfidf(terms)
    wall, cpu, duplicates = cpu_timed(lambda: find_duplicates(terms, weights, texts))
    pairs = len(getattr(duplicates, "rows", ())) // 2
    print(f"near-duplicates, all at once      {wall:7.2f} s   cpu {cpu:6.2f} s   ({pairs:,} pairs)")


def corpus_of(source: str) -> Corpus:
    """The corpus a child measures: `DIR` or `DIR:N` (N synthetic abstracts from DIR's)."""
    folder, _, size = source.partition("::")
    base = load_corpus([Path(folder)])
    return synthetic(base, int(size)) if size else base


def load_in_child(way: str, source: str, cache_dir: Path) -> tuple[float, float, float]:
    """Seconds, peak resident growth and resident growth after (MB) of loading the cached
    model `way` ("before" or "now") in a fresh process holding the corpus: memory this
    process freed would otherwise be reused and hide what a load takes."""
    out = subprocess.run(
        [sys.executable, __file__, "--load-child", way, source, str(cache_dir)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    seconds, peak, held = (float(x) for x in out.split()[-3:])
    return seconds, peak, held


def load_child(way: str, source: str, cache_dir: Path) -> None:
    """Child side of `load_in_child`: prints seconds, peak and held MB."""
    corpus = corpus_of(source)
    path = cache.cache_path(corpus, cache_dir)
    head = cachefile.header("similar", cache.CACHE_VERSION, corpus)
    if way == "before":
        seconds, peak, held, _ = memory_of(lambda: rebuild_from_counts(path, head))
    else:
        seconds, peak, held, _ = memory_of(lambda: cache.load(corpus, cache_dir))
    print(seconds, peak, held)


def child_share(corpus: Corpus) -> None:
    """The cache child's share after the index, from nothing: the model, then the topics."""
    from tui import caches

    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
        wall, cpu, _ = cpu_timed(lambda: caches._similarity_and_topics(corpus, Path(tmp)))
    print(f"model + topics (the cache child)  {wall:7.2f} s   cpu {cpu:6.2f} s (this process)")


def scale(corpus: Corpus, label: str, rng: random.Random, corpus_source: str) -> None:
    """The model at this size as the app meets it: build, load, memory, near-duplicates."""
    n = len(corpus)
    print(f"\n== {label}: {n:,} abstracts")
    texts = [a.similarity_text for a in corpus.abstracts]
    build_parts(texts)
    with tempfile.TemporaryDirectory() as tmp:
        cache_dir = Path(tmp)
        wall, cpu, model = cpu_timed(lambda: cache.load_or_build(corpus, cache_dir))
        print(f"build, cold cache (all + write)   {wall:7.2f} s   cpu {cpu:6.2f} s")
        del model
        path = cache.cache_path(corpus, cache_dir)
        print(f"cache file                        {path.stat().st_size / 2**20:7.1f} MB")
        for way, name in (
            ("before", "load before (counts, recompute)"),
            ("now", "load now (mapped, checked)"),
        ):
            seconds, peak, held = load_in_child(way, corpus_source, cache_dir)
            print(f"{name:<33} {seconds:7.2f} s   peak +{peak:6.1f} MB   held +{held:6.1f} MB")
        model = cache.load(corpus, cache_dir)
        assert model is not None
        child_share(corpus)
        picks = [rng.randrange(n) for _ in range(200)]
        lookups = [timed(partial(model.near_duplicates, i)) for i in picks]
        keys: dict[int, str] = {}

        def key(i: int) -> str:
            if i not in keys:
                keys[i] = comparison_key(texts[i])
            return keys[i]

        for i in picks[:20]:  # keys made once, as the model kept them, before timing
            scanned_duplicates(model, key, i)
        scans = [timed(partial(scanned_duplicates, model, key, i)) for i in picks[:20]]
        print(
            f"near_duplicates(i) per call       before (scan) median {ms(statistics.median(scans))}"
            f"   now (look-up) median {ms(statistics.median(lookups))}"
        )
        sims = [timed(partial(model.similar, i, 10)) for i in picks[:50]]
        print(f"similar(i, 10) on the mapped model median {ms(statistics.median(sims))}")


def main() -> int:
    if sys.argv[1:2] == ["--load-child"]:
        load_child(sys.argv[2], sys.argv[3], Path(sys.argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared/corpora/iclr")
    parser.add_argument("--queries", type=int, default=300, help="more-like-this queries")
    parser.add_argument("--reference-queries", type=int, default=20)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--synthetic", type=int, default=100_000, help="0 skips")
    args = parser.parse_args()

    corpus = load_corpus([args.corpus])
    if not corpus.abstracts:
        print(f"no abstracts loaded from {args.corpus}", file=sys.stderr)
        return 0
    n = len(corpus)
    print(f"corpus: {corpus.summary} ({args.corpus})")
    rng = random.Random(args.seed)

    with tempfile.TemporaryDirectory() as tmp:
        cache_dir = Path(tmp)
        cold, warm = [], []
        for _ in range(5):
            for stale in cache_dir.glob("similar-*.npz"):
                stale.unlink()
            cold.append(timed(lambda: cache.load_or_build(corpus, cache_dir)))
            warm.append(timed(lambda: cache.load_or_build(corpus, cache_dir)))
        model = cache.load_or_build(corpus, cache_dir)
    print(
        f"\nbuild, cold cache (tokenize + weight + write)  median {ms(statistics.median(cold))}"
        "   target <= 1000 ms"
    )
    print(f"build, warm cache (read + weight)              median {ms(statistics.median(warm))}")
    print(f"vocabulary {model.terms.n_terms:,} terms, {len(model.terms.indices):,} non-zeros")

    queries = [rng.randrange(n) for _ in range(args.queries)]
    model.similar(queries[0])  # first call warms NumPy's code paths
    fast = [timed(partial(model.similar, i, 10)) for i in queries]
    trials = [rng.sample(range(n), 50) for _ in range(30)]
    like = [timed(partial(model.like, s, None, 10)) for s in trials]

    vectors = dict_vectors(model)
    ref_queries = queries[: args.reference_queries]
    slow = [timed(partial(reference_similar, vectors, i, 10)) for i in ref_queries]
    agree = statistics.mean(
        overlap(
            [j for j, _ in model.similar(i, 10, include_duplicates=True)],
            reference_similar(vectors, i, 10),
        )
        for i in ref_queries
    )
    slow_like = [timed(partial(reference_like, vectors, s, 10)) for s in trials[:3]]
    agree_like = statistics.mean(
        overlap([j for j, _ in model.like(s, None, 10)], reference_like(vectors, s, 10))
        for s in trials[:3]
    )

    m_fast, m_like = statistics.median(fast), statistics.median(like)
    m_slow, m_slow_like = statistics.median(slow), statistics.median(slow_like)
    print(
        f"\nmore like this, {len(fast)} random abstracts      median {ms(m_fast)}"
        f"   p95 {ms(p95(fast))}   target <= 50 ms"
    )
    print(
        f"  reference (pure-Python dict cosine, n={len(slow)})  median {ms(m_slow)}"
        f"   {m_slow / m_fast:7.0f}x slower; top-10 agreement {agree:.0%}"
    )
    print(
        f"more like my bookmarks, 50 seeds, {len(like)} trials  median {ms(m_like)}"
        f"   p95 {ms(p95(like))}   target <= 200 ms"
    )
    print(
        f"  reference (pure-Python dict cosine, n={len(slow_like)})   median {ms(m_slow_like)}"
        f"   {m_slow_like / m_like:7.0f}x slower; top-10 agreement {agree_like:.0%}"
    )

    dup_times = [timed(partial(model.near_duplicates, i)) for i in queries[:100]]
    print(f"near-duplicates of one abstract              median {ms(statistics.median(dup_times))}")

    scale(corpus, "corpus", rng, str(args.corpus))
    if args.synthetic:
        source = f"{args.corpus}::{args.synthetic}"
        scale(corpus_of(source), f"{args.synthetic:,} synthetic", rng, source)

    if args.calibrate:
        calibrate(model, [a.similarity_text for a in corpus.abstracts])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
