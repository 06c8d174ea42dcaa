"""`abstracts list` and `abstracts feed`: every loaded abstract with the user's marks, and
the taste ranking (the app's `F`) on the command line.

`list` prints every abstract loaded from PATH (default: the library of fetched papers,
else the bundled seeds), so
scripts can find ids; `feed` ranks them by the abstracts given with `--like` and
`--unlike`, or, when none are given, by the data directory's bookmarks and
dismissals (the store is opened read-only, as `export` does); papers new since the app
was last opened (`is:new`) come first.

Exit status: 0 rows printed; 1 (feed) nothing left to rank; 2 bad usage, an unknown
or ambiguous id, nothing loaded; 3 (feed) nothing to rank by (no liked abstract).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Sequence

from tui import locations
from tui.commands import complain, help_formatter, report_problems
from tui.corpus.jsonrow import json_row, json_row_line
from tui.corpus.model import Corpus
from tui.sanitize import json_line, visible_line
from tui.store.records import StoreData

EXIT_OK, EXIT_NOTHING_LEFT, EXIT_USAGE, EXIT_NOTHING = 0, 1, 2, 3

LIST_EXAMPLES = """\
examples:
  abstracts list                                   the bundled seeds, one line each
  abstracts list papers/ | grep -i diffusion       find an id (the first column)
  abstracts list papers/ --json | jq -r 'select(.bookmarked) | .id'
"""
FEED_EXAMPLES = """\
examples:
  abstracts feed papers/                           ranked by your bookmarks and dismissals
  abstracts feed papers/ --unread --limit 50       only what you have not read, as F shows
  abstracts feed papers/ --like 3f2a9c1d --like 77b0e1aa --unlike c0ffee12
  abstracts feed papers/ --like 3f2a9c1d --json    one JSON object per line
"""


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    return parser.parse_intermixed_args(list(argv))


def _parser(name: str, description: str, examples: str) -> argparse.ArgumentParser:
    """The parser of `abstracts NAME [options] [PATH ...] [--json]`."""
    parser = argparse.ArgumentParser(
        prog=f"abstracts {name}",
        usage=f"abstracts {name} [options] [PATH ...]",
        formatter_class=help_formatter,
        epilog=examples,
        description=description,
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="abstract files, directories or globs; default: the library (abstracts fetch), "
        "else the bundled seeds",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--data-dir", metavar="DIR", help="where bookmarks and notes are kept")
    return parser


def list_parser() -> argparse.ArgumentParser:
    return _parser(
        "list",
        "Print every loaded abstract: id, venue and year, file, your marks "
        "(★ bookmarked, ✓ read, ✗ not interested) and headline; --json adds the text.",
        LIST_EXAMPLES,
    )


def feed_parser() -> argparse.ArgumentParser:
    parser = _parser(
        "feed",
        "Rank the loaded abstracts by taste (the reader's F): most like the "
        "liked ones and unlike the dismissed ones, each with the liked abstract it is "
        "closest to. Without --like or --unlike: your bookmarks and dismissals.",
        FEED_EXAMPLES,
    )
    parser.add_argument(
        "--like",
        action="append",
        default=[],
        metavar="ID",
        help="an abstract you like (an id or a unique prefix); repeat for more",
    )
    parser.add_argument(
        "--unlike",
        action="append",
        default=[],
        metavar="ID",
        help="an abstract you are not interested in; repeat for more",
    )
    parser.add_argument(
        "--unread", action="store_true", help="leave out abstracts marked read in the data dir"
    )
    parser.add_argument(
        "--limit", type=int, default=20, metavar="N", help="how many to print (default 20)"
    )
    return parser


def _load(prog: str, paths: list[str], data_dir: str | None) -> Corpus | None:
    from tui.corpus.load import load_corpus
    from tui.inbox.library import default_paths

    directory = locations.data_dir(data_dir)
    corpus = load_corpus(
        paths or default_paths(directory), cache_dir=locations.cache_dir(directory)
    )
    report_problems(prog, corpus.problems)
    if not corpus.abstracts:
        print(f"{prog}: no abstracts loaded", file=sys.stderr)
        return None
    return corpus


def _user_data(prog: str, data_dir: str | None) -> StoreData:
    """The data dir's store, read-only; empty (with a warning) when there is none to read."""
    from tui.commands.export import load
    from tui.store.db import StoreError
    from tui.store.exporting import NoStore

    directory = locations.data_dir(data_dir)
    try:
        return load(directory, prog)
    except NoStore:
        return StoreData()
    except (StoreError, sqlite3.Error) as e:
        complain(f"{prog}: warning: your data could not be read ({e}); no marks shown")
        return StoreData()


