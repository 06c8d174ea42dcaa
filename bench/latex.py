"""Corpus load and LaTeX rendering times over a real corpus. Prints figures; never fails.

    python bench/latex.py [--corpus ../shared/corpora/iclr] [--repeat 7]

Load: load_corpus() on the whole folder (median, p95 of the runs). Render:
to_plain() over every abstract with empty caches (what the search index pays
once), then render() warm, then the fast-path check alone as the reference floor.
Tokenize: tokenize() over the rendered texts against its general (reference) path.
First render: render() of the seeds' first abstract (the first detail pane) in a
fresh interpreter, against importing pylatexenc's latex2text tables there (what
the first paint would pay if that render needed them).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
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


_FIRST_RENDER = """
import sys, time
from tui.corpus.load import load_corpus
from tui.corpus import latex
text = load_corpus([sys.argv[1]]).abstracts[0].text
t0 = time.perf_counter()
latex.render(text)
t1 = time.perf_counter()
print(t1 - t0, int(any(m.startswith("pylatexenc") for m in sys.modules)))
"""
_L2T_TABLES = """
import time
t0 = time.perf_counter()
from pylatexenc import latex2text
latex2text.get_default_latex_context_db()
print(time.perf_counter() - t0, 1)
"""


def _fresh(code: str, runs: int) -> tuple[float, bool]:
    """Median seconds printed by `code` in fresh interpreters, and whether pylatexenc loaded."""
    times, loaded = [], False
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", code, str(REPO / "seeds")],
            capture_output=True,
            text=True,
            cwd=REPO,
            check=True,
        ).stdout.split()
        times.append(float(out[0]))
        loaded = loaded or out[1] == "1"
    return statistics.median(times), loaded


def first_render(runs: int) -> None:
    """Print the first-render figure (fresh interpreters, interleaved with the reference)."""
    first, loaded = _fresh(_FIRST_RENDER, runs)
    tables, _ = _fresh(_L2T_TABLES, runs)
    print(
        f"first render, seeds #1 (fresh)  median {first * 1000:.3f} ms  "
        f"(pylatexenc {'imported' if loaded else 'not imported'}; "
        f"importing latex2text's tables alone: {_ms(tables).strip()})"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpora" / "iclr"))
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    first_render(args.repeat)
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
