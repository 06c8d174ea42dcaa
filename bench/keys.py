"""Key press to painted screen, in-process: the filter's keystrokes and `b`.

Runs the whole app in-process (Textual's headless driver, 120x40 by default) on a corpus, waits
until the user's data and the search index are open, then:

- **filter keystrokes:** types queries into the filter one key at a time; each key's
  time runs from the driver receiving it to the first composited frame showing the
  list with that text's results (the search runs in its worker thread, so the time
  includes the hand-over and the repaint);
- **`b`:** presses `b` on successive rows; its time runs from the driver receiving
  the key to the first frame after the row's bookmark mark changed;
- **a cursor move:** `down` after each `b`, to the next abstract (of another length); its
  time runs from the driver receiving the key to the first frame with the detail pane
  showing that abstract.

Each is also timed to the end of the app's own part, before Textual paints: the answer
set in the widgets (`show_results`), or every observer of the bookmark's `MarksChanged`
run; and to the frame that shows the detail pane as it follows (the filter's highlights,
the bookmark's meta line): a detail pane given the lines it already showed is counted
at that moment, as no frame repaints it. References measured in the same run: the core
search alone (`index.search` and the highlighter, the part no UI can skip, on a fresh
index over the same data, so its caches start as cold as the app's did) for the same
keystrokes; the store call alone for a bookmark (`UserData.set_bookmark`); and the floor,
a bare Textual app whose one widget draws as many rows as the list shows, of the same
texts, swapped to the same answers at each key and timed the same way (what Textual's
own frame costs; the app's figure is printed as a multiple of it). `b` and the cursor move
have theirs: a bare app with a widget of the list's size showing the same rows, where `b`
changes one row's mark (that line alone refreshed) and the move refreshes the cursor's two
lines and swaps the text of a widget of the detail pane's size to what the app's pane
showed after the same move.

Keys come `--gap` seconds (0.05) after the frame of the one before, as a typist's do
(0.1 s or more apart): Textual paints on a 1/60 s grid, and after a frame that came
late on it the next waits for the grid point after next, so a key sent at once after a
frame waits up to 33 ms for its own (`--gap 0` shows that wait). Wall-clock medians and
p95, and the event loop thread's CPU time for the same span (what the UI itself spends,
which a loaded machine inflates less than the wall clock); the machine's load is
printed. `--profile FILE` writes a cProfile of the UI's part (`--profile-part filter`
or `marks`: of the filter's keys alone, or of `b` and the cursor moves alone). Never
fails a build.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

QUERIES = [
    "graph neural networks",
    "diffusion models",
    "contrastive learning",
    "reinforcement learning reward",
    "language model reasoning",
    "adversarial robustness",
    "federated learning privacy",
    "transformer attention",
]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def stats(name: str, samples: list[float]) -> str:
    if not samples:
        return f"{name:<42} (not measured)"
    ms = [s * 1000 for s in samples]
    return (
        f"{name:<42} n={len(ms):4d}  median {statistics.median(ms):7.2f} ms"
        f"   p95 {pct(ms, 95):7.2f} ms"
    )


async def measure(
    corpus_dir: Path,
    data_dir: Path,
    profile: cProfile.Profile | None,
    size: tuple[int, int],
    part: str = "all",
    gap: float = 0.02,
    answers: list[list[str]] | None = None,
    shape: list[int] | None = None,
    screens: dict[str, Any] | None = None,
) -> dict[str, list[float]]:
    from textual import events

    from tui.ui.app import make_app

    app = make_app([corpus_dir], data_dir=data_dir)
    answers = [] if answers is None else answers
    shape = [] if shape is None else shape
    # What the floors of `b` and the cursor move show (see `floor_marks`).
    screens = {} if screens is None else screens
    results: dict[str, list[float]] = {
        "key": [],
        "key_cpu": [],
        "key_app": [],
        "bookmark": [],
        "bookmark_cpu": [],
        "bookmark_app": [],
        "cursor": [],
        "cursor_cpu": [],
        "cursor_app": [],
        "core": [],
        "store": [],
    }
    async with app.run_test(size=size) as pilot:
        for _ in range(2400):
            if app.personal.userdata is not None and app.search.index is not None:
                break
            await pilot.pause(0.05)
        else:
            raise SystemExit("the data or the index did not open in 120 s")
        await pilot.pause(0.5)
        driver = app._driver
        assert driver is not None
        frame = asyncio.Event()
        # When the app's own part ended: the answer shown in the widgets (before Textual
        # paints them), or every observer of a bookmark's change run.
        handled = [0.0]
        # (The code before the session core, timed with this file, has neither hook.)
        show_results = getattr(app, "show_results", None)
        if show_results is not None:

            def timed_show_results(*args: object, **kwargs: object) -> None:
                show_results(*args, **kwargs)
                handled[0] = time.perf_counter()

            app.show_results = timed_show_results  # type: ignore[method-assign]
        if hasattr(app, "session"):
            from tui.session.events import MarksChanged

            # Subscribed last: it runs after the app's and every controller's observer.
            app.session.bus.subscribe(
                MarksChanged, lambda _: handled.__setitem__(0, time.perf_counter())
            )
        # What the frames must show: (predicate, name) pairs not yet seen, each timed at
        # the first composited frame where it holds.
        wanted: list[tuple[object, str]] = []
        seen: dict[str, tuple[float, float]] = {}  # name -> wall and UI-thread CPU clocks
        original = app._display

        def display(screen: object, renderable: object) -> None:
            original(screen, renderable)  # type: ignore[arg-type]
            if not wanted:
                return
            now, cpu = time.perf_counter(), time.thread_time()
            for check, name in list(wanted):
                if check():  # type: ignore[operator]
                    seen[name] = (now, cpu)
                    wanted.remove((check, name))
            if not wanted:
                frame.set()

        app._display = display  # type: ignore[method-assign]
        detail_shown = [0.0, 0.0]  # wall and CPU clocks when the detail pane was last given a view
        detail = app.detail
        show_detail = detail.show

        def timed_show(*args: object, **kwargs: object) -> None:
            show_detail(*args, **kwargs)  # type: ignore[arg-type]
            detail_shown[:] = [time.perf_counter(), time.thread_time()]

        detail.show = timed_show  # type: ignore[method-assign]

        async def press(
            key: str, char: str | None, done: object, into: str, **also: object
        ) -> None:
            """Send one key as the driver does; time it to the frame where `done` holds (and
            each of `also`, name -> predicate, to the frame where it holds)."""
            frame.clear()
            seen.clear()
            wanted[:] = [(done, into), *((check, name) for name, check in also.items())]
            event = events.Key(key, char)
            event.set_sender(app)
            start, cpu = time.perf_counter(), time.thread_time()
            driver.send_message(event)
            try:
                await asyncio.wait_for(frame.wait(), 0.3 if also else 10)
            except TimeoutError:
                # The detail pane was given what it already showed (the same lines): no
                # frame repaints it. Shown since the last call of its `show`.
                if done in [check for check, _name in wanted]:
                    raise
                for check, name in wanted:
                    if check():  # type: ignore[operator]
                        seen[name] = (detail_shown[0], detail_shown[1])
            for name, (wall, thread) in seen.items():
                results.setdefault(name, []).append(wall - start)
                results.setdefault(name + "_cpu", []).append(thread - cpu)
            if handled[0] >= start:
                results[into + "_app"].append(handled[0] - start)
            # The next key comes as a typist's would: not within the frame's 1/60 s.
            await pilot.pause(gap)

        shape[:] = app.abstract_list.size
        await pilot.press("slash")
        if profile is not None and part in ("all", "filter"):
            profile.enable()
        for _round in range(2):
            for query in QUERIES:
                for i, ch in enumerate(query):
                    typed = query[: i + 1]
                    key = "space" if ch == " " else ch
                    if not typed.strip() or typed.endswith(" "):
                        # A space changes no result worth waiting for: sent, not timed.
                        await pilot.press(key)
                        continue

                    shown = app.abstract_list.highlight_spans

                    def applied(typed: str = typed, shown: object = shown) -> bool:
                        # A search's answer brings its own spans: the list shows it.
                        listed = app.abstract_list
                        return listed.highlight_spans is not shown and (
                            app.filter_input.value == typed
                        )

                    def detailed() -> bool:
                        # The detail pane shows the highlighted abstract with these spans.
                        listed, shown = app.abstract_list, app.detail.view
                        return (
                            shown is not None
                            and shown.abstract is listed.current
                            and shown.spans is listed.highlight_spans
                        )

                    await press(key, ch, applied, "key", key_detail=detailed)
                    answers.append(visible_headlines(app.abstract_list))
                # Clear the filter for the next query (not timed).
                app.filter_input.value = ""
                await pilot.pause(0.05)
        if profile is not None:
            profile.disable()
        # The core's share of the same keystrokes: the search and its highlighter.
        from tui.search.index import SearchIndex
        from tui.search.query import parse_query

        loaded = app.search.index
        assert loaded is not None
        # A new index over the same data: its term caches start cold, as the app's did
        # when the keys were typed (the first round's prefixes are each new).
        index = SearchIndex(loaded.data)
        for _round in range(2):
            for query in QUERIES:
                for i in range(len(query)):
                    typed = query[: i + 1]
                    if not typed.strip() or typed.endswith(" "):
                        continue
                    start = time.perf_counter()
                    parsed = parse_query(typed)
                    result = index.search(parsed, app.corpus, personal=app.personal.userdata)
                    list(result.indices)
                    index.highlighter(parsed)
                    results["core"].append(time.perf_counter() - start)
        # `b` on successive rows of the whole list.
        await pilot.press("escape")
        await pilot.press("escape")
        await pilot.pause(0.3)
        data = app.personal.userdata
        assert data is not None
        listed = app.abstract_list
        screens["list"] = visible_headlines(listed)
        screens["detail_shape"] = list(app.detail.size)
        screens["marked"] = marked_rows = []
        screens["moved"] = moved_rows = []
        screens["details"] = details = []
        if profile is not None and part in ("all", "marks"):
            profile.enable()
        for _ in range(120):
            current = app.abstract_list.current
            assert current is not None
            before = data.is_bookmarked(current.id)

            def marked(ident: str = current.id, before: bool = before) -> bool:
                return data.is_bookmarked(ident) != before and (
                    (ident in app.abstract_list.marks.bookmarked) != before
                )

            def meta_shown(before: bool = before) -> bool:
                shown = app.detail.view
                return shown is not None and shown.bookmarked != before

            marked_rows.append(int(listed._line_of(listed.cursor) - listed.scroll_y))
            await press("b", "b", marked, "bookmark", bookmark_detail=meta_shown)
            row = app.abstract_list.cursor

            def moved(row: int = row) -> bool:
                shown = app.detail.view
                listed = app.abstract_list
                return listed.cursor != row and (
                    shown is not None and shown.abstract is listed.current
                )

            await press("down", None, moved, "cursor")
            moved_rows.append(int(listed._line_of(listed.cursor) - listed.scroll_y))
            details.append(shown_lines(app.detail))
        if profile is not None:
            profile.disable()
        abstracts = app.corpus.abstracts[:200]
        for i, abstract in enumerate(abstracts):
            start = time.perf_counter()
            data.set_bookmark(abstract, i % 2 == 0)
            results["store"].append(time.perf_counter() - start)
        await pilot.pause(0.2)
    return results


def visible_headlines(listed: Any) -> list[str]:
    """The texts of the rows `listed` (the app's list) shows: a headline, or "" for the
    divider and the lines under the last row."""
    top, rows, abstracts = int(listed.scroll_y), listed.rows, listed._corpus.abstracts
    texts = []
    for y in range(listed.scrollable_content_region.height):
        row = listed._row_at(top + y)
        texts.append("" if row is None or row >= len(rows) else abstracts[rows[row]].headline)
    return texts


def shown_lines(pane: Any) -> list[str]:
    """The texts of the lines the detail pane shows."""
    top, lines = int(pane.scroll_y), pane._lines
    return [
        lines[top + y].text if top + y < len(lines) else ""
        for y in range(pane.scrollable_content_region.height)
    ]


async def floor_marks(
    screens: dict[str, Any], size: tuple[int, int], shape: list[int], gap: float
) -> dict[str, list[float]]:
    """Textual's own frame for `b` and the cursor move: a bare app with a widget of the
    list's size drawing the rows `b` was pressed on, and one of the detail pane's size.
    `b`: one row's mark changes (that line alone is refreshed); the cursor move: the
    cursor's two lines are refreshed and the detail widget's text swapped to what the
    app's pane showed after that move. Timed as the app is, from the driver receiving
    the key to the first composited frame that shows it."""
    from rich.segment import Segment
    from rich.style import Style
    from textual import events
    from textual.app import App, ComposeResult
    from textual.containers import Horizontal
    from textual.geometry import Region
    from textual.strip import Strip
    from textual.widget import Widget

    texts: list[str] = screens["list"]
    cursor_style = Style(reverse=True)

    class Rows(Widget):
        DEFAULT_CSS = f"Rows {{ width: {shape[0]}; height: {shape[1]}; }}"

        def __init__(self) -> None:
            super().__init__()
            self.marked: set[int] = set()
            self.cursor = 0

        def render_line(self, y: int) -> Strip:
            text = texts[y] if y < len(texts) else ""
            mark = "★ " if y in self.marked else "  "
            style = cursor_style if y == self.cursor else None
            return Strip([Segment(mark + text, style)]).adjust_cell_length(self.size.width)

        def line(self, y: int) -> None:
            self.refresh(Region(0, y, self.size.width, 1))

    class Pane(Widget):
        width, height = screens["detail_shape"]
        DEFAULT_CSS = f"Pane {{ width: {width}; height: {height}; }}"

        def __init__(self) -> None:
            super().__init__()
            self.lines: list[str] = []

        def render_line(self, y: int) -> Strip:
            text = self.lines[y] if y < len(self.lines) else ""
            return Strip([Segment(text)]).adjust_cell_length(self.size.width)

    class Floor(App[None]):
        CSS = "Horizontal { height: auto; }"

        def __init__(self) -> None:
            super().__init__()
            self.step = -1
            self.shown = -1
            self.mode = "b"

        def compose(self) -> ComposeResult:
            with Horizontal():
                yield Rows()
                yield Pane()

        async def on_event(self, event: events.Event) -> None:
            # Taken where the app takes its keys (as the filter's floor does).
            if isinstance(event, events.Key):
                rows, i = self.query_one(Rows), self.step
                if self.mode == "b":
                    y = screens["marked"][i]
                    rows.marked ^= {y}
                    rows.line(y)
                else:
                    old, rows.cursor = rows.cursor, screens["moved"][i]
                    rows.line(old)
                    rows.line(rows.cursor)
                    pane = self.query_one(Pane)
                    pane.lines = screens["details"][i]
                    pane.refresh()
                self.shown = i
                return
            await super().on_event(event)

    app = Floor()
    times: dict[str, list[float]] = {"b": [], "cursor": []}
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.3)
        watch = _FrameWatch(app, lambda: app.shown)
        rows = app.query_one(Rows)
        for i in range(min(len(screens["marked"]), len(screens["moved"]))):
            for mode in ("b", "cursor"):
                if mode == "b":
                    rows.cursor = screens["marked"][i]
                app.mode, app.step = mode, i
                times[mode].append(await watch.key("b", i))
                app.shown = -1
                await pilot.pause(gap)
    return times


class _FrameWatch:
    """A floor app's keys timed from the driver receiving each to the first composited
    frame after which `shown()` is the step the key was sent for."""

    def __init__(self, app: Any, shown: Callable[[], int]) -> None:
        driver = app._driver
        assert driver is not None
        self._app, self._driver = app, driver
        self._frame = asyncio.Event()
        self._wanted = -1
        self._painted = 0.0
        original = app._display

        def display(screen: object, renderable: object) -> None:
            original(screen, renderable)
            if self._wanted >= 0 and shown() == self._wanted:
                self._painted = time.perf_counter()
                self._wanted = -1
                self._frame.set()

        app._display = display

    async def key(self, key: str, step: int) -> float:
        """Seconds from sending `key` for `step` to the frame showing it."""
        from textual import events

        self._frame.clear()
        self._wanted = step
        event = events.Key(key, key)
        event.set_sender(self._app)
        start = time.perf_counter()
        self._driver.send_message(event)
        await asyncio.wait_for(self._frame.wait(), 10)
        return self._painted - start


async def floor(
    answers: list[list[str]], size: tuple[int, int], shape: list[int], gap: float
) -> list[float]:
    """Textual's own frame for the same answers: a bare app whose one widget draws as many
    rows of the same texts as the app's list shows, swapped to the next answer at each
    key, timed the same way (the driver receiving the key to the first composited frame
    showing the answer). What no app on Textual can answer faster than."""
    from rich.segment import Segment
    from textual import events
    from textual.app import App, ComposeResult
    from textual.strip import Strip
    from textual.widget import Widget

    class Rows(Widget):
        DEFAULT_CSS = f"Rows {{ width: {shape[0]}; height: {shape[1]}; }}"

        def __init__(self) -> None:
            super().__init__()
            self.texts: list[str] = []
            self.shown = -1

        def swap(self) -> None:
            self.shown += 1
            self.texts = answers[self.shown]
            self.refresh()

        def render_line(self, y: int) -> Strip:
            text = self.texts[y] if y < len(self.texts) else ""
            return Strip([Segment(text)]).adjust_cell_length(self.size.width)

    class Floor(App[None]):
        def compose(self) -> ComposeResult:
            yield Rows()

        async def on_event(self, event: events.Event) -> None:
            # Taken where the app takes its keys (its router, before Textual's own
            # forwarding to the focused widget's queue).
            if isinstance(event, events.Key):
                self.query_one(Rows).swap()
                return
            await super().on_event(event)

    app = Floor()
    times: list[float] = []
    async with app.run_test(size=size) as pilot:
        rows = app.query_one(Rows)
        await pilot.pause(0.3)
        watch = _FrameWatch(app, lambda: rows.shown)
        for i in range(len(answers)):
            times.append(await watch.key("a", i))
            await pilot.pause(gap)
    return times


def print_ratio(app: list[float], floor: list[float]) -> None:
    ratio = statistics.median(app) / statistics.median(floor)
    ratio95 = pct(app, 95) / pct(floor, 95)
    print(f"  {'the app ÷ the floor':<40} median {ratio:5.1f}×   p95 {ratio95:5.1f}×")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    # /work/shared/corpora/iclr from the main checkout (/work/main) or a worktree of it.
    default = next(
        (d for d in (p / "shared" / "corpora" / "iclr" for p in REPO.parents) if d.is_dir()), None
    )
    parser.add_argument("--corpus", type=Path, default=default)
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--profile-part", choices=("all", "filter", "marks"), default="all")
    parser.add_argument("--size", default="120x40", help="terminal size, COLSxROWS")
    parser.add_argument(
        "--gap",
        type=float,
        default=0.05,
        help="seconds from a key's frame to the next key (default 0.05; a typist's keys come"
        " 0.1 s or more apart): Textual paints on a 1/60 s grid, and after a frame its next"
        " may wait up to two steps of it, so a key sent sooner waits for that frame",
    )
    args = parser.parse_args()
    corpus = args.corpus
    if corpus is None or not corpus.is_dir():
        # The seeds' 76 abstracts are too few for its keys (the cursor runs past them).
        parser.error(
            f"no corpus at {corpus or 'shared/corpora/iclr above the checkout'}: pass --corpus DIR"
        )
    profile = cProfile.Profile() if args.profile else None
    answers: list[list[str]] = []
    shape: list[int] = []
    screens: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        cols, rows = (int(v) for v in args.size.split("x"))
        results = asyncio.run(
            measure(
                corpus,
                Path(tmp),
                profile,
                (cols, rows),
                args.profile_part,
                args.gap,
                answers,
                shape,
                screens,
            )
        )
    floor_times = asyncio.run(floor(answers, (cols, rows), shape, args.gap))
    floor_keys = asyncio.run(floor_marks(screens, (cols, rows), shape, args.gap))
    if profile is not None:
        profile.dump_stats(str(args.profile))
    print(
        f"corpus {corpus} · {args.size} · load {os.getloadavg()[0]:.1f} · wall clock, in-process"
        f" · {args.gap * 1000:.0f} ms between a frame and the next key"
    )
    print(stats("filter keystroke → painted list", results["key"]))
    print(stats("  floor: a bare Textual app, same answers", floor_times))
    print_ratio(results["key"], floor_times)
    print(stats("  filter keystroke → painted detail", results.get("key_detail", [])))
    print(stats("  UI thread's CPU for it", results["key_cpu"]))
    print(stats("  until the answer is in the widgets", results["key_app"]))
    print(stats("  reference: core search + highlighter", results["core"]))
    print(stats("b → painted row", results["bookmark"]))
    print(stats("  floor: a bare Textual app, one mark", floor_keys["b"]))
    print_ratio(results["bookmark"], floor_keys["b"])
    print(stats("  UI thread's CPU for it", results["bookmark_cpu"]))
    print(stats("  until every observer has run", results["bookmark_app"]))
    print(stats("  reference: store call (set_bookmark)", results["store"]))
    print(stats("  b → painted detail (its meta line)", results.get("bookmark_detail", [])))
    print(stats("cursor move (down) → painted detail", results["cursor"]))
    print(stats("  floor: a bare Textual app, text swapped", floor_keys["cursor"]))
    print_ratio(results["cursor"], floor_keys["cursor"])
    print(stats("  UI thread's CPU for it", results["cursor_cpu"]))
    key, bm = statistics.median(results["key"]), statistics.median(results["bookmark"])
    print(
        f"targets: keystroke median ≤ 3 ms: {'met' if key <= 0.003 else 'FAILING'}"
        f" · p95 ≤ 10 ms: {'met' if pct(results['key'], 95) <= 0.010 else 'FAILING'}"
        f" · b median ≤ 2 ms: {'met' if bm <= 0.002 else 'FAILING'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
