"""Saved-search counts: what the UI thread does, and how long it waits, at N abstracts.

    python bench/saved.py [--corpus DIR] [--synthetic N] [--searches K] [--rounds R]

A synthetic corpus of N abstracts (default 100,000, sentences of the corpus
recombined as bench/search.py does), K saved searches (words, typos, phrases,
fields, personal fields), 1% bookmarked and 30% read. Prints:

- the worker: one count run (every saved search counted, as the view does) on a
  fresh counting index (cold term caches) and again (warm);
- in the app (headless, 120x36): the UI thread's own calls per count run (`recount`:
  list the searches and start the worker; `_show_counts`: paint the result), and how
  late a 5 ms timer on the event loop fires while counts run, against the same timer
  with nothing running (the reference, measured in the same run). The gap beyond 5 ms
  is how long a key press would have waited.

The similarity model is not built (it would compete for the CPU); the search index is
built first and read from its cache, as on a warm start. Prints figures; never fails.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import itertools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tui import locations  # noqa: E402
from tui.corpus.load import load_corpus  # noqa: E402
from tui.search import cache  # noqa: E402
from tui.search.countproc import CountProcess  # noqa: E402
from tui.search.counts import count_searches  # noqa: E402
from tui.search.index import SearchIndex  # noqa: E402
from tui.store.userdata import UserData  # noqa: E402

SEARCHES = [
    ("contrastive", "relevance"),
    ("graph neural network", "relevance"),
    ("diffusion models year:2023", "file"),
    ("reinforcment learning", "relevance"),
    ("adversarial robustness -survey", "relevance"),
    ('"large language models"', "relevance"),
    ("is:bookmarked", "file"),
    ("is:unread transformer", "relevance"),
    ("federated privacy", "relevance"),
    ("vison langage", "relevance"),
    ("knowledge distilation", "relevance"),
    ("bayesian optimisation", "relevance"),
    ("meta learn few-shot", "relevance"),
    ("sparse reward exploration", "relevance"),
    ("venue:iclr year:2024 graph", "file"),
    ("has:note", "relevance"),
    ("quantum", "relevance"),
    ("protein structure", "relevance"),
    ("interpretability attention", "relevance"),
    ("benchmark dataset", "relevance"),
]


def _synthetic(base, n):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("search_bench", REPO / "bench" / "search.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.synthetic(base, n)


def _ms(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"median {statistics.median(ms):7.2f} ms  p95 {p95:7.2f}  max {ms[-1]:7.2f}"


def _fill(data_dir: Path, corpus, k: int) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(1)
    ud = UserData.open(data_dir)
    for i in range(k):
        query, sort = SEARCHES[i % len(SEARCHES)]
        ud.save_search(f"search {i:02d}", query, sort)
    abstracts = corpus.abstracts
    for a in rng.sample(abstracts, len(abstracts) // 100):
        ud.set_bookmark(a, True)
    ud.set_read(rng.sample(abstracts, len(abstracts) * 3 // 10), True)
    ud.flush(timeout=None)
    ud.close()


async def _in_app(corpus, data_dir: Path, rounds: int) -> dict[str, list[float]]:  # type: ignore[no-untyped-def]
    from tui.ui.app import make_app
    from tui.ui.controllers.triage import TriageController

    TriageController.warm_similarity = lambda self: None  # type: ignore[method-assign]
    app = make_app(corpus=corpus, data_dir=data_dir)
    out: dict[str, list[float]] = {"recount": [], "show": [], "idle gap": [], "counting gap": []}
    saved = app.saved
    spans: list[tuple[float, float]] = []  # when the counting ran (the child's round trip)
    original_count = saved._count_elsewhere

    def counted(*args):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        result = original_count(*args)
        spans.append((t0, time.perf_counter()))
        return result

    saved._count_elsewhere = counted  # type: ignore[method-assign]
    for name in ("recount", "_show_counts"):
        original = getattr(saved, name)

        def timed(*args, _original=original, _key=name):  # type: ignore[no-untyped-def]
            t0 = time.perf_counter()
            _original(*args)
            out["recount" if _key == "recount" else "show"].append(time.perf_counter() - t0)

        setattr(saved, name, timed)
    ticks: list[float] = []
    async with app.run_test(size=(120, 36)) as pilot:
        while app.personal.userdata is None or app.search.index is None:
            await pilot.pause(0.05)
        app.set_interval(0.005, lambda: ticks.append(time.perf_counter()))

        ticks.clear()
        await asyncio.sleep(2.0)
        out["idle gap"] = [b - a - 0.005 for a, b in itertools.pairwise(ticks)]

        def lateness() -> list[float]:
            """How late each tick came, for ticks due while the worker counted."""
            start, end = spans[-1]
            due = [(a, b) for a, b in itertools.pairwise(ticks) if start <= a <= end]
            return [b - a - 0.005 for a, b in due]

        async def settle() -> None:
            while app.screen.counting or not spans:
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.05)

        ticks.clear()
        await pilot.press("at")
        await settle()
        out["first gap"] = lateness()
        data = app.personal.userdata
        target = corpus.abstracts[0]
        for i in range(rounds):
            ticks.clear()
            spans.clear()
            data.set_bookmark(target, i % 2 == 0)  # what b does; the open view counts again
            saved.recount()  # what view_changed calls (the rest of it is not counting)
            await settle()
            out["counting gap"] += lateness()
        await pilot.press("escape")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpora" / "iclr")
    parser.add_argument("--synthetic", type=int, default=100_000, metavar="N")
    parser.add_argument("--searches", type=int, default=20, metavar="K")
    parser.add_argument("--rounds", type=int, default=10, metavar="R")
    parser.add_argument("--switch", type=float, default=None)
    args = parser.parse_args()
    if args.switch:
        sys.setswitchinterval(args.switch)
    base = load_corpus([args.corpus if args.corpus.is_dir() else locations.seeds_dir()])
    corpus = _synthetic(base, args.synthetic)
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        t0 = time.perf_counter()
        index = cache.load_or_build(corpus, locations.cache_dir(data_dir))
        built = time.perf_counter() - t0
        _fill(data_dir, corpus, args.searches)
        ud = UserData.open(data_dir)
        queries = [s.query for s in ud.saved_searches()]
        cold, warm, child_cold, child_warm = [], [], [], []
        for _ in range(3):
            counter = SearchIndex(index.data)
            for runs in (cold, warm):
                t0 = time.perf_counter()
                count_searches(counter, queries, ud)
                runs.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            child = CountProcess(*cache.locate(corpus, locations.cache_dir(data_dir)))
            for runs in (child_cold, child_warm, child_warm):
                t0 = time.perf_counter()
                assert child.count(queries, ud) is not None
                runs.append(time.perf_counter() - t0)
            child.close()
        ud.close()
        app = asyncio.run(_in_app(corpus, data_dir, args.rounds))
    n = len(corpus)
    print(
        f"saved-search counts: {n:,} abstracts, {len(queries)} saved searches (index {built:.1f} s)"
    )
    print("figures taken while other work shared the machine's 2 cores: read the ratios")
    print(f"in a thread, one count run, cold caches   {_ms(cold)}")
    print(f"in a thread, one count run, warm caches   {_ms(warm)}")
    print(f"child process, first run (loads index)    {_ms(child_cold)}")
    print(f"child process, next runs (sets unchanged) {_ms(child_warm)}")
    print(f"UI thread: recount (list + start worker)  {_ms(app['recount'])}")
    print(f"UI thread: show the counts               {_ms(app['show'])}")
    idle, busy = app["idle gap"], app["counting gap"]
    print(f"loop lateness, idle (reference)          {_ms(idle)}")
    print(f"loop lateness, first (cold) count run    {_ms(app['first gap'])}")
    print(f"loop lateness, while counting again      {_ms(busy)}")
    ratio = statistics.median(busy) / max(statistics.median(idle), 1e-6)
    print(f"median lateness while counting / idle: {ratio:.1f}x; worst {max(busy) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
