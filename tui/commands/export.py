"""`abstracts export` and `abstracts import`: move notes and bookmarks in and out.

Export reads the store alone (records carry snapshots), so no corpus is loaded.
Exit codes: 0 done, 1 a problem (unreadable or malformed file, no store to export,
store unavailable), 2 bad usage or a file beyond the import limits (too large,
nested too deeply, not a regular file), 3 (export) nothing to export: it says so
and writes nothing, no empty file. An import is checked field by field before
anything is written, so a malformed file changes nothing.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from tui import locations
from tui.commands import complain, help_formatter
from tui.fileio import write_export, write_problem
from tui.sanitize import visible_line
from tui.store import export
from tui.store.db import Store, StoreError
from tui.store.exporting import NoStore, read_saved, render
from tui.store.records import StoreData
from tui.tagnames import TagError, normalise_tag

EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, EXIT_NOTHING = 0, 1, 2, 3

EXPORT_EXAMPLES = """\
examples:
  abstracts export                                 notes and bookmarks as Markdown, to stdout
  abstracts export --bookmarked --format bibtex -o refs.bib
  abstracts export --format bibtex --tag to-cite -o refs.bib
  abstracts export --format ris -o library.ris     for Zotero, EndNote, Mendeley
  abstracts export --format csljson -o items.json  CSL-JSON, for Zotero and pandoc
  abstracts export --with-notes --format csv -o notes.csv
  abstracts export --format json -o backup.json    everything, lossless (for import)
  abstracts export --data-dir ~/other              another data directory
"""
IMPORT_EXAMPLES = """\
examples:
  abstracts import backup.json                     merge an export (twice changes nothing)
  abstracts import backup.json --data-dir ~/other  into another data directory
"""


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace | int:
    try:
        return parser.parse_args(list(argv))
    except SystemExit as e:  # argparse exits on --help (0) and on bad usage (2)
        return int(e.code or 0)


def _export_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="abstracts export",
        formatter_class=help_formatter,
        epilog=EXPORT_EXAMPLES,
        description="Export bookmarks and notes (from the store alone; no corpus needed).",
    )
    p.add_argument("--format", choices=export.FORMATS, default="md", help="default: md")
    p.add_argument("--bookmarked", action="store_true", help="only bookmarked abstracts")
    p.add_argument("--with-notes", action="store_true", help="only abstracts with a note")
    p.add_argument("--tag", metavar="NAME", type=_tag_name, help="only abstracts with this tag")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write here (atomically, through a symlink to its target; never over a device "
        "or FIFO); - or none: stdout",
    )
    p.add_argument("--data-dir", metavar="DIR", help="where bookmarks and notes are kept")
    return p


def _tag_name(text: str) -> str:
    """A tag as the store keeps it (`#To Cite` -> `to-cite`); bad usage when it cannot be one."""
    try:
        return normalise_tag(text)
    except TagError as e:
        raise argparse.ArgumentTypeError(str(e)) from e


def load(directory: Path, prog: str = "abstracts export") -> StoreData:
    """The store in `directory`, read only (raises `NoStore`, `StoreError`, `sqlite3.Error`);
    its warnings go to stderr under `prog`'s name."""
    data, notices = read_saved(directory)
    for notice in notices:
        complain(f"{prog}: warning: {notice}")
    return data


def _nothing(fmt: str, bookmarked: bool, with_notes: bool, tag: str | None = None) -> str:
    """Why there is nothing to export, in the words of what was asked for."""
    if tag is not None:
        narrowed = " bookmarked" * bookmarked + " noted" * with_notes
        return f"no{narrowed} abstract is tagged {tag}"
    if bookmarked and with_notes:
        return "no bookmarked abstract has a note"
    if bookmarked:
        return "no abstract is bookmarked"
    if with_notes:
        return "no abstract has a note"
    return "no bookmarks, notes or read marks" if fmt == "json" else "no bookmarks or notes"


