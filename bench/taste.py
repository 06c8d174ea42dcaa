"""Ranking by taste, measured with simulated readers: the app against two references.

    python bench/taste.py [--corpus DIR] [--titles FILE.jsonl] [--trials 5] [--likes 10]
                          [--split even|odd] [--synthetic N] [--methods ...] [--variants ...]

A simulated reader is interested in one topic, defined by a regular expression on
the paper titles (`TOPICS`: general patterns, written once and not tuned). Per topic
and trial (seeded): 10 random on-topic abstracts are the reader's bookmarks; every
other abstract is ranked and the precision of the top 20 is the share of on-topic
titles among them (fewer than 20 results count as misses). Titles are matched to
the corpus's abstracts by their abstract text (whitespace normalised); an abstract
published under two titles is on-topic when either matches.

Three variants of each reader, on the same candidates: no dismissals; 10 random
off-topic dismissals (`unlikes`); 10 off-topic dismissals drawn from the 50
off-topic abstracts closest to the bookmarks' centroid (the near misses a reader is
shown and dismisses early on).

Methods, on the same readers in one run:
  * app       `tui.similar.taste.rank` as it is now;
  * before    the earlier ranking (`model.like`: the even blend of the
              centroid and the best single bookmark; dismissals' cosine subtracted
              at half weight);
  * svm       arxiv-sanity's method: scikit-learn LinearSVC (class_weight balanced,
              C 0.1) over arxiv-sanity-lite's TF-IDF (sublinear, words and two-word
              phrases), the bookmarks positive, every other abstract negative (so
              dismissals change nothing);
  * centroid  cosine with the centroid of the bookmarks over scikit-learn's sublinear
              TF-IDF with two-word phrases (less a quarter of the dismissals'
              centroid, Rocchio, when there are dismissals).
The topics are split in two halves (`--split`): the app's settings were chosen
looking at the "dev" half; the "held-out" half is reported separately. Timings are
the median per ranking, the SVM's fit included (the references' vectorizers are
built once, not counted). `--synthetic N` also times the app at N abstracts
recombined from the corpus's sentences (bench/search.py's synthetic corpus).
scikit-learn is a bench-only dependency (`pip install -e '.[bench]'`); without it
the references are skipped. Prints figures; never fails.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from tui.corpus.load import load_corpus  # noqa: E402
from tui.corpus.model import Corpus  # noqa: E402
from tui.similar import SimilarityModel, taste  # noqa: E402

SHARED = REPO.parent / "shared" / "corpora"
TOP = 20
BOOKMARKS = 10
DISMISSALS = 10
NEAR_POOL = 50

# One reader per topic: a title matching the pattern (case-insensitive) is on-topic.
TOPICS: dict[str, str] = {
    "graph": r"\bgraph",
    "diffusion": r"\bdiffusion",
    "federated": r"\bfederated",
    "adversarial/robust": r"\badversarial|\brobust",
    "bandit": r"\bbandit",
    "causal": r"\bcausal",
    "privacy": r"\bprivacy|\bprivate",
    "reinforcement/policy": r"\breinforcement|\bpolic(?:y|ies)\b",
    "transformer/attention": r"\btransformer|\battention",
    "meta/few-shot": r"\bmeta-?learn|\bfew-?shot",
    "pruning/quantization": r"\bprun|\bquantiz|\bcompress",
    "contrastive/self-sup.": r"\bcontrastive|\bself-?supervis",
    "convergence/SGD": r"\bconvergen|\bSGD\b|\bstochastic gradient",
    "fair": r"\bfair",
    "uncertainty/Bayesian": r"\buncertaint|\bcalibrat|\bbayesian",
}

# A ranking method: (likes, unlikes, candidates) -> the top indices, best first.
Ranker = Callable[[list[int], list[int], list[int]], list[int]]


def normalised(text: str) -> str:
    return " ".join(text.split())


def titled(corpus: Corpus, titles_path: Path) -> tuple[dict[int, list[str]], int]:
    """Each corpus index's titles (an abstract published twice has two), and the
    number of title records read."""
    position: dict[str, int] = {}
    for i, a in enumerate(corpus.abstracts):
        position.setdefault(normalised(a.text), i)
    found: dict[int, list[str]] = {}
    records = 0
    with titles_path.open(encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            record = json.loads(line)
            records += 1
            i = position.get(normalised(record.get("abstract", "")))
            if i is not None and record.get("title"):
                found.setdefault(i, []).append(normalised(record["title"]))
    return found, records


def split(names: Sequence[str], which: str) -> tuple[list[str], list[str]]:
    """(dev, held-out) topics: alternate ones in `TOPICS` order, or the reverse."""
    first, second = list(names[0::2]), list(names[1::2])
    return (first, second) if which == "even" else (second, first)


VARIANTS = {
    "none": "no dismissals",
    "random": f"{DISMISSALS} random off-topic dismissals",
    "near": f"{DISMISSALS} off-topic dismissals among the {NEAR_POOL} most like the bookmarks",
}


class Reader:
    """One simulated reader: bookmarks, dismissals per variant, candidates, on-topic set."""

    def __init__(
        self,
        on_topic: set[int],
        pool: list[int],
        rng: random.Random,
        likes: int,
        near: Callable[[list[int], set[int]], list[int]],
    ) -> None:
        off = [i for i in pool if i not in on_topic]
        self.likes = sorted(rng.sample(sorted(on_topic), likes))
        self.dismissals = {
            "none": [],
            "random": sorted(rng.sample(off, DISMISSALS)),
            "near": sorted(rng.sample(near(self.likes, on_topic), DISMISSALS)),
        }
        taken = set(self.likes).union(*self.dismissals.values())
        # The same candidates in every variant, so they differ only in the dismissals.
        self.candidates = [i for i in pool if i not in taken]
        self.on_topic = on_topic

    def precision(self, ranked: Sequence[int]) -> float:
        return sum(1 for i in ranked[:TOP] if i in self.on_topic) / TOP


def near_misses(
    model: SimilarityModel, pool: list[int]
) -> Callable[[list[int], set[int]], list[int]]:
    """The `NEAR_POOL` off-topic abstracts of `pool` closest to the centroid of the
    bookmarks: what a reader is shown, and dismisses, early on."""
    in_pool = np.zeros(len(model), dtype=bool)
    in_pool[pool] = True

    def find(likes: list[int], on_topic: set[int]) -> list[int]:
        vectors = [model.vector(i) for i in likes]
        terms, inverse = np.unique(np.concatenate([t for t, _ in vectors]), return_inverse=True)
        weights = np.bincount(inverse.reshape(-1), np.concatenate([w for _, w in vectors]))
        scores = model.dot(terms, weights)
        allowed = in_pool.copy()
        allowed[list(on_topic)] = False
        found = np.flatnonzero(allowed)
        return found[np.lexsort((found, -scores[found]))][:NEAR_POOL].tolist()

    return find


def readers(
    model: SimilarityModel, labels: dict[int, list[str]], trials: int, likes: int, seed: int
) -> tuple[dict[str, list[Reader]], dict[str, float]]:
    """Per topic, `trials` seeded readers, and the topic's base rate among labelled abstracts."""
    pool = sorted(labels)
    near = near_misses(model, pool)
    out: dict[str, list[Reader]] = {}
    base: dict[str, float] = {}
    for name, pattern in TOPICS.items():
        regex = re.compile(pattern, re.IGNORECASE)
        on_topic = {i for i in pool if any(regex.search(t) for t in labels[i])}
        if len(on_topic) < likes + TOP:
            print(f"topic {name}: only {len(on_topic)} on-topic titles, skipped", file=sys.stderr)
            continue
        base[name] = len(on_topic) / len(pool)
        out[name] = [
            Reader(on_topic, pool, random.Random(f"{seed}:{name}:{t}"), likes, near)
            for t in range(trials)
        ]
    return out, base


