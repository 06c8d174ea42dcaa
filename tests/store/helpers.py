"""Small builders shared by the store tests: abstracts, fixture corpora, a tiny loader.

The loader here reads the product's format (a header line, a blank line, one abstract
per paragraph) so these tests do not depend on the corpus loader's details.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from tui.corpus.model import Abstract, Collection, Corpus, SourceRef, abstract_id, normalise
from tui.corpus.paper import Author, Paper, id_from_ids
from tui.locations import database_path
from tui.store.db import Store
from tui.store.records import StoreEvent
from tui.store.userdata import UserData

#: A store as the release with schema 4 left it, every kind of row (see fixtures/).
RELEASE_V4 = Path(__file__).parent / "fixtures" / "release_v4.db"
#: The same user data as the release with schema 5 left it.
RELEASE_V5 = Path(__file__).parent / "fixtures" / "release_v5.db"

#: The tables of user data every schema since version 3 has.
TABLES = [
    "records",
    "bookmarks",
    "dismissals",
    "reads",
    "notes",
    "conflict_copies",
    "aliases",
    "state",
    "tags",
    "saved_searches",
]

# A record as every schema holds it: from version 6 its source, collection, venue and
# year are those of its origin. The columns of version 5, in the same (sorted) order.
_RECORDS_V6 = """SELECT o.collection, r.created, r.headline, r.id, r.paper, r.position,
    o.source, r.text, r.updated, o.venue, o.year FROM records AS r JOIN origins AS o USING (origin)"""


def release_store(data_dir: Path, fixture: Path) -> Path:
    """`data_dir` holding the store a release wrote (`fixture`: see fixtures/); its path."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = database_path(data_dir)
    shutil.copyfile(fixture, path)
    return path


