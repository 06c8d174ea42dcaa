"""The feed's ranking time on a real corpus, and how long the reader's event loop waits
while it runs; figures only, never a test.

Prints, for the ICLR corpus by default:
  * `rank_feed` (the feed view `F` and `abstracts feed`) with 10 bookmarks and 5
    dismissals over the unread abstracts (2,000 read), k = 100 (the view) and k = 20,
    median and p95 over random readers, against "more like this" (`similar(i, 10)`)
    measured in the same run as the reference;
  * in the app itself (headless, same corpus): the longest gap between ticks of a 5 ms
    timer on the event loop while the feed ranks in its worker, against the longest gap
    while nothing runs. Target: ranking <= 100 ms at 6,506 abstracts, and the
    UI never waits on it.

    python bench/feed.py [--corpus DIR] [--readers 30]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tui.corpus.load import load_corpus  # noqa: E402
from tui.corpus.model import Corpus  # noqa: E402
from tui.similar import cache  # noqa: E402
from tui.similar.model import SimilarityModel  # noqa: E402
from tui.triage.feed import FEED_SIZE, rank_feed  # noqa: E402

DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "iclr"


def p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def line(label: str, values: Sequence[float], reference: float) -> str:
    median = statistics.median(values)
    return (
        f"  {label:<34} median {median * 1000:8.2f} ms  p95 {p95(values) * 1000:8.2f} ms"
        f"  ({median / reference:,.0f}x more like this)"
    )


def ranking(corpus: Corpus, model: SimilarityModel, readers: int) -> None:
    rng = random.Random(12)
    ids = [a.id for a in corpus.abstracts]
    reference = [timed(lambda: model.similar(rng.randrange(len(ids)), 10)) for _ in range(200)]
    ref = statistics.median(reference)
    print(f"  {'more like this (reference)':<34} median {ref * 1000:8.2f} ms")
    for k in (FEED_SIZE, 20):
        times = []
        for _ in range(readers):
            likes, unlikes = rng.sample(ids, 10), rng.sample(ids, 5)
            read = set(rng.sample(ids, min(2000, len(ids) // 3)))
            times.append(
                timed(lambda likes=likes, unlikes=unlikes, read=read, k=k: rank_feed(
                    model, corpus, likes, unlikes, skip=read, k=k
                ))
            )  # fmt: skip
        print(line(f"rank_feed, k = {k}", times, ref))


async def event_loop_gaps(corpus: Corpus, data_dir: Path) -> tuple[float, float, float]:
    """(longest gap idle, longest gap while the feed ranks, ranking seconds) in the app."""
    from tui.store.userdata import UserData
    from tui.ui.app import make_app

    rng = random.Random(3)
    seeded = UserData.open(data_dir)
    for abstract in rng.sample(corpus.abstracts, 10):
        seeded.set_bookmark(abstract, True)
    for abstract in rng.sample(corpus.abstracts, 5):
        seeded.set_dismissed(abstract, True)
    seeded.close()
    app = make_app(corpus=corpus, data_dir=data_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        while app.personal.userdata is None:
            await pilot.pause(0.05)
        await asyncio.to_thread(app.triage.ensure_similarity)  # not what is measured

        async def longest_gap(seconds: float, until: Callable[[], bool] | None = None) -> float:
            loop = asyncio.get_running_loop()
            last = start = loop.time()
            worst = 0.0
            while loop.time() - start < seconds and not (until and until()):
                await asyncio.sleep(0.005)
                now = loop.time()
                worst, last = max(worst, now - last - 0.005), now
            return worst

        idle = await longest_gap(1.0)
        # Measured from before the key: the ranking starts as the feed opens.
        watching = asyncio.create_task(longest_gap(30, lambda: app.feed.last_seconds is not None))
        await asyncio.sleep(0)
        app.feed.open()
        busy = await watching
        return idle, busy, app.feed.last_seconds or 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--readers", type=int, default=30)
    args = parser.parse_args()
    corpus = load_corpus([args.corpus])
    with tempfile.TemporaryDirectory() as tmp:
        model = cache.load_or_build(corpus, Path(tmp) / "cache")
        print(f"{len(corpus):,} abstracts ({args.corpus}); figures taken on a shared machine")
        ranking(corpus, model, args.readers)
        idle, busy, seconds = asyncio.run(event_loop_gaps(corpus, Path(tmp) / "data"))
    print(
        f"  in the app: the feed ranked in {seconds * 1000:.0f} ms in its worker; the event "
        f"loop's longest wait meanwhile {busy * 1000:.1f} ms (idle: {idle * 1000:.1f} ms)"
    )


if __name__ == "__main__":
    main()
