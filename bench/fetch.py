"""Fetching from the arXiv API: the stdlib client the app uses, against httpx and the
`arxiv` package, on the same pages from a local fake API (the tests' server).

    python bench/fetch.py [--pages 20] [--per-page 100] [--repeat 3]

For each client: the time to fetch and parse the pages (no 3 s spacing: the local
server is not arXiv), the time to import it in a fresh interpreter (paid by every
`abstracts fetch`), and whether it keeps the entries as arXiv sent them (what the
library stores, for the feed reader to read). The `arxiv` package gives `Result`
objects parsed by feedparser (the Atom is gone: it would have to be written again,
losing fields it does not model) and sleeps with time.sleep (no injectable clock);
httpx is an extra dependency for one GET per 3 seconds. Prints figures; never fails.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--per-page", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
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
    server.close()


if __name__ == "__main__":
    main()
