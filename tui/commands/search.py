"""`abstracts search QUERY [PATH ...]`: the app's search engine on the command line.

Rows come in the app's order: abstracts matching every term first, then the
closest matches (most of the terms, or words related to them); `--json` rows say
which (`"match": "all"` or `"close"`) and, in `"matched"`, which query words the row
holds only in another form, spelling, a related word or a completion. `@NAME` runs the search saved under NAME in the reader (`S`), in
its order, read from the data directory without writing to it. Exit status: 0
when anything is printed, 1 when no abstract shares a word with the query, 2 on a
bad query, an unknown saved search, or when no input could be loaded.
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, cast

from tui import locations
from tui.commands import (
    complain,
    help_formatter,
    parse_first_and_paths,
    report_problems,
)
from tui.corpus.jsonrow import json_row
from tui.sanitize import json_line, visible_line
from tui.search.personal import PersonalData
from tui.search.query import QueryError, parse_query

if TYPE_CHECKING:
    from tui.corpus.model import Abstract, Corpus
    from tui.search.filters import TopicNumbers
    from tui.search.index import Order, SearchIndex, SearchResult
    from tui.search.query import Query

EXIT_MATCHED = 0
EXIT_NO_MATCH = 1
EXIT_ERROR = 2

EXAMPLES = """\
examples:
  abstracts search 'contrastve learning'           typos are fine; the bundled seeds
  abstracts search 'diffusion year:2023' papers/   every *.txt below papers/
  abstracts search '"graph neural" -survey' a.txt  a phrase, and an excluded word
  abstracts search -- -survey papers/ --limit 5    a query starting with -: after --
  abstracts search -q -survey papers/              ... or with -q
  abstracts search '×' papers/ --json              symbols and LaTeX macros (\\times) too
  abstracts search @weekly papers/ --limit 20      a search saved in the reader (S)
