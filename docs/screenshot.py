"""Regenerate docs/screenshot.svg (the README's picture) from the bundled seeds.

python docs/screenshot.py
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from tui.ui.app import make_app

HERE = Path(__file__).resolve().parent


async def main() -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        app = make_app(data_dir=data_dir)
        async with app.run_test(size=(130, 34)) as pilot:
            while app.userdata is None:
                await pilot.pause(0.05)
            await pilot.press("j", "b", "j", "j", "b")
            app.userdata.save_note(
                app.abstract_list.current, "Compare with the **CLIP** adapters paper."
            )
            await pilot.press("slash", *"contrastive vison")
            await pilot.pause(0.5)
            await pilot.press("enter", "j")
            await pilot.pause(0.3)
            app.save_screenshot(filename="screenshot.svg", path=str(HERE))
            await pilot.press("q")


if __name__ == "__main__":
    asyncio.run(main())
