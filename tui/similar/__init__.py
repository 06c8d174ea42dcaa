"""Offline similarity: "more like this", "more like my bookmarks" and near-duplicates.

TF-IDF vectors over the corpus's content words with cosine similarity, in
NumPy only. Never imports Textual (enforced by tests/test_import_hygiene.py).
"""

from tui.similar.cache import load_or_build
from tui.similar.model import DUPLICATE_COSINE, DUPLICATE_RATIO, SimilarityModel

__all__ = ["DUPLICATE_COSINE", "DUPLICATE_RATIO", "SimilarityModel", "load_or_build"]