def every_row(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table of the store at `path`, by column name, in a stable
    order; a record with its origin's values, so stores of versions 5 and 6 compare."""
    conn = sqlite3.connect(path)
    try:
        out = {}
        v6 = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'origins'").fetchone()
        for table in TABLES:
            columns = sorted(
                r[1] for r in conn.execute(f"SELECT * FROM pragma_table_info('{table}')")
            )
            query = f"SELECT {', '.join(columns)} FROM {table}"
            if table == "records" and v6:
                query = _RECORDS_V6
            out[table] = sorted(conn.execute(query), key=repr)
        return out
    finally:
        conn.close()


HEADER = re.compile(r"^(?P<venue>\w+) (?P<year>\d{4})")


def make_abstract(text: str, path: str = "f.txt", position: int = 1) -> Abstract:
    """An abstract as the loader would make it (ICLR 2023)."""
    text = normalise(text)
    collection = Collection("ICLR 2023 Papers", "ICLR", 2023)
    return Abstract(abstract_id(text), text, collection, [SourceRef(Path(path), position)])


def write_file(path: Path, header: str, paragraphs: list[str]) -> Path:
    path.write_text(header + "\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return path


def load(paths: list[Path]) -> Corpus:
    """Load fixture files into a Corpus (first occurrence wins, later ones add a source)."""
    seen: dict[str, Abstract] = {}
    for path in paths:
        header, _, body = path.read_text(encoding="utf-8").partition("\n\n")
        m = HEADER.match(header)
        coll = Collection(header.strip(), m["venue"] if m else None, int(m["year"]) if m else None)
        for pos, para in enumerate((p for p in body.split("\n\n") if p.strip()), start=1):
            text = normalise(para)
            i = abstract_id(text)
            if i in seen:
                seen[i].sources.append(SourceRef(path, pos))
            else:
                seen[i] = Abstract(i, text, coll, [SourceRef(path, pos)])
    return Corpus(list(seen.values()), [], [])


PARAGRAPHS = [
    "We prove bounds on the generalization error of convolutional networks. The bounds are in "
    "terms of the training loss, the number of parameters and the Lipschitz constant of the loss.",
    "Achieving fusion of deep learning with combinatorial algorithms promises transformative "
    "changes to artificial intelligence. We present a method that implements a backward pass.",
    "We address the problem of learning to discover 3D parts for objects in unseen categories. "
    "Being able to learn the geometry prior of parts and transfer this prior is important.",
    "Graph neural networks have become the standard tool for learning on relational data. We "
    "show that message passing is limited by the Weisfeiler-Lehman test and propose a fix.",
]


def sqlite_file(path: Path, *statements: str, version: int) -> Path:
    """A database made by hand at `path` (not by the store): `statements`, then
    `user_version` set to `version`. Returns `path`."""
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    return path


def make_paper_abstract(
    paper: Paper, text: str, path: str = "library.bib", position: int = 1
) -> Abstract:
    """An entry of a library as the loader makes it: id from the paper's DOI, arXiv or
    OpenReview id (else its text), collection from its venue and year."""
    text = normalise(text)
    label = f"{paper.venue} {paper.year}" if paper.venue and paper.year else Path(path).stem
    collection = Collection(label, paper.venue, paper.year)
    aid = id_from_ids(paper.ids) or abstract_id(text)
    return Abstract(aid, text, collection, [SourceRef(Path(path), position)], paper=paper)


#: A paper as a BibTeX library gives it: diacritics, a von particle, LaTeX in the title.
PAPER = Paper(
    title="Attention Is All You Need: {BERT} & Friends at 100% of $O(n^2)$",
    authors=(Author("Vaswani", "Ashish"), Author("Müller", "Jörg"), Author("von Neumann", "John")),
    venue="Advances in Neural Information Processing Systems",
    year=2017,
    ids=(
        ("doi", "10.5555/3295222.3295349"),
        ("arxiv", "1706.03762"),
        ("citekey", "vaswani2017attention"),
    ),
    links=(
        ("page", "https://papers.nips.cc/paper/7181"),
        ("pdf", "https://arxiv.org/pdf/1706.03762"),
    ),
    keywords=("transformers", "attention"),
    kind="inproceedings",
    extra=(("pages", "5998--6008"), ("publisher", "Curran Associates")),
)
PAPER_TEXT = (
    "The dominant sequence transduction models are based on complex recurrent networks. "
    "We propose the Transformer, based solely on attention mechanisms, at $O(n^2)$ cost."
)


def open_userdata(data_dir: Path) -> UserData:
    """The user data in `data_dir`, retrying a failed write after 20 ms (tests wait less)."""
    return UserData.open(data_dir, retry_initial=0.02, retry_max=0.1)


def corpus_of(abstracts: list[Abstract]) -> Corpus:
    """A corpus of `abstracts`, with no files or problems."""
    return Corpus(abstracts, [], [])


def conflict_on(data_dir: Path, abstract: Abstract, theirs: str) -> UserData:
    """Window one's note of `abstract`, with window two's text `theirs` kept as a copy."""
    one, two = open_userdata(data_dir), open_userdata(data_dir)
    one.save_note(abstract, "base")
    assert one.flush() and two.refresh()
    two.save_note(abstract, theirs)
    assert two.flush()
    two.close()
    one.save_note(abstract, "from window one")
    assert one.flush()
    return one


#: The first paragraph with one clause reworded: close enough to be re-attached to it.
NEAR = normalise(PARAGRAPHS[0]).replace("The bounds are", "They are")


def edited_corpus(tmp_path: Path) -> tuple[Path, Abstract, Abstract]:
    """A file whose first abstract is then edited lightly (to `NEAR`): the file, the
    abstract before and the one after."""
    f = write_file(tmp_path / "a.txt", "ICLR 2023 Papers", PARAGRAPHS[:2])
    old = load([f]).abstracts[0]
    write_file(f, "ICLR 2023 Papers", [NEAR, PARAGRAPHS[1]])
    return f, old, load([f]).abstracts[0]


def window_two_saves_unseen(
    data_dir: Path, abstract: Abstract, theirs: str
) -> tuple[UserData, UserData, list[StoreEvent]]:
    """Two windows on the note of `abstract`; window two saves `theirs`, which window one
    (its events listened to) has not seen."""
    one, two = open_userdata(data_dir), open_userdata(data_dir)
    events: list[StoreEvent] = []
    one.listener = events.append
    one.save_note(abstract, "base")
    assert one.flush() and two.refresh()
    two.save_note(abstract, theirs)
    assert two.flush()
    return one, two, events


def hold_writes(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """While the returned event is set, commits fail (and stay queued)."""
    holding = threading.Event()
    holding.set()
    real_apply = Store.apply

    def apply(self: Store, ops: list[object]) -> object:
        if holding.is_set():
            raise sqlite3.OperationalError("database is locked")
        return real_apply(self, ops)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "apply", apply)
    return holding
