"""Finding where an orphaned record belongs: the same paper, or the loaded abstract
nearly identical to its snapshot.

A record is an orphan when its abstract id is not loaded (the file was edited,
moved, or not opened, or the paper gained an identifier that now names it: a DOI
given to an arXiv preprint once published). First, an orphan whose snapshot names a
paper by DOI, arXiv id or OpenReview id re-attaches to the one loaded paper with one
of those identifiers, whatever its text now (a new version). Otherwise it re-attaches
to the loaded abstract whose normalised text has a RapidFuzz ratio of at least 95
with the snapshot; when the two best candidates are within `AMBIGUITY_MARGIN` of each
other, nothing is picked and the user is asked.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from tui.corpus.model import Corpus, normalise
from tui.corpus.paper import Paper, identity_keys
from tui.store.records import Snapshot

MIN_RATIO = 95.0
AMBIGUITY_MARGIN = 1.0
# ratio = 2·matches / (len a + len b) ≥ 0.95 needs min/max length ≥ 0.95 / 1.05.
_LENGTH_BOUND = MIN_RATIO / (200.0 - MIN_RATIO)


@dataclass(frozen=True, slots=True)
class Orphan:
    """A record whose abstract is not loaded, with what it held and its snapshot."""

    id: str
    snapshot: Snapshot | None
    bookmarked: bool
    note: str | None


@dataclass(frozen=True, slots=True)
class Reattachment:
    """An orphan moved to a loaded abstract."""

    old_id: str
    new_id: str
    score: float


@dataclass(frozen=True, slots=True)
class Ambiguity:
    """An orphan with two or more near-equal candidates: (abstract id, score), best first."""

    orphan_id: str
    candidates: tuple[tuple[str, float], ...]


@dataclass(slots=True)
class AttachReport:
    """What `UserData.attach` did: moved records, undecided ones, and the orphans left."""

    reattached: list[Reattachment] = field(default_factory=list)
    ambiguous: list[Ambiguity] = field(default_factory=list)
    orphans: list[Orphan] = field(default_factory=list)


class Matcher:
    """The loaded abstracts' normalised texts, sorted by length for the prefilter."""

    def __init__(self, corpus: Corpus) -> None:
        # A library entry without an abstract has no text to recognise it by.
        pairs = sorted(
            (len(t), t, a.id) for a in corpus.abstracts for t in [normalise(a.text)] if t
        )
        self._lengths = [p[0] for p in pairs]
        self._texts = [p[1] for p in pairs]
        self._ids = [p[2] for p in pairs]

    def candidates(self, text: str, limit: int = 3) -> list[tuple[str, float]]:
        """Loaded abstracts with ratio ≥ MIN_RATIO against `text`, best first."""
        query = normalise(text)
        n = len(query)
        if not n:
            return []
        lo = bisect.bisect_left(self._lengths, n * _LENGTH_BOUND)
        hi = bisect.bisect_right(self._lengths, n / _LENGTH_BOUND)
        if lo >= hi:
            return []
        found = process.extract(
            query, self._texts[lo:hi], scorer=fuzz.ratio, score_cutoff=MIN_RATIO, limit=limit
        )
        return [(self._ids[lo + index], float(score)) for _, score, index in found]


#: The score of a re-attachment by a shared identifier (a text match scores 95–100).
SAME_PAPER = 100.0


def match_identities(papers: Mapping[str, Paper], corpus: Corpus) -> list[Reattachment]:
    """For each orphan id -> the paper its snapshot names, the loaded abstract sharing a
    DOI, arXiv id or OpenReview id with it, when exactly one does."""
    if not papers:
        return []
    owner: dict[str, str | None] = {}  # identity key -> abstract id (None: two hold it)
    for abstract in corpus.abstracts:
        if abstract.paper is None:
            continue
        for key in identity_keys(abstract.paper.ids):
            held = owner.setdefault(key, abstract.id)
            if held != abstract.id:
                owner[key] = None
    moved = []
    for orphan_id, paper in papers.items():
        found = {owner.get(key, "") for key in identity_keys(paper.ids)} - {""}
        if len(found) == 1 and (target := found.pop()) is not None and target != orphan_id:
            moved.append(Reattachment(orphan_id, target, SAME_PAPER))
    return moved


def match_orphans(
    texts: Mapping[str, str], corpus: Corpus, papers: Mapping[str, Paper] | None = None
) -> tuple[list[Reattachment], list[Ambiguity]]:
    """For each orphan id -> snapshot text, the unambiguous best match or the ambiguity.
    Orphans in `papers` (id -> the paper its snapshot names) that share an identifier
    with a loaded paper go to it (`match_identities`) before any text is compared."""
    moved = match_identities(papers or {}, corpus)
    placed = {m.old_id for m in moved}
    texts = {i: t for i, t in texts.items() if i not in placed}
    if not texts:
        return moved, []
    matcher = Matcher(corpus)
    unsure: list[Ambiguity] = []
    for orphan_id, text in texts.items():
        found = matcher.candidates(text)
        if not found:
            continue
        if len(found) > 1 and found[0][1] - found[1][1] < AMBIGUITY_MARGIN:
            close = tuple(c for c in found if found[0][1] - c[1] < AMBIGUITY_MARGIN)
            unsure.append(Ambiguity(orphan_id, close))
        else:
            moved.append(Reattachment(orphan_id, found[0][0], found[0][1]))
    return moved, unsure
