"""The app's key bindings: every key that works everywhere, and what it runs.

Each names an `action_*` method of `AbstractsApp` (Textual looks actions up on the app),
which hands the work to a controller. New keys use `show=False`, so the footer stays short.
Every binding has an id (`abstracts.bookmark`): the `[keys]` table of config.toml remaps
keys by id (`tui/ui/settings.py`); a key that means the same elsewhere (b in a view of
abstracts, u in the tags view) has the same id, so one line moves it everywhere.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

APP_BINDINGS: list[BindingType] = [
    # A priority binding runs as the App receives the key, before the keys behind it
    # are passed to the focused widget: a burst like `/quantum` (a paste, a fast
    # typist over SSH) then lands in the filter instead of running `q` and `n`.
    Binding("slash", "focus_filter", "Filter", priority=True, id="abstracts.filter"),
    # Enter in the filter, for the same reason: `/graph⏎m` must run `m` on the results.
    Binding("enter", "to_results", "Results", show=False, priority=True, id="abstracts.to_results"),
    Binding("question_mark", "help", "Help", id="abstracts.help"),
    Binding("q", "quit", "Quit", id="abstracts.quit"),
    # Esc out of the filter acts at once too: in `/x⏎`-style bursts the keys after it
    # are the list's, not more text. Over another screen it stands aside (check_action).
    Binding("escape", "back", "Back", show=False, priority=True, id="abstracts.back"),
    Binding("v", "toggle_raw", "LaTeX source", show=False, id="abstracts.latex_source"),
    Binding("o", "toggle_order", "Order", show=False, id="abstracts.order"),
    Binding("L", "load_report", "Load report", show=False, id="abstracts.load_report"),
    Binding("b", "toggle_bookmark", "★ Bookmark", id="abstracts.bookmark"),
    Binding("n", "edit_note", "Note", id="abstracts.note"),
    # A paper's keys are in the footer only while the highlighted row is a paper (see
    # `AbstractsApp.check_action`); on a conference paragraph the same keys run the
    # same actions through the unlisted bindings below, and say why nothing opens.
    Binding(
        "w",
        "open_paper('page')",
        "Open",
        tooltip="Open the paper's page in the browser",
        id="abstracts.open_page",
    ),
    Binding(
        "c",
        "copy_paper('bibtex')",
        "Cite",
        tooltip="Copy the paper's BibTeX entry",
        id="abstracts.cite",
    ),
    Binding(
        "W",
        "open_paper('pdf')",
        "Open the paper's PDF in the browser",
        show=False,
        id="abstracts.open_pdf",
    ),
    Binding(
        "y",
        "copy_paper('id')",
        "Copy the paper's id (DOI, arXiv, ...)",
        show=False,
        id="abstracts.copy_id",
    ),
    Binding(
        "Y", "copy_paper('link')", "Copy the paper's link", show=False, id="abstracts.copy_link"
    ),
    # Each twin has its key's id, so a key remapped in config.toml moves both.
    *(
        Binding(key, f"{action}({kind!r}, 'no paper')", "", show=False, id=binding_id)
        for key, action, kind, binding_id in (
            ("w", "open_paper", "page", "abstracts.open_page"),
            ("c", "copy_paper", "bibtex", "abstracts.cite"),
            ("W", "open_paper", "pdf", "abstracts.open_pdf"),
            ("y", "copy_paper", "id", "abstracts.copy_id"),
            ("Y", "copy_paper", "link", "abstracts.copy_link"),
        )
    ),
    Binding(
        "e", "edit_note_externally", "Note in $EDITOR", show=False, id="abstracts.note_in_editor"
    ),
    Binding("r", "toggle_read", "Read/unread", show=False, id="abstracts.read"),
    Binding("N", "notes", "Notes view", show=False, id="abstracts.notes"),
    Binding("ctrl+l", "refresh_data", "Refresh from disk", show=False, id="abstracts.refresh"),
    Binding("space", "space", "Next unread", id="abstracts.next_unread"),
    Binding("u", "undo", "Undo", show=False, id="abstracts.undo"),
    Binding("ctrl+r", "redo", "Redo", show=False, id="abstracts.redo"),
    Binding("A", "mark_all_read", "Mark list read", show=False, id="abstracts.mark_all_read"),
    Binding("m", "more_like_this", "Similar", id="abstracts.more_like_this"),
    Binding(
        "M", "more_like_bookmarks", "More like ★", show=False, id="abstracts.more_like_bookmarks"
    ),
    Binding("O", "overview", "Overview", show=False, id="abstracts.overview"),
    Binding("t", "tag_abstract", "Tag", show=False, id="abstracts.tag"),
    Binding("number_sign", "tags", "Tags view", show=False, id="abstracts.tags"),
    Binding("x", "dismiss", "Not interested", show=False, id="abstracts.dismiss"),
    Binding("F", "feed", "Feed", show=False, id="abstracts.feed"),
    Binding("T", "topics", "Topics", show=False, id="abstracts.topics"),
    Binding(
        "S", "save_search", "Save the filter as a search", show=False, id="abstracts.save_search"
    ),
    Binding("at", "saved_searches", "Saved searches", show=False, id="abstracts.saved_searches"),
    Binding("f", "fetch", "Fetch new papers (abstracts follow)", show=False, id="abstracts.fetch"),
]
