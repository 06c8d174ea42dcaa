"""Tags in the UI: the tag input (`t`, and the palette's "Tag every abstract in the
list…"), the tags view (`#`) and its rename, merge and delete.

Every change is one `ChangeTags` step of the undo history, however many abstracts it
touches; the store's memory changes at once and its thread writes the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from tui.sanitize import visible_line
from tui.session.events import MarksChanged
from tui.tagnames import TagEdit, format_tags

if TYPE_CHECKING:
    from tui.corpus.model import Abstract
    from tui.session import Session
    from tui.store.userdata import UserData
    from tui.ui.host import Host
    from tui.ui.screens.tags import TagsScreen


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def describe(edit: TagEdit, abstracts: int) -> str:
    """`tagged 212 abstracts #to-cite, untagged #draft` (completes "Undid: ...")."""
    parts = []
    if edit.add:
        parts.append(f"tagged {_count(abstracts, 'abstract', 'abstracts')} {format_tags(edit.add)}")
    if edit.remove:
        parts.append(f"untagged {format_tags(edit.remove)}")
    return ", ".join(parts)


class TagsController:
    """Tagging one abstract or a list, and managing the tags in use."""

    def __init__(self, session: Session, app: Host) -> None:
        self.session = session
        self.app = app
        session.bus.subscribe(MarksChanged, lambda _: self.view_changed())
        #: The tags view while it is open (its module is imported when first opened).
        self._view: TagsScreen | None = None

    # -- what is shown -----------------------------------------------------------

    def of(self, abstract: Abstract) -> frozenset[str]:
        """The tags of an abstract (none until the data is open)."""
        data = self.session.user.userdata
        return data.tags_of(abstract.id) if data is not None else frozenset()

    def rows(self) -> list[tuple[str, int]]:
        """Every tag in use with its count, most used first, then by name."""
        data = self.session.user.userdata
        counts = data.tag_counts() if data is not None else {}
        return sorted(counts.items(), key=lambda row: (-row[1], row[0]))

    def view_changed(self) -> None:
        """Keep an open tags view's counts current (after an undo, a refresh, a change)."""
        if self._view is not None and self._view.is_attached:
            self._view.set_rows(self.rows())

    # -- tagging -----------------------------------------------------------------

    def tag_current(self) -> None:
        """`t`: add or remove tags on the abstract under the cursor."""
        if (abstract := self.app.abstract_list.current) is not None:
            self.session.user.when_open(lambda data: self._ask([abstract], data))

    def tag_list(self) -> None:
        """The palette's "Tag every abstract in the list…": the list as shown now."""
        app = self.app
        corpus = self.session.corpus.abstracts
        abstracts = [corpus[i] for i in app.abstract_list.rows]
        if not abstracts:
            app.notify("The list is empty: nothing to tag.", timeout=3)
            return
        self.session.user.when_open(lambda data: self._ask(abstracts, data))

    def _ask(self, abstracts: Sequence[Abstract], data: UserData) -> None:
        from tui.ui.screens.tag_input import TagInputScreen

        known = [tag for tag, _ in self.rows()]
        if len(abstracts) == 1:
            title, subject = "Tags", abstracts[0].headline
            current: Sequence[str] = sorted(data.tags_of(abstracts[0].id))
        else:
            title = "Tag every abstract in the list"
            subject = f"{len(abstracts):,} abstracts, as listed now"
            # The tags every one of them has: what `-name` can take off all of them.
            shared = frozenset.intersection(*(data.tags_of(a.id) for a in abstracts))
            current = sorted(shared)
        screen = TagInputScreen(title, subject, current, known)
        self.app.push_screen(screen, lambda edit: self._apply(abstracts, edit))

    def _apply(self, abstracts: Sequence[Abstract], edit: TagEdit | None) -> None:
        data = self.session.user.userdata
        if edit is None or data is None:
            return
        ids = [a.id for a in abstracts]
        add = [(i, t) for i in ids for t in edit.add]
        remove = [(i, t) for i in ids for t in edit.remove]
        if self._change(data, add, remove, describe(edit, len(ids))):
            if len(ids) > 1:
                self._say(f"{describe(edit, len(ids)).capitalize()}. u undoes.")
        else:
            self.app.notify("Nothing to change: the tags were already so.", timeout=3)

    def _change(
        self,
        data: UserData,
        add: Iterable[tuple[str, str]],
        remove: Iterable[tuple[str, str]],
        description: str,
    ) -> bool:
        from tui.triage.undo import ChangeTags

        def has(abstract_id: str, tag: str) -> bool:
            return tag in data.tags_of(abstract_id)

        return self.session.user.perform(ChangeTags.capture(add, remove, has, description))

    # -- the tags view ---------------------------------------------------------------

    def show_view(self) -> None:
        """`#`: every tag with its count."""
        self.session.user.when_open(lambda _: self._show_view())

    def _show_view(self) -> None:
        from tui.ui.screens.tags import TagsScreen

        self._view = TagsScreen(self.rows())
        self.app.push_screen(self._view, self._filter_by)

    def _filter_by(self, tag: str | None) -> None:
        self._view = None
        if tag:
            app = self.app
            # A trailing space: the whole tag, not every tag it starts.
            app.filter_input.value = f"tag:{tag} "
            app.abstract_list.focus()

    def rename(self, old: str, new: str) -> None:
        """Rename `old` to `new` everywhere (onto a tag in use: a merge), as one step."""
        data = self.session.user.userdata
        if data is None or old == new:
            return
        ids = sorted(data.tag_index().get(old, ()))
        merging = new in data.tag_index()
        verb = f"merged #{old} into #{new}" if merging else f"renamed #{old} to #{new}"
        add = [(i, new) for i in ids]
        remove = [(i, old) for i in ids]
        if self._change(data, add, remove, verb):
            self._say(
                f"{verb.capitalize()} ({_count(len(ids), 'abstract', 'abstracts')}). u undoes."
            )

    def delete(self, tag: str) -> None:
        """Take `tag` off every abstract, as one step."""
        data = self.session.user.userdata
        if data is None:
            return
        ids = sorted(data.tag_index().get(tag, ()))
        verb = f"deleted #{tag} from {_count(len(ids), 'abstract', 'abstracts')}"
        if self._change(data, [], [(i, tag) for i in ids], verb):
            self._say(f"{verb.capitalize()}. u undoes.")

    def _say(self, message: str) -> None:
        # Tag names are the user's text: shown, never read as markup.
        self.app.notify(visible_line(message), timeout=4, markup=False)

    def commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Tag", "Add or remove tags on the selected abstract (t)", self.tag_current
        )
        yield SystemCommand(
            "Tag every abstract in the list…",
            "Add or remove tags on every abstract listed now, as one undoable step",
            self.tag_list,
        )
        yield SystemCommand(
            "Tags", "Every tag with its count: filter, rename, merge, delete (#)", self.show_view
        )
