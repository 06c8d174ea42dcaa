"""The `abstracts` command: open the reader, or run a subcommand.

`abstracts [PATH ...]` opens the app (no PATH: the library of fetched papers when it has
some, else the bundled seeds). The words `search`, `similar`, `export`, `import`, `list`,
`feed`, `follow` and `fetch` as the first argument run
the subcommand of that name instead (write `./search` for a file called search);
a first argument that is no file but close to one of those words is taken for a
typo (`did you mean search?`, exit 2).

A subcommand's output is checked: a failed write to stdout (a full disk, /dev/full)
ends it with one line on stderr and `EXIT_OUTPUT_FAILED`; an exception nothing
handled ends it with one line, the traceback in a log file in the data directory
and `EXIT_CRASHED`.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

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
#: The app opens once this many abstracts are read (or all are), and reads the rest after.
FIRST_PAINT_ABSTRACTS = 500
EXIT_USAGE = 2
#: Distinct from every subcommand's own codes (BSD sysexits' EX_SOFTWARE and EX_IOERR).
EXIT_CRASHED = 70
EXIT_OUTPUT_FAILED = 74


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


def close_subcommand(word: str) -> str | None:
    """The subcommand `word` was probably meant to be (`serach`: `search`), or None when
    it may be a path (it exists, or has a slash or a glob character) or is close to none."""
    if word.startswith("-") or any(c in word for c in "/*?[") or os.path.lexists(word):
        return None
    import difflib  # here: only a word that is no file pays for it

    close = difflib.get_close_matches(word, SUBCOMMANDS, n=1, cutoff=0.75)
    return close[0] if close else None


class OutputFailed(Exception):
    """Writing to stdout failed (not a closed pipe): `error` says why."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error


class CheckedStdout(io.TextIOBase):
    """stdout for a subcommand: a failed write or flush raises `OutputFailed`, so no
    command can end 0 with its output cut short. A closed pipe stays BrokenPipeError."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner

    def write(self, text: str) -> int:
        try:
            return self.inner.write(text)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputFailed(e) from e

    def flush(self) -> None:
        try:
            self.inner.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputFailed(e) from e

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase declares a plain attribute
        return self.inner.encoding

    def close(self) -> None:
        """The real stdout stays open (the interpreter closes it)."""


def _silence_stdout() -> None:
    """Send what is still buffered for stdout nowhere: flushing it at exit would only fail
    again (and turn the status into 120)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _data_dir_given(args: Sequence[str]) -> str | None:
    for at, arg in enumerate(args):
        if arg == "--data-dir" and at + 1 < len(args):
            return args[at + 1]
        if arg.startswith("--data-dir="):
            return arg.partition("=")[2]
    return None


def write_crash_log(args: Sequence[str], error: BaseException) -> Path | None:
    """The traceback of `error` in `crash-<time>.log` in the data directory (or the
    system's temporary directory); its path, or None when neither could be written."""
    import tempfile
    import time
    import traceback

    from tui import locations

    text = "".join(traceback.format_exception(error))
    name = f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    try:
        given = locations.data_dir(_data_dir_given(args))
    except Exception:  # no home directory to find the platform's: the temp dir will do
        given = None

    for directory in (given, Path(tempfile.gettempdir())):
        if directory is None:
            continue
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            path = directory / name
            with open(path, "x", encoding="utf-8") as f:
                f.write(f"abstracts {__version__}: {' '.join(args)}\n{text}")
        except OSError:
            continue
        return path
    return None


