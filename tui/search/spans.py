"""The shape of highlighting as the views take it: a function from a text to the
(start, end) of each matched word, which `Highlighter.spans` is.

Its own module so the list can name the type before the first paint without importing
the query language (`highlight` imports it, and rapidfuzz with it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Spans = Callable[[str], Sequence[tuple[int, int]]]
