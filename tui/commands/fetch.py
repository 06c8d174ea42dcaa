"""`abstracts fetch`: bring the followed sources' new papers into the library.

Each source's new papers go into one Atom file in the library folder of the data dir
(`abstracts`, `list`, `search` and `feed` open it when no PATH is given). Progress goes
to stderr. Offline, it says so in one line.

Exit status: 0 fetched (perhaps nothing new); 1 arXiv could not be reached or a source
failed (what was stored before stands); 2 nothing followed, or a bad config; 130
interrupted (Ctrl+C: the next fetch resumes).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tui import locations
from tui.commands import complain, help_formatter
from tui.sanitize import visible_line

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

EXAMPLES = """\
examples:
  abstracts follow cs.LG && abstracts fetch      follow a category, bring in its papers
  abstracts fetch --api-url http://127.0.0.1:8080/api/query   a mirror or a test server
the daily routine: abstracts fetch, then abstracts (F: the feed, is:new: what arrived)
"""


def parser() -> argparse.ArgumentParser:
    from tui.inbox.fetch import MAX_PAPERS

    p = argparse.ArgumentParser(
        prog="abstracts fetch",
        formatter_class=help_formatter,
        epilog=EXAMPLES,
        description="Fetch what is new for every followed source from the arXiv API "
        "(one request every 3 seconds) into the library; an interrupted fetch resumes.",
    )
    p.add_argument("--api-url", metavar="URL", help="the API's address (config key api_url)")
    p.add_argument(
        "--max",
        type=int,
        default=MAX_PAPERS,
        metavar="N",
        help=f"at most N papers per source (default {MAX_PAPERS:,})",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--data-dir", metavar="DIR", help="where the library is kept")
    p.add_argument("--config-dir", metavar="DIR", help="where config.toml is kept")
    return p


def main(argv: Sequence[str]) -> int:
    """`abstracts fetch [options]`; returns the exit status."""
    from tui.inbox.client import SystemClock
    from tui.inbox.fetch import Progress
    from tui.inbox.run import fetch_followed

    args = parser().parse_args(list(argv))
    prog = "abstracts fetch"
    if args.max < 1:
        complain(f"{prog}: --max must be 1 or more")
        return EXIT_USAGE
    if args.api_url is not None and not args.api_url.startswith(("http://", "https://")):
        complain(f"{prog}: --api-url must be an http(s) URL")
        return EXIT_USAGE

    def progress(p: Progress) -> None:
        if not args.quiet:
            line = f"{prog}: {p.source.text}: page {p.pages}, {p.papers:,} papers read"
            print(visible_line(line), file=sys.stderr)

    try:
        outcome = fetch_followed(
            locations.data_dir(args.data_dir),
            locations.config_dir(args.config_dir),
            SystemClock(),
            api_url=args.api_url,
            max_papers=args.max,
            progress=progress,
        )
    except KeyboardInterrupt:
        complain(f"{prog}: interrupted; the next fetch resumes where this one stopped")
        return EXIT_INTERRUPTED
    for result in outcome.results:
        if result.error is not None:
            complain(f"{prog}: {result.source.text}: {result.error}; the files stored before stand")
        else:
            where = f" into {result.path}" if result.path is not None else ""
            print(visible_line(f"{result.source.text}: {result.stored:,} new papers{where}"))
    if outcome.problem is not None:
        complain(f"{prog}: {outcome.problem}")
        return EXIT_USAGE if outcome.usage else EXIT_FAILED
    return EXIT_FAILED if outcome.failed else EXIT_OK
