"""The reading session without Textual: the state the screens share, and its events.

`Session` holds the corpus, the filter's state, the user's data (a versioned snapshot,
the undo history and the keys pressed before it opened), and the loaders of the search
index, the similarity model and the topics. Its methods are plain calls; what changes
is announced on its `Bus` as an event (`tui.session.events`): the UI observes them
(`tui.ui.app` turns an event from another thread into a Textual message), a test reads
them from a list. Nothing here imports Textual (an import-linter contract and a test
without Textual check it).
"""

from tui.session.session import Session

__all__ = ["Session"]
