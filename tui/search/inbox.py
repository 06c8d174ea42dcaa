"""`is:new` and `new:DATE`: the papers that came in with `abstracts fetch`.

The library's arrivals index (`tui.inbox.library`) says when each paper first arrived;
whoever opened the library (the app at start, `abstracts search`) turns it into an
`Inbox` keyed by abstract id and hands it here with `use_inbox`. `is:new` selects what
arrived after `Inbox.since` (the app's previous opening: everything when there was
none), `new:2026-12-01` what arrived on or after that day (local time). With no inbox,
both select nothing.

The inbox is one per process, like the registry of fields: the corpus it describes is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from tui.search.context import BoolArray, FilterContext
    from tui.search.query import FieldClause


@dataclass(frozen=True, slots=True)
class Inbox:
    """When each loaded paper arrived (abstract id -> time), and the previous opening."""

    arrived: Mapping[str, datetime]
    since: datetime | None = None

    def new_ids(self) -> set[str]:
        """The papers that arrived after the previous opening (all, when there was none)."""
        since = self.since
        return {i for i, when in self.arrived.items() if since is None or when > since}

    def since_day(self, day: date) -> set[str]:
        """The papers that arrived on `day` or later (in local time)."""
        return {i for i, when in self.arrived.items() if when.astimezone().date() >= day}


_inbox: Inbox | None = None


def use_inbox(inbox: Inbox | None) -> None:
    """Answer `is:new` and `new:` from `inbox` from now on (None: select nothing)."""
    global _inbox
    _inbox = inbox


def current_inbox() -> Inbox | None:
    """The inbox `is:new` reads (None before a library was opened)."""
    return _inbox


def new_mask(ctx: FilterContext) -> BoolArray:
    """`is:new`: what arrived since the app was last opened."""
    return ctx.mask_of_ids(_inbox.new_ids() if _inbox is not None else ())


def select_new(clause: FieldClause, ctx: FilterContext) -> BoolArray:
    """`new:DATE`: what arrived on or after the date."""
    day = cast(date, clause.arg)
    return ctx.mask_of_ids(_inbox.since_day(day) if _inbox is not None else ())
