"""What the detail pane shows of one abstract, as rich Texts built from data (never markup)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import lru_cache

from rich.style import Style
from rich.text import Text

from tui.corpus.latex import render
from tui.corpus.model import Abstract
from tui.sanitize import visible, visible_line
from tui.tagnames import format_tags

WORDS_PER_MINUTE = 200
# Characters of source shown for one abstract (real ones are a few thousand).
DISPLAY_LIMIT = 10_000

_STYLES = {
    "italic": Style(italic=True),
    "bold": Style(bold=True),
    "mono": Style(bold=True, dim=False, color="cyan"),
}


@dataclass(frozen=True)
class DetailView:
    """Everything the pane shows for one abstract; built by the app."""

    abstract: Abstract
    bookmarked: bool = False
    read: bool = False
    dismissed: bool = False
    note: str | None = None
    raw: bool = False
    spans: Callable[[str], Sequence[tuple[int, int]]] | None = None
    near_duplicates: Sequence[tuple[Abstract, float]] = field(default_factory=tuple)
    tags: AbstractSet[str] = frozenset()
    # What the filter matched in another form, spelling or word (`matched: contrast ≈
    # contrastive (related)`), or "".
    matched: str = ""


def reading_text(
    abstract: Abstract,
    *,
    raw: bool,
    spans: Callable[[str], Sequence[tuple[int, int]]] | None,
    match_style: Style | str = "reverse",
) -> Text:
    """The abstract as a rich Text built from data, never parsed as markup.

    A paragraph far longer than any abstract (usually several run together) is shown up
    to DISPLAY_LIMIT characters of source: rendering, wrapping and highlighting hundreds
    of thousands of words on every key press would freeze the app.
    """
    if not abstract.has_abstract:
        return Text("No abstract in the source.", style="italic dim")
    # Rendered once per abstract: the filter redraws the same abstract's highlights per key.
    rendered, rest = _source_text(abstract.text, raw)
    body = rendered.copy()
    if spans is not None:
        for start, end in spans(body.plain):
            body.stylize(match_style, start, end)
    if rest:
        body.append(
            f"\n\n[Shown up to here: this paragraph goes on for {rest:,} more words. "
            "Blank lines between abstracts may be missing in its file; see the load report (L).]",
            style="italic dim",
        )
    return body


@lru_cache(maxsize=8)
def _source_text(text: str, raw: bool) -> tuple[Text, int]:
    """The displayed part of an abstract's source as a Text, unhighlighted (copy it
    before styling: it is shared), and how many words are left out."""
    source, rest = _displayed(text)
    return (Text(visible(source)) if raw else rendered_text(source)), rest


def rendered_text(source: str) -> Text:
    """LaTeX source rendered as a Text: italics, bold, code and links kept as styles."""
    rendered = render(source)
    text = Text(rendered.plain)
    for span in rendered.spans:
        if span.style == "link" and span.url:
            text.stylize(Style(link=span.url, underline=True), span.start, span.end)
        elif span.style in _STYLES:
            text.stylize(_STYLES[span.style], span.start, span.end)
    return text


def _displayed(text: str) -> tuple[str, int]:
    """The part of `text` shown, cut at a space, and how many words are left out."""
    if len(text) <= DISPLAY_LIMIT:
        return text, 0
    cut = text.rfind(" ", 0, DISPLAY_LIMIT)
    cut = cut if cut > 0 else DISPLAY_LIMIT
    return text[:cut], text.count(" ", cut) + 1


def word_count(abstract: Abstract) -> int:
    """Words in the abstract; counted on the source when it is too long to render cheaply."""
    if len(abstract.text) > DISPLAY_LIMIT:
        return abstract.text.count(" ") + 1
    return abstract.word_count


def version_text(abstract: Abstract) -> str | None:
    """`v2, 2026-12-01`: the arXiv version shown and its date, when the source says."""
    paper = abstract.paper
    if paper is None or paper.version is None:
        return None
    updated = next((v for k, v in paper.extra if k == "updated"), None) or paper.date
    return f"v{paper.version}, {updated}" if updated else f"v{paper.version}"


def meta_text(view: DetailView) -> Text:
    """The line above the abstract: collection, source and position, length, state."""
    abstract = view.abstract
    words = word_count(abstract)
    minutes = max(1, round(words / WORDS_PER_MINUTE))
    source = abstract.source
    parts = Text()
    # File names and header lines are data: shown, never obeyed by the terminal.
    if abstract.paper is None:
        parts.append(visible_line(abstract.collection.short), style="bold")
        parts.append(f" · {visible_line(source.name)} #{source.position}")
    else:
        # A paper's venue and year are above (paper_text): here, every file it came from.
        files = [f"{visible_line(s.name)} #{s.position}" for s in abstract.sources]
        parts.append("Sources: " if len(files) > 1 else "Source: ")
        parts.append(" · ".join(files), style="bold")
    version = version_text(abstract)
    if version:
        parts.append(f" · {visible_line(version)}")
    parts.append("\n")
    # Lines are never wrapped (styles/app.tcss): the length leads the second line, and
    # the id, least needed, is what an ellipsis cuts first.
    if abstract.has_abstract:
        parts.append(f"{words:,} words · {minutes} min  ·  ")
    else:
        parts.append("no abstract  ·  ")
    if view.bookmarked or not view.dismissed:
        parts.append(
            "★ bookmarked  " if view.bookmarked else "☆ not bookmarked  ",
            style="bold" if view.bookmarked else "dim",
        )
    if view.dismissed:  # in the place of "not bookmarked": the line fits a narrow pane
        parts.append("✗ not interested  ", style="bold")
    parts.append("✓ read" if view.read else "• unread", style="dim" if view.read else "bold")
    parts.append(f"  ·  id {visible_line(abstract.id)}", style="dim")
    if view.tags:
        parts.append("\nTags: ", style="dim")
        parts.append(visible_line(format_tags(view.tags)), style="bold")
    if len(abstract.sources) > 1 and abstract.paper is None:
        others = ", ".join(f"{visible_line(s.name)} #{s.position}" for s in abstract.sources[1:])
        parts.append(f"\nAlso in: {others}", style="dim")
    if view.matched or view.spans is not None:
        # While the filter is on, the line is there even when it has nothing to say: the
        # meta block keeps its height from one key to the next on the same abstract, so a
        # key needs no layout of the screen (a reflow and a repaint of every widget).
        parts.append("\n" + visible_line(view.matched), style="dim")
    for other, score in view.near_duplicates:
        where = f"{visible_line(other.source.name)} #{other.source.position}"
        parts.append(
            f"\nNear-duplicate ({score:.0%}): {visible_line(other.headline)} [{where}]",
            style="bold",
        )
    return parts


#: How much of a note the detail pane shows: laying out a note of megabytes on every
#: redraw froze the app (its first paint too, when resume reopened that abstract).
NOTE_PREVIEW_CHARS = 4_000


def note_preview(note: str) -> str:
    """The note, or its first `NOTE_PREVIEW_CHARS` characters (cut at a line end when one
    is near) and how much more there is."""
    if len(note) <= NOTE_PREVIEW_CHARS:
        return note
    cut = note.rfind("\n", NOTE_PREVIEW_CHARS // 2, NOTE_PREVIEW_CHARS)
    shown = note[: cut if cut > 0 else NOTE_PREVIEW_CHARS]
    return f"{shown}\n… {len(note) - len(shown):,} more characters (n opens the whole note)"
