"""`abstracts similar ID [PATH ...]`: the "more like this" ranking on the command line.

The same ranking as the app's `m` key (near-duplicates left out; `--duplicates`
lists them instead). Exit status: 0 with results, 1 when nothing is similar,
2 when the id is unknown or ambiguous or nothing could be loaded. Without PATH
it looks in the bundled seeds, and says so when the id is not there. Options may
come anywhere (see `tui.commands`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tui.commands import (
    complain,
    help_formatter,
    parse_first_and_paths,
    report_problems,
)
from tui.corpus.jsonrow import json_row
from tui.corpus.model import Abstract, Corpus
from tui.sanitize import json_line, visible_line

EXIT_OK = 0
EXIT_NOTHING_SIMILAR = 1
EXIT_USAGE = 2

EXAMPLES = """\
examples:
  abstracts search 'graph neural' papers/          find an id (the first column)
  abstracts similar 3f2a9c1d papers/               a unique prefix of the id is enough
  abstracts similar 3f2a9c1d papers/ --limit 20 --json
  abstracts similar 3f2a9c1d papers/ --duplicates  the same paper, lightly reworded
  abstracts similar 3f2a9c1d                       an abstract of the bundled seeds
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="abstracts similar",
        usage="abstracts similar [options] ID [PATH ...]",
        formatter_class=help_formatter,
        epilog=EXAMPLES,
        description="Print the abstracts most similar to one abstract (TF-IDF cosine, offline).",
    )
    parser.add_argument(
        "words",
        nargs="*",
        metavar="ID [PATH ...]",
        help="an abstract id or a unique prefix of one, then the abstract files, directories "
        "or globs it is in; default: the bundled seeds",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument(
        "--limit", type=int, default=10, metavar="N", help="how many to print (default 10)"
    )
    parser.add_argument(
        "--duplicates",
        action="store_true",
        help="list the near-duplicates (same paper, lightly reworded) instead",
    )
    parser.add_argument("--data-dir", metavar="DIR", help="where the cache is kept")
    return parser


def resolve_id(corpus: Corpus, wanted: str) -> tuple[Abstract | None, str]:
    """The abstract whose id is `wanted` or starts with it, or None and the reason why not."""
    key = wanted.strip().lower()
    if not key:
        return None, "empty id"
    exact = corpus.by_id.get(key)
    if exact is not None:
        return exact, ""
    matches = [a for a in corpus.abstracts if a.id.startswith(key)]
    if len(matches) == 1:
        return matches[0], ""
    if not matches:
        return None, f"no abstract has an id starting with {wanted!r}"
    shown = ", ".join(a.id for a in matches[:5])
    more = f" and {len(matches) - 5} more" if len(matches) > 5 else ""
    return None, f"id prefix {wanted!r} is ambiguous: {shown}{more}"


def main(argv: Sequence[str]) -> int:
    """Run `abstracts similar`; returns the exit status."""
    args = parse_first_and_paths(build_parser(), argv, "id")
    from tui import locations
    from tui.commands.corpusview import similarity_model
    from tui.corpus.load import load_corpus

    seeds = not args.paths
    cache = locations.cache_dir(locations.data_dir(args.data_dir))
    corpus = load_corpus(args.paths or [locations.seeds_dir()], cache_dir=cache)
    report_problems("abstracts similar", corpus.problems)
    if not corpus.abstracts:
        print("abstracts similar: no abstracts loaded", file=sys.stderr)
        return EXIT_USAGE
    abstract, reason = resolve_id(corpus, args.id)
    if abstract is None:
        if seeds and not reason.startswith("id prefix"):
            reason += (
                f" in the bundled seeds ({locations.seeds_dir()}), where it looks without PATH;"
                " give the files the abstract is in: abstracts similar ID PATH ..."
            )
        complain(f"abstracts similar: {reason}")
        return EXIT_USAGE

    model = similarity_model("abstracts similar", corpus, cache)
    limit = max(args.limit, 0)
    if args.duplicates:
        ranked = model.near_duplicates(abstract.index)[:limit]
    else:
        ranked = model.similar(abstract.index, k=limit)
    if not ranked:
        what = "near-duplicates" if args.duplicates else "similar abstracts"
        print(f"abstracts similar: no {what} for {abstract.id}", file=sys.stderr)
        return EXIT_NOTHING_SIMILAR

    for rank, (index, score) in enumerate(ranked, 1):
        other = corpus.abstracts[index]
        if args.json:
            print(json_line(json_row(other, score=round(score, 4))))
        else:
            line = f"{rank:>2}. {score:.3f}  {other.id}  {other.collection.short}  {other.headline}"
            print(visible_line(line))
    return EXIT_OK
