"""Readers for the files researchers have: each turns one decoded file into entries.

`read(text, path)` picks the reader by the file's content (and only then by its
extension: a `.bib` file that holds no BibTeX entry is named as such, never read
as prose), and returns a `ReadResult`: the entries (abstract text and, when the
source says, a `Paper`), warnings, and `error` when nothing could be read (the
format recognised and, where there is one, the line of the syntax error).

Each format's reader lives in its own module, imported only when a file of that
format is read, so opening conference text files never imports a parser.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from tui.corpus._record import Record
from tui.corpus.model import Collection
from tui.corpus.paper import Paper


class ReadResult(Record):
    """What one reader made of one file.

    `format` names the format (`text`, `bibtex`, `ris`, `feed`, `json`, `csv`, ...);
    `collection` labels the file (a conference text file's header, else the file's
    name). Entry i is `texts[i]`, its abstract ("" when the source has none), and
    `papers[i]`, what the source says of it (`papers` is None for conference text,
    whose paragraphs are abstracts only: two parallel lists, so 100,000 paragraphs
    cost no object each). `error` is set when the file is of that format but cannot
    be read (then nothing is loaded from it), in words for the load report: the
    format recognised and, where there is one, the line of the syntax error.
    """

    __match_args__ = ("format", "collection", "texts", "papers", "warnings", "error")
    __slots__ = __match_args__
    format: str
    collection: Collection
    texts: list[str]
    papers: list[Paper | None] | None
    warnings: list[str]
    error: str | None

    def __init__(
        self,
        format: str,
        collection: Collection,
        texts: list[str],
        papers: list[Paper | None] | None = None,
        warnings: list[str] | None = None,
        error: str | None = None,
    ) -> None:
        if papers is not None and len(papers) != len(texts):
            raise ValueError("texts and papers must be parallel lists")
        _set = object.__setattr__
        _set(self, "format", format)
        _set(self, "collection", collection)
        _set(self, "texts", texts)
        _set(self, "papers", papers)
        _set(self, "warnings", [] if warnings is None else warnings)
        _set(self, "error", error)


def failed(format: str, path: Path, error: str, warnings: list[str] | None = None) -> ReadResult:
    """A file of `format` that could not be read: nothing loaded, `error` says why."""
    return ReadResult(format, Collection(label=path.stem), [], None, warnings, error)


# Format name -> (module under tui.corpus.readers, name for messages).
READERS: dict[str, tuple[str, str]] = {
    "text": ("text", "conference text"),
    "feed": ("feed", "Atom/RSS feed"),
    "json": ("jsonfmt", "JSON"),
    "csv": ("tabular", "CSV"),
}

# Extensions whose files a folder loads, and the format each one promises.
EXTENSIONS: dict[str, str] = {
    ".txt": "text",
    ".text": "text",
    ".xml": "feed",
    ".atom": "feed",
    ".rss": "feed",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
    ".csv": "csv",
    ".tsv": "csv",
}

_HEAD_CHARS = 65536
_BIBTEX_ENTRY = re.compile(r"^[ \t]*@[ \t]*[A-Za-z]+[ \t]*[{(]", re.MULTILINE)
_RIS_TAG = re.compile(r"^TY  - ", re.MULTILINE)
_XML_START = re.compile(r"^(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<", re.DOTALL)


def supported(path: Path) -> bool:
    """True for a file name a folder loads (its extension is one a reader knows)."""
    return path.suffix.lower() in EXTENSIONS


def sniff(text: str, path: Path) -> str:
    """The format of a file from its start (and its extension when the content says nothing)."""
    head = text[:_HEAD_CHARS].lstrip("\ufeff \t\r\n")
    promised = EXTENSIONS.get(path.suffix.lower())
    if promised in ("csv", "tsv") and "csv" in READERS:
        return "csv"
    if head.startswith(("{", "[")) and "json" in READERS:
        return "json"
    if _XML_START.match(head) and "feed" in READERS:
        return "feed"
    is_ris = head.startswith("TY  - ") or (promised == "ris" and _RIS_TAG.search(head))
    if is_ris and "ris" in READERS:
        return "ris"
    is_bibtex = _BIBTEX_ENTRY.search(head) and (promised == "bibtex" or _looks_bibtex(head))
    if is_bibtex and "bibtex" in READERS:
        return "bibtex"
    if promised is not None and promised != "text" and promised in READERS:
        # A `.bib` (or `.json`, ...) that does not look like one: its reader says why.
        return promised
    if "csv" in READERS and _looks_csv(head):
        return "csv"
    return "text"


def _looks_bibtex(head: str) -> bool:
    """An entry line opens the file (after comments): not prose that happens to hold an `@`."""
    for line in head.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        return stripped.startswith("@")
    return False


_CSV_COLUMNS = re.compile(r"^\W*(title|abstract|summary)\W*$", re.IGNORECASE)


def _looks_csv(head: str) -> bool:
    """A first line of comma- or tab-separated column names, one of them a title or abstract."""
    first = head.split("\n", 1)[0]
    for sep in ("\t", ",", ";"):
        cells = first.split(sep)
        if len(cells) >= 2 and any(_CSV_COLUMNS.match(c) for c in cells):
            return True
    return False


def read(text: str, path: Path) -> ReadResult:
    """Read one decoded file with the reader its content calls for. Never raises for bad input."""
    fmt = sniff(text, path)
    module_name, label = READERS[fmt]
    module = importlib.import_module(f"tui.corpus.readers.{module_name}")
    try:
        result: ReadResult = module.read(text, path)
    except RecursionError:
        return failed(fmt, path, f"{label} file nested too deeply to read")
    return result