def main_export(argv: Sequence[str]) -> int:
    """`abstracts export [--format md|json|bibtex|csv|ris|csljson] [--bookmarked] [--with-notes]
    [--tag NAME] [-o FILE]`."""
    args = _parse(_export_parser(), argv)
    if isinstance(args, int):
        return args
    directory = locations.data_dir(args.data_dir)
    try:
        data = load(directory)
    except NoStore as e:
        complain(f"abstracts export: warning: {e}")
        return EXIT_PROBLEM
    except (StoreError, sqlite3.Error) as e:
        complain(f"abstracts export: {e}")
        return EXIT_PROBLEM
    text = render(
        data, args.format, bookmarked=args.bookmarked, with_notes=args.with_notes, tag=args.tag
    )
    if text is None:
        # No empty file and no empty page: one would read as a successful export.
        scope = _nothing(args.format, args.bookmarked, args.with_notes, args.tag)
        complain(f"abstracts export: nothing to export: {scope} in {directory}; nothing written")
        return EXIT_NOTHING
    if args.output is None or args.output == "-":
        sys.stdout.write(text)
        return EXIT_OK
    target = Path(args.output)
    try:
        write_export(target, text)
    except OSError as e:
        complain(f"abstracts export: cannot write {target}: {write_problem(target, e)}")
        return EXIT_PROBLEM
    return EXIT_OK


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def main_import(argv: Sequence[str]) -> int:
    """`abstracts import FILE.json [--data-dir DIR]`: merge an export (idempotent)."""
    p = argparse.ArgumentParser(
        prog="abstracts import",
        formatter_class=help_formatter,
        epilog=IMPORT_EXAMPLES,
        description="Merge a JSON export into the store. Importing twice changes nothing; "
        "a note that differs from yours is kept beside it, never over it.",
    )
    p.add_argument("file", metavar="FILE.json")
    p.add_argument("--data-dir", metavar="DIR", help="where bookmarks and notes are kept")
    args = _parse(p, argv)
    if isinstance(args, int):
        return args
    try:
        doc = export.parse_export(export.read_export(Path(args.file)))
    except (OSError, UnicodeDecodeError) as e:
        complain(f"abstracts import: cannot read {args.file}: {e}")
        return EXIT_PROBLEM
    except export.ImportLimit as e:
        complain(f"abstracts import: {args.file}: {e}; nothing imported")
        return EXIT_USAGE
    except export.ImportProblem as e:
        complain(f"abstracts import: {args.file}: {e}")
        return EXIT_PROBLEM
    try:
        store = Store.open(locations.data_dir(args.data_dir))
    except StoreError as e:
        complain(f"abstracts import: {e}")
        return EXIT_PROBLEM
    # A damaged or foreign file set aside: the app opened later has nothing to tell.
    # (A newer version's store: its reason is the error the import stops with, below.)
    for notice in store.notices:
        if notice != store.read_only:
            complain(f"abstracts import: warning: {notice}")
    try:
        report = export.merge(store, doc, origin=f"imported from {Path(args.file).name}")
    except (StoreError, export.ImportProblem) as e:
        complain(f"abstracts import: {e}")
        return EXIT_PROBLEM
    except sqlite3.Error as e:  # locked for too long, disk full...: nothing was written
        complain(f"abstracts import: the store could not be written ({e}); nothing imported")
        return EXIT_PROBLEM
    finally:
        store.close()
    if not report.changed:
        print("Nothing new: everything in the file is already in the store.")
        return EXIT_OK
    counts = [
        _count(report.notes, "note"),
        _count(report.bookmarks, "bookmark"),
        _count(report.reads, "read mark"),
    ]
    if report.dismissals:
        counts.append(_count(report.dismissals, "dismissal"))
    if report.tags:
        counts.append(_count(report.tags, "tag"))
    if report.copies:
        counts.append(_count(report.copies, "differing note") + " kept beside yours")
    if report.searches:
        plural = "es" if report.searches != 1 else ""
        counts.append(f"{report.searches} saved search{plural}")
    print(f"Imported {', '.join(counts)}.")
    for theirs, kept in report.renamed_searches:
        print(visible_line(f"Saved search {theirs!r} differs from yours: imported as {kept!r}."))
    for note_id in report.conflicts:
        print(visible_line(f"Note {note_id} differs from yours: both kept (yours stays the note)."))
    return EXIT_OK
