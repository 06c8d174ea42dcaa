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
  Keys are readable (`iclr2023contrastive`, then `...a`, `...b` when two collide).
- Markdown: the abstract as the reader shows it (LaTeX rendered to Unicode), and
  notes in fenced blocks, so their lines and characters are kept as typed.

Tags go to a `Tags:` line (Markdown), a `tags` column (CSV, space-separated) and
`keywords` (BibTeX, comma-separated).
"""

from __future__ import annotations

import csv
import io
import re
import time
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from tui.corpus.headline import make_headline
from tui.corpus.latex import to_plain
from tui.sanitize import visible, visible_line
from tui.store.cite import bib_text as bib_text  # re-exported: the one BibTeX escaping
from tui.store.cite import bibtex_entry, key_word, original_key, paper_key_base
from tui.store.records import ConflictCopy, Snapshot, StoreData
from tui.tagnames import format_tags


@dataclass(frozen=True, slots=True)
class Item:
    """One abstract as the human-readable formats show it."""

    id: str
    snapshot: Snapshot
    bookmarked: bool
    read_at: float | None
    note: str | None
    conflicts: tuple[ConflictCopy, ...]
    tags: tuple[str, ...] = ()
    #: Dismissed ("not interested", the `x` key).
    dismissed: bool = False


def items(
    data: StoreData,
    *,
    bookmarked: bool = False,
    with_notes: bool = False,
    ids: Collection[str] | None = None,
    tag: str | None = None,
) -> list[Item]:
    """Bookmarked, noted or tagged abstracts (`bookmarked`, `with_notes` and `tag` narrow),
    ordered by collection and file; with `ids`, exactly those abstracts (a list the reader
    showed), marked or not."""
    copies: dict[str, list[ConflictCopy]] = {}
    for c in data.conflicts:
        copies.setdefault(c.abstract_id, []).append(c)
    everything = set(data.bookmarks) | set(data.notes) | set(copies) | set(data.tags)
    chosen = everything if ids is None else set(ids)
    if bookmarked:
        chosen &= set(data.bookmarks)
    if with_notes:
        chosen &= set(data.notes) | set(copies)
    if tag is not None:
        chosen &= {i for i, tags in data.tags.items() if tag in tags}
    out = []
    for i in chosen:
        snap = data.records.get(i) or Snapshot(text="", given_headline=f"(no snapshot for {i})")
        note = data.notes.get(i)
        out.append(
            Item(
                i,
                snap,
                i in data.bookmarks,
                data.reads.get(i),
                note.text if note else None,
                tuple(copies.get(i, ())),
                tuple(sorted(data.tags.get(i, ()))),
                i in data.dismissals,
            )
        )
    return sorted(
        out,
        key=lambda it: (it.snapshot.collection, it.snapshot.source, it.snapshot.position, it.id),
    )


def _iso(t: float | None) -> str:
    return "" if t is None else time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


def _fenced(text: str) -> list[str]:
    """`text` as a fenced block: every line kept as typed. The fence is longer than
    any run of backticks inside, so no line of the text can close it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}text", *text.rstrip("\n").split("\n"), fence]


def to_markdown(selected: Iterable[Item]) -> str:
    """Per abstract: headline, venue and year, source, the abstract as the reader shows
    it (LaTeX rendered), the note and any conflict copies with their lines kept."""
    parts = ["# Abstracts export", ""]
    for it in selected:
        s = it.snapshot
        parts.append(f"## {visible_line(s.headline)}{' ★' if it.bookmarked else ''}")
        parts.append("")
        where = f"{visible_line(s.source)} (#{s.position})" if s.source else "source unknown"
        venue = visible_line(s.venue_year or "unknown venue")
        dismissed = " · not interested" if it.dismissed else ""
        parts.append(f"*{venue}* · {where} · id `{visible_line(it.id)}`{dismissed}")
        parts.append("")
        if it.tags:
            parts += [f"Tags: {visible_line(format_tags(it.tags))}", ""]
        text = to_plain(s.text) if s.text else "(text not kept)"
        parts.extend(f"> {line}" for line in visible(text).splitlines())
        if it.note is not None:
            parts += ["", "**Note**", "", *_fenced(it.note)]
        for c in it.conflicts:
            origin = visible_line(c.origin)
            parts += ["", f"**Conflict copy** ({origin}, {_iso(c.created)})", "", *_fenced(c.text)]
        parts += ["", "---", ""]
    # Notes keep their lines; what is left of any control character is shown, not sent.
    return visible("\n".join(parts))


