"""Whether two source trees build the same similarity outputs from one corpus.

Dumps, in one process, what the cache child computes after the search index: the
term matrix and its weights (`weigh`), the near-duplicates (`find_duplicates`) and
the topics (`compute_topics`), with each stage's seconds; then, given two dumps,
says whether every array is identical, bit for bit.

    python bench/same_outputs.py dump CORPUS OUT.npz   (PYTHONPATH picks the tree)
    python bench/same_outputs.py compare A.npz B.npz
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np


def dump(corpus_path: str, out: str) -> None:
    """Compute the outputs for the corpus at `corpus_path` and save them to `out`."""
    from tui.corpus.load import load_corpus
    from tui.similar.duplicates import find_duplicates
    from tui.similar.model import SimilarityTexts, weigh
    from tui.similar.topics import compute_topics

    corpus = load_corpus([Path(corpus_path)])
    texts = SimilarityTexts(corpus.abstracts)
    started = time.perf_counter()
    terms, weights = weigh(texts.blocks())
    weighed = time.perf_counter()
    duplicates = find_duplicates(terms, weights, texts)
    found = time.perf_counter()
    topics = compute_topics(terms, weights)
    done = time.perf_counter()
    print(
        f"{len(texts)} abstracts: weigh {weighed - started:.2f} s, "
        f"duplicates {found - weighed:.2f} s ({len(duplicates.rows) // 2} pairs), "
        f"topics {done - found:.2f} s, all {done - started:.2f} s"
    )
    np.savez(
        out,
        indptr=terms.indptr,
        indices=terms.indices,
        counts=terms.counts,
        weights=weights,
        dup_indptr=duplicates.indptr,
        dup_rows=duplicates.rows,
        dup_cosines=duplicates.cosines,
        topic_number=topics.number,
        topic_labels=np.array(["\0".join(words) for words in topics.labels]),
    )


def compare(a: str, b: str) -> bool:
    """Whether the dumps `a` and `b` hold the same arrays, bit for bit."""
    first, second = np.load(a), np.load(b)
    same = sorted(first.files) == sorted(second.files)
    for name in first.files:
        equal = name in second.files and np.array_equal(first[name], second[name])
        print(f"{name}: {'same' if equal else 'DIFFERENT'} ({first[name].shape})")
        same = same and equal
    return same


if __name__ == "__main__":
    if sys.argv[1:2] == ["dump"] and len(sys.argv) == 4:
        dump(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["compare"] and len(sys.argv) == 4:
        raise SystemExit(0 if compare(sys.argv[2], sys.argv[3]) else 1)
    else:
        raise SystemExit(__doc__)