def run_subcommand(args: Sequence[str]) -> int:
    """Run `abstracts NAME ...` (NAME in SUBCOMMANDS) with its output checked."""
    name = args[0]
    module_name, function = SUBCOMMANDS[name]
    real = sys.stdout
    sys.stdout = cast(TextIO, CheckedStdout(real))
    try:
        command = getattr(importlib.import_module(module_name), function)
        status = int(command(list(args[1:])))
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # `abstracts search x | head`: the reader has gone; that is not an error.
        _silence_stdout()
        return 0
    except OutputFailed as e:
        _silence_stdout()
        reason = e.error.strerror or str(e.error)
        print(f"abstracts {name}: cannot write to standard output: {reason}", file=sys.stderr)
        return EXIT_OUTPUT_FAILED
    except Exception as e:
        log = write_crash_log(args, e)
        where = f"; the details are in {visible_line(str(log))}" if log else ""
        message = visible_line(f"{type(e).__name__}: {e}")
        print(f"abstracts {name}: unexpected error: {message}{where}", file=sys.stderr)
        return EXIT_CRASHED
    finally:
        sys.stdout = real


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `abstracts` console script and `python -m tui`."""
    args_list = _subcommand_first(list(sys.argv[1:] if argv is None else argv))
    if args_list and args_list[0] in SUBCOMMANDS:
        return run_subcommand(args_list)
    if args_list and (meant := close_subcommand(args_list[0])) is not None:
        word = visible_line(args_list[0])
        print(
            f"abstracts: {word}: no such file or directory; did you mean {meant}? "
            f"(a file of that name: ./{word})",
            file=sys.stderr,
        )
        return EXIT_USAGE

    args = build_parser().parse_args(args_list)
    modes = quiet_terminal(sys.stdin)
    try:
        return _run_app(args, modes)
    finally:
        restore_terminal(sys.stdin, modes)


def quiet_terminal(stream: TextIO) -> list[Any] | None:
    """Stop the terminal echoing what is typed while the app starts; the modes found
    (None when `stream` is no terminal). Keys typed before the app takes the terminal
    would otherwise be printed on the shell's screen, and still be there after it quits;
    the keys themselves wait in the terminal's buffer for the app, as before."""
    try:
        import termios
    except ImportError:  # not a POSIX system
        return None
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            return None
        modes = termios.tcgetattr(fd)
        quiet = list(modes)
        quiet[3] = modes[3] & ~termios.ECHO  # the local modes
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
        return modes
    except (OSError, ValueError, termios.error):
        return None


def restore_terminal(stream: TextIO, modes: list[Any] | None) -> None:
    """Put back the modes `quiet_terminal` found (echo on again for the shell)."""
    if modes is None:
        return
    with contextlib.suppress(Exception):
        import termios

        termios.tcsetattr(stream.fileno(), termios.TCSADRAIN, modes)


def _run_app(args: argparse.Namespace, modes: list[Any] | None) -> int:
    """Read the first files and run the app on them; its exit status."""
    # Start-up allocates many long-lived objects (Textual, the corpus); cyclic garbage
    # collection passes over them are wasted work before the first paint (about 40 ms
    # here). The app freezes what exists and turns collection back on once it has painted.
    gc.disable()
    from tui import locations
    from tui.commands import report_problems
    from tui.corpus.load import Loading
    from tui.inbox.library import default_paths

    # Files unchanged since the last start are not read and parsed again: the first ones
    # neither (opening the read cache reads one row per file, a few ms; parsing the
    # first 500 abstracts takes ten times that).
    data_dir = locations.data_dir(args.data_dir)
    cache = locations.cache_dir(data_dir)
    loading = Loading(args.paths or default_paths(data_dir), cache_dir=cache, keep_texts=False)
    # The first files are enough for a screenful: the app paints them and reads the rest
    # meanwhile, so a large corpus paints as soon as a small one.
    while not loading.finished and loading.count < FIRST_PAINT_ABSTRACTS:
        loading.read_next()
    corpus = loading.finish() if loading.finished else loading.publish()
    if not corpus.abstracts:
        report_problems("abstracts", corpus.problems)
        print("abstracts: nothing could be loaded; no abstracts to show.", file=sys.stderr)
        return EXIT_NOTHING_LOADED

    from tui.ui.app import make_app

    app = make_app(corpus=corpus, data_dir=args.data_dir, loading=loading)
    del loading  # the app holds it while files remain to read; its tables go with it
    config = locations.config_path(locations.config_dir())
    if config.exists():  # else nothing to read, and nothing more to import before painting
        from tui.ui.settings import configure

        configure(app, config)
    guard = app.quit_sequence.guard
    guard.last_words = lambda: _after_the_app(app)
    app.terminal_modes_at_launch = modes
    guard.install(terminal_modes=modes)
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
