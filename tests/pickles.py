"""A pickle that runs code when loaded: caches must ignore it, never unpickle it."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np


class RunsCode:
    """Unpickling this creates `marker` (a folder): proof that code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.mkdir, (str(self.marker),))


def object_array(marker: Path) -> np.ndarray:
    """An object array holding a `RunsCode`: NumPy's .npy stores it as a pickle."""
    array = np.empty(1, dtype=object)
    array[0] = RunsCode(marker)
    return array