_TITLE_LIMIT = 300


def bib_title(snapshot: Snapshot) -> str:
    """The headline in full: the abstract's first sentence as the reader shows it, never
    cut with "…" (only a first sentence over 300 characters is cut, at a word), without
    its final full stop (bibliography styles add their own)."""
    title = snapshot.headline
    if title.endswith("…") and snapshot.text:
        title = make_headline(to_plain(snapshot.text), _TITLE_LIMIT)
    title = title.removesuffix("…").rstrip()
    return title[:-1] if title.endswith(".") and not title.endswith("..") else title


def bib_key_base(snapshot: Snapshot) -> str:
    """`vaswani2017attention` for a paper with authors (see `cite.paper_key_base`), else
    `iclr2023contrastive`: venue (or collection), year and the headline's first content
    word, lowercase ASCII; `abstract` when none of them has a letter to give."""
    paper = snapshot.paper
    if paper is not None and (base := paper_key_base(paper, snapshot.year, snapshot.headline)):
        return base
    venue = key_word(snapshot.venue or snapshot.collection)
    year = str(snapshot.year) if snapshot.year else ""
    return venue + year + key_word(snapshot.headline) or "abstract"


def _suffix(n: int) -> str:
    """a, b, ..., z, aa, ab, ...: the n-th (0-based) letters suffix."""
    letters = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def bib_keys(snapshots: Sequence[Snapshot]) -> list[str]:
    """Keys for the entries in order, unique. A paper's original citekey (from its `.bib`)
    is kept, unless an entry before already has it; readable keys that collide (with each
    other or with a kept citekey) all get a letter (`iclr2023grapha`, `iclr2023graphb`),
    in the order of the entries."""
    originals = [original_key(s.paper) if s.paper is not None else None for s in snapshots]
    kept: dict[int, str] = {}
    for n, original in enumerate(originals):
        if original is not None and original not in kept.values():
            kept[n] = original
    bases = [o or bib_key_base(s) for o, s in zip(originals, snapshots, strict=True)]
    counts = Counter(bases)
    taken = {b for b in bases if counts[b] == 1} | set(kept.values())
    next_letter: dict[str, int] = {}
    keys = []
    for n, base in enumerate(bases):
        key = base
        if n not in kept and (counts[base] > 1 or base in kept.values()):
            while key in taken or key == base:
                key = base + _suffix(next_letter.get(base, 0))
                next_letter[base] = next_letter.get(base, 0) + 1
        taken.add(key)
        keys.append(key)
    return keys


def to_bibtex(selected: Iterable[Item]) -> str:
    """One entry per abstract, with a unique key (see `bib_keys`): a paper with a title is
    cited as its source describes it (`cite.bibtex_entry`); a conference paragraph is an
    @misc with its first sentence as the title."""
    chosen = list(selected)
    entries = []
    for key, it in zip(bib_keys([it.snapshot for it in chosen]), chosen, strict=True):
        s = it.snapshot
        if s.paper is not None and s.paper.title:
            entry = bibtex_entry(s.paper, s.text, key=key, tags=it.tags, note=it.note, year=s.year)
            entries.append(entry)
            continue
        fields = [("title", bib_title(s)), ("howpublished", s.venue_year), ("abstract", s.text)]
        if s.year:
            fields.append(("year", str(s.year)))
        if it.note:
            fields.append(("note", it.note))
        if it.tags:
            fields.append(("keywords", ", ".join(it.tags)))
        body = ",\n".join(f"  {k} = {{{bib_text(v)}}}" for k, v in fields if v)
        entries.append(f"@misc{{{key},\n{body}\n}}\n")
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
    "dismissed",
    "read_at",
    "note",
    "tags",
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
                "yes" if it.dismissed else "",
                _iso(it.read_at),
                csv_cell(it.note or ""),
                csv_cell(" ".join(it.tags)),
                csv_cell(s.text),
            ]
        )
    return buffer.getvalue()
