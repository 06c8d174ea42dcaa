"""The `abstracts` command: open the reader, or run a subcommand.

`abstracts [PATH ...]` opens the app (no PATH: the library of fetched papers when it has
some, else the bundled seeds). The words `search`, `similar`, `export`, `import`, `list`,
`feed`, `follow` and `fetch` as the first argument run
the subcommand of that name instead (write `./search` for a file called search).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tui import __version__
from tui.sanitize import json_safe, visible_line

if TYPE_CHECKING:
    from tui.ui.app import AbstractsApp

# name -> (module, function); imported only when used, to keep start-up fast.
SUBCOMMANDS = {
    "search": ("tui.commands.search", "main"),
    "similar": ("tui.commands.similar", "main"),
    "export": ("tui.commands.export", "main_export"),
    "import": ("tui.commands.export", "main_import"),
    "list": ("tui.commands.feed", "main_list"),
    "feed": ("tui.commands.feed", "main_feed"),
    "follow": ("tui.commands.follow", "main"),
    "fetch": ("tui.commands.fetch", "main"),
}

EXIT_NOTHING_LOADED = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="abstracts",
        description="Read, search, bookmark and annotate research-paper abstracts in the terminal.",
        epilog="Subcommands: " + ", ".join(f"abstracts {name} --help" for name in SUBCOMMANDS),
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="abstract files, directories or globs; default: the library of fetched papers "
        "(abstracts fetch), else the bundled seeds",
    )
    parser.add_argument("--data-dir", metavar="DIR", help="where bookmarks and notes are kept")
    parser.add_argument("--version", action="version", version=f"abstracts {__version__}")
    return parser


def _subcommand_first(args: list[str]) -> list[str]:
    """`abstracts --data-dir DIR export ...` means `abstracts export ... --data-dir DIR`."""
    if len(args) >= 3 and args[0] == "--data-dir" and args[2] in SUBCOMMANDS:
        return [args[2], *args[3:], "--data-dir", args[1]]
    if len(args) >= 2 and args[0].startswith("--data-dir=") and args[1] in SUBCOMMANDS:
        return [args[1], *args[2:], args[0]]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `abstracts` console script and `python -m tui`."""
    args_list = _subcommand_first(list(sys.argv[1:] if argv is None else argv))
    if args_list and args_list[0] in SUBCOMMANDS:
        module_name, function = SUBCOMMANDS[args_list[0]]
        command = getattr(importlib.import_module(module_name), function)
        try:
            return int(command(args_list[1:]))
        except BrokenPipeError:
            # `abstracts search x | head`: the reader has gone; that is not an error.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 0

    args = build_parser().parse_args(args_list)
    # Start-up allocates many long-lived objects (Textual, the corpus); cyclic garbage
    # collection passes over them are wasted work before the first paint (about 40 ms
    # here). The app freezes what exists and turns collection back on once it has painted.
    gc.disable()
    from tui import locations
    from tui.commands import report_problems
    from tui.corpus.load import load_corpus
    from tui.inbox.library import default_paths

    # Files unchanged since the last start are not read and parsed again.
    data_dir = locations.data_dir(args.data_dir)
    cache = locations.cache_dir(data_dir)
    corpus = load_corpus(args.paths or default_paths(data_dir), cache_dir=cache)
    if not corpus.abstracts:
        report_problems("abstracts", corpus.problems)
        print("abstracts: nothing could be loaded; no abstracts to show.", file=sys.stderr)
        return EXIT_NOTHING_LOADED

    from tui.ui.app import make_app

    app = make_app(corpus=corpus, data_dir=args.data_dir)
    guard = app.quit_sequence.guard
    guard.last_words = lambda: _after_the_app(app)
    guard.install()
    result = app.run()
    guard.say_last_words()
    status = int(result or 0)
    if guard.hung_up or not _stderr_works():
        # The terminal is gone: the interpreter's own exit would only fail flushing it
        # (and turn the status into 120).
        os._exit(status)
    return status


def _stderr_works() -> bool:
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        return False
    return True


def _after_the_app(app: AbstractsApp) -> None:
    """What the user must see once the screen is back: load problems, unsaved changes.
    A closed terminal cannot be written to (the rescue file is on disk either way)."""
    from tui.commands import report_problems

    with contextlib.suppress(OSError, ValueError):
        report_problems("abstracts", app.corpus.problems)
        if app.personal.rescue_path is not None:
            rescue = visible_line(str(app.personal.rescue_path))
            print(
                f"abstracts: saving failed; unsaved changes were written to {rescue}.\n"
                f"abstracts: bring them back with: abstracts import {rescue}",
                file=sys.stderr,
            )
        elif app.personal.rescue_text:
            print("abstracts: saving failed and no rescue file could be written;", file=sys.stderr)
            print(
                "abstracts: your unsaved changes follow (save them as a .json file to import):",
                file=sys.stderr,
            )
            # JSON: escaped, not replaced, so what is saved from the screen imports exactly.
            print(json_safe(app.personal.rescue_text), file=sys.stderr)
        sys.stderr.flush()
