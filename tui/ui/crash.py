"""An unhandled exception in the app: its traceback goes to a log file in the data dir.

Textual ends the app on any unhandled exception and prints the traceback on the
terminal, which the user may not be able to copy (the terminal closes, the screen is
cleared). The log keeps it; the app prints its path, saves what it can (the open note
editor's text, then the store's queue, or a rescue file) and exits with `EXIT_CRASHED`.
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path

#: The exit status after an unhandled exception (1 is "changes went to a rescue file").
EXIT_CRASHED = 3


def write_crash_log(data_dir: Path, error: BaseException) -> Path | None:
    """Write `error`'s traceback to `crash-<time>.log` in `data_dir`; its path, or None
    when it could not be written (the traceback is still printed on the terminal)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    text = "".join(traceback.format_exception(error))
    # A worker's failure (Textual's WorkerFailed) is raised without the traceback of the
    # error it carries: that one is where the fault is.
    cause = getattr(error, "error", None)
    if isinstance(cause, BaseException) and cause is not error.__cause__:
        text += "\nThe worker's error:\n" + "".join(traceback.format_exception(cause))
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        for attempt in range(100):
            path = data_dir / f"crash-{stamp}{f'-{attempt}' if attempt else ''}.log"
            try:
                with path.open("x", encoding="utf-8", errors="backslashreplace") as log:
                    log.write(text)
                return path
            except FileExistsError:
                continue
    except OSError:
        return None
    return None
