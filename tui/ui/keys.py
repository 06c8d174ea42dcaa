"""The app's key bindings: every key that works everywhere, and what it runs.

Each names an `action_*` method of `AbstractsApp` (Textual looks actions up on the app),
which hands the work to a controller. New keys use `show=False`, so the footer stays short.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

APP_BINDINGS: list[BindingType] = [
    # A priority binding runs as the App receives the key, before the keys behind it
    # are passed to the focused widget: a burst like `/quantum` (a paste, a fast
    # typist over SSH) then lands in the filter instead of running `q` and `n`.
    Binding("slash", "focus_filter", "Filter", priority=True),
    # Enter in the filter, for the same reason: `/graph⏎m` must run `m` on the results.
    Binding("enter", "to_results", "Results", show=False, priority=True),
    Binding("question_mark", "help", "Help"),
    Binding("q", "quit", "Quit"),
    # Esc out of the filter acts at once too: in `/x⏎`-style bursts the keys after it
    # are the list's, not more text. Over another screen it stands aside (check_action).
    Binding("escape", "back", "Back", show=False, priority=True),
    Binding("v", "toggle_raw", "LaTeX source", show=False),
    Binding("o", "toggle_order", "Order", show=False),
    Binding("L", "load_report", "Load report", show=False),
    Binding("b", "toggle_bookmark", "★ Bookmark"),
    Binding("n", "edit_note", "Note"),
    # A paper's keys are in the footer only while the highlighted row is a paper (see
    # `AbstractsApp.check_action`); on a conference paragraph the same keys run the
    # same actions through the unlisted bindings below, and say why nothing opens.
    Binding("w", "open_paper('page')", "Open", tooltip="Open the paper's page in the browser"),
    Binding("c", "copy_paper('bibtex')", "Cite", tooltip="Copy the paper's BibTeX entry"),
    Binding("W", "open_paper('pdf')", "Open the paper's PDF in the browser", show=False),
    Binding("y", "copy_paper('id')", "Copy the paper's id (DOI, arXiv, ...)", show=False),
    Binding("Y", "copy_paper('link')", "Copy the paper's link", show=False),
    *(
        Binding(key, f"{action}({kind!r}, 'no paper')", "", show=False)
        for key, action, kind in (
            ("w", "open_paper", "page"),
            ("c", "copy_paper", "bibtex"),
            ("W", "open_paper", "pdf"),
            ("y", "copy_paper", "id"),
            ("Y", "copy_paper", "link"),
        )
    ),
    Binding("e", "edit_note_externally", "Note in $EDITOR", show=False),
    Binding("r", "toggle_read", "Read/unread", show=False),
    Binding("N", "notes", "Notes view", show=False),
    Binding("ctrl+l", "refresh_data", "Refresh from disk", show=False),
    Binding("space", "space", "Next unread"),
    Binding("u", "undo", "Undo", show=False),
    Binding("ctrl+r", "redo", "Redo", show=False),
    Binding("A", "mark_all_read", "Mark list read", show=False),
    Binding("m", "more_like_this", "Similar"),
    Binding("M", "more_like_bookmarks", "More like ★", show=False),
    Binding("O", "overview", "Overview", show=False),
    Binding("t", "tag_abstract", "Tag", show=False),
    Binding("number_sign", "tags", "Tags view", show=False),
    Binding("x", "dismiss", "Not interested", show=False),
    Binding("F", "feed", "Feed", show=False),
    Binding("T", "topics", "Topics", show=False),
    Binding("S", "save_search", "Save the filter as a search", show=False),
    Binding("at", "saved_searches", "Saved searches", show=False),
    Binding("f", "fetch", "Fetch new papers (abstracts follow)", show=False),
]
