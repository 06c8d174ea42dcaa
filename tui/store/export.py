"""Export the store as Markdown, JSON, BibTeX, CSV, RIS or CSL-JSON; merge a JSON export back in.

Everything works from the store alone: each record carries a snapshot of its
abstract, so no corpus needs to be loaded. JSON is the lossless format (records,
bookmarks, dismissals, reading state, notes with versions, conflict copies, aliases, UI
state, tags, each record's paper); importing it is an idempotent merge that never overwrites
a note. The other formats live in `formats`, `cite` (a paper's BibTeX entry) and
`interchange` (RIS, CSL-JSON), re-exported here.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tui.corpus.paper import Paper
from tui.sanitize import json_safe
from tui.store.db import Store
from tui.store.formats import Item as Item  # re-exported, as are the formats below
from tui.store.formats import items as items
from tui.store.formats import to_bibtex as to_bibtex
from tui.store.formats import to_csv as to_csv
from tui.store.formats import to_markdown as to_markdown
from tui.store.importcheck import ImportLimit as ImportLimit
from tui.store.importcheck import ImportProblem as ImportProblem  # re-exported
from tui.store.importcheck import check_document, check_nesting
from tui.store.importcheck import read_export as read_export
from tui.store.interchange import to_csljson as to_csljson
from tui.store.interchange import to_ris as to_ris
from tui.store.packs import packed
from tui.store.records import Snapshot, StoreData, paper_text
from tui.store.schema import SCHEMA_VERSION
from tui.store.searches import import_search
from tui.store.sql import add_conflict_copy, put_record
from tui.tagnames import normalise_tag

FORMAT = "abstracts-export"
FORMAT_VERSION = 1
FORMATS = ("md", "json", "bibtex", "csv", "ris", "csljson")


def snapshot_fields(s: Snapshot) -> dict[str, Any]:
    """A snapshot as the JSON export writes it (with the record's id added by the caller);
    `paper` (`Paper.to_json()`) only when the record has one."""
    fields: dict[str, Any] = {
        "text": s.text,
        "headline": s.headline,
        "source": s.source,
        "position": s.position,
        "collection": s.collection,
        "venue": s.venue,
        "year": s.year,
    }
    if s.paper is not None:
        fields["paper"] = s.paper.to_json()
    return fields


def to_json(data: StoreData) -> str:
    """Everything in the store, lossless, with a format version."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "schema": SCHEMA_VERSION,
        "exported": time.time(),
        "records": [{"id": i, **snapshot_fields(s)} for i, s in sorted(data.records.items())],
        "bookmarks": [{"id": i, "created": t} for i, t in sorted(data.bookmarks.items())],
        "dismissals": [{"id": i, "created": t} for i, t in sorted(data.dismissals.items())],
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
        "tags": [
            {"id": i, "tag": tag, "created": t}
            for i, tags in sorted(data.tags.items())
            for tag, t in sorted(tags.items())
        ],
        "saved_searches": [
            {
                "name": s.name,
                "query": s.query,
                "sort": s.sort,
                "created": s.created,
                "updated": s.updated,
            }
            for _, s in sorted(data.searches.items())
        ],
    }
    return document_text(doc)


def document_text(doc: Mapping[str, Any]) -> str:
    """An export (or rescue) document as its file holds it: one value per line, and
    lossless yet safe to print: what JSON leaves raw (C1, bidi) is escaped too."""
    return json_safe(json.dumps(doc, ensure_ascii=False, indent=1)) + "\n"


