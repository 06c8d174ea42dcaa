"""The overview's distinctive terms and the "shares:" words, printed for reading.

Prints, for each corpus given (default: the ICLR corpus beside the repository and
the bundled seeds), the top terms of every collection as `tui.triage.overview`
computes them, then the words "more like this" says a few abstracts share with
their best match. Nothing is asserted: this is for reading before and after a
change to the terms (tokenizing, stemming, stop words, bigrams), and must not be
used to tune them to one corpus.

    python bench/terms.py [CORPUS ...] [--top 8] [--pairs 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tui.corpus.load import load_corpus  # noqa: E402
from tui.similar import SimilarityModel  # noqa: E402
from tui.triage.overview import distinctive_terms  # noqa: E402

DEFAULT_CORPORA = [REPO.parent / "shared/corpora/iclr", REPO / "seeds"]


def show(path: Path, top: int, pairs: int) -> None:
    corpus = load_corpus([path])
    start = time.perf_counter()
    model = SimilarityModel.build(corpus)
    built = time.perf_counter() - start
    print(f"== {path} ({corpus.summary}; model built in {built * 1000:.0f} ms)")
    start = time.perf_counter()
    terms = distinctive_terms(corpus, model.terms, top=top)
    took = time.perf_counter() - start
    for label, words in terms.items():
        print(f"  {label:<12} {', '.join(words)}")
    print(f"  (distinctive terms in {took * 1000:.0f} ms)")
    # Evenly spread abstracts, so the sample is the same on every run.
    step = max(len(corpus) // max(pairs, 1), 1)
    for i in range(0, min(len(corpus), step * pairs), step):
        best = model.similar(i, k=1)
        if best:
            j, score = best[0]
            print(f"  shares {i:>5} ~ {j:<5} {score:.2f}: {', '.join(model.shared_terms(i, j))}")
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="*", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args()
    for path in args.corpora:
        show(path, args.top, args.pairs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
