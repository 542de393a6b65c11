"""The replay feed: frames from a recording through the replay cursor, paced in a feed thread.

The cursor (recording/cursor.py) does the moving and deriving — seek, step, nearest, warm-up
for rates and the advice window, frame cache, stepping over damaged samples — so a moment
shows the same frame and advice here as in `report` and `snapshot --replay`. Playback runs in
the engine's pacing loop (`run_paced`); this module says when the next sample is due (its
recorded gap after the previous one, divided by the speed; nothing while paused) and turns the
App's commands into cursor moves.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any, Callable

from mysqltop.engine import run_paced
from mysqltop.recording.cursor import Cursor
from mysqltop.views.tui.feed_commands import FeedCommand, Jump, NextBookmark, Play, SeekTime, Speed, Step
from mysqltop.core.pacing import SPEEDS, step_choice
from mysqltop.views.tui.feeds import TREND, Feed
from mysqltop.views.tui.messages import FeedNotice, FeedOpened, FrameReady, ReplayInfo
from mysqltop.views.tui.position import Position


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


class ReplayFeed(Feed):
    name = "replay"

    def __init__(self, open_reader: Callable[[], Any], new_pipeline: Callable[[], Any], *,
                 start: Callable[[Any], int] | int = 0, speed: float = 1.0, playing: bool = True) -> None:
        super().__init__()
        self.open_reader = open_reader      # called in the feed thread: SQLite objects stay there
        self.new_pipeline = new_pipeline
        self.start_at = start               # an index, or a function of the reader giving one
        self.speed = speed
        self.playing = playing
        self.reader: Any = None
        self.cursor: Cursor | None = None
        self.count = 0
        self.bookmarks: tuple[tuple[float, str], ...] = ()
        self.moved_at = 0.0                 # monotonic time a sample was last shown

    @property
    def index(self) -> int:
        return self.cursor.index if self.cursor is not None else 0

    # -- thread body ------------------------------------------------------------------------
    def run(self) -> None:
        self.reader = self.open_reader()
        self.cursor = cur = Cursor(self.reader, self.new_pipeline)
        self.count = len(cur)
        if self.count == 0:
            self._post(partial(FeedNotice, "the recording holds no samples", "error"))
            return
        self.bookmarks = bookmark_list(self.reader)
        notice = getattr(self.reader, "notice", None)
        if notice:
            self._post(partial(FeedNotice, notice, "warning"))
        meta = getattr(self.reader, "meta", None)
        self._post(partial(FeedOpened, ReplayInfo(
            count=self.count, start=_get(meta, "start") or cur.clock_at(0),
            end=_get(meta, "end") or cur.clock_at(self.count - 1),
            bookmarks=self.bookmarks, server=_server_text(meta),
            interval=_get(meta, "interval"))))
        start = self.start_at(self.reader) if callable(self.start_at) else self.start_at
        self._move(cur.go(int(start)))
        # Playback is paced by the engine's loop: this feed only says what is due when (`_due`)
        # and what a tick does (`_advance`); commands are applied while the loop waits.
        run_paced(self._advance, self._due, self._stop, self._serve, tick_first=False)

    def _due(self, anchor: float) -> float | None:
        """When the next sample is due: its recorded gap after the one shown, divided by the
        speed (counted from the later of the last tick and the last move a command made); at
        once when the end is reached (to say so); None while paused."""
        cur = self.cursor
        if not self.playing or cur is None:
            return None
        i = cur.index
        nxt = cur.step(1)
        cur.index = i
        if nxt == i:
            return anchor
        return max(anchor, self.moved_at) + cur.gap(i, nxt) / self.speed

    def _advance(self) -> bool:
        cur = self.cursor
        assert cur is not None
        if not self.playing:
            return True
        i = cur.index
        if cur.step(1) == i:
            self.playing = False            # reached the end: stay on the last sample
            self._post_frame()
        else:
            self._move(i)
        return True

    def close(self) -> None:
        if self.reader is not None and hasattr(self.reader, "close"):
            self.reader.close()

    # -- frames ---------------------------------------------------------------------------
    def _move(self, came_from: int) -> None:
        """Show the cursor's sample; say so when the move stepped over damaged samples."""
        assert self.cursor is not None
        i = self.cursor.index
        lo, hi = sorted((came_from, i))
        if hi - lo > 1:
            bad = [j for j in range(lo + 1, hi) if not self.cursor.readable(j)]
            if bad:
                self._post(partial(FeedNotice, f"{len(bad)} damaged sample{'s' if len(bad) > 1 else ''} "
                                   f"{bad[0]}–{bad[-1]} stepped over", "warning"))
        self._post_frame()

    def _post_frame(self) -> None:
        assert self.cursor is not None
        self.moved_at = time.monotonic()
        trend = tuple(self.cursor.history(self.cursor.index, TREND))
        self._post(partial(FrameReady, trend[-1], trend, self.position()))

    def position(self) -> Position:
        assert self.cursor is not None
        cur = self.cursor
        i = cur.index
        before, at = (cur.time_at(i - 1), cur.time_at(i)) if i > 0 else (None, None)
        return Position(mode="replay", index=i, count=self.count,
                        sample_time=cur.clock_at(i), playing=self.playing,
                        speed=self.speed, ended=cur.at_end(i),
                        gap_s=at - before if at is not None and before is not None else None)

    # -- commands (applied in the feed thread while the pacing loop waits) -----------------
    def apply(self, command: FeedCommand) -> None:
        if isinstance(command, Play):
            self.do_play(command.playing)
        elif isinstance(command, Step):
            self.do_step(command.n)
        elif isinstance(command, SeekTime):
            self.do_seek_time(command.t)
        elif isinstance(command, Jump):
            self.do_jump(command.seconds)
        elif isinstance(command, Speed):
            self.do_speed(command.direction)
        elif isinstance(command, NextBookmark):
            self.do_bookmark()

    def do_play(self, playing: bool | None = None) -> None:
        assert self.cursor is not None
        self.playing = (not self.playing) if playing is None else playing
        if self.playing and self.position().ended:
            self._move(self.cursor.go(0))       # play at the end starts over
        else:
            self._post_frame()

    def do_step(self, n: int) -> None:
        assert self.cursor is not None
        self.playing = False
        i = self.cursor.index
        self.cursor.step(n)
        self._move(i)

    def do_seek_index(self, i: int) -> None:
        assert self.cursor is not None
        was = self.cursor.index
        self.cursor.go(i)
        self._move(was)

    def do_seek_time(self, t: float) -> None:
        assert self.cursor is not None
        was = self.cursor.index
        self.cursor.seek(t)
        self._move(was)

    def do_jump(self, seconds: float) -> None:
        assert self.cursor is not None
        cur = self.cursor
        target = cur.nearest(cur.clock_at(cur.index) + seconds)
        if target == cur.index:
            was = cur.index
            cur.step(1 if seconds > 0 else -1)
            self._move(was)
            return
        self.do_seek_index(target)

    def do_speed(self, direction: int) -> None:
        self.speed = step_choice(SPEEDS, self.speed, direction)
        self._post_frame()

    def do_bookmark(self) -> None:
        assert self.cursor is not None
        now = self.cursor.clock_at(self.cursor.index)
        nxt = next(((t, label) for t, label in self.bookmarks if t > now + 1e-6), None)
        if nxt is None and self.bookmarks:
            nxt = self.bookmarks[0]             # wrap around to the first
        if nxt is None:
            self._post(partial(FeedNotice, "this recording has no bookmarks", "warning"))
            return
        self._post(partial(FeedNotice, f"bookmark: {nxt[1] or 'unnamed'}"))
        self.do_seek_time(nxt[0])


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