"""


def build_parser() -> argparse.ArgumentParser:
    """The subcommand's own argument parser."""
    parser = argparse.ArgumentParser(
        prog="abstracts search",
        usage="abstracts search [options] (QUERY | -q QUERY | -- QUERY) [PATH ...]",
        formatter_class=help_formatter,
        epilog=EXAMPLES,
        description=(
            "Print the abstracts matching QUERY, best first: those with every term, then the "
            "closest matches. Terms match every form of a word (network, networks; "
            "optimisation, optimization) and tolerate typos; related words (position for "
            "positional) make only close matches; "
            '"exact phrase", -exclude, venue:NAME, year:2023, year:2022..2024, file:NAME, '
            "is:bookmarked, is:read, is:unread, is:dismissed, has:note, note:WORD. "
            "@NAME runs a search saved in the reader."
        ),
    )
    parser.add_argument(
        "words",
        nargs="*",
        metavar="QUERY [PATH ...]",
        help="what to look for (quote it in the shell), then abstract files, directories "
        "or globs; default: the bundled seeds",
    )
    parser.add_argument(
        "-q",
        "--query",
        metavar="QUERY",
        help="the query, when it starts with - (or write it after --); every "
        "argument left is a PATH",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--limit", type=int, metavar="N", help="print at most N matches")
    parser.add_argument("--data-dir", metavar="DIR", help="where bookmarks, notes and caches live")
    return parser


class UnknownSearch(LookupError):
    """No saved search of that name; the message names it and lists those there are."""


def saved_search(name: str, data_dir: Path) -> tuple[str, Order]:
    """The query and order saved under `name` (`@` optional, case ignored) in `data_dir`,
    read without writing to the store. Raises `UnknownSearch`, or StoreError/sqlite3.Error."""
    from tui.store.names import sort_of

    database = locations.database_path(data_dir)
    searches = []
    if database.is_file():
        from tui.store.db import Store

        store = Store.open(data_dir, read_only=True)
        try:
            searches = list(store.load().searches.values())
        finally:
            store.close()
    wanted = name.strip().removeprefix("@").strip().casefold()
    for search in searches:
        if search.name.casefold() == wanted:
            return search.query, "file" if sort_of(search.sort) == "file" else "relevance"
    known = ", ".join(sorted((s.name for s in searches), key=str.casefold))
    listed = (
        f"saved searches: {known}" if known else "none is saved yet (S in the reader saves one)"
    )
    raise UnknownSearch(f"no saved search named {name!r} in {data_dir}; {listed}")


def _topic_numbers(corpus: Corpus, data_dir: Path, wanted: list[int]) -> TopicNumbers:
    """Each abstract's topic number, as the reader's topic view (T) numbers them (cached)."""
    from tui import cachefile
    from tui.similar import load_or_build as load_or_build_similar
    from tui.similar.topic_cache import load_or_build as load_or_build_topics

    cache_dir = locations.cache_dir(data_dir)
    model = load_or_build_similar(corpus, cache_dir)
    topics = load_or_build_topics(corpus, cache_dir, model)
    why = cachefile.unusable(cache_dir)
    if why is not None:
        complain(
            f"abstracts search: warning: no cache can be kept in {cache_dir} ({why}); "
            "the topics were computed for this search alone"
        )
    for number in wanted:
        if not 1 <= number <= topics.count:
            # A topic that does not exist matches nothing: say so rather than look empty.
            complain(
                f"abstracts search: there is no topic {number}: this corpus has "
                f"{topics.count} (topic:1 to topic:{topics.count}; the reader's T lists them)"
                if topics.count
                else f"abstracts search: there is no topic {number}: this corpus has none"
            )
    return topics.number


@contextlib.contextmanager
def _personal_data(data_dir: Path) -> Iterator[PersonalData | None]:
    """The user's data for personal fields, or None when it cannot be opened."""
    try:
        from tui.store.userdata import UserData

        user_data = UserData.open(data_dir)
    except Exception as error:  # the store is optional here: search still works without it
        complain(f"abstracts search: user data unavailable ({error})")
        yield None
        return
    try:
        yield user_data
    finally:
        with contextlib.suppress(Exception):
            user_data.close()


def main(argv: list[str]) -> int:
    """Run the search subcommand; returns the exit status."""
    parser = build_parser()
    args = parse_first_and_paths(parser, argv, "query", "--query")
    if args.limit is not None and args.limit < 0:
        parser.error("--limit must be 0 or more")
    if not args.query.strip():
        # An empty query matches everything, which is never what was meant here.
        parser.error("QUERY is empty; give something to look for (quote it in the shell)")
    data_dir = locations.data_dir(args.data_dir)
    order: Order = "relevance"
    if args.query.startswith("@"):
        # Imported here: only a saved search opens the store (a plain search need not pay).
        from tui.store.opening import StoreError

        try:
            args.query, order = saved_search(args.query, data_dir)
        except (UnknownSearch, StoreError, sqlite3.Error) as error:
            complain(f"abstracts search: {error}")
            return EXIT_ERROR
    # Parse before loading anything: a typo in the query should fail fast.
    try:
        query = parse_query(args.query)
    except QueryError as error:
        complain(f"abstracts search: bad query: {error}")
        return EXIT_ERROR
    if query.is_empty:
        # `'*'`, `'🙂'`, `'""'`: no word, symbol or field, so it would match everything.
        parser.error(
            f"QUERY {args.query!r} has nothing to look for (no word, symbol or field); "
            "give a word, as in: abstracts search 'graph'"
        )

    from tui.commands.corpusview import open_view
    from tui.inbox.library import open_inbox

    view = open_view("abstracts search", args.paths, data_dir)
    report_problems("abstracts search", view.problems)
    if not len(view):
        if not view.problems:
            print("abstracts search: no abstracts found in the given paths", file=sys.stderr)
        return EXIT_ERROR
    corpus = view.corpus() if needs_corpus(query) else None
    if any(f.name == "new" or f.arg == "new" for f in query.fields):
        from tui.search.inbox import use_inbox

        use_inbox(open_inbox(data_dir, view.corpus()))

    index = view.search_index()
    topics = (
        _topic_numbers(view.corpus(), data_dir, [cast(int, f.arg) for f in wanted_topics])
        if (wanted_topics := [f for f in query.fields if f.name == "topic"])
        else None
    )
    with contextlib.ExitStack() as stack:
        personal = stack.enter_context(_personal_data(data_dir)) if query.needs_personal else None
        result = index.search(
            query, corpus, personal=personal, order=order, limit=args.limit, topics=topics
        )
    found = view.abstracts(result.indices, text=args.json, ids=index.data.ids)
    _print(result, found, index, query, args.json)
    view.finish()
    return EXIT_MATCHED if result.indices else EXIT_NO_MATCH


#: Fields answered from the index and the user's data alone (with `has:note`, `has:tag`);
#: any other (`author:`, `title:`, `id:`, `has:abstract`, `topic:`, `new:`) reads the corpus.
_INDEX_FIELDS = frozenset({"venue", "year", "file", "is", "note", "tag"})


def needs_corpus(query: Query) -> bool:
    """True when `query` has a field that reads the loaded abstracts, not only the index."""
    return not all(
        f.name in _INDEX_FIELDS or (f.name == "has" and f.arg in ("note", "tag"))
        for f in query.fields
    )


def _print(
    result: SearchResult,
    rows: Iterator[Abstract],
    index: SearchIndex,
    query: Query,
    as_json: bool,
) -> None:
    """Each matching row: `id  venue year  headline`, or a JSON object per line."""
    # Which query words each row holds only as another form, a near spelling, a
    # related word or a completion (`"matched"`, [] when it holds them all as typed).
    highlighter = index.highlighter(query) if as_json else None
    out = sys.stdout
    divider = out.isatty() and not as_json
    for position, (abstract, score) in enumerate(zip(rows, result.scores, strict=True)):
        close = result.is_close(position)
        if divider and position == result.matched:
            # On a terminal only: a pipe gets rows and nothing else.
            out.write(f"-- closest matches ({result.close:,}; not every word) --\n")
        if highlighter is not None:
            matched = [m.as_json() for m in highlighter.matched(abstract.plain)]
            record = json_row(
                abstract,
                score=round(score, 4),
                match="close" if close else "all",
                matched=matched,
            )
            out.write(json_line(record) + "\n")
        else:
            line = f"{abstract.id}  {abstract.collection.short}  {abstract.headline}"
            out.write(visible_line(line) + "\n")