# -- the app -------------------------------------------------------------------


def app_ranker(model: SimilarityModel) -> Ranker:
    def run(likes: list[int], unlikes: list[int], candidates: list[int]) -> list[int]:
        return [p.index for p in taste.rank(model, likes, unlikes, candidates, k=TOP)]

    return run


# The earlier ranking (`model.like`), kept here as the baseline it is measured against.
BEFORE_UNLIKE_WEIGHT = 0.5


def before_ranker(model: SimilarityModel) -> Ranker:
    def run(likes: list[int], unlikes: list[int], candidates: list[int]) -> list[int]:
        if not unlikes:
            return [j for j, _ in model.like(likes, candidates, k=TOP)]
        ranked = model.like(likes, candidates, k=len(candidates))
        against = np.max([model.scores(u) for u in unlikes], axis=0)
        rescored = sorted(
            ((j, s - BEFORE_UNLIKE_WEIGHT * float(against[j])) for j, s in ranked),
            key=lambda pair: (-pair[1], pair[0]),
        )
        return [j for j, _ in rescored[:TOP]]

    return run


# -- the references (scikit-learn) -----------------------------------------------


def top_of(scores: np.ndarray[Any, Any], candidates: list[int]) -> list[int]:
    cand = np.asarray(candidates)
    order = np.lexsort((cand, -scores[cand]))
    return list(cand[order[:TOP]].tolist())


