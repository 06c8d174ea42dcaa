"""Command-line subcommands (search, export, import, similar); no Textual here.

Whatever they print that holds data (file names, ids, headlines, notes, error
messages quoting them) goes through `tui.sanitize`, so it is shown, never obeyed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from tui.sanitize import visible, visible_line


def complain(message: str) -> None:
    """One message on stderr, its control characters shown as symbols."""
    print(visible(message), file=sys.stderr)


def report_problems(prog: str, problems: Iterable[object]) -> None:
    """Each load problem on one line of stderr: `prog: path: message`."""
    for problem in problems:
        print(visible_line(f"{prog}: {problem}"), file=sys.stderr)
