"""Records per second of the BibTeX and RIS readers, and of the parsers they could use.

    python bench/readers.py [--entries 10000] [--titles ../shared/corpora/iclr-titles.jsonl]

Writes a library of `--entries` papers as BibTeX (Zotero, Better BibTeX, Google
Scholar and DBLP shapes in turn, with `@string` macros, `crossref`, accents in
names and protective braces in titles), as RIS, and as conference text, with
titles and abstracts from `--titles` (JSON Lines with `title` and `abstract`)
when given, else made-up ones. Then prints, each the best of `--repeat` runs:

- the parsers alone: our scanner (`readers.bibtex_blocks.blocks`, what the reader
  uses: it hands bibtexparser only the blocks it is not sure of), bibtexparser 2
  splitting only (what the reader used before, with its long values hidden, and
  without), with its default middleware, with its LaTeX-decoding middleware (over the
  first 300 entries), and pybtex (when installed); the choice between them;
- our readers (`readers.bibtex.read`, `readers.ris.read`) and `load_corpus` on each
  file, against the conference text of the same abstracts.

Times are CPU seconds of this process (`time.process_time`), not wall-clock time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tui.corpus.load import load_corpus  # noqa: E402
from tui.corpus.readers import bibtex, bibtex_blocks, ris  # noqa: E402

_WORDS = [
    "learning",
    "neural",
    "networks",
    "graph",
    "attention",
    "transformer",
    "diffusion",
    "models",
    "robust",
    "generalization",
    "optimization",
    "stochastic",
    "gradient",
    "reinforcement",
    "policy",
    "representation",
    "contrastive",
    "self-supervised",
    "language",
    "vision",
    "bayesian",
    "inference",
    "variational",
    "sparse",
    "adversarial",
    "training",
    "federated",
    "causal",
    "kernel",
    "convex",
    "bounds",
    "benchmark",
    "scaling",
]
_NAMES = [
    ('M{\\"u}ller', 'J{\\"u}rgen'),
    ('Sch{\\"o}lkopf', "Bernhard"),
    ("Nowak", "{\\L}ukasz"),
    ("Garc{\\'\\i}a", "Mar{\\'\\i}a"),
    ("van der Berg", "Ludwig"),
    ("Smith", "Jane"),
    ("Chen", "Wei"),
    ("{\\c{C}}elik", "Ay{\\c{s}}e"),
    ("Dvo{\\v{r}}{\\'a}k", "Anton{\\'\\i}n"),
    ("Kim", "Min-jun"),
]


def _papers(n: int, titles: Path | None) -> list[tuple[str, str]]:
    """`n` (title, abstract) pairs: from the JSON Lines file, cycled, else made up."""
    rng = random.Random(7)
    pairs: list[tuple[str, str]] = []
    if titles is not None and titles.exists():
        for line in titles.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("title") and row.get("abstract"):
                pairs.append((row["title"], row["abstract"]))
    if not pairs:
        for _ in range(min(n, 2000)):
            title = " ".join(rng.choice(_WORDS) for _ in range(8)).capitalize()
            abstract = ". ".join(
                " ".join(rng.choice(_WORDS) for _ in range(14)).capitalize() for _ in range(8)
            )
            pairs.append((title, abstract + "."))
    return [pairs[i % len(pairs)] for i in range(n)]


def _authors(rng: random.Random) -> list[tuple[str, str]]:
    return [rng.choice(_NAMES) for _ in range(rng.randint(1, 6))]


def write_bibtex(path: Path, papers: list[tuple[str, str]]) -> None:
    """Entries in the four exporters' shapes in turn (see the module docstring)."""
    rng = random.Random(11)
    out = ['@string{iclr = "International Conference on Learning Representations"}\n']
    years = {}
    for i, (raw_title, raw_abstract) in enumerate(papers):
        names = _authors(rng)
        year = 2018 + i % 6
        shape = i % 4
        # Some real abstracts hold unbalanced braces, which no exporter writes as they are.
        title, abstract = (t.replace("{", "").replace("}", "") for t in (raw_title, raw_abstract))
        braced = title.replace("Transformer", "{T}ransformer").replace("BERT", "{BERT}")
        if shape == 0:  # Zotero
            authors = " and ".join(f"{f}, {g}" for f, g in names)
            out.append(
                f"@inproceedings{{zotero{i},\n\ttitle = {{{braced}}},\n\tauthor = {{{authors}}},\n"
                f"\tbooktitle = {{Proceedings of the {year} Conference}},\n\tyear = {{{year}}},\n"
                f"\tdoi = {{10.5555/bench.{i}}},\n\turldate = {{2024-01-02}},\n\tlangid = {{english}},\n"
                f"\tabstract = {{{abstract}}},\n\tfile = {{Full Text PDF:/home/u/Zotero/{i}.pdf:application/pdf}},\n}}\n"
            )
        elif shape == 1:  # Better BibTeX
            authors = " and ".join(f"{f}, {g}" for f, g in names)
            out.append(
                f"@article{{bbt{i},\n  title = {{{braced}}},\n  author = {{{authors}}},\n"
                f"  year = {{{year}}},\n  month = jul,\n  eprint = {{{2000 + i % 999}.{i:05d}}},\n"
                f"  archiveprefix = {{arXiv}},\n  primaryclass = {{cs.LG}},\n"
                f"  keywords = {{deep learning, optimization}},\n  abstract = {{{abstract}}}\n}}\n"
            )
        elif shape == 2:  # Google Scholar
            authors = " and ".join(f"{f}, {g}" for f, g in names)
            out.append(
                f"@article{{scholar{i},\n  title={{{braced}}},\n  author={{{authors}}},\n"
                f"  journal={{arXiv preprint arXiv:{1900 + i % 99}.{i:05d}}},\n  year={{{year}}}\n}}\n"
            )
        else:  # DBLP, with a crossref to its proceedings
            authors = " and\n               ".join(f"{g} {f}" for f, g in names)
            years[year] = True
            out.append(
                f"@inproceedings{{DBLP:conf/iclr/P{i},\n  author    = {{{authors}}},\n"
                f"  title     = {{{braced}}},\n  crossref  = {{DBLP:conf/iclr/{year}}},\n"
                f"  year      = {{{year}}},\n  url       = {{https://openreview.net/forum?id=B{i:09d}}},\n"
                f"  timestamp = {{Thu, 25 Jul 2019 14:25:37 +0200}},\n"
                f"  biburl    = {{https://dblp.org/rec/conf/iclr/P{i}.bib}},\n"
                f"  bibsource = {{dblp computer science bibliography, https://dblp.org}}\n}}\n"
            )
    for year in sorted(years):
        out.append(
            f"@proceedings{{DBLP:conf/iclr/{year},\n  title = {{{year} International Conference on"
            f" Learning Representations, {{ICLR}} {year}}},\n  publisher = {{OpenReview.net}},\n"
            f"  year = {{{year}}}\n}}\n"
        )
    path.write_text("\n".join(out), encoding="utf-8")


