"""Small corpora with known answers, built from the model (no loader, no LaTeX renderer)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tui.corpus.model import Abstract, Collection, Corpus, FileInfo, SourceRef, abstract_id
from tui.search.index import SearchIndex

# (file name, venue, year, plain text[, source text])
Row = tuple[str, str, int, str] | tuple[str, str, int, str, str]


def make_corpus(
    rows: Sequence[Row],
) -> Corpus:
    """rows: (file name, venue, year, plain text[, source text]). The headline is the
    first sentence, so tests control it exactly."""
    abstracts: list[Abstract] = []
    counts: dict[str, int] = {}
    for row in rows:
        name, venue, year, plain = row[:4]
        source = row[4] if len(row) == 5 else plain
        counts[name] = counts.get(name, 0) + 1
        collection = Collection(f"{venue} {year} Papers", venue, year)
        abstract = Abstract(
            abstract_id(source), source, collection, [SourceRef(Path(name), counts[name])]
        )
        abstract._plain = plain
        abstract._headline = plain.split(". ")[0]
        abstracts.append(abstract)
    files = [
        FileInfo(Path(name), Collection(name), n, abstract_id(name + str(n)))
        for name, n in counts.items()
    ]
    return Corpus(abstracts, files, [])


class FakePersonal:
    """A PersonalData stand-in with fixed answers."""

    def __init__(
        self,
        bookmarked: set[str] | None = None,
        read: set[str] | None = None,
        notes: dict[str, str] | None = None,
        tags: dict[str, set[str]] | None = None,
        dismissed: set[str] | None = None,
    ) -> None:
        self._bookmarked = bookmarked or set()
        self._dismissed = dismissed or set()
        self._read = read or set()
        self._notes = notes or {}
        self._tags = tags or {}

    def bookmarked_ids(self) -> set[str]:
        return self._bookmarked

    def read_ids(self) -> set[str]:
        return self._read

    def dismissed_ids(self) -> set[str]:
        return self._dismissed

    def noted_ids(self) -> set[str]:
        return set(self._notes)

    def note_items(self) -> list[tuple[str, str]]:
        return list(self._notes.items())

    def tag_index(self) -> dict[str, set[str]]:
        return self._tags


#: Four abstracts sharing words in part: graphs of molecules, of proteins, both, and vision.
MIXED = [
    "Graph neural networks for molecules.",
    "Graph kernels for proteins.",
    "Graph models for molecules and proteins, a survey.",
    "Vision models at scale.",
]

#: Twenty words found in no other abstract, to give abstracts the same length.
FILLER = " ".join(f"f{i}" for i in range(20))


def index_of(texts: list[str]) -> SearchIndex:
    """An index of `texts`, one abstract each, all from one file (ICLR 2023)."""
    return SearchIndex.build(make_corpus([("a.txt", "ICLR", 2023, t) for t in texts]))


def full_matches(index: SearchIndex, text: str, **kwargs: object) -> list[int]:
    """Abstracts with every term and phrase, before the close matches (an unmatched phrase
    gives only close matches)."""
    result = index.search(text, **kwargs)  # type: ignore[arg-type]
    return result.indices[: result.matched]


def hits(index: SearchIndex, text: str, **kwargs: object) -> list[int]:
    """Every abstract the search returns for `text`, full and close matches, in order."""
    return index.search(text, **kwargs).indices  # type: ignore[arg-type]
