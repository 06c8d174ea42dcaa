"""What the header and the detail pane show, computed from the session's state.

The app calls these when the session announces a change and hands the result to the
widgets; nothing here changes state or touches a widget.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, TypedDict

from rich.text import Text

from tui.corpus.model import Abstract, Corpus
from tui.sanitize import visible_line
from tui.ui.widgets.detail_text import DetailView

if TYPE_CHECKING:
    from tui.session import Session


def literal(text: str) -> str:
    """`text` as Textual markup that shows exactly `text`, for the few APIs that take
    only markup strings (the command palette's titles and help). Everywhere else user
    text goes in as `Text`. (Textual's own `escape` doubles a trailing backslash.)"""
    return visible_line(text).replace("[", "\\[")


def header_title(corpus: Corpus) -> Text:
    """The app's name and the collections loaded (the first three, then a count)."""
    labels = sorted({visible_line(info.collection.short) for info in corpus.files})
    title = Text.assemble(("abstracts", "bold"), "  ", ", ".join(labels[:3]))
    if len(labels) > 3:
        title.append(f" +{len(labels) - 3}")
    return title


# The background work as a narrow header says it (the start of what `doing` says: the
# cache child's `tui.caches.STAGES` and progress, the reading's).
_SHORT_DOING = (
    ("building the search index", "index"),
    ("indexing: files", "files"),
    ("reading files", "files"),
)


def short_doing(doing: str) -> str:
    """`doing` in fewer words: `index 41%…` for `building the search index 41%…`."""
    for long, short in _SHORT_DOING:
        if doing.startswith(long):
            return short + doing[len(long) :]
    return doing


def header_status(
    session: Session, *, doing: str, progress: str, new_count: int, short: bool = False
) -> Text:
    """The header's status line: counts, reading progress, indexing and saving problems.
    `doing`: the background work under way; `progress`: the read and bookmarked counts of
    the rows shown; `new_count`: papers arrived since the last opening. `short`: the form
    drawn where the whole does not fit (fewer words, narrower separators; the counts and
    problems the same)."""
    search, loaders, corpus = session.filter, session.loaders, session.corpus
    status = Text()
    sep = " · " if short else "  ·  "
    partial = search.searched_partially is not None
    # Until the filter's first answer the list still shows the rows it had: the read and
    # bookmarked counts of those are not said (they would pass for the answer's).
    waiting = search.filtered and search.match_counts is None
    if search.filtered and loaders.reading and not partial:
        said = "the files…" if short else "the files to be read…"
        status.append("filter waits for " + said, style="italic")
    elif search.filtered and loaders.index is None and not partial:
        # Never the unfiltered list as if it were the result.
        said = "the index…" if short else "the search index…"
        status.append("filter waits for " + said, style="italic")
    elif search.filtered and search.waits_for_topics:
        status.append("filter waits for the topics…", style="italic")
    elif search.filtered and search.match_counts is None:
        # The index is ready but its first answer is not: never the whole list's count.
        status.append("searching…", style="italic")
    elif search.filtered and search.match_counts is not None:
        # Filtered: the counts that matter now, short enough for 80 columns.
        matched, close = search.match_counts
        status.append(f"{matched:,} match{'es' if matched != 1 else ''}", style="bold")
        if close:
            status.append(f" · {close:,} close")
        status.append(f" · of {len(corpus):,}")
        if search.searched_partially is not None:
            status.append(f" ({search.searched_partially:,} searched)", style="italic")
        if search.order == "file":
            status.append(" (file order)")
    else:
        status.append(corpus.summary)
    # The background work after the counts: where the header is too narrow, they show.
    if doing:
        status.append(sep + (short_doing(doing) if short else doing), style="italic")
    if progress and not waiting:
        status.append(sep + progress)
    if new_count:
        status.append(f"{sep}{new_count:,} new" + ("" if short else " (is:new)"), style="bold")
    user = session.user
    if user.saving_problem:
        status.append(sep + "⚠ " + user.saving_problem, style="bold")
    elif user.userdata is not None and user.userdata.bulk_saving:
        # Until the store reports the step committed (a BulkSaved toast, then a repaint).
        status.append(sep + "saving…", style="italic")
    return status


def detail_view(session: Session, abstract: Abstract, *, raw: bool) -> DetailView:
    """Everything the detail pane shows of `abstract`: marks, note, tags, highlights."""
    spans = session.filter.spans
    return DetailView(
        abstract=abstract,
        raw=raw,
        spans=spans,
        near_duplicates=session.loaders.near_duplicates(abstract.index),
        matched=matched_line(spans, abstract),
        **marks_of(session, abstract),
    )


class Marks(TypedDict):
    """An abstract's personal state as the detail pane shows it."""

    bookmarked: bool
    read: bool
    note: str | None
    tags: AbstractSet[str]
    dismissed: bool


def marks_of(session: Session, abstract: Abstract) -> Marks:
    """`abstract`'s marks, note and tags (the part of its `DetailView` a key like `b`
    changes)."""
    bookmarked, read, note = session.user.view_of(abstract)
    data = session.user.userdata
    return Marks(
        bookmarked=bookmarked,
        read=read,
        note=note,
        tags=data.tags_of(abstract.id) if data is not None else frozenset(),
        dismissed=data is not None and data.is_dismissed(abstract.id),
    )


def matched_line(spans: object, abstract: Abstract) -> str:
    """`matched: contrast ≈ contrastive (related)` when the filter found some of its
    words in `abstract` only in another form, spelling or word; else "". `spans` is
    the filter's `Highlighter.spans` (None when unfiltered: nothing of search is
    imported then, so the first frame stays light)."""
    if spans is None:
        return ""
    from tui.search.highlight import Highlighter, describe

    highlighter = getattr(spans, "__self__", None)
    if not isinstance(highlighter, Highlighter):
        return ""
    return describe(highlighter.matched(abstract.plain))
