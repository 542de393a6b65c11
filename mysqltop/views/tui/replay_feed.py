"""The replay feed: a recording opened in the feed thread, moved through by the Browser.

Playback runs in the engine's pacing loop (`run_paced`) with the browser's `due` and `advance`;
the App's commands are applied while the loop waits. While it waits, it also reads the recording's
deadlocks from its first sample on (timeline/deadlock_reading), in slices, and says how far it has
got (DeadlocksRead) every so often and once done. No Textual here.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

from mysqltop.engine import run_paced
from mysqltop.timeline.cursor import Cursor
from mysqltop.timeline.deadlock_reading import DeadlockReading
from mysqltop.views.tui.browse import Browser
from mysqltop.views.tui.feed_commands import FeedCommand
from mysqltop.views.tui.feed_events import DeadlocksRead, Notice, Opened, TimelineInfo
from mysqltop.views.tui.feeds import Feed
from mysqltop.views.tui.position import Position, ViewMode


def bookmark_list(reader: Any) -> tuple[tuple[float, str], ...]:
    """Bookmarks as (epoch, label), whatever shape the reader keeps them in."""
    out = []
    for b in getattr(reader, "bookmarks", None) or ():
        if isinstance(b, (tuple, list)):
            t, label = b[0], (b[1] if len(b) > 1 else "")
        else:
            t = getattr(b, "time", None)
            label = getattr(b, "note", None) or getattr(b, "trigger", None) or ""
        if t is not None:
            out.append((float(t), str(label or "")))
    return tuple(sorted(out))


PROGRESS_EVERY_S = 0.5       # how often reading the deadlocks says how far it has got


class ReplayFeed(Feed):
    name = "replay"

    def __init__(self, open_reader: Callable[[], Any], *, start: int = 0, floor: int = 0, speed: float = 1.0, playing: bool = True) -> None:
        super().__init__()
        self.open_reader = open_reader      # called in the feed thread: SQLite objects stay there
        self.start_at = start
        self.floor = floor                  # judged from here on, as report and snapshot judge a range
        self.speed = speed
        self.playing = playing
        self.reader: Any = None
        self.browser: Browser | None = None
        self.reading: DeadlockReading | None = None
        self._said = 0.0                    # monotonic time DeadlocksRead was last posted

    def initial_position(self) -> Position:
        return Position(mode=ViewMode.REPLAY, playing=self.playing, speed=self.speed)

    # -- thread body ------------------------------------------------------------------------
    def run(self) -> None:
        self.reader = self.open_reader()
        cur = Cursor(self.reader, floor=self.floor)
        count = len(cur)
        if count == 0:
            self._post(Notice("the recording holds no samples", "error"))
            return
        bookmarks = bookmark_list(self.reader)
        notice = getattr(self.reader, "notice", None)
        if notice:
            self._post(Notice(notice, "warning"))
        # replay, `g TIME` and the time line go by the wall times recorded: say where they jump
        steps = getattr(self.reader, "clock_steps", None)
        for step in (steps() if steps is not None else [])[:3]:
            self._post(Notice(step.describe(Path(str(self.reader.path)).name), "warning"))
        meta = getattr(self.reader, "meta", None)
        self._post(Opened(TimelineInfo(
            count=count, start=_get(meta, "start") or cur.clock_at(0),
            end=_get(meta, "end") or cur.clock_at(count - 1),
            bookmarks=bookmarks, server=_server_text(meta), interval=_get(meta, "interval"))))
        self.browser = b = Browser(cur, self._post, ViewMode.REPLAY, speed=self.speed, playing=self.playing,
                                   bookmarks=bookmarks, deadlocks=self.deadlocks.at)
        b.move(cur.go(int(self.start_at)))
        self.reading = DeadlockReading(self.reader, self.deadlocks)
        run_paced(b.advance, b.due, self._stop, self._serve, tick_first=False)

    def apply(self, command: FeedCommand) -> None:
        if self.browser is not None:
            self.browser.apply(command)

    def idle(self, budget_s: float) -> bool:
        r, b = self.reading, self.browser
        if b is not None and b.work(budget_s):      # the findings on screen come first
            return True
        if r is None or b is None or not r.pending:
            return False
        shown = b.cursor.index
        reached = r.next > shown
        r.step(budget_s)
        now = time.monotonic()
        if not r.pending or now - self._said >= PROGRESS_EVERY_S or (not reached and r.next > shown):
            self._said = now
            self._post(DeadlocksRead(r.read, r.total, self.deadlocks.at(shown)))
        return True

    def close(self) -> None:
        if self.reader is not None and hasattr(self.reader, "close"):
            self.reader.close()


def _get(meta: Any, key: str) -> Any:
    if meta is None:
        return None
    return meta.get(key) if isinstance(meta, dict) else getattr(meta, key, None)


def _server_text(meta: Any) -> str:
    server = _get(meta, "server")
    if server is None:
        return ""
    parts = [_get(server, k) for k in ("address", "flavor", "version")]
    return " ".join(str(p) for p in parts if p)
