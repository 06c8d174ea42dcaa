"""Similarity timings on a real corpus, against a reference measured in the same run.

Prints, for the ICLR corpus by default (6,943 abstracts in 369 files):
  * model build with a cold cache (tokenize, weight, write) and a warm one (read);
  * "more like this" (`similar(i, 10)`) median and p95 over random abstracts;
  * "more like my bookmarks" (`like(50 random seeds, all others, 10)`) median and p95;
  * the same two queries done the obvious way (pure Python dicts of TF-IDF
    weights, cosine with every abstract) on the same vectors, with the speed-up
    and the top-10 agreement, which checks the fast path computes the same thing.
Targets: more-like-this median <= 50 ms, bookmarks <= 200 ms, build <= 1 s.
`--calibrate` prints the closest pairs with their character ratio, the data the
near-duplicate thresholds in tui/similar/model.py were chosen from.

    python bench/similar.py [--corpus DIR] [--queries 300] [--calibrate]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tui.corpus.load import load_corpus  # noqa: E402
from tui.similar import SimilarityModel, cache  # noqa: E402

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


def calibrate(model: SimilarityModel, corpus_size: int) -> None:
    from rapidfuzz import fuzz

    pairs = []
    for i in range(corpus_size):
        scores = model.scores(i)
        for found in (scores >= 0.45).nonzero()[0]:
            j = int(found)
            if j > i:
                ratio = fuzz.ratio(model._dup_key(i), model._dup_key(j))
                pairs.append((float(scores[j]), ratio, i, j))
    pairs.sort(reverse=True)
    print("\nclosest pairs (cosine, character ratio, near-duplicate?):")
    for cosine, ratio, i, j in pairs[:15]:
        flag = model.is_near_duplicate(i, j, cosine)
        print(f"  {cosine:.3f}  {ratio:5.1f}  {'yes' if flag else 'no ':3}  {i} {j}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared/corpora/iclr")
    parser.add_argument("--queries", type=int, default=300, help="more-like-this queries")
    parser.add_argument("--reference-queries", type=int, default=20)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--calibrate", action="store_true")
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

    if args.calibrate:
        calibrate(model, n)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
