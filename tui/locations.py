"""Every path the program uses: the user's data directory, bundled styles and seeds.

Nothing else in the package calls platformdirs or works out where files live.
Nothing here touches the disk at import time.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "abstracts"
DATA_DIR_ENV = "ABSTRACTS_DATA_DIR"
CONFIG_DIR_ENV = "ABSTRACTS_CONFIG_DIR"

_PACKAGE_DIR = Path(__file__).resolve().parent


def _bundled(name: str) -> Path:
    """A bundled folder: inside the installed wheel, or at the top of a source checkout."""
    installed = _PACKAGE_DIR / "_bundled" / name
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / name


def styles_dir() -> Path:
    """The folder holding the app's TCSS files."""
    return _bundled("styles")


def seeds_dir() -> Path:
    """The bundled sample corpus opened when no path is given."""
    return _bundled("seeds")


def _user_dir(override: str | os.PathLike[str] | None, env_name: str, kind: str) -> Path:
    """`override`, else the environment variable `env_name`, else platformdirs' `kind` path."""
    if override is not None:
        return Path(override).expanduser()
    env = os.environ.get(env_name)
    if env:
        return Path(env).expanduser()
    import platformdirs

    path: Path = getattr(platformdirs, f"user_{kind}_path")(APP_NAME)
    return path


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The user's data directory: `override`, else $ABSTRACTS_DATA_DIR, else the platform's.

    The directory is not created here; the store creates it (mode 0700) when it opens.
    """
    return _user_dir(override, DATA_DIR_ENV, "data")


def config_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The user's config directory (holding `config.toml`): `override`, else
    $ABSTRACTS_CONFIG_DIR, else the platform's. Not created here."""
    return _user_dir(override, CONFIG_DIR_ENV, "config")


def config_path(directory: Path) -> Path:
    """The config file inside a config directory."""
    return directory / "config.toml"


def library_dir(directory: Path) -> Path:
    """The library inside a data directory: the papers `abstracts fetch` stored, as
    ordinary Atom files any command can open. Its hidden `.state` folder (never loaded)
    holds the arrivals index and an unfinished fetch's pages. Not created here."""
    return directory / "library"


def export_dir(data: Path) -> Path:
    """Where the reader's Export dialog proposes to write: the user's documents folder
    when there is one, else the data directory `data`."""
    import platformdirs

    documents = platformdirs.user_documents_path()
    return documents if documents.is_dir() else data


def database_path(directory: Path) -> Path:
    """The SQLite database inside a data directory."""
    return directory / "abstracts.db"


def cache_dir(directory: Path) -> Path:
    """Where derived data (the search and similarity caches) lives inside a data directory.

    Not created here: `tui.cachefile` creates it mode 0700 (tightening an existing
    one) and reads caches only from such a private folder.
    """
    return directory / "cache"
