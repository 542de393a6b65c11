"""Helpers for TUI pilots: a replay App over RawSamples, screen text, waiting for a frame."""

from __future__ import annotations

import asyncio
import bisect
import functools
import html
import inspect
import re
from pathlib import Path
from typing import Any, Callable, Sequence

import pytest

from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.sample import RawSample, ServerIdentity
from mysqltop.recording.reader import Bookmark, RecordingMeta
from mysqltop.core.when import parse_when
from mysqltop.views.tui.app import MysqltopApp
from mysqltop.views.tui.replay_feed import ReplayFeed
from mysqltop.views.tui.position import ViewMode


class ListReader:
    """The RecordingReader interface over a list of RawSamples (the file format is tested
    in tests/recording); lets a pilot replay exactly the samples a test built."""

    def __init__(self, samples: Sequence[RawSample], bookmarks: Sequence[tuple[float, str]] = ()) -> None:
        self._samples = list(samples)
        self.bookmarks = [Bookmark(index=0, time=t, trigger=None, value=None, note=note) for t, note in bookmarks]
        walls = [s.wall for s in self._samples]
        self.meta = RecordingMeta(
            path="test.mtrec", format_version=1, mysqltop_version=None, server=ServerIdentity(address="db1:3306"),
            recorder_host=None, interval=1.0, start=walls[0] if walls else None, end=walls[-1] if walls else None,
            samples=len(walls), segments=1, redacted=False, trigger=None)
        self.notice: str | None = None
        self.path = Path("test.mtrec")

    def clock_steps(self) -> list[Any]:
        return []

    first = 0

    def __len__(self) -> int:
        return len(self._samples)

    def time_at(self, i: int) -> float:
        return self._samples[i].wall

    def time_or_none(self, i: int) -> float | None:
        return self._samples[i].wall if 0 <= i < len(self._samples) else None

    def index_at(self, t: float) -> int:
        walls = [s.wall for s in self._samples]
        i = bisect.bisect_right(walls, t + 1e-9) - 1
        return max(0, min(len(walls) - 1, i))

    def sample(self, i: int) -> RawSample:
        return self._samples[i]

    def pair(self, i: int) -> tuple[RawSample | None, RawSample]:
        return (self._samples[i - 1] if i else None), self._samples[i]

    def close(self) -> None:
        pass


def replay_app(samples: Sequence[RawSample], *, start: int = 0, playing: bool = False,
               speed: float = 1.0, bookmarks: Sequence[tuple[float, str]] = ()) -> MysqltopApp:
    reader = ListReader(samples, bookmarks)
    feed = ReplayFeed(lambda: reader, start=start, speed=speed, playing=playing)
    return MysqltopApp(feed, ViewMode.REPLAY, source_name="test.mtrec", parse_when=parse_when)


def pilot(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run an async test with asyncio.run (no pytest-asyncio dependency); fixtures still work."""
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        return asyncio.run(fn(*args, **kwargs))
    run.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    return run


_SVG_TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="[\d.]+" textLength="[\d.]+" '
                       r'clip-path="url\(#[\w-]+-line-(\d+)\)">([^<]*)</text>')
_CELL = 12.2              # px per cell in Rich's SVG export (0.61 × the 20 px font)


def screen_text(app: MysqltopApp) -> str:
    """The screen as lines of text, read from the public screenshot (SVG) of what is displayed."""
    width, height = app.size
    rows = [[" "] * width for _ in range(height)]
    for x, line, content in _SVG_TEXT.findall(app.export_screenshot()):
        y, col = int(line), round(float(x) / _CELL)
        for n, ch in enumerate(html.unescape(content).replace("\xa0", " ")):
            if y < height and 0 <= col + n < width:
                rows[y][col + n] = ch
    return "\n".join("".join(r) for r in rows)


class Toasts:
    """A run_test message_hook that keeps every notification the app raised (Notify messages),
    including those whose toast has already timed out."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    def __call__(self, message: Any) -> None:
        from textual.notifications import Notify

        if isinstance(message, Notify):
            self.sent.append(message.notification)

    @property
    def texts(self) -> list[str]:
        return [str(n.message) for n in self.sent]


async def wait_for(pilot: Any, predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    """Let the app run until `predicate()` holds (frames come from another thread)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.02)
    await pilot.pause()


async def key_latency(app: Any, key: str, check: Callable[[], bool], timeout: float = 2.0) -> float:
    """Seconds from a key arriving (as the terminal driver delivers it) to `check()` holding.

    Pilot.press also waits for the whole process to go idle, which on a loaded machine says
    more about other processes than about this app; this measures the app's own response."""
    from textual import events

    loop = asyncio.get_running_loop()
    t0 = loop.time()
    app.post_message(events.Key(key, None))      # what the terminal driver does with a key press
    while not check():
        if loop.time() - t0 > timeout:
            raise AssertionError(f"key {key!r} had no effect within {timeout}s")
        await asyncio.sleep(0.002)
    return loop.time() - t0


@pytest.fixture
def expected_frames() -> Callable[[Sequence[RawSample]], list[Any]]:
    """The frames a polled timeline derives for a sample list, computed in order (what the panes show)."""
    def compute(samples: Sequence[RawSample]) -> list[Any]:
        p = PolledTimeline()
        return [p.push(s) for s in samples]
    return compute