@dataclass(slots=True)
class ImportReport:
    """What an import added; `conflicts` lists ids whose imported note was kept as a copy."""

    notes: int = 0
    bookmarks: int = 0
    reads: int = 0
    records: int = 0
    copies: int = 0
    dismissals: int = 0
    tags: int = 0
    conflicts: list[str] = field(default_factory=list)
    searches: int = 0
    #: (name in the file, name kept here) for saved searches stored under another name.
    renamed_searches: list[tuple[str, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        counts = (self.notes, self.bookmarks, self.reads, self.records, self.copies)
        return bool(any(counts) or self.dismissals or self.tags or self.searches)


def parse_export(text: str) -> dict[str, Any]:
    """Check and return a JSON export document."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ImportProblem(f"not JSON ({e})") from e
    except RecursionError as e:  # the parser recurses once per level of nesting
        raise ImportLimit("nested too deeply to read; an export has 6 levels") from e
    except ValueError as e:  # an integer longer than Python converts (4,300 digits)
        raise ImportProblem(f"a number in it is too long to read ({e})") from e
    check_nesting(doc)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ImportProblem('not an abstracts export (no "format": "abstracts-export")')
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ImportProblem(f'"version" must be a whole number from 1, not {_shown(version)}')
    if version > FORMAT_VERSION:
        raise ImportProblem(
            f"export format {version} is newer than this version reads ({FORMAT_VERSION})"
        )
    check_document(doc)
    return doc


def _shown(value: object) -> str:
    shown = json.dumps(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def merge(store: Store, doc: dict[str, Any], origin: str) -> ImportReport:
    """Merge an export into the store in one transaction. Importing twice changes nothing;
    an imported note that differs from the local one is kept as a conflict copy."""
    check_document(doc)  # nothing is written unless every field is right
    report = ImportReport()
    now = time.time()
    try:
        with store.transaction() as conn:
            bulk = packed(conn)  # records of bulk steps, read once
            for r in doc.get("records", []):
                paper = Paper.from_json(r["paper"]) if r.get("paper") is not None else None
                if conn.execute("SELECT 1 FROM records WHERE id = ?", (r["id"],)).fetchone():
                    # A record kept here is not replaced; it only learns its paper if it
                    # had none (made by a version that did not keep papers).
                    if paper is not None:
                        cur = conn.execute(
                            "UPDATE records SET paper = ? WHERE id = ? AND paper IS NULL",
                            (paper_text(paper), r["id"]),
                        )
                        report.records += cur.rowcount
                    continue
                if (kept := bulk.get(r["id"])) is not None:
                    # Kept in a bulk step's pack: the same, written on its own with the paper.
                    if paper is not None and kept.paper is None:
                        with_paper = Snapshot.at(
                            kept.origin, kept.text, kept.given_headline, kept.position, paper
                        )
                        put_record(conn, r["id"], with_paper, now)
                        report.records += 1
                    continue
                snap = Snapshot(
                    r["text"],
                    r["headline"],
                    r.get("source") or "",
                    int(r.get("position") or 0),
                    r.get("collection") or "",
                    r.get("venue"),
                    r.get("year"),
                    paper,
                )
                put_record(conn, r["id"], snap, now)
                report.records += 1
            for b in doc.get("bookmarks", []):
                cur = conn.execute(
                    "INSERT OR IGNORE INTO bookmarks(id, created) VALUES (?, ?)",
                    (b["id"], b["created"]),
                )
                report.bookmarks += cur.rowcount
            for d in doc.get("dismissals", []):
                cur = conn.execute(
                    "INSERT OR IGNORE INTO dismissals(id, created) VALUES (?, ?)",
                    (d["id"], d["created"]),
                )
                report.dismissals += cur.rowcount
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
            for t in doc.get("tags", []):
                # Added to the tags already there (a tag is never taken off by an import),
                # under the name as this version writes it.
                cur = conn.execute(
                    "INSERT OR IGNORE INTO tags(id, tag, created) VALUES (?, ?, ?)",
                    (t["id"], normalise_tag(t["tag"]), _or(t.get("created"), now)),
                )
                report.tags += cur.rowcount
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
            for s in doc.get("saved_searches", []):
                merge_search(conn, report, s, now)
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


def merge_search(conn: Any, report: ImportReport, s: dict[str, Any], now: float) -> None:
    """One imported saved search: added, already here, or kept under a free name."""
    stored = import_search(conn, s, now)
    if stored is not None:
        report.searches += 1
        if stored != s["name"]:
            report.renamed_searches.append((s["name"], stored))


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
