"""The detail pane: one abstract, rendered for reading, with its note."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Static

from tui.corpus.latex import render
from tui.corpus.model import Abstract
from tui.sanitize import visible, visible_line
from tui.tagnames import format_tags
from tui.ui.widgets.paper_detail import paper_text

WORDS_PER_MINUTE = 200
# The widest the paper's block is laid out for (its authors' line), as #detail-paper's max-width.
PAPER_WIDTH = 90
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


#: `virtual_size` for the pane and its parts: as Textual's, but a new value asks for no
#: layout. A layout that changes a part's height sets its virtual size (and the pane's)
#: and Textual then asks for a second layout of the whole screen, which finds nothing
#: to move: the parts' sizes come from their text and the pane's width, never from
#: their virtual size, and the pane's scrollbar is updated in the first layout.
_VIRTUAL_SIZE: Reactive[Size] = Reactive(Size(0, 0), layout=False)


class _Part(Static):
    """One block of the pane (paper, meta lines, abstract, note)."""

    virtual_size = _VIRTUAL_SIZE


class DetailPane(VerticalScroll, can_focus=True):
    """Scrollable reading view of the selected abstract."""

    virtual_size = _VIRTUAL_SIZE

    COMPONENT_CLASSES: ClassVar[set[str]] = {"detail-pane--match"}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "scroll_down", "Scroll down", show=False, id="detail.down"),
        Binding("k,up", "scroll_up", "Scroll up", show=False, id="detail.up"),
        Binding("g,home", "scroll_home", "Top", show=False, id="detail.top"),
        Binding("G,end", "scroll_end", "Bottom", show=False, id="detail.bottom"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view: DetailView | None = None
        # What each part shows now (its Static -> the Text given to it), and the
        # highlight's style it was drawn with (a new theme changes it).
        self._shown: dict[Static, Text] = {}
        self._match: Style | None = None

    def compose(self) -> ComposeResult:
        paper = _Part(id="detail-paper")
        paper.display = False  # shown for papers only (conference text has no such block)
        yield paper
        yield _Part(id="detail-meta")
        yield _Part(id="detail-body")
        note = _Part(id="detail-note")
        note.border_title = "✎ Note"
        yield note

    def show(self, view: DetailView | None) -> None:
        """Show an abstract (or an empty state) and scroll back to the top when it changed.

        Only the parts whose text changed are replaced, and a part asks for a layout of
        the screen only when its height may change (see `_put`): a new mark or a new
        highlight on the same abstract redraws its lines in place."""
        match = self.get_component_rich_style("detail-pane--match")
        if view is not None and view == self.view and match == self._match:
            return
        self._show(view)

    def forget(self) -> None:
        """The abstract shown may have changed in place (a paper read from a later file
        merged into one shown while the files were read: its title, authors, final id):
        the next `show` draws whatever it is given, equal view or not."""
        self.view = None

    def show_marks(
        self,
        *,
        bookmarked: bool | None = None,
        read: bool | None = None,
        dismissed: bool | None = None,
        tags: AbstractSet[str] | None = None,
        note: str | None = None,
    ) -> None:
        """The abstract shown has new marks (a key such as `b` or `m`): only what they
        change is drawn again (the meta lines; the note box for a new note) and the rest
        of the view is kept, without building a whole `DetailView`. Arguments left out
        keep their value; `note=""` removes the note."""
        view = self.view
        if view is None:
            return
        self.show(
            replace(
                view,
                bookmarked=view.bookmarked if bookmarked is None else bookmarked,
                read=view.read if read is None else read,
                dismissed=view.dismissed if dismissed is None else dismissed,
                tags=view.tags if tags is None else tags,
                note=view.note if note is None else note or None,
            )
        )

    def _show(self, view: DetailView | None) -> None:
        changed = view is None or self.view is None or view.abstract is not self.view.abstract
        self.view = view
        meta = self.query_one("#detail-meta", Static)
        body = self.query_one("#detail-body", Static)
        note = self.query_one("#detail-note", Static)
        paper = self.query_one("#detail-paper", Static)
        # The full style: a partial one drops the alpha of `$accent 35%` (a full accent).
        match = self._match = self.get_component_rich_style("detail-pane--match")
        paper.display = view is not None and view.abstract.paper is not None
        if view is not None and view.abstract.paper is not None:
            title = view.abstract.paper.title or view.abstract.headline
            width = min(PAPER_WIDTH, self.scrollable_content_region.width) or PAPER_WIDTH
            self._put(
                paper,
                paper_text(
                    view.abstract,
                    width,
                    Text(visible(title)) if view.raw else rendered_text(title),
                    spans=view.spans,
                    match_style=match,
                ),
            )
        if view is None:
            self._put(meta, Text("Nothing selected.", style="dim"), wraps=False)
            self._put(body, Text())
            self._put(note, Text())
            note.display = False
            return
        self._put(meta, meta_text(view), wraps=False)
        self._put(
            body, reading_text(view.abstract, raw=view.raw, spans=view.spans, match_style=match)
        )
        note.display = bool(view.note)
        self._put(note, Text(visible(note_preview(view.note or ""))))
        if changed:
            self.scroll_home(animate=False)

    def _put(self, part: Static, text: Text, *, wraps: bool = True) -> None:
        """Show `text` in `part` unless it shows it already.

        A style never changes how wide a character is, so the same characters take the
        same lines: a layout of the screen (a reflow of every widget, then a repaint of
        every one it moved) is asked for only when the characters changed, or for a part
        that never wraps (the meta lines), only when the number of lines did."""
        shown = self._shown.get(part)
        if shown is not None and _same_text(shown, text):
            return
        self._shown[part] = text
        if shown is None:
            layout = True
        elif wraps:
            layout = shown.plain != text.plain
        else:
            layout = shown.plain.count("\n") != text.plain.count("\n")
        part.update(text, layout=layout)

    def on_resize(self) -> None:
        # How many authors fit on their line depends on the width.
        if self.view is not None and self.view.abstract.paper is not None:
            self._show(self.view)

    @property
    def at_bottom(self) -> bool:
        return self.scroll_y >= self.max_scroll_y


def _same_text(a: Text, b: Text) -> bool:
    """Whether two Texts draw the same (`Text.__eq__` ignores the Text's own style)."""
    return a.plain == b.plain and a.style == b.style and a.spans == b.spans
