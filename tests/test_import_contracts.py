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


def test_the_import_graph_of_tui_has_no_circle() -> None:
    """No module of `tui` reaches itself through its imports, counting the imports made
    only for type checking and those inside functions (grimp, as import-linter reads
    them): each circle found is listed."""
    import grimp

    graph = grimp.build_graph("tui", include_external_packages=False)
    circles = []
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            if module < imported and graph.chain_exists(imported=module, importer=imported):
                circles.append(f"{module} <-> {imported}")
    assert circles == []
