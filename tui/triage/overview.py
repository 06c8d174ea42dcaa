"""The overview screen's numbers: counts per collection and per file, distinctive terms, bars."""

from __future__ import annotations

import math
from collections.abc import Container
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tui.corpus.model import Abstract, Collection, Corpus
from tui.similar.terms import TermMatrix, pick_terms

_PARTIAL = " ▏▎▍▌▋▊▉"
_FULL = "█"

# Informative Dirichlet prior of the log-odds (Monroe, Colaresi & Quinn 2008):
# the whole corpus's term frequencies scaled to this many pseudo-counts, so a
# word seen twice in a small collection does not outrank a real trend.
_PRIOR_MASS = 1000.0
_MIN_DOCS = 3


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

    Each collection is compared with the rest of the corpus by the z-scored
    log-odds ratio with an informative Dirichlet prior, over document
    frequencies (how many abstracts use a term, so one abstract repeating a
    word counts once). `terms` is the similarity model's `TermMatrix`
    (`model.terms`), whose rows follow `corpus.abstracts`: its terms are stems
    and pairs of words (`graph neural`), shown as most often written, one per
    meaning (`tui.similar.terms.pick_terms`). With a single collection there is
    no "rest", so its terms are ranked by df·idf instead.
    """
    labels = [a.collection.short for a in corpus.abstracts]
    names = sorted(set(labels))
    if not names or terms.n_docs != len(labels) or top <= 0:
        return {name: [] for name in names}
    group_of_row = np.asarray([names.index(label) for label in labels], dtype=np.int64)
    group_of_entry = np.repeat(group_of_row, np.diff(terms.indptr))
    df_by_group = np.stack(
        [
            np.bincount(terms.indices[group_of_entry == g], minlength=terms.n_terms)
            for g in range(len(names))
        ]
    ).astype(np.float64)
    everywhere = df_by_group.sum(axis=0)

    result: dict[str, list[str]] = {}
    for g, name in enumerate(names):
        inside = df_by_group[g]
        if len(names) == 1:
            score = inside * np.log((len(labels) + 1.0) / (everywhere + 1.0))
        else:
            score = _log_odds_z(inside, everywhere - inside, everywhere)
        score = np.where(inside >= min(_MIN_DOCS, inside.max()), score, -np.inf)
        ranked = (int(t) for t in np.argsort(-score, kind="stable") if np.isfinite(score[t]))
        result[name] = pick_terms(terms, ranked, top, inside)
    return result


def _log_odds_z(
    inside: npt.NDArray[np.float64], rest: npt.NDArray[np.float64], prior: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """z-scores of the log-odds of each word inside vs outside, shrunk toward `prior`."""
    alpha = prior / prior.sum() * _PRIOR_MASS
    a0 = float(alpha.sum())
    n_in, n_rest = float(inside.sum()), float(rest.sum())
    delta = np.log((inside + alpha) / (n_in + a0 - inside - alpha)) - np.log(
        (rest + alpha) / (n_rest + a0 - rest - alpha)
    )
    variance = 1.0 / (inside + alpha) + 1.0 / (rest + alpha)
    z: npt.NDArray[np.float64] = delta / np.sqrt(variance)
    return z


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
