"""Known-item search quality: find a paper's abstract from its title, three engines side by side.

    python bench/quality.py [--corpus DIR] [--titles FILE.jsonl] [--sample N] [--seed S] [--json]
                            [--engines app,fts5,tantivy] [--no-groups]

For each title of a JSONL file of {"title", "abstract"} whose abstract is in
the corpus (default: ../shared/corpora/iclr and iclr-titles.jsonl; any corpus
directory and titles file work), three queries are typed, as a user would:

- title: the full title;
- typo: the title with one inner letter dropped from one word of 6+ letters;
- words: 3 random content words (not stop words) of the title.

Each goes to this app's engine (the filter, as typed: the last word is still
being typed), SQLite FTS5 (porter stemmer, bm25, terms ORed) and tantivy
(en_stem, BM25, parsed query, ORed), over the same rendered abstracts. Printed
per engine and variant: hit@1, hit@10, MRR@10 and the share of queries with no
result at all; and, first, what the query words allow any engine that matches
words (see `ceiling`).

Then precision, the filter as a filter: for --words words drawn at random from the
corpus (alphabetic, 5+ letters, in 20+ abstracts, sharing their Snowball stem with
words that are not their inflections: `positional` with `position`), each typed
alone as in the filter, the share of the app's full matches that hold the word or an
inflection of it (judged by the bench's own rules, `inflections`), and of the first
10 full matches; and, so that dropping forms does not pass for precision, the share
of the abstracts holding the word that are full matches. Seeded and deterministic;
prints figures, never fails.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tui.corpus.load import load_corpus  # noqa: E402
from tui.corpus.model import Corpus, abstract_id  # noqa: E402
from tui.corpus.stopwords import STOPWORDS  # noqa: E402
from tui.corpus.tokens import tokenize  # noqa: E402
from tui.search.index import SearchIndex  # noqa: E402
from tui.search.query import QueryError  # noqa: E402

SHARED = REPO.parent / "shared" / "corpora"
VARIANTS = ("title", "typo", "words")
# An engine answers a query with corpus indices, best first (at most 10 needed).
Engine = Callable[[str], list[int]]


def typo(title: str, rng: random.Random) -> str:
    """The title with one inner letter dropped from one of its words of 6+ letters."""
    words = title.split(" ")
    long = [i for i, w in enumerate(words) if sum(c.isalpha() for c in w) >= 6 and w.isalpha()]
    if not long:
        return title
    i = rng.choice(long)
    w = words[i]
    k = rng.randrange(1, len(w) - 1)
    words[i] = w[:k] + w[k + 1 :]
    return " ".join(words)


def content_words(title: str, rng: random.Random, k: int = 3) -> str:
    """k random distinct content words of the title (all of them when it has fewer)."""
    words = list(dict.fromkeys(w for w in tokenize(title) if w not in STOPWORDS and len(w) > 1))
    if len(words) > k:
        words = rng.sample(words, k)
    return " ".join(words)


def app_engine(corpus: Corpus, index: SearchIndex | None = None) -> tuple[Engine, float]:
    start = time.perf_counter()
    if index is None:
        index = SearchIndex.build(corpus)
    built = time.perf_counter() - start

    def run(text: str) -> list[int]:
        try:
            return index.search(text, corpus, limit=10).indices
        except QueryError:
            return []

    return run, built


def fts_engine(corpus: Corpus) -> tuple[Engine, float]:
    start = time.perf_counter()
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='porter unicode61')")
    db.executemany(
        "INSERT INTO docs(rowid, body) VALUES (?, ?)",
        ((i, a.plain) for i, a in enumerate(corpus.abstracts)),
    )
    built = time.perf_counter() - start

    def run(text: str) -> list[int]:
        words = tokenize(text)
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = db.execute(
            "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 10", (match,)
        )
        return [r[0] for r in rows]

    return run, built


def build_tantivy(corpus: Corpus, folder: Path) -> tuple[Any, Any, float] | None:
    """(index, searcher, build seconds) of tantivy over the rendered abstracts (en_stem
    tokenizer, each abstract's corpus position stored); None when tantivy is not installed.
    bench/search.py builds it the same way."""
    try:
        import tantivy
    except ImportError:
        return None
    start = time.perf_counter()
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
    builder.add_integer_field("pos", stored=True, fast=True)
    index = tantivy.Index(builder.build(), path=str(folder))
    writer = index.writer(heap_size=200_000_000, num_threads=2)
    for i, a in enumerate(corpus.abstracts):
        writer.add_document(tantivy.Document(body=a.plain, pos=i))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index, index.searcher(), time.perf_counter() - start


def tantivy_engine(corpus: Corpus, folder: Path) -> tuple[Engine, float] | None:
    built = build_tantivy(corpus, folder)
    if built is None:
        return None
    index, searcher, seconds = built

    def run(text: str) -> list[int]:
        words = tokenize(text)
        if not words:
            return []
        query = index.parse_query(" ".join(words), ["body"])
        hits = searcher.search(query, 10).hits
        return [searcher.doc(address)["pos"][0] for _, address in hits]

    return run, seconds


def ceiling(corpus: Corpus, cases: list[tuple[int, dict[str, str]]]) -> dict[str, dict[str, float]]:
    """What the words of each query allow any lexical engine, per variant: the share of
    queries whose every content word is in the target abstract in some form (same
    stem, or a hyphenated compound written as one word); the mean share of its content
    words found there; and, for those fully present, how many abstracts hold all of
    the words (median) and the MRR@10 of ranking those at random (what matching alone
    gives before any ranking)."""
    from tui.corpus.stem import stem
    from tui.corpus.tokens import tokenize_with_compounds

    memo: dict[str, str] = {}

    def stems(words: list[str]) -> set[str]:
        return {memo.setdefault(w, stem(w)) for w in words}

    bags = []
    for a in corpus.abstracts:
        body, compounds = tokenize_with_compounds(a.plain)
        bags.append(stems(body + compounds))
    out: dict[str, dict[str, float]] = {}
    for variant in VARIANTS:
        full = 0
        shares: list[float] = []
        holders: list[int] = []
        random_rr: list[float] = []
        for target, queries in cases:
            wanted = stems([w for w in tokenize(queries[variant]) if w not in STOPWORDS])
            if not wanted:
                continue
            shares.append(len(wanted & bags[target]) / len(wanted))
            if wanted <= bags[target]:
                full += 1
                k = sum(wanted <= bag for bag in bags)
                holders.append(k)
                random_rr.append(sum(1 / r for r in range(1, min(k, 10) + 1)) / k)
        n = max(len(shares), 1)
        out[variant] = {
            "all_words_in_target": full / n,
            "mean_share_in_target": statistics.fmean(shares) if shares else 0.0,
            "median_abstracts_with_all": statistics.median(holders) if holders else 0.0,
            "random_order_mrr@10": sum(random_rr) / n,
        }
    return out


def groups(
    index: SearchIndex, corpus: Corpus, cases: list[tuple[int, dict[str, str]]]
) -> dict[str, dict[str, float]]:
    """Where this app's engine puts each target, per variant: the share of targets among
    the full matches (every word), among the close matches, or not listed; the median
    number of full matches when the target is one of them; the MRR@10 of the order
    inside each group; and the "group oracle": the MRR@10 this app would reach with the
    same groups (full matches first, as a filter must) ranked perfectly inside each
    group. The distance between the oracle and the real figure is what better ranking
    can win; the distance from the oracle to 1 is the price of full matches first."""
    out: dict[str, dict[str, float]] = {}
    for variant in VARIANTS:
        where = {"full": 0, "close": 0, "absent": 0}
        sizes: list[int] = []
        inner: dict[str, list[float]] = {"full": [], "close": []}
        oracle: list[float] = []
        for target, queries in cases:
            try:
                result = index.search(queries[variant], corpus)
            except QueryError:
                where["absent"] += 1
                oracle.append(0.0)
                continue
            try:
                position = result.indices.index(target)
            except ValueError:
                where["absent"] += 1
                oracle.append(0.0)
                continue
            group = "close" if result.is_close(position) else "full"
            where[group] += 1
            if group == "full":
                sizes.append(result.matched)
                rank = position + 1
                best = 1
            else:
                rank = position - result.matched + 1
                best = result.matched + 1
            inner[group].append(1.0 / rank if rank <= 10 else 0.0)
            oracle.append(1.0 / best if best <= 10 else 0.0)
        n = max(len(cases), 1)
        out[variant] = {
            "in_full": where["full"] / n,
            "in_close": where["close"] / n,
            "absent": where["absent"] / n,
            "median_full_size": statistics.median(sizes) if sizes else 0.0,
            "full_mrr@10": statistics.fmean(inner["full"]) if inner["full"] else 0.0,
            "close_mrr@10": statistics.fmean(inner["close"]) if inner["close"] else 0.0,
            "group_oracle_mrr@10": statistics.fmean(oracle) if oracle else 0.0,
        }
    return out


def evaluate(
    engine: Engine, cases: list[tuple[int, dict[str, str]]]
) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for variant in VARIANTS:
        rr: list[float] = []
        hit1 = hit10 = zero = 0
        times: list[float] = []
        for target, queries in cases:
            start = time.perf_counter()
            found = engine(queries[variant])[:10]
            times.append(time.perf_counter() - start)
            if not found:
                zero += 1
            if target in found:
                rank = found.index(target) + 1
                rr.append(1.0 / rank)
                hit1 += rank == 1
                hit10 += 1
            else:
                rr.append(0.0)
        n = len(cases)
        out[variant] = {
            "hit@1": hit1 / n,
            "hit@10": hit10 / n,
            "mrr@10": statistics.fmean(rr),
            "zero": zero / n,
            "median_ms": statistics.median(times) * 1000,
        }
    return out


@functools.cache
def inflections(word: str) -> frozenset[str]:
    """The word and its regular inflections, generated (the bench's own rule, not the
    app's): plural, -ed, -ing, with the final e dropped, y turned to i and a final
    consonant doubled; British and American twins of -ise/-ize and -our/-or."""
    out = {word, word + "s", word + "es", word + "ed", word + "ing"}
    if word.endswith("e"):
        out |= {word + "d", word[:-1] + "ing"}
    if word.endswith("y"):
        out |= {word[:-1] + "ies", word[:-1] + "ied"}
    if len(word) > 2 and word[-1] not in "aeiouwxy" and word[-2] in "aeiou":
        out |= {word + word[-1] + "ed", word + word[-1] + "ing"}
    for a, b in (("is", "iz"), ("iz", "is"), ("our", "or"), ("or", "our")):
        for w in list(out):
            for ending in ("ation", "ations", "e", "es", "ed", "ing", "", "s"):
                if w.endswith(a + ending) and len(w) > len(a + ending) + 2:
                    out.add(w[: len(w) - len(a + ending)] + b + ending)
    return frozenset(out)


def accepted_forms(vocab: list[str]) -> Callable[[str], frozenset[str]]:
    """A judge of what holds a word: its inflections, and those of any word of `vocab`
    it is an inflection of (`designing` accepts `designed`: both inflect `design`)."""
    bases: dict[str, set[str]] = {}
    for base in vocab:
        if base.isalpha():
            for form in inflections(base):
                bases.setdefault(form, set()).add(base)

    @functools.cache
    def forms(word: str) -> frozenset[str]:
        found = set(inflections(word))
        for base in bases.get(word, ()):
            found |= inflections(base)
        return frozenset(found)

    return forms


def precision_words(index: SearchIndex, rng: random.Random, count: int) -> list[str]:
    """Words drawn at random from the corpus (not picked by hand) whose stem is shared by
    words that are not their inflections (`positional`, `position`): the words where a
    stemmer's filter says more than the reader typed. Alphabetic, 5+ letters, not stop
    words, in 20+ abstracts."""
    from tui.corpus.stem import stem

    data = index.data
    df = data.post_ptr[1:] - data.post_ptr[:-1]
    by_stem: dict[str, list[str]] = {}
    for w in data.vocab:
        if w.isalpha():
            by_stem.setdefault(stem(w), []).append(w)
    candidates = []
    for i, w in enumerate(data.vocab):
        if len(w) < 5 or not w.isalpha() or w in STOPWORDS or df[i] < 20:
            continue
        forms = inflections(w)
        others = [o for o in by_stem.get(stem(w), []) if o not in forms and w not in inflections(o)]
        if others:
            candidates.append(w)
    return sorted(rng.sample(candidates, min(count, len(candidates))))


def precision(
    index: SearchIndex, corpus: Corpus, words: list[str]
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """For each word typed alone (as in the filter: the last word still being typed), the
    share of the full matches that hold it, and of the first 10 full matches; the means."""
    from tui.corpus.tokens import tokenize_with_compounds

    bags = []
    for a in corpus.abstracts:
        body, compounds = tokenize_with_compounds(a.plain)
        bags.append(set(body) | set(compounds))
    forms = accepted_forms(index.data.vocab)
    rows: list[dict[str, Any]] = []
    for word in words:
        result = index.search(word, corpus)
        full = result.indices[: result.matched]
        accepted = forms(word)
        held = [not bags[i].isdisjoint(accepted) for i in full]
        holders = sum(not bag.isdisjoint(accepted) for bag in bags)
        rows.append(
            {
                "word": word,
                "full": len(full),
                "holding": sum(held),
                "share": sum(held) / len(full) if full else 1.0,
                "first10": sum(held[:10]) / min(len(full), 10) if full else 1.0,
                "close": result.close,
                # Of the abstracts holding the word, the share among the full matches.
                "recall": sum(held) / holders if holders else 1.0,
            }
        )
    mean = {
        "share_of_full_matches": statistics.fmean(r["share"] for r in rows) if rows else 0.0,
        "share_of_first_10": statistics.fmean(r["first10"] for r in rows) if rows else 0.0,
        "recall": statistics.fmean(r["recall"] for r in rows) if rows else 0.0,
    }
    return mean, rows


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/quality.py", description=__doc__)
    parser.add_argument("--corpus", default=str(SHARED / "iclr"), help="abstract files or folder")
    parser.add_argument("--titles", default=str(SHARED / "iclr-titles.jsonl"))
    parser.add_argument("--sample", type=int, default=400, help="titles to try (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--engines", default="app,fts5,tantivy")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--words", type=int, default=40, help="words drawn for the precision figure (0: skip)"
    )
    parser.add_argument(
        "--no-groups",
        dest="groups",
        action="store_false",
        help="skip where the app puts each target (full / close matches) and the group oracle",
    )
    args = parser.parse_args()
    unknown = sorted(set(args.engines.split(",")) - {"app", "fts5", "tantivy"})
    if unknown:
        parser.error(f"unknown engine {', '.join(unknown)}: choose from app, fts5, tantivy")

    corpus = load_corpus([args.corpus])
    position = {a.id: i for i, a in enumerate(corpus.abstracts)}
    rng = random.Random(args.seed)
    titled: list[tuple[int, str]] = []
    with open(args.titles, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            i = position.get(abstract_id(record["abstract"]))
            if i is not None and record.get("title"):
                titled.append((i, " ".join(record["title"].split())))
    if args.sample and len(titled) > args.sample:
        titled = rng.sample(titled, args.sample)
    cases = [
        (i, {"title": t, "typo": typo(t, rng), "words": content_words(t, rng)}) for i, t in titled
    ]
    print(f"{len(corpus):,} abstracts, {len(cases)} titles found in the corpus", file=sys.stderr)

    limits = ceiling(corpus, cases)
    results: dict[str, dict[str, dict[str, float]]] = {}
    builds: dict[str, float] = {}
    app_groups: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        built_at = time.perf_counter()
        app_index = SearchIndex.build(corpus) if "app" in args.engines.split(",") else None
        app_seconds = time.perf_counter() - built_at
        makers: dict[str, Callable[[], tuple[Engine, float] | None]] = {
            "app": lambda: (app_engine(corpus, app_index)[0], app_seconds),
            "fts5": lambda: fts_engine(corpus),
            "tantivy": lambda: tantivy_engine(corpus, Path(tmp)),
        }
        for name in args.engines.split(","):
            made = makers[name]()
            if made is None:
                print(f"{name}: not installed, skipped", file=sys.stderr)
                continue
            engine, builds[name] = made
            results[name] = evaluate(engine, cases)
        if app_index is not None and args.groups:
            app_groups = groups(app_index, corpus, cases)
        exact: dict[str, float] = {}
        per_word: list[dict[str, Any]] = []
        if app_index is not None and args.words:
            drawn = precision_words(app_index, random.Random(args.seed), args.words)
            exact, per_word = precision(app_index, corpus, drawn)

    if args.json:
        print(
            json.dumps(
                {
                    "results": results,
                    "build_s": builds,
                    "ceiling": limits,
                    "groups": app_groups,
                    "precision": exact,
                    "precision_words": per_word,
                },
                indent=2,
            )
        )
        return 0
    print("what the query words allow (any engine matching words):")
    print(
        f"{'variant':<7} {'all in target':>13} {'share in target':>15} {'abstracts w/ all':>16}"
        f" {'random-order MRR@10':>19}"
    )
    for variant, c in limits.items():
        print(
            f"{variant:<7} {c['all_words_in_target']:13.3f} {c['mean_share_in_target']:15.3f}"
            f" {c['median_abstracts_with_all']:16.0f} {c['random_order_mrr@10']:19.3f}"
        )
    print(
        f"{'engine':<9} {'variant':<7} {'hit@1':>6} {'hit@10':>7} {'MRR@10':>7} {'zero':>6} {'ms':>6}"
    )
    for name, by_variant in results.items():
        for variant, m in by_variant.items():
            print(
                f"{name:<9} {variant:<7} {m['hit@1']:6.3f} {m['hit@10']:7.3f} {m['mrr@10']:7.3f}"
                f" {m['zero']:6.1%} {m['median_ms']:6.2f}"
            )
    if app_groups:
        print("where the app puts the target (full matches first, then close matches):")
        print(
            f"{'variant':<7} {'in full':>7} {'in close':>8} {'absent':>6} {'full size':>9}"
            f" {'MRR in full':>11} {'MRR in close':>12} {'group oracle':>12}"
        )
        for variant, g in app_groups.items():
            print(
                f"{variant:<7} {g['in_full']:7.1%} {g['in_close']:8.1%} {g['absent']:6.1%}"
                f" {g['median_full_size']:9.0f} {g['full_mrr@10']:11.3f}"
                f" {g['close_mrr@10']:12.3f} {g['group_oracle_mrr@10']:12.3f}"
            )
    if exact:
        print(f"precision of the filter over {len(per_word)} words drawn from the corpus:")
        print(
            f"  full matches holding the word {exact['share_of_full_matches']:.3f}, "
            f"first 10 full matches {exact['share_of_first_10']:.3f}; "
            f"abstracts holding the word among the full matches {exact['recall']:.3f}"
        )
        worst = sorted(per_word, key=lambda r: r["share"])[:5]
        print("  lowest: " + ", ".join(f"{r['word']} {r['holding']}/{r['full']}" for r in worst))
    print("build seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in builds.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
