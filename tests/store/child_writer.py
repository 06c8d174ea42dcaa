"""Run as a child process by the crash and concurrency tests.

`python child_writer.py DATA_DIR PREFIX COUNT` saves notes PREFIX-0, PREFIX-1, ...
through `Store`, printing each id only after its commit has returned (COUNT 0: until
killed). Deliberately no `pytest` here: it must start fast.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tui.store.db import Store


def main() -> int:
    directory, prefix, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    store = Store.open(directory)
    i = 0
    while count == 0 or i < count:
        note_id = f"{prefix}-{i}"
        store.save_note(note_id, f"note {note_id} " + "text " * (i % 50))
        print(note_id, flush=True)
        i += 1
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
