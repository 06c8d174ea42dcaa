"""The search index on disk, so a second start with the same files skips the build.

A cache file is named by the corpus fingerprint (the content of the loaded
files), the index format version and the LaTeX rendering version (the index
holds words of the rendered text, so new rendering rules mean a new index),
and also records the abstract ids in order, so a
stale or foreign file is never used. Cache trouble of any kind (unreadable,
truncated, unwritable directory) means "build instead", never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import pickle
from pathlib import Path

from tui.corpus import latex
from tui.corpus.model import Corpus
from tui.fileio import atomic_write
from tui.search.build import IndexData
from tui.search.index import SearchIndex

# Bump whenever IndexData or tokenizing/rendering changes what an index holds.
FORMAT_VERSION = 2  # 2: marked symbol and macro words (backslash + name)
_KEEP = 3  # cache files kept for other corpora (e.g. other folders opened)


def render_version() -> int:
    """The rendering rules' version (tui.corpus.latex.RENDER_VERSION; 0 where it has none)."""
    return int(getattr(latex, "RENDER_VERSION", 0))


def cache_path(corpus: Corpus, cache_dir: Path) -> Path:
    """Where the index of `corpus` is (or would be) cached."""
    return cache_dir / f"search-v{FORMAT_VERSION}-r{render_version()}-{corpus.fingerprint}.pickle"


def _header(corpus: Corpus) -> tuple[int, int, str, str]:
    return (FORMAT_VERSION, render_version(), corpus.fingerprint, _ids_digest(corpus))


def _ids_digest(corpus: Corpus) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update("\n".join(a.id for a in corpus.abstracts).encode("ascii", "replace"))
    return h.hexdigest()


def load(corpus: Corpus, cache_dir: Path) -> SearchIndex | None:
    """The cached index of `corpus`, or None when there is no usable one."""
    try:
        with cache_path(corpus, cache_dir).open("rb") as f:
            header = pickle.load(f)
            if header != _header(corpus):
                return None
            data = pickle.load(f)
    except Exception:
        # Missing, truncated or garbage: all mean the same thing here.
        return None
    if not isinstance(data, IndexData) or len(data.ids) != len(corpus.abstracts):
        return None
    return SearchIndex(data)


def save(index: SearchIndex, corpus: Corpus, cache_dir: Path) -> bool:
    """Write the index atomically (temp file + rename). False when it could not be written."""
    target = cache_path(corpus, cache_dir)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        with atomic_write(target, binary=True, prefix=".search-", suffix=".tmp") as f:
            pickle.dump(_header(corpus), f, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump(index.data, f, protocol=pickle.HIGHEST_PROTOCOL)
        _prune(cache_dir, keep=target)
        return True
    except OSError:
        return False


def _prune(cache_dir: Path, keep: Path) -> None:
    """Delete all but the most recent few index caches so the folder does not grow forever."""
    files = sorted(
        (p for p in cache_dir.glob("search-*.pickle") if p != keep),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    for old in files[_KEEP - 1 :]:
        with contextlib.suppress(OSError):
            old.unlink()


def load_or_build(corpus: Corpus, cache_dir: Path) -> SearchIndex:
    """The index of `corpus`: from the cache when it is current, else built (and cached)."""
    index = load(corpus, cache_dir)
    if index is None:
        index = SearchIndex.build(corpus)
        save(index, corpus, cache_dir)
    return index
