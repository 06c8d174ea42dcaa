"""The mapped cache files the similarity model is kept in: now `tui.cachefile`'s
`save_mapped` and `load_mapped`, shared with the search index; kept under these names."""

from __future__ import annotations

from tui.cachefile import Mapped
from tui.cachefile import load_mapped as load
from tui.cachefile import save_mapped as save

__all__ = ["Mapped", "load", "save"]
