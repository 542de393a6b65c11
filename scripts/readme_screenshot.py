#!/usr/bin/env python3
"""Render docs/screenshot.svg: the TUI on a gallery recording (recordings/row-lock-idle-trx.mtrec,
~60 s after the onset), as the snapshot tests render screens (Textual's SVG export, UTC clock).

    .venv/bin/python scripts/readme_screenshot.py [--recording NAME] [--at SECONDS] [--size 140x40]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mysqltop.core.frame import Frame  # noqa: E402
from mysqltop.timeline.polled import PolledTimeline  # noqa: E402
from mysqltop.recording.reader import RecordingReader  # noqa: E402
from mysqltop.views.tui import app as app_module  # noqa: E402
from mysqltop.views.tui.app import MysqltopApp  # noqa: E402
from mysqltop.views.tui.feed_events import FrameShown  # noqa: E402
from mysqltop.views.tui.position import Position, ViewMode  # noqa: E402


class FramesFeed:
    interval = 1.0

    def __init__(self, frames: list[Frame]) -> None:
        self.frames = frames

    def start(self, post: Any) -> None:
        post(FrameShown(self.frames[-1], tuple(self.frames), Position(mode=ViewMode.REPLAY, interval=1.0)))

    def send(self, command: object) -> None:
        pass

    def stop(self) -> None:
        pass


class StillApp(MysqltopApp):
    CSS_PATH = str(Path(app_module.__file__).parent / "mysqltop.tcss")

    def alert(self, now: float) -> str | None:
        return None


async def shoot(frames: list[Frame], size: tuple[int, int], out: Path, address: str) -> None:
    app = StillApp(FramesFeed(frames), ViewMode.REPLAY, address=address)  # type: ignore[arg-type]
    async with app.run_test(size=size) as pilot:
        for _ in range(50):
            await pilot.pause(0.1)
            if app.frame is not None:
                break
        await pilot.pause(0.5)
        app.save_screenshot(filename=out.name, path=str(out.parent))


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--recording", default="row-lock-idle-trx")
    ap.add_argument("--at", type=int, default=60, help="seconds after the onset bookmark")
    ap.add_argument("--size", default="140x40")
    ap.add_argument("--out", default=str(ROOT / "docs" / "screenshot.svg"))
    a = ap.parse_args()
    os.environ["TZ"] = "UTC"
    time.tzset()
    w, h = (int(x) for x in a.size.split("x"))
    pipe = PolledTimeline()
    with RecordingReader(ROOT / "recordings" / f"{a.recording}.mtrec") as r:
        end = min(len(r) - 1, r.bookmarks[0].index + a.at)
        frames = [pipe.push(r.sample(i)) for i in range(0, end + 1)]
    asyncio.run(shoot(frames[-120:], (w, h), Path(a.out), f"demo: {a.recording}"))
    print(f"readme_screenshot: wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
