"""Export the store as Markdown, JSON, BibTeX or CSV; merge a JSON export back in.

Everything works from the store alone: each record carries a snapshot of its
abstract, so no corpus needs to be loaded. JSON is the lossless format (records,
bookmarks, reading state, notes with versions, conflict copies, aliases, UI state);
importing it is an idempotent merge that never overwrites a note.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tui.store.db import Store, add_conflict_copy, put_record
from tui.store.importcheck import ImportProblem as ImportProblem  # re-exported
from tui.store.importcheck import check_document
from tui.store.records import ConflictCopy, Snapshot, StoreData
from tui.store.schema import SCHEMA_VERSION

FORMAT = "abstracts-export"
FORMAT_VERSION = 1
FORMATS = ("md", "json", "bibtex", "csv")


@dataclass(frozen=True, slots=True)
class Item:
    """One abstract as the human-readable formats show it."""

    id: str
    snapshot: Snapshot
    bookmarked: bool
    read_at: float | None
    note: str | None
    conflicts: tuple[ConflictCopy, ...]


def items(data: StoreData, *, bookmarked: bool = False, with_notes: bool = False) -> list[Item]:
    """Bookmarked or noted abstracts (both filters narrow), ordered by collection and file."""
    copies: dict[str, list[ConflictCopy]] = {}
    for c in data.conflicts:
        copies.setdefault(c.abstract_id, []).append(c)
    ids = set(data.bookmarks) | set(data.notes) | set(copies)
    if bookmarked:
        ids &= set(data.bookmarks)
    if with_notes:
        ids &= set(data.notes) | set(copies)
    out = []
    for i in ids:
        snap = data.records.get(i) or Snapshot(text="", headline=f"(no snapshot for {i})")
        note = data.notes.get(i)
        out.append(
            Item(
                i,
                snap,
                i in data.bookmarks,
                data.reads.get(i),
                note.text if note else None,
                tuple(copies.get(i, ())),
            )
        )
    return sorted(
        out,
        key=lambda it: (it.snapshot.collection, it.snapshot.source, it.snapshot.position, it.id),
    )


def _iso(t: float | None) -> str:
    return "" if t is None else time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


def to_markdown(selected: Iterable[Item]) -> str:
    """Per abstract: headline, venue and year, source, the abstract, the note."""
    parts = ["# Abstracts export", ""]
    for it in selected:
        s = it.snapshot
        parts.append(f"## {s.headline}{' ★' if it.bookmarked else ''}")
        parts.append("")
        where = f"{s.source} (#{s.position})" if s.source else "source unknown"
        parts.append(f"*{s.venue_year or 'unknown venue'}* · {where} · id `{it.id}`")
        parts.append("")
        parts.extend(f"> {line}" for line in (s.text or "(text not kept)").splitlines())
        if it.note is not None:
            parts += ["", "**Note**", "", it.note.rstrip("\n")]
        for c in it.conflicts:
            parts += ["", f"**Conflict copy** ({c.origin}, {_iso(c.created)})", "", c.text]
        parts += ["", "---", ""]
    return "\n".join(parts)


def _bib_value(text: str) -> str:
    depth = 0
    for ch in text:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            break
    if depth != 0:  # BibTeX needs balanced braces; keep the words, lose the brace
        text = text.replace("{", "(").replace("}", ")")
    return "{" + " ".join(text.split()) + "}"


def to_bibtex(selected: Iterable[Item]) -> str:
    """One @misc entry per abstract, keyed by its id."""
    entries = []
    for it in selected:
        s = it.snapshot
        fields = [("title", s.headline), ("howpublished", s.venue_year), ("abstract", s.text)]
        if s.year:
            fields.append(("year", str(s.year)))
        if it.note:
            fields.append(("note", it.note))
        body = ",\n".join(f"  {k} = {_bib_value(v)}" for k, v in fields if v)
        entries.append(f"@misc{{abstracts-{it.id},\n{body}\n}}\n")
    return "\n".join(entries)


CSV_COLUMNS = [
    "id",
    "headline",
    "venue",
    "year",
    "collection",
    "source",
    "position",
    "bookmarked",
    "read_at",
    "note",
    "abstract",
]


def to_csv(selected: Iterable[Item]) -> str:
    """A spreadsheet: one row per abstract, every field quoted as needed."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for it in selected:
        s = it.snapshot
        writer.writerow(
            [
                it.id,
                s.headline,
                s.venue or "",
                s.year or "",
                s.collection,
                s.source,
                s.position,
                "yes" if it.bookmarked else "",
                _iso(it.read_at),
                it.note or "",
                s.text,
            ]
        )
    return buffer.getvalue()


def snapshot_fields(s: Snapshot) -> dict[str, Any]:
    """A snapshot as the JSON export writes it (with the record's id added by the caller)."""
    return {
        "text": s.text,
        "headline": s.headline,
        "source": s.source,
        "position": s.position,
        "collection": s.collection,
        "venue": s.venue,
        "year": s.year,
    }


