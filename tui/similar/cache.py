"""The similarity model's on-disk cache, keyed by the corpus fingerprint.

Only the term counts are stored (tokenizing is the slow part of a build; the
weights are recomputed from them in milliseconds). The file is a
`tui.cachefile` (NumPy `.npz` read with `allow_pickle=False`, written
atomically into a private folder). Anything unreadable or not matching the
corpus is ignored and rebuilt.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import numpy as np

from tui import cachefile
from tui.corpus.model import Corpus
from tui.similar.model import SimilarityModel
from tui.similar.terms import TermMatrix

# Bump when the tokenization, stopwords or file layout change.
CACHE_VERSION = 4  # 2: a tui.cachefile; 3: stems and pairs, shown as written; 4: et al. stop words
_KIND = "similar"


def cache_path(corpus: Corpus, cache_dir: Path) -> Path:
    """Where the model of `corpus` is cached inside `cache_dir`."""
    return cachefile.path_for(cache_dir, _KIND, CACHE_VERSION, corpus)


def save(model: SimilarityModel, corpus: Corpus, cache_dir: Path) -> Path:
    """Write the model's term counts for `corpus` atomically; returns the cache file.

    Raises OSError when it cannot be written.
    """
    target = cache_path(corpus, cache_dir)
    terms = model.terms
    arrays: dict[str, np.ndarray[Any, Any]] = {
        "indptr": terms.indptr,
        "indices": terms.indices,
        "counts": terms.counts,
        "parts": terms.parts,
    }
    try:
        cachefile.save(
            target,
            cachefile.header(_KIND, CACHE_VERSION, corpus),
            arrays,
            {"vocab": terms.vocab},
        )
    except ValueError as err:  # a word holding NUL: not cacheable
        raise OSError(str(err)) from err
    return target


def load(corpus: Corpus, cache_dir: Path) -> SimilarityModel | None:
    """The cached model of `corpus`, or None when there is none or it is unusable."""
    contents = cachefile.load(
        cache_path(corpus, cache_dir), cachefile.header(_KIND, CACHE_VERSION, corpus)
    )
    if contents is None:
        return None
    arrays = contents.arrays
    if any(a.dtype.kind not in "iu" for a in arrays.values()):
        return None  # counts and offsets are whole numbers: anything else is not ours
    try:
        terms = TermMatrix(
            vocab=contents.strings["vocab"],
            indptr=arrays["indptr"].astype(np.int64),
            indices=arrays["indices"].astype(np.int32),
            counts=arrays["counts"].astype(np.int32),
            parts=arrays["parts"].astype(np.int32).reshape(-1, 2),
        )
    except (KeyError, ValueError, TypeError):
        return None
    if not _consistent(terms, len(corpus)):
        return None
    return SimilarityModel(terms, [a.similarity_text for a in corpus.abstracts])


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
        and terms.parts.shape == (len(terms.vocab), 2)
        and (len(terms.parts) == 0 or int(terms.parts.max()) < len(terms.vocab))
        and (len(terms.parts) == 0 or int(terms.parts[:, 0].min()) >= 0)
        and (len(terms.parts) == 0 or int(terms.parts[:, 1].min()) >= -1)
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