def main_list(argv: Sequence[str]) -> int:
    """`abstracts list [PATH ...] [--json]`; returns the exit status."""
    from tui.commands.corpusview import open_view

    args = _parse(list_parser(), argv)
    prog = "abstracts list"
    view = open_view(prog, args.paths, locations.data_dir(args.data_dir))
    report_problems(prog, view.problems)
    if not len(view):
        print(f"{prog}: no abstracts loaded", file=sys.stderr)
        return EXIT_USAGE
    data = _user_data(prog, args.data_dir)
    out = sys.stdout

    def marks(i: str) -> dict[str, bool]:
        return {
            "bookmarked": i in data.bookmarks,
            "read": i in data.reads,
            "dismissed": i in data.dismissals,
        }

    ids = view.ids()  # from the rows only when they hold the ids they were written with
    if args.json:
        # Each row's JSON was kept whole with the corpus rows: only the marks are added.
        for i, core in view.json_lines():
            out.write(json_row_line(core, **marks(i)) + "\n")
    else:
        for abstract in view.abstracts(ids=ids):
            marked = marks(abstract.id)
            shown = "".join(
                glyph if marked[name] else " "
                for name, glyph in (("bookmarked", "★"), ("read", "✓"), ("dismissed", "✗"))
            )
            source = abstract.source
            line = (
                f"{abstract.id}  {abstract.collection.short}  {source.name}#{source.position}  "
                f"{shown}  {abstract.headline}"
            )
            out.write(visible_line(line) + "\n")
    view.finish()
    return EXIT_OK


def _resolve(corpus: Corpus, wanted: list[str]) -> tuple[list[str], list[str]]:
    """The ids meant by `wanted` (ids or unique prefixes), and why each other one is not."""
    from tui.commands.similar import resolve_id

    found, problems = [], []
    for key in wanted:
        abstract, reason = resolve_id(corpus, key)
        if abstract is None:
            problems.append(reason)
        else:
            found.append(abstract.id)
    return found, problems


def main_feed(argv: Sequence[str]) -> int:
    """`abstracts feed [PATH ...] [--like ID ...] [--unlike ID ...] [--json] [--limit N]`."""
    parser = feed_parser()
    args = _parse(parser, argv)
    if args.limit < 0:
        parser.error("--limit must be 0 or more")
    prog = "abstracts feed"
    corpus = _load(prog, args.paths, args.data_dir)
    if corpus is None:
        return EXIT_USAGE
    likes, bad_likes = _resolve(corpus, args.like)
    unlikes, bad_unlikes = _resolve(corpus, args.unlike)
    if bad_likes or bad_unlikes:
        complain(
            f"{prog}: unknown id(s): {'; '.join(bad_likes + bad_unlikes)} "
            "(abstracts list PATH ... shows the ids)"
        )
        return EXIT_USAGE
    given = bool(args.like or args.unlike)
    data = _user_data(prog, args.data_dir) if not given or args.unread else StoreData()
    if not given:
        likes = [i for i in data.bookmarks if i in corpus.by_id]
        unlikes = [i for i in data.dismissals if i in corpus.by_id]
    if not likes:
        complain(f"{prog}: nothing to rank by: {_no_likes(given, data, args.data_dir)}")
        return EXIT_NOTHING

    from tui.commands.corpusview import similarity_model
    from tui.triage.feed import rank_feed

    cache_dir = locations.cache_dir(locations.data_dir(args.data_dir))
    model = similarity_model(prog, corpus, cache_dir)
    skip = set(data.reads) if args.unread else set()
    from tui.inbox.library import open_inbox

    new = open_inbox(locations.data_dir(args.data_dir), corpus).new_ids()
    items = rank_feed(model, corpus, likes, unlikes, skip=skip, k=args.limit, first=new)
    if not items and args.limit:
        complain(f"{prog}: nothing left to rank: every abstract is liked, dismissed or read")
        return EXIT_NOTHING_LEFT
    for rank, item in enumerate(items, 1):
        abstract, because = item.abstract, item.because
        if args.json:
            row = json_row(
                abstract, score=round(item.score, 4), because=because.id, shared=list(item.shared)
            )
            print(json_line(row))
        else:
            why = f"because {because.id}" + (f": {', '.join(item.shared)}" if item.shared else "")
            line = (
                f"{rank:>2}. {item.score:.3f}  {abstract.id}  {abstract.collection.short}  "
                f"{abstract.headline}  ({why})"
            )
            print(visible_line(line))
    return EXIT_OK


def _no_likes(given: bool, data: StoreData, data_dir: str | None) -> str:
    """Why there is no liked abstract, and what to do about it."""
    if given:
        return "only --unlike was given; add --like ID (abstracts list shows the ids)"
    where = locations.data_dir(data_dir)
    if data.bookmarks:
        return (
            f"none of the {len(data.bookmarks):,} bookmarks in {where} is among the "
            "abstracts loaded; give the files they are in, or --like ID"
        )
    return f"no bookmarks in {where}; bookmark abstracts in the reader (b) or give --like ID"
