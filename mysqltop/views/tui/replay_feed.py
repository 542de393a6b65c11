"""The replay feed: frames from a recording through the same FramePipeline as live.

Frames are computed in order where possible (push the next sample into the running pipeline).
After a seek the pipeline is rebuilt from the sample before the target (pair(i)), and the
frames before it are filled in so charts and sparklines have their history at once. Computed
frames are cached by index, so stepping back and forth costs nothing after the first pass.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

from mysqltop.core.frame import Frame
from mysqltop.views.tui.feed_commands import FeedCommand, Jump, NextBookmark, Play, SeekTime, Speed, Step
from mysqltop.views.tui.feeds import SPEEDS, TREND, Feed, step_choice
from mysqltop.views.tui.messages import FeedNotice, FeedOpened, FrameReady, Position, ReplayInfo

BACKFILL = 120        # frames computed behind a seek target for trends (cheap: off the UI thread)
CACHE = 900           # computed frames kept
MAX_GAP = 10.0        # longest real wait between two samples during playback (s)


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
        self.count = 0
        self.index = 0
        self.bookmarks: tuple[tuple[float, str], ...] = ()
        self._pipeline: Any = None
        self._pipeline_at = -2               # index of the last sample pushed into _pipeline
        self._cache: OrderedDict[int, Frame] = OrderedDict()

    # -- thread body ------------------------------------------------------------------------
    def run(self) -> None:
        self.reader = self.open_reader()
        self.count = len(self.reader)
        if self.count == 0:
            self._post(FeedNotice("the recording holds no samples", "error"))
            return
        self.bookmarks = bookmark_list(self.reader)
        meta = getattr(self.reader, "meta", None)
        self._post(FeedOpened(ReplayInfo(
            count=self.count, start=self.reader.time_at(0), end=self.reader.time_at(self.count - 1),
            bookmarks=self.bookmarks, server=_server_text(meta),
            interval=_get(meta, "interval"))))
        start = self.start_at(self.reader) if callable(self.start_at) else self.start_at
        self._show(max(0, min(self.count - 1, int(start))))
        while not self._stop.is_set():
            if self.playing and self.index < self.count - 1:
                gap = self.reader.time_at(self.index + 1) - self.reader.time_at(self.index)
                wait = max(0.0, min(MAX_GAP, gap)) / self.speed
                commands = self._wait(wait)
                if commands:
                    self._apply_all(commands)   # a command restarts the wait for the next sample
                else:
                    self._show(self.index + 1)
            else:
                if self.playing:
                    self.playing = False        # reached the end: stay on the last sample
                    self._post_frame()
                self._apply_all(self._wait(None))

    def close(self) -> None:
        if self.reader is not None and hasattr(self.reader, "close"):
            self.reader.close()

    # -- frames ---------------------------------------------------------------------------
    def _frame_at(self, i: int) -> Frame:
        cached = self._cache.get(i)
        if cached is not None:
            return cached
        try:
            if self._pipeline_at != i - 1:
                self._pipeline = self.new_pipeline()
                if i > 0:
                    self._pipeline.push(self.reader.sample(i - 1))
            frame = self._pipeline.push(self.reader.sample(i))
            self._pipeline_at = i
        except Exception as exc:  # a damaged sample: show it as a stale moment, keep replaying
            frame = Frame(time=self.reader.time_at(i), stale=True,
                          errors={"recording": getattr(exc, "message", None) or str(exc)})
            self._pipeline_at = -2
        self._cache[i] = frame
        if len(self._cache) > CACHE:
            self._cache.popitem(last=False)
        return frame

    def _show(self, i: int) -> None:
        self.index = i
        if i not in self._cache and self._pipeline_at != i - 1:
            # A jump: post the target at once, then fill in the history behind it.
            self._frame_at(i)
            self._post_frame(backfill=False)
            # Recompute it after its history so the pipeline is positioned for the next step.
            del self._cache[i]
        self._post_frame()

    def _post_frame(self, backfill: bool = True) -> None:
        i = self.index
        lo = max(0, i - BACKFILL + 1) if backfill else i
        frames = []
        for j in range(lo, i + 1):
            if j not in self._cache and j < i and not self._commands.empty():
                return      # the user moved on (key repeat, another seek): history can wait
            frames.append(self._frame_at(j))
        trend = tuple(frames[-TREND:])
        self._post(FrameReady(trend[-1], trend, self.position()))

    def position(self) -> Position:
        return Position(mode="replay", index=self.index, count=self.count,
                        sample_time=self.reader.time_at(self.index), playing=self.playing,
                        speed=self.speed, ended=self.index >= self.count - 1)

    # -- commands (applied in the feed thread, between samples) ----------------------------
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
        self.playing = (not self.playing) if playing is None else playing
        if self.playing and self.index >= self.count - 1:
            self._show(0)                       # play at the end starts over
        else:
            self._post_frame()

    def do_step(self, n: int) -> None:
        self.playing = False
        self._show(max(0, min(self.count - 1, self.index + n)))

    def do_seek_index(self, i: int) -> None:
        self._show(max(0, min(self.count - 1, int(i))))

    def do_seek_time(self, t: float) -> None:
        self.do_seek_index(self.reader.index_at(t))

    def do_jump(self, seconds: float) -> None:
        target = self._nearest(self.reader.time_at(self.index) + seconds)
        if target == self.index:
            target += 1 if seconds > 0 else -1
        self.do_seek_index(target)

    def _nearest(self, t: float) -> int:
        """The sample closest to t: samples are never exactly an interval apart, so 'at or before'
        made `]` then `[` land one sample early whenever the later sample came a little late."""
        i = self.reader.index_at(t)
        if i + 1 < self.count and abs(self.reader.time_at(i + 1) - t) < abs(t - self.reader.time_at(i)):
            return i + 1
        return i

    def do_speed(self, direction: int) -> None:
        self.speed = step_choice(SPEEDS, self.speed, direction)
        self._post_frame()

    def do_bookmark(self) -> None:
        now = self.reader.time_at(self.index)
        nxt = next(((t, label) for t, label in self.bookmarks if t > now + 1e-6), None)
        if nxt is None and self.bookmarks:
            nxt = self.bookmarks[0]             # wrap around to the first
        if nxt is None:
            self._post(FeedNotice("this recording has no bookmarks", "warning"))
            return
        self._post(FeedNotice(f"bookmark: {nxt[1] or 'unnamed'}"))
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


