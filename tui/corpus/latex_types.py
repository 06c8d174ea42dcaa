"""The types the LaTeX modules share: what rendering gives, and what it is built from.

Internal to `tui.corpus.latex`, which re-exports `Rendered` and `StyleSpan`.
`Rendered` and `StyleSpan` are the result; `Out` is the buffer text mode and
math mode (latex_math.py) write into; `TextMode` is how math mode is handed text
mode; `Arg` is one parsed macro argument as `latex_symbols.apply_macro` receives
it. Nothing here knows any LaTeX.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from tui.corpus._record import Record

Style = Literal["italic", "bold", "mono", "link"]


# `Record`s rather than frozen dataclasses: the same behaviour, without the
# dataclass cost at import time (this module is imported before the first frame).


class StyleSpan(Record):
    """A styled range `[start, end)` of `Rendered.plain`; `url` is set for links."""

    __match_args__ = ("start", "end", "style", "url")
    __slots__ = __match_args__
    start: int
    end: int
    style: Style
    url: str | None

    def __init__(self, start: int, end: int, style: Style, url: str | None = None) -> None:
        _set = object.__setattr__
        _set(self, "start", start)
        _set(self, "end", end)
        _set(self, "style", style)
        _set(self, "url", url)


class Rendered(Record):
    """An abstract's text for reading, and its styled ranges (sorted by start)."""

    __match_args__ = ("plain", "spans")
    __slots__ = __match_args__
    plain: str
    spans: tuple[StyleSpan, ...]

    def __init__(self, plain: str, spans: tuple[StyleSpan, ...] = ()) -> None:
        object.__setattr__(self, "plain", plain)
        object.__setattr__(self, "spans", spans)


class Out:
    """An output buffer that tracks its length so spans can be recorded as it grows."""

    __slots__ = ("n", "parts", "spans")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.spans: list[StyleSpan] = []
        self.n = 0

    def add(self, text: str) -> None:
        if text:
            self.parts.append(text)
            self.n += len(text)

    def span(self, start: int, style: Style, url: str | None = None) -> None:
        if self.n > start:
            self.spans.append(StyleSpan(start, self.n, style, url))

    def add_rendered(self, rendered: Rendered) -> None:
        base = self.n
        self.add(rendered.plain)
        for s in rendered.spans:
            self.spans.append(StyleSpan(s.start + base, s.end + base, s.style, s.url))

    def text(self) -> str:
        return "".join(self.parts)


# Renders a source string in text mode into an output: what math mode is given for
# `\\text{...}`-like arguments, so it needs no import of text mode (latex.py).
TextMode = Callable[[str, Out], None]


class Arg:
    """One macro argument: its source, and how to render it into an output."""

    __slots__ = ("render", "source")

    def __init__(self, source: str, render: Callable[[Out], None]) -> None:
        self.source = source
        self.render = render

    def rendered(self) -> Rendered:
        out = Out()
        self.render(out)
        return Rendered(out.text(), tuple(out.spans))
