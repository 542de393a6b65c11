"""The replay feed: a recording opened in the feed thread, moved through by the Navigator.

Playback runs in the engine's pacing loop (`run_paced`) with the navigator's `due` and `advance`;
the App's commands are applied while the loop waits. While it waits, it also reads the recording's
deadlocks from its first sample on (timeline/deadlock_reading), in slices, and says how far it has
got (DeadlocksRead) every so often and once done. No Textual here.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Protocol

from mysqltop.engine import run_paced
from mysqltop.recording.clock_steps import ClockStep
from mysqltop.recording.reader import Bookmark, RecordingMeta
from mysqltop.timeline.cursor import Cursor, SampleStore
from mysqltop.timeline.deadlock_reading import DeadlockReading
from mysqltop.timeline.navigator import Navigator
from mysqltop.views.tui.feed_commands import FeedCommand
from mysqltop.views.tui.feed_events import DeadlocksRead, Notice, Opened, TimelineInfo
from mysqltop.views.tui.feeds import Feed, apply_move, navigate
from mysqltop.views.tui.position import Position, ViewMode


class Recording(SampleStore, Protocol):
    """What the replay reads of a recording (recording/reader.RecordingReader)."""

    @property
    def meta(self) -> RecordingMeta: ...
    @property
    def bookmarks(self) -> list[Bookmark]: ...
    @property
    def notice(self) -> str | None: ...
    @property
    def path(self) -> Path: ...
    def clock_steps(self) -> list[ClockStep]: ...
    def close(self) -> None: ...


def bookmark_list(reader: Recording) -> tuple[tuple[float, str], ...]:
    """Bookmarks as (epoch, label), in time order."""
    return tuple(sorted((float(b.time), b.note or b.trigger or "") for b in reader.bookmarks))


PROGRESS_EVERY_S = 0.5       # how often reading the deadlocks says how far it has got


class ReplayFeed(Feed):
    name = "replay"

    def __init__(self, open_reader: Callable[[], Recording], *, start: int = 0, floor: int = 0, speed: float = 1.0,
                 playing: bool = True) -> None:
        super().__init__()
        self.open_reader = open_reader      # called in the feed thread: SQLite objects stay there
        self.start_at = start
        self.floor = floor                  # judged from here on, as report and snapshot judge a range
        self.speed = speed
        self.playing = playing
        self.reader: Recording | None = None
        self.navigator: Navigator | None = None
        self.reading: DeadlockReading | None = None
        self._said = 0.0                    # monotonic time DeadlocksRead was last posted

    def initial_position(self) -> Position:
        return Position(mode=ViewMode.REPLAY, playing=self.playing, speed=self.speed)

    # -- thread body ------------------------------------------------------------------------
    def run(self) -> None:
        self.reader = reader = self.open_reader()
        cur = Cursor(reader, floor=self.floor)
        count = len(cur)
        if count == 0:
            self._post(Notice("the recording holds no samples", "error"))
            return
        bookmarks = bookmark_list(reader)
        if reader.notice:
            self._post(Notice(reader.notice, "warning"))
        # replay, `g TIME` and the time line go by the wall times recorded: say where they jump
        for step in reader.clock_steps()[:3]:
            self._post(Notice(step.describe(Path(str(reader.path)).name), "warning"))
        meta = reader.meta
        self._post(Opened(TimelineInfo(
            count=count, start=meta.start or cur.clock_at(0), end=meta.end or cur.clock_at(count - 1),
            bookmarks=bookmarks, server=_server_text(meta), interval=meta.interval)))
        self.navigator = b = navigate(cur, lambda event: self._post(event), ViewMode.REPLAY, speed=self.speed, playing=self.playing,
                                      bookmarks=bookmarks, deadlocks=self.deadlocks.at)
        b.move(cur.go(int(self.start_at)))
        self.reading = DeadlockReading(reader, self.deadlocks)
        run_paced(b.advance, b.due, self._stop, self._serve, tick_first=False)

    def apply(self, command: FeedCommand) -> None:
        if self.navigator is not None:
            apply_move(self.navigator, command)

    def idle(self, budget_s: float) -> bool:
        r, b = self.reading, self.navigator
        if b is not None and b.work(budget_s):      # the findings on screen come first
            return True
        if r is None or b is None:
            return False
        if not r.pending:
            return b.scan_work(budget_s)            # `]` and `[` a lookup
        shown = b.cursor.index
        reached = r.next > shown
        r.step(budget_s)
        now = time.monotonic()
        if not r.pending or now - self._said >= PROGRESS_EVERY_S or (not reached and r.next > shown):
            self._said = now
            self._post(DeadlocksRead(r.read, r.total, self.deadlocks.at(shown)))
        return True

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()


def _server_text(meta: RecordingMeta) -> str:
    server = meta.server
    return " ".join(str(p) for p in (server.address, server.flavor, server.version) if p)
