"""The layers hold: import-linter's contracts in pyproject.toml (each part imports only
the parts below it, the core never imports Textual, screens and widgets never import the
app or its controllers) are checked by the README's test command, not only by CI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LINT = (
    "import sys\n"
    "from importlinter.cli import lint_imports\n"
    "sys.exit(lint_imports(no_cache=True, no_logo=True))\n"
)


def test_import_contracts_are_kept() -> None:
    result = subprocess.run(
        [sys.executable, "-c", LINT], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
