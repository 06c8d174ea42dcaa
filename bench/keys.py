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
run. References measured in the same run: the core search alone (`index.search` and the
highlighter, the part no UI can skip, on a fresh index over the same data, so its caches
start as cold as the app's did) for the same keystrokes, and the store call alone for a
bookmark (`UserData.set_bookmark`). Wall-clock medians and p95, and the event loop
thread's CPU time for the same span (what the UI itself spends, which a loaded machine
inflates less than the wall clock); the machine's load is printed. `--profile FILE`
writes a cProfile of the UI's part (`--profile-part filter` or `marks`: of the filter's
keys alone, or of `b` and the cursor moves alone). Never fails a build.
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
from pathlib import Path

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
) -> dict[str, list[float]]:
    from textual import events

    from tui.ui.app import make_app

    app = make_app([corpus_dir], data_dir=data_dir)
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
        painted = [0.0, 0.0]  # wall and UI-thread CPU clocks at the frame
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
        wanted: list[object] = [None]  # a predicate the next frame must satisfy
        original = app._display

        def display(screen: object, renderable: object) -> None:
            original(screen, renderable)  # type: ignore[arg-type]
            check = wanted[0]
            if check is not None and check():  # type: ignore[operator]
                painted[:] = [time.perf_counter(), time.thread_time()]
                wanted[0] = None
                frame.set()

        app._display = display  # type: ignore[method-assign]

        async def press(key: str, char: str | None, done: object, into: str) -> None:
            """Send one key as the driver does; time it to the frame where `done` holds."""
            frame.clear()
            wanted[0] = done
            event = events.Key(key, char)
            event.set_sender(app)
            start, cpu = time.perf_counter(), time.thread_time()
            driver.send_message(event)
            await asyncio.wait_for(frame.wait(), 10)
            results[into].append(painted[0] - start)
            results[into + "_cpu"].append(painted[1] - cpu)
            if handled[0] >= start:
                results[into + "_app"].append(handled[0] - start)

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

                    await press(key, ch, applied, "key")
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

            await press("b", "b", marked, "bookmark")
            # Each key after the last frame's 1/60 s: Textual paints at most 60 frames a
            # second, and a key right after a frame would wait for the next one.
            await pilot.pause(0.02)
            row = app.abstract_list.cursor

            def moved(row: int = row) -> bool:
                shown = app.detail.view
                listed = app.abstract_list
                return listed.cursor != row and (
                    shown is not None and shown.abstract is listed.current
                )

            await press("down", None, moved, "cursor")
            await pilot.pause(0.02)
        if profile is not None:
            profile.disable()
        abstracts = app.corpus.abstracts[:200]
        for i, abstract in enumerate(abstracts):
            start = time.perf_counter()
            data.set_bookmark(abstract, i % 2 == 0)
            results["store"].append(time.perf_counter() - start)
        await pilot.pause(0.2)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    default = REPO.parent / "shared" / "corpora" / "iclr"
    parser.add_argument("--corpus", type=Path, default=default if default.is_dir() else None)
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--profile-part", choices=("all", "filter", "marks"), default="all")
    parser.add_argument("--size", default="120x40", help="terminal size, COLSxROWS")
    args = parser.parse_args()
    corpus = args.corpus or REPO / "seeds"
    profile = cProfile.Profile() if args.profile else None
    with tempfile.TemporaryDirectory() as tmp:
        cols, rows = (int(v) for v in args.size.split("x"))
        results = asyncio.run(measure(corpus, Path(tmp), profile, (cols, rows), args.profile_part))
    if profile is not None:
        profile.dump_stats(str(args.profile))
    print(f"corpus {corpus} · {args.size} · load {os.getloadavg()[0]:.1f} · wall clock, in-process")
    print(stats("filter keystroke → painted list", results["key"]))
    print(stats("  UI thread's CPU for it", results["key_cpu"]))
    print(stats("  until the answer is in the widgets", results["key_app"]))
    print(stats("  reference: core search + highlighter", results["core"]))
    print(stats("b → painted row", results["bookmark"]))
    print(stats("  UI thread's CPU for it", results["bookmark_cpu"]))
    print(stats("  until every observer has run", results["bookmark_app"]))
    print(stats("  reference: store call (set_bookmark)", results["store"]))
    print(stats("cursor move (down) → painted detail", results["cursor"]))
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
