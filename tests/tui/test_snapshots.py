"""SVG snapshots of the screens a user sees, at 80×24 and 160×48: live, replay, help, zoom.

Regenerate after an intended change with `pytest tests/tui/test_snapshots.py --snapshot-update`
and look at the SVGs in tests/tui/__snapshots__/ before committing them.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from mysqltop.timeline.polled import PolledTimeline
from mysqltop.views.tui import app as app_module
from mysqltop.views.tui.app import MysqltopApp
from mysqltop.views.tui.feed_events import FrameShown
from mysqltop.views.tui.position import Position, ViewMode

from .conftest import replay_app, wait_for
from .samples import T0, samples

SIZES = [(80, 24), (160, 48)]


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Clocks on screen are local time: pin the zone so the pictures do not depend on the machine."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


class FramesFeed:
    """A live feed that posts a fixed run of frames (the corpus samples) and then goes quiet."""

    interval = 1.0

    def __init__(self, n: int) -> None:
        pipeline = PolledTimeline()
        self.frames = [pipeline.push(s) for s in samples(n)]

    def start(self, post) -> None:  # type: ignore[no-untyped-def]
        post(FrameShown(self.frames[-1], tuple(self.frames), Position(mode=ViewMode.LIVE, interval=1.0)))

    def send(self, command: object) -> None:
        pass

    def stop(self) -> None:
        pass


class FrozenClockApp(MysqltopApp):
    CSS_PATH = str(Path(app_module.__file__).parent / "mysqltop.tcss")   # relative paths follow the subclass

    def alert(self, now: float) -> str | None:      # no STALE countdown: the feed posts once
        return None


def live() -> MysqltopApp:
    return FrozenClockApp(FramesFeed(40), ViewMode.LIVE, address="db1:3306")  # type: ignore[arg-type]


async def until_shown(pilot: Any) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: app.frame is not None and len(app.trend) >= 30)
    await pilot.pause(0.2)


@pytest.mark.parametrize("size", SIZES)
def test_live(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(live(), terminal_size=size, run_before=until_shown)


@pytest.mark.parametrize("size", SIZES)
def test_replay(snap_compare: Any, size: tuple[int, int]) -> None:
    app = replay_app(samples(40), start=35, bookmarks=[(T0 + 30, "spike")])
    assert snap_compare(app, terminal_size=size, run_before=until_shown)


@pytest.mark.parametrize("size", SIZES)
def test_help(snap_compare: Any, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await until_shown(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: pilot.app.screen.id == "help")
        await pilot.pause(0.2)
    assert snap_compare(live(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("pane", [4, 2])
def test_zoom(snap_compare: Any, size: tuple[int, int], pane: int) -> None:
    async def run_before(pilot: Any) -> None:
        await until_shown(pilot)
        await pilot.press(str(pane))
        await wait_for(pilot, lambda: pilot.app.panes[pane].zoomed and pilot.app.panes[pane].region.height > 10)
        await pilot.pause(0.2)
    app = replay_app(samples(40), start=35, bookmarks=[(T0 + 30, "spike")])
    assert snap_compare(app, terminal_size=size, run_before=run_before)