def svm_ranker(texts: list[str]) -> tuple[Ranker, float] | None:
    """arxiv-sanity-lite's model: its TF-IDF settings and a balanced LinearSVC."""
    try:
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.svm import LinearSVC
    except ImportError:
        return None
    start = time.perf_counter()
    x = TfidfVectorizer(
        strip_accents="unicode",
        lowercase=True,
        analyzer="word",
        stop_words="english",
        token_pattern=r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b",
        ngram_range=(1, 2),
        max_features=20000,
        norm="l2",
        use_idf=True,
        smooth_idf=True,
        sublinear_tf=True,
        max_df=0.1,
        min_df=5,
    ).fit_transform(texts)
    built = time.perf_counter() - start

    def run(likes: list[int], unlikes: list[int], candidates: list[int]) -> list[int]:
        # Every abstract not bookmarked is a negative, dismissed or not: unlikes add nothing.
        y = np.zeros(x.shape[0], dtype=np.int64)
        y[likes] = 1
        clf = LinearSVC(class_weight="balanced", max_iter=10000, tol=1e-6, C=0.1)
        clf.fit(x, y)
        return top_of(np.asarray(clf.decision_function(x)), candidates)

    return run, built


def centroid_ranker(texts: list[str]) -> tuple[Ranker, float] | None:
    """Cosine with the bookmarks' centroid (less a quarter of the dismissals', Rocchio)."""
    try:
        from sklearn.feature_extraction.text import TfidfVectorizer
    except ImportError:
        return None
    start = time.perf_counter()
    x = TfidfVectorizer(
        sublinear_tf=True, ngram_range=(1, 2), stop_words="english", min_df=2
    ).fit_transform(texts)
    built = time.perf_counter() - start

    def unit_mean(rows: list[int]) -> np.ndarray[Any, Any]:
        v = np.asarray(x[rows].mean(axis=0)).ravel()
        return v / (np.linalg.norm(v) or 1.0)

    def run(likes: list[int], unlikes: list[int], candidates: list[int]) -> list[int]:
        query = unit_mean(likes)
        if unlikes:
            query = query - 0.25 * unit_mean(unlikes)
        return top_of(np.asarray(x @ query).ravel(), candidates)

    return run, built


# -- running -------------------------------------------------------------------


def evaluate(
    ranker: Ranker, by_topic: dict[str, list[Reader]], variant: str
) -> tuple[dict[str, float], list[float]]:
    """Mean P@20 per topic, and every ranking's time."""
    precision: dict[str, float] = {}
    times: list[float] = []
    for name, group in by_topic.items():
        scores = []
        for reader in group:
            start = time.perf_counter()
            ranked = ranker(reader.likes, reader.dismissals[variant], reader.candidates)
            times.append(time.perf_counter() - start)
            scores.append(reader.precision(ranked))
        precision[name] = statistics.fmean(scores)
    return precision, times


def scale_timing(corpus: Corpus, n: int, likes: int, seed: int) -> None:
    """The app's ranking time (and the model build) at `n` synthetic abstracts, for a
    new reader and for heavy ones; the earlier ranking for the new reader."""
    from search import synthetic

    big = synthetic(corpus, n, seed)
    start = time.perf_counter()
    model = SimilarityModel.build(big)
    print(f"\n{n:,} synthetic abstracts, model built in {time.perf_counter() - start:.1f} s")
    rng = random.Random(seed)
    cases = [("app", likes, DISMISSALS), ("app", 50, 50), ("app", 200, 200)]
    for label, n_likes, n_unlikes in [*cases, ("before", likes, DISMISSALS)]:
        ranker = app_ranker(model) if label == "app" else before_ranker(model)
        times = []
        for _ in range(5):
            sample = rng.sample(range(n), n_likes + n_unlikes)
            taken = set(sample)
            candidates = [i for i in range(n) if i not in taken]
            start = time.perf_counter()
            ranker(sample[:n_likes], sample[n_likes:], candidates)
            times.append(time.perf_counter() - start)
        print(
            f"  {label:7} {n_likes:4} likes {n_unlikes:4} dismissals: "
            f"median {statistics.median(times) * 1000:6.0f} ms per ranking (5 rankings)"
        )


