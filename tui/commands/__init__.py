"""Command-line subcommands (search, similar, export, import, list, feed); no Textual here.

Whatever they print that holds data (file names, ids, headlines, notes, error
messages quoting them) goes through `tui.sanitize`, so it is shown, never obeyed.

Arguments are parsed the same way by every subcommand that takes a first
argument and paths (`search QUERY [PATH ...]`, `similar ID [PATH ...]`): options
may come anywhere, and `--` marks only the next argument as that first argument,
whatever it starts with, so `search -- -graph PATH --limit 2` searches for
`-graph` in PATH and prints at most 2 rows. A path starting with `-` is written
`./-name`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence

from tui.sanitize import visible, visible_line


def complain(message: str) -> None:
    """One message on stderr, its control characters shown as symbols."""
    print(visible(message), file=sys.stderr)


def report_problems(prog: str, problems: Iterable[object]) -> None:
    """Each load problem on one line of stderr: `prog: path: message`."""
    for problem in problems:
        print(visible_line(f"{prog}: {problem}"), file=sys.stderr)


def help_formatter(prog: str) -> argparse.HelpFormatter:
    """Help whose epilog (the examples) keeps its lines as written."""
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=30)


def parse_first_and_paths(
    parser: argparse.ArgumentParser, argv: Sequence[str], dest: str, option: str | None = None
) -> argparse.Namespace:
    """Parse `FIRST [PATH ...]` with options anywhere (see the module's docstring).

    `parser` has a positional `words` (nargs="*") and, when `option` is given
    (`--query`), that option with `dest`. FIRST is the argument after `--`, the
    option's value, or else the first positional; the rest are `paths`. Exits with
    status 2 (argparse's usage error) when FIRST is missing or given twice.
    """
    args = list(argv)
    first: str | None = None
    if "--" in args:
        at = args.index("--")
        if at + 1 < len(args):
            first = args[at + 1]
            del args[at : at + 2]
        else:
            del args[at]
    if option is not None:
        # `-q -graph`: argparse would read `-graph` as an option; the value is taken as is.
        short = "-" + option.lstrip("-")[0]
        for at, arg in enumerate(args):
            if arg in (short, option) and at + 1 < len(args):
                args[at : at + 2] = [f"{option}={args[at + 1]}"]
                break
    namespace = parser.parse_intermixed_args(args)
    given = getattr(namespace, dest, None)
    words: list[str] = namespace.words
    if first is not None and given is not None:
        parser.error(f"give {dest.upper()} once: after -- or with {option}, not both")
    first = first if first is not None else given
    if first is None:
        if not words:
            parser.error(f"the following arguments are required: {dest.upper()}")
        first, words = words[0], words[1:]
    setattr(namespace, dest, first)
    namespace.paths = words
    return namespace
