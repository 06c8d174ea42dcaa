"""Run as a child process by the crash and concurrency tests: writes notes the way the
app does, through `UserData` and its writer thread.

`python child_writer.py DATA_DIR PREFIX COUNT SEED` saves COUNT notes (0: until
killed): new notes on abstracts PREFIX-0, PREFIX-1, ... and, now and then, new
texts for notes already written. Before each save it prints `S <id> <hex>` (the
text, UTF-8, in hex); once `UserData.flush` says a batch is committed it prints
`A <id> <hex>` for the newest text of each id in it: that text is acknowledged.
Deliberately no `pytest` here: it must start fast.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from tests.store.helpers import make_abstract
from tui.store.userdata import UserData

# Text a note may hold: letters, accents, CJK, emoji, quotes, tabs, newlines, ESC.
ALPHABET = "abcdefghij klmnopqrstuvwxyz ABC 0123456789 éüßøñ 数据 ✓ 🙂 '\"\\%&$_{}\t\n\r\x1b"


def _text(rng: random.Random) -> str:
    length = rng.choice((1, 10, 200, 3000))
    return "n" + "".join(rng.choice(ALPHABET) for _ in range(length))


def main() -> int:
    directory, prefix, count, seed = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    rng = random.Random(seed)
    data = UserData.open(directory, retry_initial=0.01, retry_max=0.05)
    abstracts = []
    written = 0
    while count == 0 or written < count:
        batch: dict[str, str] = {}
        for _ in range(rng.choice((1, 1, 2, 5))):
            if abstracts and rng.random() < 0.3:
                abstract = rng.choice(abstracts)
            else:
                abstract = make_abstract(f"Abstract {prefix}-{len(abstracts)} about graphs.")
                abstracts.append(abstract)
            text = _text(rng)
            print("S", abstract.id, text.encode().hex(), flush=True)
            data.save_note(abstract, text)
            batch[abstract.id] = text
            written += 1
        if not data.flush(timeout=60):
            print("flush timed out", file=sys.stderr)
            return 1
        for abstract_id, text in batch.items():
            print("A", abstract_id, text.encode().hex(), flush=True)
    data.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