def table(
    results: dict[str, dict[str, float]],
    base: dict[str, float],
    groups: list[tuple[str, list[str]]],
) -> None:
    methods = list(results)
    print(f"{'topic':<22} {'base':>5} " + " ".join(f"{m:>8}" for m in methods))
    for group_name, group in groups:
        for topic in group:
            cells = " ".join(f"{results[m][topic]:8.3f}" for m in methods)
            print(f"{topic:<22} {base[topic]:5.3f} {cells}")
        cells = " ".join(f"{statistics.fmean(results[m][t] for t in group):8.3f}" for m in methods)
        print(f"{'mean, ' + group_name:<28} {cells}")
    cells = " ".join(f"{statistics.fmean(results[m].values()):8.3f}" for m in methods)
    print(f"{'mean, all':<28} {cells}")


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/taste.py", description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=SHARED / "iclr")
    parser.add_argument("--titles", type=Path, default=SHARED / "iclr-titles.jsonl")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--likes", type=int, default=BOOKMARKS, help="bookmarks per reader")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--split", choices=("even", "odd"), default="even")
    parser.add_argument("--synthetic", type=int, default=100_000, help="0 skips it")
    parser.add_argument("--methods", default="app,before,svm,centroid")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()

    corpus = load_corpus([args.corpus])
    if not corpus.abstracts:
        print(f"no abstracts loaded from {args.corpus}", file=sys.stderr)
        return 0
    labels, records = titled(corpus, args.titles)
    print(
        f"{len(corpus):,} abstracts; {records:,} title records, {len(labels):,} abstracts "
        f"matched by text (the candidates: unmatched ones cannot be judged)"
    )
    start = time.perf_counter()
    model = SimilarityModel.build(corpus)
    print(f"app model built in {time.perf_counter() - start:.2f} s")
    by_topic, base = readers(model, labels, args.trials, args.likes, args.seed)
    if not by_topic:
        return 0
    dev, held = split(list(by_topic), args.split)
    texts = [a.text for a in corpus.abstracts]

    makers: dict[str, Callable[[], tuple[Ranker, float] | None]] = {
        "app": lambda: (app_ranker(model), 0.0),
        "before": lambda: (before_ranker(model), 0.0),
        "svm": lambda: svm_ranker(texts),
        "centroid": lambda: centroid_ranker(texts),
    }
    variants = args.variants.split(",")
    results: dict[str, dict[str, dict[str, float]]] = {v: {} for v in variants}
    timing: dict[str, dict[str, float]] = {}
    for name in args.methods.split(","):
        made = makers[name]()
        if made is None:
            print(f"{name}: scikit-learn not installed, skipped", file=sys.stderr)
            continue
        ranker, built = made
        if built:
            print(f"{name}: vectorizer built in {built:.2f} s (not counted per ranking)")
        timing[name] = {}
        for variant in variants:
            results[variant][name], times = evaluate(ranker, by_topic, variant)
            timing[name][variant] = statistics.median(times) * 1000

    groups = [("dev", dev), ("held-out", held)]
    for variant in variants:
        print(
            f"\nP@{TOP}, {args.trials} readers per topic, {args.likes} bookmarks, "
            f"{VARIANTS[variant]}"
        )
        table(results[variant], base, groups)
    print(f"\nmedian ms per ranking at {len(corpus):,} abstracts (fit included):")
    print(f"{'':10} " + " ".join(f"{v:>8}" for v in variants))
    for name, by_variant in timing.items():
        print(f"{name:10} " + " ".join(f"{by_variant[v]:8.1f}" for v in variants))
    if args.synthetic:
        scale_timing(corpus, args.synthetic, args.likes, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
