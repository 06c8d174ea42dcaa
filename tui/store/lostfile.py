"""When `abstracts.db` goes away under a running app: noticed, and nothing lost.

The store keeps a descriptor of the file it opened (`Store.file_change`), so at each
commit and refresh it can tell whether the path still names that file: deleted
(no link left), moved (linked elsewhere, nothing at the path) or replaced (another
file at the path). Without this, every later change went to the unlinked file and
vanished at quit.

What the writer then does: a file deleted or moved away is made again at its path
from what the app holds in memory (everything it showed, not only what was
pending); a file replaced by another (a backup restored, a sync tool's copy) is
left as it is, and what the app held is written to a rescue file for the user to
merge. Either way the user is told which, and saving goes on into the file now at
the path.
"""

from __future__ import annotations

import json
from typing import Any

from tui.store.records import StoreData

#: What each change is called in messages.
WHAT = {
    "deleted": "was deleted",
    "moved": "was moved away",
    "replaced": "was replaced by another file",
}


def as_document(data: StoreData) -> dict[str, Any]:
    """`data` as a JSON export document (what `export.merge` takes)."""
    from tui.store.export import to_json

    document: dict[str, Any] = json.loads(to_json(data))
    return document


def summary(data: StoreData) -> str:
    """`3 bookmarks, 2 notes, 40 read marks and 5 tags`: what was kept, in words."""
    counts = [
        (len(data.bookmarks), "bookmark"),
        (len(data.notes), "note"),
        (len(data.reads), "read mark"),
        (sum(len(t) for t in data.tags.values()), "tag"),
        (len(data.dismissals), "dismissal"),
        (len(data.searches), "saved search"),
    ]
    words = [
        f"{n:,} {noun}{'' if n == 1 else ('es' if noun.endswith('h') else 's')}"
        for n, noun in counts
        if n
    ]
    if not words:
        return "nothing"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
