"""Finding papers in a library: a pasted title, and every paper of an author.

Writes the development set's papers as one BibTeX library (titles, made-up authors
and ids: bench/paperfiles.py), loads it as a user would (`load_corpus`), builds the
app's search index, and prints:
  * pasted title: MRR@10 of the paper whose title was pasted whole into the filter,
    and the share found first (target: MRR@10 >= 0.98);
  * pasted title with one typo, and the title in lower case without punctuation;
  * `author:FAMILY`: for every family name of the pool, the share of that author's
    papers among the full matches (recall; target 1.0) and the share of full matches
    that are that author's (precision);
  * the same library also written as an arXiv feed, loaded together with the
    BibTeX: papers shown and sources per paper (target: each paper once, two sources).

    python bench/papers.py [--titles FILE.jsonl] [--limit N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from paperfiles import FAMILY, load_papers, write  # noqa: E402

from tui.corpus.load import load_corpus  # noqa: E402
from tui.search.index import SearchIndex  # noqa: E402


def _fold(text: str) -> str:
    return "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
    ).lower()


def typo(title: str, rng: random.Random) -> str:
    """The title with one letter of one longer word swapped with its neighbour."""
    words = title.split()
    long = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
    if not long:
        return title
    i = rng.choice(long)
    w = words[i]
    j = rng.randrange(1, len(w) - 2)
    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
    return " ".join(words)


def mrr(ranks: list[int | None]) -> float:
    return statistics.fmean(1 / r if r is not None and r <= 10 else 0.0 for r in ranks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--titles", type=Path, default=REPO.parent / "shared" / "corpora" / "iclr-titles.jsonl"
    )
    parser.add_argument("--limit", type=int, default=None, help="papers to use (default: all)")
    parser.add_argument("--queries", type=int, default=1000, help="titles to paste")
    args = parser.parse_args()
    papers = load_papers(args.titles, limit=args.limit)
    rng = random.Random(3)
    with tempfile.TemporaryDirectory() as tmp:
        bib = write("bibtex", papers, Path(tmp), "library")
        start = time.perf_counter()
        corpus = load_corpus([bib])
        loaded = time.perf_counter() - start
        fatal = [str(p) for p in corpus.problems if p.fatal]
        print(f"{len(corpus):,} papers from BibTeX in {loaded:.2f} s {fatal or ''}")
        index = SearchIndex.build(corpus)
        by_key = {a.paper.id_of("citekey"): a.index for a in corpus.abstracts if a.paper}

        sample = rng.sample(papers, min(args.queries, len(papers)))
        variants = {
            "pasted title": lambda p: p.title,
            "title, one typo": lambda p: typo(p.title, rng),
            "title, lower case, no punctuation": lambda p: "".join(
                c for c in p.title.lower() if c.isalnum() or c.isspace()
            ),
        }
        print(f"\nKnown item from its title, {len(sample):,} papers (MRR@10, found first)")
        for name, make in variants.items():
            ranks: list[int | None] = []
            for p in sample:
                target = by_key[p.citekey]
                found = index.search(make(p), corpus, limit=10).indices
                ranks.append(found.index(target) + 1 if target in found else None)
            first = sum(r == 1 for r in ranks) / len(ranks)
            print(f"  {name:36} MRR@10 {mrr(ranks):.3f}   first {first:.1%}")
        print("  target: pasted title MRR@10 >= 0.98")

        print("\nauthor:FAMILY over the library (every family name of the pool)")
        recalls, precisions, misses = [], [], []
        extra: list[tuple[float, str, int]] = []
        for family in FAMILY:
            want = {
                by_key[p.citekey]
                for p in papers
                if any(_fold(f) == _fold(family) for _, f in p.authors)
            }
            if not want:
                continue
            # A trailing space: the name typed whole (the last word is otherwise completed).
            result = index.search(f"author:{family} ", corpus)
            got = set(result.indices[: result.matched])
            recalls.append(len(want & got) / len(want))
            precisions.append(len(want & got) / len(got) if got else 0.0)
            if want - got:
                misses.append(f"{family} ({len(want - got)} of {len(want)} missed)")
            if got - want:
                extra.append((len(want & got) / len(got), family, len(got - want)))
        print(
            f"  {len(recalls)} authors: recall mean {statistics.fmean(recalls):.3f}, "
            f"min {min(recalls):.3f}; precision mean {statistics.fmean(precisions):.3f}, "
            f"min {min(precisions):.3f}"
        )
        if misses:
            print("  missed:", "; ".join(misses[:10]))
        if extra:
            worst = ", ".join(f"{f} {p:.2f} (+{n})" for p, f, n in sorted(extra)[:6])
            print(f"  lowest precision: {worst}")
        print("  target: recall 1.0 for every author")

        few = papers[:500]
        feed = write("arxiv atom", few, Path(tmp), "feed")
        lib = write("bibtex", few, Path(tmp), "library500")
        both = load_corpus([feed, lib])
        sources = [len(a.sources) for a in both.abstracts]
        print(
            f"\nThe same {len(few)} papers from an arXiv feed and a BibTeX library: "
            f"{len(both)} papers shown; sources per paper: min {min(sources)}, max {max(sources)}"
        )
        print("  target: 500 papers, each with two sources")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
