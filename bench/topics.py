"""Topic map benchmark: time to compute topics, and how well their labels name them.

    python bench/topics.py [--corpus DIR] [--titles FILE.jsonl] [--synthetic N] [--seeds S] [--json]

Time: topics computed from the similarity model (`tui.similar.topics.compute_topics`,
what the app runs after the model is ready; median of 3) on the corpus (default
../shared/corpora/iclr) and on a synthetic corpus of N abstracts (default 100,000;
0 skips it) recombined from its sentences as bench/search.py makes it. The model's
own build is printed beside it (it exists before topics are asked for).

Label quality against titles, for the abstracts of a JSONL of {"title", "abstract"}
found in the corpus: a member of a topic counts as named when its title contains one
of the topic's labels (stemmed; a two-word label when both its words are in the
title); precision is the share of members named, over all topics. The baseline is
the same figure for random groups of the same sizes given the same labels (S seeds),
so a label that is in every title scores no better than chance; the ratio is the
lift. The app's topics (seed 0, and seeds 0-2 to show how much the clustering's
seed moves it) are measured against a reference built in the same run: plain
TF-IDF (every term) + spherical k-means with the same k, each topic labelled with
the 4 heaviest terms of its centroid. Prints figures; never fails.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from search import synthetic  # noqa: E402  (bench/search.py: the same synthetic corpus)

from tui.corpus.load import load_corpus  # noqa: E402
from tui.corpus.model import Corpus, abstract_id  # noqa: E402
from tui.corpus.stem import stem_words  # noqa: E402
from tui.corpus.tokens import tokenize  # noqa: E402
from tui.similar.model import SimilarityModel  # noqa: E402
from tui.similar.topics import (  # noqa: E402
    SEED,
    Topics,
    _centroids,
    _kmeans_plus_plus,
    _numbered,
    _similarities,
    _Vectors,
    compute_topics,
    topic_count,
)

SHARED = REPO.parent / "shared" / "corpora"
TARGET_SECONDS = {"corpus": 3.0, "100k": 30.0}
TARGET_PRECISION, TARGET_RATIO = 0.55, 6.0


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def median_time(fn: Callable[[], object], runs: int = 3) -> tuple[float, object]:
    results = [timed(fn) for _ in range(runs)]
    return statistics.median(t for t, _ in results), results[0][1]


def titles_of(corpus: Corpus, path: Path) -> dict[int, set[str]]:
    """Corpus position -> the stems of its title, for the titled abstracts in the corpus."""
    position = {a.id: i for i, a in enumerate(corpus.abstracts)}
    found: dict[int, set[str]] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            i = position.get(abstract_id(record.get("abstract", "")))
            if i is not None and record.get("title"):
                found[i] = set(stem_words(tokenize(record["title"])))
    return found


def precision(
    number: np.ndarray, labels: Sequence[Sequence[str]], titles: dict[int, set[str]]
) -> float:
    """Share of topic members (with a title) whose title holds one of their topic's labels."""
    stems = [[stem_words(tokenize(label)) for label in group] for group in labels]
    named = counted = 0
    for i, title in titles.items():
        topic = int(number[i])
        if topic <= 0:
            continue
        counted += 1
        named += any(words and all(w in title for w in words) for words in stems[topic - 1])
    return named / counted if counted else 0.0


def baseline(
    number: np.ndarray, labels: Sequence[Sequence[str]], titles: dict[int, set[str]], seeds: int
) -> float:
    """The same figure for random groups of the same sizes, each given a topic's labels."""
    rows = np.asarray(sorted(titles))
    values = []
    for seed in range(seeds):
        shuffled = number.copy()
        shuffled[rows] = np.random.default_rng(seed).permutation(number[rows])
        values.append(precision(shuffled, labels, titles))
    return float(np.mean(values))


def reference(model: SimilarityModel, k: int, seed: int = SEED) -> Topics:
    """Plain TF-IDF (every term) + spherical k-means (k-means++), centroid labels."""
    terms = model.terms
    x = _Vectors(terms.indptr, terms.indices.astype(np.int32), model.weights, terms.n_terms)
    blocks = list(x.blocks())
    rng = np.random.default_rng(seed)
    centroids = _kmeans_plus_plus(x, blocks, k, rng)
    empty = np.zeros(x.n_rows, dtype=bool)
    labels = _similarities(blocks, x.n_rows, centroids).argmax(axis=1).astype(np.int32)
    for _ in range(20):
        centroids = _centroids(x, labels, len(centroids))
        new = _similarities(blocks, x.n_rows, centroids).argmax(axis=1).astype(np.int32)
        if np.array_equal(new, labels):
            break
        labels = new
    labels[empty] = -1
    number = _numbered(labels)
    centroids = _centroids(x, number - 1, int(number.max()))
    named = [[terms.vocab[t] for t in np.argsort(-c, kind="stable")[:4]] for c in centroids]
    return Topics(number, named)


