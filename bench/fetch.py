"""Fetching from the arXiv API: the stdlib client the app uses, against httpx and the
`arxiv` package, on the same pages from a local fake API (the tests' server).

    python bench/fetch.py [--pages 20] [--per-page 100] [--repeat 3] [--seconds 2]

For each client: the time to fetch and parse the pages (no 3 s spacing: the local
server is not arXiv), the time to import it in a fresh interpreter (paid by every
`abstracts fetch`), and whether it keeps the entries as arXiv sent them (what the
library stores, for the feed reader to read). The `arxiv` package gives `Result`
objects parsed by feedparser (the Atom is gone: it would have to be written again,
losing fields it does not model) and sleeps with time.sleep (no injectable clock);
httpx is an extra dependency for one GET per 3 seconds.

Then the app's responsiveness while it fetches (`f`): how late its event loop wakes
from 5 ms sleeps (what a key press would wait), headless, idle and while a fetch of
the same pages runs in its worker (here without the 3 s spacing, so the whole fetch,
its parsing and its writing are squeezed into the sampled time).

Last, the keys as a user sees them: the whole app launched on a pseudo-terminal (the
bundled seeds, its own data and config dirs pointing at the local API), `f` pressed,
and then `j`/`k` sent every 0.25 s for `--key-seconds` while the fetch runs with arXiv's
real 3 s spacing (each page parsed and written between keys); each key is timed until
the terminal receives the app's answer. The same keys without a fetch, in the same run,
are the reference. Prints figures; never fails.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.library.arxiv_server import Server, papers
from tui.inbox.atom import parse_page
from tui.inbox.client import USER_AGENT, query_url


def urllib_pages(url: str, pages: int, per_page: int) -> int:
    import urllib.request

    n = 0
    for k in range(pages):
        request = urllib.request.Request(
            query_url(url, "cat:cs.LG", k * per_page, per_page), headers={"User-Agent": USER_AGENT}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            n += len(parse_page(response.read()).entries)
    return n


def httpx_pages(url: str, pages: int, per_page: int) -> int:
    import httpx

    n = 0
    with httpx.Client(headers={"User-Agent": USER_AGENT}, timeout=30) as client:
        for k in range(pages):
            answer = client.get(query_url(url, "cat:cs.LG", k * per_page, per_page))
            n += len(parse_page(answer.content).entries)
    return n


def arxiv_pages(url: str, pages: int, per_page: int) -> int:
    import arxiv

    client = arxiv.Client(page_size=per_page, delay_seconds=0.0, num_retries=0)
    client.query_url_format = url + "?{}"
    search = arxiv.Search(
        query="cat:cs.LG",
        max_results=pages * per_page,
        sort_by=arxiv.SortCriterion.SubmittedDate,
    )
    return sum(1 for _ in client.results(search))


def import_seconds(module: str) -> float:
    times = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import {module}"], check=True)
        times.append(time.perf_counter() - started)
    base = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        base.append(time.perf_counter() - started)
    return min(times) - min(base)


async def _loop_lags(app: object, seconds: float, during_fetch: bool) -> list[float]:
    """How late the app's event loop wakes from 5 ms sleeps: a key press waits that long."""
    import asyncio

    from tui.ui.app import AbstractsApp

    assert isinstance(app, AbstractsApp)
    lags: list[float] = []
    async with app.run_test(size=(100, 30)) as pilot:
        # Start-up's own work (the index, the user data, the similarity model) first.
        while app.search.index is None or app.personal.userdata is None:
            await pilot.pause(0.05)
        await pilot.pause(2.0)
        if during_fetch:
            await pilot.press("f")
        ends = time.perf_counter() + seconds
        while time.perf_counter() < ends or (during_fetch and app.fetching.running):
            started = time.perf_counter()
            await asyncio.sleep(0.005)
            lags.append(time.perf_counter() - started - 0.005)
    return lags


def responsiveness(url: str, seconds: float) -> None:
    import asyncio
    import gc
    import os
    import tempfile

    import tui.inbox.client as client_module
    from tui import locations
    from tui.inbox.config import write_follow
    from tui.ui.app import make_app

    client_module.REQUEST_INTERVAL = 0.0  # a local server: no need to wait 3 s between pages
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ABSTRACTS_CONFIG_DIR"] = str(Path(tmp) / "config")
        config = locations.config_path(Path(tmp) / "config")
        write_follow(config, ["cs.LG"])
        config.write_text(config.read_text() + f'api_url = "{url}"\n', encoding="utf-8")
        seeds = locations.seeds_dir()
        for label, during in (("idle", False), ("during a fetch", True)):
            data = Path(tmp) / f"data-{label}"
            # As the command line starts it: collection paused, then what start-up made
            # frozen out of it (otherwise full collections over Textual's objects add lag).
            gc.disable()
            app = make_app([seeds], data_dir=data)
            started = time.perf_counter()
            lags = asyncio.run(_loop_lags(app, seconds, during))
            took = time.perf_counter() - started
            ms = sorted(lag * 1000 for lag in lags)
            p99 = ms[int(0.99 * (len(ms) - 1))]
            print(
                f"  {label:15} {len(ms):5} samples over {took:4.1f} s  median {statistics.median(ms):5.1f} ms  "
                f"p99 {p99:5.1f} ms  max {ms[-1]:5.1f} ms"
            )


