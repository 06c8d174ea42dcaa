"""One reading session: a corpus, its filter, the user's data and the loaders."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tui.config import Settings
from tui.session.bus import Bus
from tui.session.filter import FilterState
from tui.session.loaders import Loaders
from tui.session.user import UserState

if TYPE_CHECKING:
    from tui.corpus.model import Corpus


class Session:
    """The state the screens share, without Textual: `user` (the user's data, undo and
    the changes queued before it opened), `filter` (the filter's text and answer),
    `loaders` (index, similarity model, topics), `settings` (config.toml), and `bus`,
    on which every change is announced."""

    def __init__(
        self,
        corpus: Corpus,
        data_dir: Callable[[], Path],
        *,
        closing: Callable[[], bool] | None = None,
    ) -> None:
        self.corpus = corpus
        self._data_dir = data_dir
        self._closing = closing
        #: Set once quitting has begun: nothing more is built, late results are dropped.
        self.quitting = False
        self.bus = Bus()
        self.user = UserState(corpus, self.bus)
        self.filter = FilterState()
        self.loaders = Loaders(corpus, self.bus, data_dir, lambda: self.closing)
        #: config.toml's settings: what it sets wins over what the user's data remembers.
        self.settings = Settings()

    @property
    def data_dir(self) -> Path:
        """The user's data directory (resolved on first use)."""
        return self._data_dir()

    @property
    def closing(self) -> bool:
        """True once quitting has begun (or the UI is going away)."""
        return self.quitting or (self._closing is not None and self._closing())

    def stop(self) -> None:
        """Quitting: build nothing more, stop the child builds."""
        self.quitting = True
        self.loaders.stop()
