"""The overview's and the topic view's numbers: counts per collection, file and topic,
distinctive terms, bars."""

from __future__ import annotations

import math
from collections.abc import Container
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tui.corpus.model import Abstract, Collection, Corpus
from tui.similar.labels import label_groups
from tui.similar.terms import TermMatrix
from tui.similar.topics import Topics

_PARTIAL = " ▏▎▍▌▋▊▉"
_FULL = "█"

# Between a topic's terms in its row's label.
TOPIC_SEPARATOR = " · "
# Collections (one venue's years) are not made to differ as topics are, and differ far
# less: a term a quarter more common in one than in the rest (and beyond chance) is a
# trend there, while what every year says ("propose", "using") stays within a few
# percent. Topics ask for twice (`tui.similar.labels.MIN_LIFT`).
COLLECTION_MIN_LIFT = 1.25


@dataclass(frozen=True, slots=True)
class CountRow:
    """One row of the overview: how many abstracts, how many read and bookmarked.

    `path` is set for file rows and None for collection rows.
    """

    label: str
    total: int
    read: int
    bookmarked: int
    path: Path | None = None

    @property
    def read_fraction(self) -> float:
        return self.read / self.total if self.total else 0.0

    @property
    def bookmarked_fraction(self) -> float:
        return self.bookmarked / self.total if self.total else 0.0


def _sort_key(collection: Collection) -> tuple[str, int, str]:
    return (collection.venue or collection.label, collection.year or 0, collection.label)


def _tally(
    label: str,
    members: list[Abstract],
    read_ids: Container[str],
    bookmarked_ids: Container[str],
    path: Path | None = None,
) -> CountRow:
    return CountRow(
        label=label,
        total=len(members),
        read=sum(1 for a in members if a.id in read_ids),
        bookmarked=sum(1 for a in members if a.id in bookmarked_ids),
        path=path,
    )


def collection_rows(
    corpus: Corpus, read_ids: Container[str], bookmarked_ids: Container[str]
) -> list[CountRow]:
    """Counts per collection (`ICLR 2023`), ordered by venue then year."""
    # Keyed by the short label, so two files spelling the same venue and year
    # differently ("Papers" vs "Abstracts") show as one collection.
    merged: dict[str, tuple[Collection, list[Abstract]]] = {}
    for a in corpus.abstracts:
        merged.setdefault(a.collection.short, (a.collection, []))[1].append(a)
    ordered = sorted(merged.items(), key=lambda item: _sort_key(item[1][0]))
    return [_tally(label, members, read_ids, bookmarked_ids) for label, (_, members) in ordered]


def file_rows(
    corpus: Corpus, read_ids: Container[str], bookmarked_ids: Container[str]
) -> list[CountRow]:
    """Counts per loaded file, in load order; an abstract found in two files counts in both."""
    members: dict[Path, list[Abstract]] = {info.path: [] for info in corpus.files}
    for a in corpus.abstracts:
        for ref in a.sources:
            members.setdefault(ref.path, []).append(a)
    return [
        _tally(path.name, found, read_ids, bookmarked_ids, path) for path, found in members.items()
    ]


def distinctive_terms(corpus: Corpus, terms: TermMatrix, top: int = 8) -> dict[str, list[str]]:
    """The `top` terms most characteristic of each collection, keyed by collection label.

    Labelled as topics are (`tui.similar.labels.label_groups`): the terms that together
    cover most of the collection's abstracts, each weighted by how many times more
    common it is there than in the rest of the corpus, one per meaning (at least
    `COLLECTION_MIN_LIFT` times). `terms` is the
    similarity model's `TermMatrix` (`model.terms`), whose rows follow `corpus.abstracts`.
    With a single collection there is no "rest", so its terms are weighted by idf.
    """
    labels = [a.collection.short for a in corpus.abstracts]
    names = sorted(set(labels))
    if not names or terms.n_docs != len(labels) or top <= 0:
        return {name: [] for name in names}
    position = {name: g for g, name in enumerate(names)}
    group_of_row = np.asarray([position[label] for label in labels], dtype=np.int64)
    found = label_groups(terms, group_of_row, len(names), top, min_lift=COLLECTION_MIN_LIFT)
    return dict(zip(names, found, strict=True))


def topic_rows(
    topics: Topics, corpus: Corpus, read_ids: Container[str], bookmarked_ids: Container[str]
) -> list[CountRow]:
    """Counts per topic, topic 1 (the largest) first; each row's label is its terms."""
    members: list[list[Abstract]] = [[] for _ in range(topics.count)]
    for a, number in zip(corpus.abstracts, topics.number.tolist(), strict=True):
        if number:
            members[number - 1].append(a)
    return [
        _tally(TOPIC_SEPARATOR.join(labels), found, read_ids, bookmarked_ids)
        for labels, found in zip(topics.labels, members, strict=True)
    ]


def bar(fraction: float, width: int) -> str:
    """A horizontal bar `width` cells wide filled to `fraction` with eighth-block characters.

    Always exactly `width` characters (padded with spaces); `fraction` is
    clamped to 0..1.
    """
    if width <= 0:
        return ""
    if math.isnan(fraction):
        fraction = 0.0
    eighths = round(min(max(fraction, 0.0), 1.0) * width * 8)
    full, part = divmod(eighths, 8)
    text = _FULL * full + (_PARTIAL[part] if part else "")
    return text.ljust(width)