def quality(
    name: str, topics: Topics, titles: dict[int, set[str]], seeds: int
) -> dict[str, float | str]:
    p = precision(topics.number, topics.labels, titles)
    b = baseline(topics.number, topics.labels, titles, seeds)
    return {"method": name, "precision": p, "baseline": b, "ratio": p / b if b else float("inf")}


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/topics.py", description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(SHARED / "iclr"), help="abstract files or folder")
    parser.add_argument("--titles", default=str(SHARED / "iclr-titles.jsonl"))
    parser.add_argument("--synthetic", type=int, default=100_000, metavar="N")
    parser.add_argument("--seeds", type=int, default=5, help="random groups for the baseline")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    corpus = load_corpus([args.corpus])
    if not corpus.abstracts:
        print(f"no abstracts under {args.corpus}", file=sys.stderr)
        return 1
    out: dict[str, object] = {"abstracts": len(corpus), "k": topic_count(len(corpus))}
    model_s, built = timed(lambda: SimilarityModel.build(corpus))
    model = built if isinstance(built, SimilarityModel) else SimilarityModel.build(corpus)
    topics_s, found = median_time(lambda: compute_topics(model.terms, model.weights))
    assert isinstance(found, Topics)
    out["time"] = [
        {
            "corpus": Path(args.corpus).name,
            "n": len(corpus),
            "model_s": model_s,
            "topics_s": topics_s,
        }
    ]
    if args.synthetic:
        big = synthetic(corpus, args.synthetic)
        big_model_s, big_built = timed(lambda: SimilarityModel.build(big))
        assert isinstance(big_built, SimilarityModel)
        big_s, _ = median_time(lambda: compute_topics(big_built.terms, big_built.weights))
        out["time"].append(
            {"corpus": "synthetic", "n": len(big), "model_s": big_model_s, "topics_s": big_s}
        )  # type: ignore[union-attr]

    titles = titles_of(corpus, Path(args.titles)) if Path(args.titles).is_file() else {}
    out["titled"] = len(titles)
    rows: list[dict[str, float | str]] = []
    if titles:
        rows.append(quality("topics (the app, seed 0)", found, titles, args.seeds))
        others = [compute_topics(model.terms, model.weights, seed=s) for s in (1, 2)]
        spread = [rows[0]] + [
            quality(f"seed {s}", t, titles, args.seeds) for s, t in zip((1, 2), others, strict=True)
        ]
        rows.append(
            {
                "method": "topics, mean of seeds 0-2",
                "precision": statistics.mean(float(r["precision"]) for r in spread),
                "baseline": statistics.mean(float(r["baseline"]) for r in spread),
                "ratio": statistics.mean(float(r["ratio"]) for r in spread),
            }
        )
        rows.append(
            quality(
                "reference: plain tf-idf k-means", reference(model, out["k"]), titles, args.seeds
            )
        )  # type: ignore[arg-type]
    out["quality"] = rows
    out["labels"] = [
        {"topic": t + 1, "size": size, "labels": labels}
        for t, (size, labels) in enumerate(zip(found.sizes(), found.labels, strict=True))
    ]

    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{len(corpus):,} abstracts, k = {out['k']}, {len(titles):,} with a title")
    print(f"{'corpus':<12} {'abstracts':>9} {'topics s':>9} {'target':>7} {'(model s)':>10}")
    for row, target in zip(out["time"], ("corpus", "100k"), strict=False):  # type: ignore[call-overload]
        limit = TARGET_SECONDS[target]
        verdict = "met" if row["topics_s"] <= limit else "NOT met"
        print(
            f"{row['corpus']:<12} {row['n']:>9,} {row['topics_s']:>9.2f} {f'<= {limit:g}':>7}"
            f" {row['model_s']:>10.1f}  {verdict}"
        )
    if rows:
        print(f"{'labels against titles':<34} {'precision':>9} {'baseline':>9} {'ratio':>7}")
        for r in rows:
            print(
                f"{r['method']:<34} {r['precision']:>9.3f} {r['baseline']:>9.3f} {r['ratio']:>6.1f}x"
            )
        app, ref = rows[0], rows[-1]
        met = app["precision"] >= TARGET_PRECISION and app["ratio"] >= TARGET_RATIO  # type: ignore[operator]
        print(
            f"target precision >= {TARGET_PRECISION} and >= {TARGET_RATIO:g}x the baseline: "
            f"{'met' if met else 'NOT met'}; against the reference: "
            f"{float(app['precision']) / float(ref['precision']):.2f}x its precision"
        )
    print("topics (seed 0):")
    for entry in out["labels"]:  # type: ignore[attr-defined]
        print(f"  {entry['topic']:>3} {entry['size']:>6,}  {' · '.join(entry['labels'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
