"""What `abstracts export` and the app's Export dialog share: the store read as saved,
and the export text in one of `export.FORMATS`.

Both read the store alone (records carry snapshots), so no corpus is needed; the
command line and the dialog differ only in how they report (stderr, notifications).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from tui import locations
from tui.store import export
from tui.store.db import Store
from tui.store.records import StoreData


class NoStore(Exception):
    """There is no database in the data directory: nothing to export."""


def read_saved(directory: Path) -> tuple[StoreData, list[str]]:
    """The store in `directory`, read only, and its warnings (raises `NoStore`,
    `StoreError`, `sqlite3.Error`)."""
    database = locations.database_path(directory)
    if not database.is_file():
        # Not an empty export: that would read as "you have no notes" when the
        # directory is simply the wrong one (or was never used).
        raise NoStore(f"no {database.name} in {directory}: nothing to export")
    store = Store.open(directory, read_only=True)
    try:
        return store.load(), list(store.notices)
    finally:
        store.close()


def render(
    data: StoreData,
    fmt: str,
    *,
    bookmarked: bool,
    with_notes: bool,
    ids: Collection[str] | None = None,
    tag: str | None = None,
) -> str | None:
    """The export text in one of `export.FORMATS`, or None when there is nothing to export
    (JSON, unfiltered, exports read marks and saved state too; the other formats
    bookmarks and notes). `ids` narrows to those abstracts, marked or not (the reader's
    current list; their records must be in `data.records`); `tag` to those with that tag."""
    if fmt == "json":
        if bookmarked or with_notes or ids is not None or tag is not None:
            keep = {
                i.id
                for i in export.items(
                    data, bookmarked=bookmarked, with_notes=with_notes, ids=ids, tag=tag
                )
            }
            data = StoreData(
                records={k: v for k, v in data.records.items() if k in keep},
                bookmarks={k: v for k, v in data.bookmarks.items() if k in keep},
                dismissals={k: v for k, v in data.dismissals.items() if k in keep},
                reads={k: v for k, v in data.reads.items() if k in keep},
                notes={k: v for k, v in data.notes.items() if k in keep},
                conflicts=[c for c in data.conflicts if c.abstract_id in keep],
                tags={k: v for k, v in data.tags.items() if k in keep},
            )
        listed = ids is not None and bool(data.records)  # a list is its abstracts, marked or not
        marked = data.bookmarks or data.notes or data.reads or data.conflicts or data.tags
        if not (listed or marked or data.dismissals or data.state or data.searches):
            return None
        return export.to_json(data)
    selected = export.items(data, bookmarked=bookmarked, with_notes=with_notes, ids=ids, tag=tag)
    if not selected:
        return None
    writers = {
        "md": export.to_markdown,
        "bibtex": export.to_bibtex,
        "csv": export.to_csv,
        "ris": export.to_ris,
        "csljson": export.to_csljson,
    }
    return writers[fmt](selected)
