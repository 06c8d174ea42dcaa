"""A local stand-in for the arXiv API: Atom pages after arXiv's documented schema.

https://info.arxiv.org/help/api/user-manual.html: a `feed` with `opensearch:totalResults`,
`opensearch:startIndex` and `opensearch:itemsPerPage`; entries with a versioned `id`
(`http://arxiv.org/abs/2612.00001v2`), `published` (first version), `updated`, `title`,
`summary`, `author/name`, `arxiv:primary_category`, `category` and `link`s. Results are
newest submission first (`sortBy=submittedDate&sortOrder=descending`), paged by
`start` and `max_results`. A query matches `cat:X` and `au:"Name"`; anything else, all.

`faults` scripts what the next requests get instead of a page: `"503"`, `"429"`,
`"slow"` (no answer for `slow_seconds`), `"truncated"` (half a page), `"spurious-empty"`,
`"hold"` (no answer until `release` is set), `"bad-query"` (HTTP 400 with arXiv's error entry).
"""

from __future__ import annotations

import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.sax.saxutils import escape


@dataclass
class FakePaper:
    arxiv: str
    published: datetime
    version: int = 1
    updated: datetime | None = None
    title: str = ""
    summary: str = ""
    authors: tuple[str, ...] = ("Ada Lovelace", "Charles Babbage")
    categories: tuple[str, ...] = ("cs.LG",)

    def entry(self) -> str:
        updated = self.updated or self.published
        authors = "".join(f"<author><name>{escape(a)}</name></author>" for a in self.authors)
        cats = "".join(
            f'<category term="{c}" scheme="http://arxiv.org/schemas/atom"/>'
            for c in self.categories
        )
        return (
            "<entry>"
            f"<id>http://arxiv.org/abs/{self.arxiv}v{self.version}</id>"
            f"<updated>{updated:%Y-%m-%dT%H:%M:%SZ}</updated>"
            f"<published>{self.published:%Y-%m-%dT%H:%M:%SZ}</published>"
            f"<title>{escape(self.title or 'Paper ' + self.arxiv)}</title>"
            f"<summary>{escape(self.summary or 'We study problem ' + self.arxiv + ' at length.')}</summary>"
            f"{authors}"
            f'<link href="http://arxiv.org/abs/{self.arxiv}v{self.version}" rel="alternate" type="text/html"/>'
            f'<link title="pdf" href="http://arxiv.org/pdf/{self.arxiv}v{self.version}" rel="related" type="application/pdf"/>'
            f'<arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="{self.categories[0]}" scheme="http://arxiv.org/schemas/atom"/>'
            f"{cats}"
            "</entry>"
        )


_METHODS = (
    "graph neural networks",
    "diffusion models",
    "contrastive learning",
    "transformers",
    "bandit algorithms",
    "kernel methods",
    "variational inference",
    "reinforcement learning",
)
_TASKS = (
    "protein folding",
    "image segmentation",
    "machine translation",
    "weather forecasting",
    "robot control",
    "recommendation",
)


def _summary(i: int) -> str:
    method, task = _METHODS[i % len(_METHODS)], _TASKS[(i // len(_METHODS)) % len(_TASKS)]
    return (
        f"We apply {method} to {task}. Our {method.split()[-1]} improve {task} "
        f"benchmarks by a wide margin (case {i})."
    )


def papers(
    n: int,
    newest: datetime,
    *,
    prefix: str = "2612",
    every: timedelta = timedelta(minutes=5),
    first: int = 1,
) -> list[FakePaper]:
    """`n` papers submitted `every` apart, the newest at `newest`, numbered from `first`."""
    return [FakePaper(f"{prefix}.{first + i:05d}", newest - i * every) for i in range(n)]


def feed(entries: list[FakePaper], total: int, start: int, per_page: int) -> bytes:
    body = "".join(p.entry() for p in entries)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom">'
        '<link href="http://arxiv.org/api/query?search_query%3Dcat%3Acs.LG" rel="self" type="application/atom+xml"/>'
        '<title type="html">ArXiv Query: search_query=cat:cs.LG</title>'
        "<id>http://arxiv.org/api/fakeid</id>"
        "<updated>2026-12-01T00:00:00-05:00</updated>"
        f'<opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{total}</opensearch:totalResults>'
        f'<opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{start}</opensearch:startIndex>'
        f'<opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{per_page}</opensearch:itemsPerPage>'
        f"{body}</feed>"
    ).encode()


@dataclass
class FakeArxiv:
    """The catalogue served, the faults to play, and what was asked."""

    catalogue: list[FakePaper] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    requests: list[dict[str, str]] = field(default_factory=list)
    slow_seconds: float = 1.0
    release: threading.Event = field(default_factory=threading.Event)
    url: str = ""

    def matching(self, query: str) -> list[FakePaper]:
        found = self.catalogue
        if query.startswith("cat:"):
            found = [p for p in found if query[4:] in p.categories]
        elif query.startswith("au:"):
            name = query[3:].strip('"')
            found = [p for p in found if name in p.authors]
        return sorted(found, key=lambda p: p.published, reverse=True)


# What arXiv answers a malformed query (HTTP 400).
ERROR_FEED = (
    b'<?xml version="1.0" encoding="UTF-8"?>'
    b'<feed xmlns="http://www.w3.org/2005/Atom">'
    b'<opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">1'
    b"</opensearch:totalResults>"
    b"<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_1234</id>"
    b"<title>Error</title><summary>incorrect id format for 1234</summary></entry></feed>"
)


def _handler(api: FakeArxiv) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
            params["user-agent"] = self.headers.get("User-Agent", "")
            api.requests.append(params)
            fault = api.faults.pop(0) if api.faults else None
            if fault in ("503", "429"):
                self.send_response(int(fault))
                self.send_header("Retry-After", "1")
                self.end_headers()
                return
            if fault == "bad-query":
                self.send_response(400)
                self.end_headers()
                self.wfile.write(ERROR_FEED)
                return
            if fault == "slow":
                time.sleep(api.slow_seconds)
            if fault == "hold":
                api.release.wait(30)
            found = api.matching(params.get("search_query", ""))
            start = int(params.get("start", 0))
            size = int(params.get("max_results", 10))
            page = [] if fault == "spurious-empty" else found[start : start + size]
            data = feed(page, len(found), start, size)
            if fault == "truncated":
                data = data[: len(data) // 2]
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/atom+xml; charset=utf-8")
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


class Server:
    """The fake API on 127.0.0.1, a random port, served by a thread."""

    def __init__(self) -> None:
        self.api = FakeArxiv()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.api))
        self.httpd.daemon_threads = True
        host, port = self.httpd.server_address[:2]
        self.api.url = f"http://{host!s}:{port}/api/query"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