def to_json(data: StoreData) -> str:
    """Everything in the store, lossless, with a format version."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "schema": SCHEMA_VERSION,
        "exported": time.time(),
        "records": [{"id": i, **snapshot_fields(s)} for i, s in sorted(data.records.items())],
        "bookmarks": [{"id": i, "created": t} for i, t in sorted(data.bookmarks.items())],
        "reads": [{"id": i, "read_at": t} for i, t in sorted(data.reads.items())],
        "notes": [
            {"id": i, "text": n.text, "version": n.version, "updated": n.updated}
            for i, n in sorted(data.notes.items())
        ],
        "conflict_copies": [
            {"id": c.abstract_id, "text": c.text, "created": c.created, "origin": c.origin}
            for c in data.conflicts
        ],
        "aliases": [{"old_id": o, "new_id": n} for o, n in sorted(data.aliases.items())],
        "state": dict(sorted(data.state.items())),
    }
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


@dataclass(slots=True)
class ImportReport:
    """What an import added; `conflicts` lists ids whose imported note was kept as a copy."""

    notes: int = 0
    bookmarks: int = 0
    reads: int = 0
    records: int = 0
    copies: int = 0
    conflicts: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.notes or self.bookmarks or self.reads or self.records or self.copies)


def parse_export(text: str) -> dict[str, Any]:
    """Check and return a JSON export document."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ImportProblem(f"not JSON ({e})") from e
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ImportProblem('not an abstracts export (no "format": "abstracts-export")')
    if not isinstance(doc.get("version"), int) or doc["version"] > FORMAT_VERSION:
        raise ImportProblem(f"export format {doc.get('version')!r} is newer than this version")
    check_document(doc)
    return doc


def merge(store: Store, doc: dict[str, Any], origin: str) -> ImportReport:
    """Merge an export into the store in one transaction. Importing twice changes nothing;
    an imported note that differs from the local one is kept as a conflict copy."""
    check_document(doc)  # nothing is written unless every field is right
    report = ImportReport()
    now = time.time()
    try:
        with store.transaction() as conn:
            for r in doc.get("records", []):
                if conn.execute("SELECT 1 FROM records WHERE id = ?", (r["id"],)).fetchone():
                    continue
                snap = Snapshot(
                    r["text"],
                    r["headline"],
                    r.get("source") or "",
                    int(r.get("position") or 0),
                    r.get("collection") or "",
                    r.get("venue"),
                    r.get("year"),
                )
                put_record(conn, r["id"], snap, now)
                report.records += 1
            for b in doc.get("bookmarks", []):
                cur = conn.execute(
                    "INSERT OR IGNORE INTO bookmarks(id, created) VALUES (?, ?)",
                    (b["id"], b["created"]),
                )
                report.bookmarks += cur.rowcount
            for r in doc.get("reads", []):
                cur = conn.execute(
                    "INSERT OR IGNORE INTO reads(id, read_at) VALUES (?, ?)",
                    (r["id"], r["read_at"]),
                )
                report.reads += cur.rowcount
            incoming = [
                (n["id"], n["text"], _or(n.get("updated"), now), None, n.get("base_version"))
                for n in doc.get("notes", [])
            ]
            incoming += [
                (c["id"], c["text"], _or(c.get("created"), now), c.get("origin"), None)
                for c in doc.get("conflict_copies", [])
            ]
            for note_id, text, updated, copy_origin, base in incoming:
                note = _Incoming(note_id, text, updated, copy_origin or origin, base)
                _merge_note(conn, report, note)
            for a in doc.get("aliases", []):
                conn.execute(
                    "INSERT OR IGNORE INTO aliases(old_id, new_id, at) VALUES (?, ?, ?)",
                    (a["old_id"], a["new_id"], now),
                )
            for key, value in doc.get("state", {}).items():
                conn.execute(
                    "INSERT OR IGNORE INTO state(key, value, updated) VALUES (?, ?, ?)",
                    (key, value, now),
                )
    except (
        KeyError,
        TypeError,
        ValueError,
        sqlite3.IntegrityError,
        sqlite3.InterfaceError,
        sqlite3.ProgrammingError,
    ) as e:
        # check_document should have caught it; the transaction was rolled back anyway.
        raise ImportProblem(f"malformed export ({e!r})") from e
    return report


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


@dataclass(frozen=True, slots=True)
class _Incoming:
    id: str
    text: str
    updated: float
    origin: str
    #: Rescue files only: the local version the text was written over (see rescue.py).
    base_version: int | None


def _merge_note(conn: Any, report: ImportReport, note: _Incoming) -> None:
    if not note.text.strip():
        return  # an empty note is no note (the app deletes a note emptied in its editor)
    local = conn.execute("SELECT text, version FROM notes WHERE id = ?", (note.id,)).fetchone()
    if local is None:
        conn.execute(
            "INSERT INTO notes(id, text, version, updated) VALUES (?, ?, ?, ?)",
            (note.id, note.text, time.time_ns() // 1000, note.updated),
        )
        report.notes += 1
        return
    if local[0] == note.text:
        return
    if note.base_version is not None and int(local[1]) == int(note.base_version):
        # A rescued edit of exactly the note stored here: it is simply the newer text,
        # as if the save had worked. The text it replaces is the one it was edited from.
        conn.execute(
            "UPDATE notes SET text = ?, version = ?, updated = ? WHERE id = ?",
            (note.text, max(int(local[1]) + 1, time.time_ns() // 1000), note.updated, note.id),
        )
        report.notes += 1
        return
    known = conn.execute(
        "SELECT 1 FROM conflict_copies WHERE id = ? AND text = ?", (note.id, note.text)
    ).fetchone()
    if known:
        return
    add_conflict_copy(conn, note.id, note.text, note.updated, note.origin)
    report.copies += 1
    report.conflicts.append(note.id)
