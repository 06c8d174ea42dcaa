"""Contrast ratios (WCAG) of what the list, header and detail paint, per theme.

Measured exactly as tests/ui/test_contrast.py measures them (it asserts 4.5:1 for
every theme the app offers); this prints the table, for reading.

    python bench/contrast.py            # the themes the app offers
    python bench/contrast.py --all      # every Textual built-in theme
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.ui.test_contrast import AA, measure_themes  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="every built-in theme")
    args = parser.parse_args()
    themes = None
    if args.all:
        from textual.theme import BUILTIN_THEMES

        themes = sorted(BUILTIN_THEMES)
    with tempfile.TemporaryDirectory() as data:
        os.environ["ABSTRACTS_DATA_DIR"] = data  # never the user's own data
        try:
            table = asyncio.run(measure_themes(REPO / "seeds", themes))
        except Exception as error:  # a theme no longer offered cannot be set
            sys.exit(f"{error}")
    roles = sorted({role for ratios in table.values() for role in ratios})
    print(f"{'theme':<22}{'lowest':>8}  role with the lowest ratio")
    for name, ratios in table.items():
        role = min(ratios, key=ratios.__getitem__)
        flag = "!" if ratios[role] < AA else " "
        print(f"{name:<22}{ratios[role]:>7.2f}{flag}  {role}")
    print(f"\n! below {AA}:1 (WCAG AA); every role ({len(roles)}):")
    print(f"{'role':<26}" + "".join(f"{name[:9]:>10}" for name in table))
    for role in roles:
        cells = (ratios.get(role) for ratios in table.values())
        print(f"{role:<26}" + "".join(f"{c:>10.2f}" if c is not None else " " * 10 for c in cells))


if __name__ == "__main__":
    main()
