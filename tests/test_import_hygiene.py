"""The pure core never imports Textual: it must stay usable from the CLI, the
benchmarks and other programs without a UI toolkit (as harlequin enforces)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import tui

CORE_PACKAGES = [
    "tui.corpus",
    "tui.search",
    "tui.store",
    "tui.similar",
    "tui.triage",
    "tui.commands",
    "tui.inbox",
]


def core_modules() -> list[str]:
    names = ["tui.locations", "tui.fileio", "tui.caches", "tui.cli", "tui.tagnames", "tui.config"]
    root = Path(tui.__file__).parent
    for package in CORE_PACKAGES:
        folder = root / package.split(".", 1)[1]
        if not folder.is_dir():
            continue
        names.append(package)
        names.extend(f"{package}.{m.name}" for m in pkgutil.iter_modules([str(folder)]))
    return names


def test_core_modules_exist() -> None:
    modules = core_modules()
    assert "tui.corpus.load" in modules
    assert "tui.corpus.latex" in modules


def test_core_never_imports_textual() -> None:
    modules = core_modules()
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "", f"the core imported Textual: {result.stdout.strip()}"


def test_importing_the_core_has_no_side_effects(tmp_path: Path) -> None:
    """Importing must not create the data directory or open a database."""
    data = tmp_path / "never-created"
    code = "import tui.store, tui.search, tui.corpus.load, tui.locations"
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        env={"ABSTRACTS_DATA_DIR": str(data), "PATH": "", "HOME": str(tmp_path)},
    )
    assert not data.exists()


def test_the_app_module_leaves_the_heavy_libraries_for_later() -> None:
    """The first paint needs neither numpy (search index, similarity, taste), nor
    sqlite3 (the store opens in a worker): they are imported when first used, so
    start-up stays close to a bare Textual app's (bench/startup.py)."""
    code = (
        "import sys, tui.ui.app\n"
        "print(','.join(sorted(m for m in ('numpy', 'sqlite3', 'tui.similar.model') "
        "if m in sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "", f"imported at start: {result.stdout.strip()}"


def test_rapidfuzz_is_imported_before_any_worker_can_import_it() -> None:
    """rapidfuzz's package imports are circular, so two threads importing it at once can
    fail (launches typed into at random moments crashed with an ImportError from a
    half-made rapidfuzz.distance); the app module imports it on the main thread."""
    code = "import sys, tui.ui.app\nprint('rapidfuzz.distance' in sys.modules)\n"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "True"
