"""`abstracts follow SOURCE`, `--list`, `--remove SOURCE`: the sources `abstracts fetch` reads.

A source is an arXiv category (`cs.LG`), an arXiv API query
(`abs:"diffusion" AND cat:cs.CV`) or an author (`author:"Yoshua Bengio"`); the list is
kept in config.toml (`locations.config_dir()`, $ABSTRACTS_CONFIG_DIR).

Exit status: 0 done; 1 the source was already followed (or not followed, for --remove);
2 bad usage, a source that is none, a config file that cannot be read or written.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from tui import locations
from tui.commands import complain, help_formatter
from tui.sanitize import visible_line

EXIT_OK, EXIT_NOTHING_DONE, EXIT_USAGE = 0, 1, 2

EXAMPLES = """\
examples:
  abstracts follow cs.LG                             every new paper in a category
  abstracts follow 'abs:"diffusion" AND cat:cs.CV'   an arXiv API query
  abstracts follow 'author:"Yoshua Bengio"'          an author's new papers
  abstracts follow --list
  abstracts follow --remove cs.LG
then: abstracts fetch
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="abstracts follow",
        usage="abstracts follow SOURCE | --list | --remove SOURCE",
        formatter_class=help_formatter,
        epilog=EXAMPLES,
        description="Follow arXiv categories, queries and authors: `abstracts fetch` "
        "brings their new papers into your library.",
    )
    p.add_argument("source", nargs="*", metavar="SOURCE", help="a category, query or author")
    p.add_argument("--list", action="store_true", help="print the sources followed")
    p.add_argument("--remove", action="store_true", help="stop following SOURCE")
    p.add_argument("--config-dir", metavar="DIR", help="where config.toml is kept")
    return p


def main(argv: Sequence[str]) -> int:
    """`abstracts follow ...`; returns the exit status."""
    from tui.inbox.config import ConfigError, read_config, write_follow
    from tui.inbox.sources import SourceError, parse_source

    args = parser().parse_args(list(argv))
    prog = "abstracts follow"
    path = locations.config_path(locations.config_dir(args.config_dir))
    try:
        config = read_config(path)
    except ConfigError as e:
        complain(f"{prog}: {e}")
        return EXIT_USAGE
    if args.list or not args.source:
        if args.remove:
            complain(f"{prog}: --remove needs the SOURCE to stop following")
            return EXIT_USAGE
        if not config.follow:
            print(
                f"Nothing followed yet. Try: abstracts follow cs.LG   ({visible_line(str(path))})"
            )
        for text in config.follow:
            print(visible_line(text))
        return EXIT_OK
    # `follow abs:"diffusion" AND cat:cs.CV` unquoted reaches us as several words.
    raw = " ".join(args.source)
    try:
        source = parse_source(raw)
    except SourceError as e:
        if not args.remove:
            complain(f"{prog}: {e}")
            return EXIT_USAGE
        text = " ".join(raw.split())
    else:
        text = source.text
    followed = list(config.follow)
    if args.remove:
        if text not in followed:
            complain(f"{prog}: {text!r} is not followed (abstracts follow --list)")
            return EXIT_NOTHING_DONE
        followed.remove(text)
        message = f"No longer following {text}."
    else:
        if text in followed:
            print(visible_line(f"Already following {text}."))
            return EXIT_NOTHING_DONE
        followed.append(text)
        message = f"Following {text}. Run `abstracts fetch` to bring in its new papers."
    try:
        write_follow(path, followed)
    except (ConfigError, OSError) as e:
        complain(f"{prog}: {e}")
        return EXIT_USAGE
    print(visible_line(message))
    return EXIT_OK