def _key_answers(url: str, fetch: bool, seconds: float) -> list[float]:
    """Seconds from each key sent to the app's answer on the terminal, `j`/`k` every 0.25 s
    for `seconds`, after `f` when `fetch`."""
    import os
    import select
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from scale import Run, base_env

    from tui import locations
    from tui.inbox.config import write_follow

    with tempfile.TemporaryDirectory() as tmp:
        env = base_env(str(Path(tmp) / "data"))
        env["ABSTRACTS_CONFIG_DIR"] = str(Path(tmp) / "config")
        config = locations.config_path(Path(tmp) / "config")
        write_follow(config, ["cs.LG"])
        config.write_text(config.read_text() + f'api_url = "{url}"\n', encoding="utf-8")
        seeds = str(locations.seeds_dir())
        run = Run([sys.executable, "-m", "tui", seeds], env, sample_memory=False)
        try:
            run.wait_for(b"abstracts", timeout=120)
            _drain(run.master, 3.0)  # the user's data, the index, the model open
            if fetch:
                run.type("f")
                shown = _drain(run.master, 1.0)
                if b"Fetching" not in shown and b"page" not in shown:
                    raise SystemExit("bench/fetch.py: `f` showed no fetch progress")
            answers = []
            ends = time.perf_counter() + seconds
            for n in range(10_000):
                if time.perf_counter() > ends:
                    break
                sent = time.perf_counter()
                os.write(run.master, b"jk"[n % 2 : n % 2 + 1])
                ready, _, _ = select.select([run.master], [], [], 10)
                answers.append(time.perf_counter() - sent if ready else float("inf"))
                _drain(run.master, 0.25)
            return answers
        finally:
            run.end()


def _drain(master: int, seconds: float) -> bytes:
    """What the app draws in the next `seconds`."""
    import os
    import select

    seen = b""
    deadline = time.perf_counter() + seconds
    while (left := deadline - time.perf_counter()) > 0:
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            seen += os.read(master, 65536)
    return seen


def keys_during_fetch(url: str, seconds: float, repeat: int) -> None:
    for label, fetch in (("no fetch", False), ("during `f`", True)):
        ms = sorted(
            took * 1000 for _ in range(repeat) for took in _key_answers(url, fetch, seconds)
        )
        p95 = ms[int(0.95 * (len(ms) - 1))]
        print(
            f"  {label:15} {len(ms):5} keys  median {statistics.median(ms):5.1f} ms  "
            f"p95 {p95:5.1f} ms  max {ms[-1]:6.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--per-page", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--seconds", type=float, default=2.0, help="how long the app's loop is sampled"
    )
    parser.add_argument(
        "--key-seconds", type=float, default=15.0, help="how long keys are sent on the pty"
    )
    args = parser.parse_args()
    server = Server()
    now = datetime.now(UTC)
    server.api.catalogue = papers(args.pages * args.per_page, now - timedelta(hours=1))
    clients = {
        "urllib + defusedxml (chosen)": (urllib_pages, "urllib.request, defusedxml.ElementTree"),
        "httpx + defusedxml": (httpx_pages, "httpx, defusedxml.ElementTree"),
        "arxiv package (feedparser)": (arxiv_pages, "arxiv"),
    }
    total = args.pages * args.per_page
    print(f"{args.pages} pages of {args.per_page} from a local server, median of {args.repeat}")
    for name, (run, modules) in clients.items():
        try:
            seconds = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                got = run(server.api.url, args.pages, args.per_page)
                seconds.append(time.perf_counter() - started)
            imported = import_seconds(modules)
        except Exception as e:  # a client not installed, or failing: say so, go on
            print(f"  {name:30} unavailable ({type(e).__name__}: {e})")
            continue
        median = statistics.median(seconds)
        print(
            f"  {name:30} {median * 1000:7.0f} ms  {median / args.pages * 1000:5.1f} ms/page  "
            f"{got:,}/{total:,} papers  import {imported * 1000:4.0f} ms"
        )
    print(
        "  (against arXiv itself each page waits 3 s by its rules: the client's own cost is "
        "noise beside that)"
    )
    print("the app's event loop lag (what a key press waits), idle and while `f` fetches the pages")
    responsiveness(server.api.url, args.seconds)
    print(
        f"keys answered on a pty, whole app (j/k every 0.25 s for {args.key_seconds:g} s, "
        f"{args.repeat} runs): without a fetch and while `f` fetches with the 3 s spacing"
    )
    keys_during_fetch(server.api.url, args.key_seconds, args.repeat)
    server.close()


if __name__ == "__main__":
    main()
