"""The similarity model's on-disk cache, keyed by the corpus fingerprint.

Only the term counts are stored (tokenizing is the slow part of a build; the
weights are recomputed from them in milliseconds). The file is a NumPy `.npz`
read with `allow_pickle=False`, written to a temporary file and renamed into
place so a crash never leaves half a cache. Anything unreadable or not matching
the corpus is ignored and rebuilt.
"""

from __future__ import annotations

import contextlib
import hashlib
import zipfile
from pathlib import Path

import numpy as np

from tui.corpus.model import Corpus
from tui.fileio import atomic_write
from tui.similar.model import SimilarityModel
from tui.similar.terms import TermMatrix

# Bump when the tokenization, stopwords or file layout change.
CACHE_VERSION = 1
_PREFIX = "similar-"


def cache_path(corpus: Corpus, cache_dir: Path) -> Path:
    """Where the model of `corpus` is cached inside `cache_dir`."""
    return cache_dir / f"{_PREFIX}{corpus.fingerprint}.npz"


def _ids_digest(corpus: Corpus) -> str:
    """Checks the cache was built from these abstracts in this order (indices must line up)."""
    h = hashlib.blake2b(digest_size=16)
    for a in corpus.abstracts:
        h.update(a.id.encode("ascii", "replace"))
    return h.hexdigest()


def save(model: SimilarityModel, corpus: Corpus, cache_dir: Path) -> Path:
    """Write the model's term counts for `corpus` atomically; returns the cache file."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_path(corpus, cache_dir)
    terms = model.terms
    with atomic_write(target, binary=True, prefix=".similar-", suffix=".tmp") as handle:
        np.savez(
            handle,
            version=np.asarray(CACHE_VERSION),
            ids=np.asarray(_ids_digest(corpus)),
            vocab=np.asarray(terms.vocab, dtype=np.str_),
            indptr=terms.indptr,
            indices=terms.indices,
            counts=terms.counts,
        )
    _remove_stale(cache_dir, keep=target)
    return target


def _remove_stale(cache_dir: Path, keep: Path) -> None:
    """Old corpora's caches are dead weight; removing them is best effort."""
    for old in cache_dir.glob(f"{_PREFIX}*.npz"):
        if old != keep:
            with contextlib.suppress(OSError):
                old.unlink()


def load(corpus: Corpus, cache_dir: Path) -> SimilarityModel | None:
    """The cached model of `corpus`, or None when there is none or it is unusable."""
    path = cache_path(corpus, cache_dir)
    try:
        with np.load(path, allow_pickle=False) as data:
            if int(data["version"]) != CACHE_VERSION or str(data["ids"]) != _ids_digest(corpus):
                return None
            terms = TermMatrix(
                vocab=data["vocab"].tolist(),
                indptr=data["indptr"].astype(np.int64),
                indices=data["indices"].astype(np.int32),
                counts=data["counts"].astype(np.int32),
            )
        if not _consistent(terms, len(corpus)):
            return None
        return SimilarityModel(terms, [a.text for a in corpus.abstracts])
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
        return None


def _consistent(terms: TermMatrix, n_docs: int) -> bool:
    """Guard against a cache that parses but would index out of bounds."""
    indptr, indices = terms.indptr, terms.indices
    return (
        len(indptr) == n_docs + 1
        and int(indptr[0]) == 0
        and int(indptr[-1]) == len(indices) == len(terms.counts)
        and bool(np.all(np.diff(indptr) >= 0))
        and (len(indices) == 0 or 0 <= int(indices.min()) <= int(indices.max()) < len(terms.vocab))
        and (len(terms.counts) == 0 or int(terms.counts.min()) >= 1)
    )


def load_or_build(corpus: Corpus, cache_dir: Path) -> SimilarityModel:
    """The model of `corpus` from the cache when valid, else built and cached.

    A cache that cannot be written (read-only disk) is not an error: the
    freshly built model is returned anyway.
    """
    model = load(corpus, cache_dir)
    if model is not None:
        return model
    model = SimilarityModel.build(corpus)
    with contextlib.suppress(OSError):
        save(model, corpus, cache_dir)
    return model