def write_ris(path: Path, papers: list[tuple[str, str]]) -> None:
    """One RIS record per paper, as Zotero writes them."""
    rng = random.Random(13)
    out = []
    for i, (title, abstract) in enumerate(papers):
        lines = ["TY  - CONF" if i % 2 else "TY  - JOUR", f"TI  - {title}"]
        lines += [f"AU  - {f}, {g}" for f, g in _authors(rng)]
        lines += [
            "T2  - International Conference on Learning Representations",
            f"AB  - {abstract}",
            f"DA  - {2018 + i % 6}/05/01/",
            f"PY  - {2018 + i % 6}",
            f"DO  - 10.5555/bench.{i}",
            f"UR  - https://arxiv.org/abs/{2000 + i % 999}.{i:05d}",
            "KW  - deep learning",
            "ER  - ",
            "",
        ]
        out.append("\n".join(lines))
    path.write_text("\n".join(out), encoding="utf-8")


def write_text(path: Path, papers: list[tuple[str, str]]) -> None:
    """The same abstracts as a conference text file (the reference)."""
    body = "\n\n".join(abstract for _, abstract in papers)
    path.write_text(f"ICLR 2020 Papers\n\n{body}\n", encoding="utf-8")


def best(fn: Callable[[], Any], repeat: int) -> float:
    """The fastest of `repeat` runs, in seconds of this process's CPU time: the machine is
    shared, and what other processes take would otherwise count as ours."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def report(label: str, records: int, seconds: float) -> float:
    rate = records / seconds if seconds else float("inf")
    print(f"  {label:<44} {seconds * 1000:9.1f} ms  {rate:>11,.0f} records/s")
    return rate


def bench_parsers(text: str, n: int, repeat: int) -> None:
    from bibtexparser.entrypoint import parse_string
    from bibtexparser.middlewares import LatexDecodingMiddleware

    print("BibTeX parsers alone:")
    scanner = report(
        "our scanner (bibtex_blocks.blocks)", n, best(lambda: bibtex_blocks.blocks(text), repeat)
    )
    report(
        "bibtexparser 2, long values hidden",
        n,
        best(lambda: bibtex_blocks.parsed_blocks(text), repeat),
    )
    split = report(
        "bibtexparser 2, splitter only",
        n,
        best(lambda: parse_string(text, parse_stack=[]), repeat),
    )
    report("bibtexparser 2, default middleware", n, best(lambda: parse_string(text), repeat))
    # The LaTeX-decoding middleware over every field, on a slice (it is too slow for all).
    head = text[: _nth_entry(text, 300)]
    latex = best(lambda: parse_string(head, append_middleware=[LatexDecodingMiddleware()]), 1)
    report("bibtexparser 2 + LaTeX decoding (300 entries)", 300, latex)
    try:
        import pybtex.errors
        from pybtex.database import parse_string as pybtex_parse
    except ImportError:
        print("  pybtex: not installed (pip install pybtex, or the `bench` extra)")
        pybtex_rate = None
    else:
        pybtex.errors.set_strict_mode(False)
        with contextlib.redirect_stderr(io.StringIO()):  # its warnings, one per odd entry
            seconds = best(lambda: pybtex_parse(text, "bibtex"), max(1, repeat // 2))
        pybtex_rate = report("pybtex", n, seconds)
    if pybtex_rate is None or scanner >= pybtex_rate:
        faster = "" if pybtex_rate is None else f", {scanner / pybtex_rate:.1f}x pybtex's rate"
        print(
            f"  choice: our scanner ({scanner / split:.1f}x the splitter's rate{faster}), reading"
            " as bibtexparser 2's splitter does: it goes past a broken entry and says on which"
            " line it starts"
        )
    else:
        print(f"  choice: pybtex would be {pybtex_rate / scanner:.1f}x faster to parse")


def _nth_entry(text: str, count: int) -> int:
    """The offset of the `count`-th entry start (the end of text if fewer)."""
    at = 0
    for _ in range(count + 1):
        at = text.find("\n@", at + 1)
        if at == -1:
            return len(text)
    return at


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--titles", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.entries
    papers = _papers(n, args.titles)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bib, ris_path, txt = folder / "lib.bib", folder / "lib.ris", folder / "lib.txt"
        write_bibtex(bib, papers)
        write_ris(ris_path, papers)
        write_text(txt, papers)
        source = "titles from " + str(args.titles) if args.titles else "made-up titles"
        print(f"{n:,} entries ({source}); best of {args.repeat} runs\n")
        bib_text = bib.read_text(encoding="utf-8")
        bench_parsers(bib_text, n, args.repeat)

        print("\nOur readers (text to papers) and load_corpus (file to corpus):")
        result = bibtex.read(bib_text, bib)
        assert len(result.texts) == n, (len(result.texts), result.warnings[:3], result.error)
        report("readers.bibtex.read", n, best(lambda: bibtex.read(bib_text, bib), args.repeat))
        ris_text = ris_path.read_text(encoding="utf-8")
        import rispy

        report("rispy.loads alone", n, best(lambda: rispy.loads(ris_text), args.repeat))
        assert len(ris.read(ris_text, ris_path).texts) == n
        report("readers.ris.read", n, best(lambda: ris.read(ris_text, ris_path), args.repeat))
        rates = {}
        for label, path in (("BibTeX", bib), ("RIS", ris_path), ("conference text", txt)):
            rates[label] = report(
                f"load_corpus, {label}", n, best(lambda p=path: load_corpus([p]), args.repeat)
            )
        for label in ("BibTeX", "RIS"):
            ratio = rates["conference text"] / rates[label]
            print(f"  {label} load time / conference text load time: {ratio:.1f}x")


if __name__ == "__main__":
    main()
