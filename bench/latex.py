"""Corpus load and LaTeX rendering times over a real corpus. Prints figures; never fails.

    python bench/latex.py [--corpus ../shared/corpora/iclr] [--repeat 7]

Load: load_corpus() on the whole folder (median, p95 of the runs). Render:
to_plain() over every abstract with empty caches (what the search index pays
once), then render() warm, then the fast-path check alone as the reference floor.
Tokenize: tokenize() over the rendered texts against its general (reference) path.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tui.corpus import latex, latex_math  # noqa: E402
from tui.corpus.load import load_corpus  # noqa: E402
from tui.corpus.tokens import _tokenize_general, tokenize  # noqa: E402


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpora" / "iclr"))
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    if not Path(args.corpus).exists():
        print(f"corpus not found: {args.corpus}")
        return 0

    loads = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        corpus = load_corpus([args.corpus])
        loads.append(time.perf_counter() - t0)
    loads.sort()
    p95 = loads[min(len(loads) - 1, round(0.95 * (len(loads) - 1)))]
    texts = [a.text for a in corpus.abstracts]
    refs = sum(len(a.sources) for a in corpus.abstracts)
    print(f"corpus: {len(corpus.files)} files, {refs} abstracts ({len(texts)} distinct)")
    print(f"load_corpus        median {_ms(statistics.median(loads))}  p95 {_ms(p95)}")

    cold, warm, floor = [], [], []
    for _ in range(args.repeat):
        latex_math.render_math.cache_clear()
        t0 = time.perf_counter()
        for t in texts:
            latex.to_plain(t)
        cold.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for t in texts:
            latex.render(t)
        warm.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for t in texts:
            latex.needs_rendering(t)
        floor.append(time.perf_counter() - t0)
    slow = sum(latex.needs_rendering(t) for t in texts)
    c, w, f = (statistics.median(x) for x in (cold, warm, floor))
    print(f"to_plain, cold     median {_ms(c)}  ({slow} of {len(texts)} need rendering)")
    print(f"render, warm cache median {_ms(w)}")
    print(f"fast-path check    median {_ms(f)}  (floor; to_plain cold is {c / f:.1f}x)")

    plains = [latex.to_plain(t) for t in texts]
    fast, general = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        for t in plains:
            tokenize(t)
        fast.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for t in plains:
            _tokenize_general(t)
        general.append(time.perf_counter() - t0)
    tf, tg = statistics.median(fast), statistics.median(general)
    ascii_n = sum(t.isascii() for t in plains)
    print(
        f"tokenize           median {_ms(tf)}  ({ascii_n} of {len(plains)} ASCII after rendering)"
    )
    print(f"tokenize, general  median {_ms(tg)}  (reference; tokenize is {tg / tf:.1f}x faster)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
