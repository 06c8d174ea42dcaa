"""The human-readable exports: Markdown, BibTeX and CSV, made safe for where they go.

Exports end up in terminals (`abstracts export` writes to stdout), spreadsheets and
LaTeX documents, and carry text from files and imports nobody checked. So every
format takes its text through `tui.sanitize` (control characters shown as symbols,
never written raw), and each format neutralises what its reader would obey:

- CSV: a cell starting with `= + - @` (or tab, CR) is a formula to a spreadsheet;
  it gets a leading `'`, so the spreadsheet shows the text instead of running it.
- BibTeX: LaTeX specials are written as the commands that typeset them literally
  (`\\%`, `\\textbackslash{}`, `\\textbraceleft{}`...), so braces stay balanced and a
  note "100% & $x^2$" prints as written, in every entry a BibTeX parser accepts.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass

from tui.sanitize import visible, visible_line
from tui.store.records import ConflictCopy, Snapshot, StoreData


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
        parts.append(f"## {visible_line(s.headline)}{' ★' if it.bookmarked else ''}")
        parts.append("")
        where = f"{visible_line(s.source)} (#{s.position})" if s.source else "source unknown"
        venue = visible_line(s.venue_year or "unknown venue")
        parts.append(f"*{venue}* · {where} · id `{visible_line(it.id)}`")
        parts.append("")
        parts.extend(f"> {line}" for line in visible(s.text or "(text not kept)").splitlines())
        if it.note is not None:
            parts += ["", "**Note**", "", it.note.rstrip("\n")]
        for c in it.conflicts:
            origin = visible_line(c.origin)
            parts += ["", f"**Conflict copy** ({origin}, {_iso(c.created)})", "", c.text]
        parts += ["", "---", ""]
    # Notes keep their lines; what is left of any control character is shown, not sent.
    return visible("\n".join(parts))


# Each LaTeX special as the command that typesets it. The braces are written as
# commands too: BibTeX counts `\{` as a brace, so escaping them that way could unbalance.
_BIB_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "%": r"\%",
    "#": r"\#",
    "&": r"\&",
    "_": r"\_",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_BIB_SPECIAL = re.compile(r"[\\{}%#&_$~^]")
_BIB_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]")


def bib_text(text: str) -> str:
    """`text` as a BibTeX field's content: one line, typeset literally, braces balanced.

    The abstract is exported as its source, character for character, not as LaTeX
    to interpret: a `$` the source meant as math prints as a `$`.
    """
    one_line = " ".join(visible(text).split())
    return _BIB_SPECIAL.sub(lambda m: _BIB_ESCAPES[m.group()], one_line)


def bib_key(abstract_id: str) -> str:
    """The entry key: `abstracts-<id>`; an id with characters keys cannot hold (only an
    import can make one) has them replaced and a short hash added, so keys stay distinct."""
    safe = _BIB_KEY_UNSAFE.sub("-", abstract_id)
    if safe != abstract_id:
        safe += "-" + hashlib.blake2b(abstract_id.encode(), digest_size=4).hexdigest()
    return f"abstracts-{safe}"


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
        body = ",\n".join(f"  {k} = {{{bib_text(v)}}}" for k, v in fields if v)
        entries.append(f"@misc{{{bib_key(it.id)},\n{body}\n}}\n")
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
# What makes a spreadsheet read a cell as a formula (OWASP's CSV injection list).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: str) -> str:
    """`value` for a CSV cell: controls shown, and a leading `'` if it would be a formula."""
    value = visible(value)
    return "'" + value if value.startswith(_FORMULA_START) else value


def to_csv(selected: Iterable[Item]) -> str:
    """A spreadsheet: one row per abstract, every field quoted as needed."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for it in selected:
        s = it.snapshot
        writer.writerow(
            [
                csv_cell(it.id),
                csv_cell(s.headline),
                csv_cell(s.venue or ""),
                s.year or "",
                csv_cell(s.collection),
                csv_cell(s.source),
                s.position,
                "yes" if it.bookmarked else "",
                _iso(it.read_at),
                csv_cell(it.note or ""),
                csv_cell(s.text),
            ]
        )
    return buffer.getvalue()
