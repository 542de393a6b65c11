"""Cursor: the one way to move through a store of samples and get frames out of it.

A store is a recording file (RecordingReader) or the live session's samples (session_store: the
recent ones in memory, history.SampleRing, then the older ones the session recorded): both hand
out RawSamples by index. The live TUI paused in its history, the replay TUI, `snapshot --replay`
and `report` all go through a Cursor, so a moment gives the same frame — numbers *and* advice —
however it was reached (live is the newest index):

- `frame_at(i)` derives sample i with the pipeline warmed up on the `window` samples before it
  (the frames the advice rules judge), so after any seek, step or bookmark jump the advice is
  what a replay played from the start, and `report`, show for that moment. Frames are cached;
  frames made on the way (warm-up) skip the rules, and get their advice from the cached frames
  before them when shown (stepping back costs no derive).
- `seek(t)`, `nearest(t)` and `step(n)` land on readable samples only: a damaged sample is a
  stale moment the cursor steps over, in both directions, never a wall. `frame_at` of a damaged
  index gives a stale frame saying why, for charts that show the gap.
- `gap(i, j)`: the recorded time between two samples for pacing (0 across a segment start, so
  the pause between two incident windows is not replayed).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Iterator, Protocol

from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample
from mysqltop.errors import UserError

WINDOW = 120          # samples before a target pushed to warm the pipeline (its advice window)
CACHE = 900           # frames kept (exact ones and warm-up ones, each)


class Pipeline(Protocol):
    def push(self, raw: RawSample, *, advise: bool = True, judged: bool = True) -> Frame: ...


class SampleStore(Protocol):
    """Samples by absolute index: `first` (the oldest held) to len() - 1. sample(i) raises
    UserError when sample i is damaged."""

    @property
    def first(self) -> int: ...
    def __len__(self) -> int: ...
    def sample(self, i: int) -> RawSample: ...
    def time_or_none(self, i: int) -> float | None: ...
    def index_at(self, t: float) -> int: ...


def _new_pipeline() -> Pipeline:
    from mysqltop.core.pipeline import FramePipeline

    return FramePipeline(window=WINDOW)


class Cursor:
    def __init__(self, store: SampleStore, new_pipeline: Callable[[], Pipeline] | None = None, *,
                 window: int = WINDOW, cache: int = CACHE, floor: int = 0) -> None:
        self.store = store
        # A timeline opened at --start (report, snapshot --replay, the replay TUI alike) judges only
        # from there: samples before `floor` are warmed up for rates and charts but kept out of the
        # window the rules judge, so a relief window is not judged on the storm before it.
        self.floor = max(0, floor)
        self.new_pipeline = new_pipeline or _new_pipeline
        self.window = max(0, window)
        self.cache_size = max(1, cache)
        self.index = 0
        self._exact: OrderedDict[int, Frame] = OrderedDict()
        self._warm: OrderedDict[int, Frame] = OrderedDict()
        self._pipe: Pipeline | None = None
        self._pipe_at = -2        # last index pushed (or stepped over) in _pipe
        self._asked = -1          # the index frame_at was last asked for

    def __len__(self) -> int:
        return len(self.store)

    # -- samples ----------------------------------------------------------------------------
    def sample(self, i: int) -> RawSample | None:
        """Sample i, or None when it is damaged."""
        try:
            return self.store.sample(i)
        except (UserError, IndexError):   # damaged (or a damaged page under it), or dropped out of memory
            return None

    @property
    def lo(self) -> int:
        """The oldest index the store still holds."""
        return self.store.first

    def readable(self, i: int) -> bool:
        return self.lo <= i < len(self) and self.sample(i) is not None

    def time_at(self, i: int) -> float | None:
        """Epoch of sample i (None: its time is damaged too)."""
        return self.store.time_or_none(i)

    def clock_at(self, i: int) -> float:
        """A time to show for index i: its own, else the nearest readable neighbour's."""
        for j in (i, i - 1, i + 1):
            if self.lo <= j < len(self):
                t = self.time_at(j)
                if t is not None:
                    return t
        k = self._readable_from(i, -1)
        k = k if k is not None else self._readable_from(i, 1)
        t = self.time_at(k) if k is not None else None
        return t if t is not None else 0.0

    def _readable_from(self, i: int, direction: int, lo: int | None = None, hi: int | None = None) -> int | None:
        """The first readable index from i (included) going `direction`, within [lo, hi]."""
        lo = self.lo if lo is None else lo
        hi = len(self) - 1 if hi is None else hi
        j = i
        while lo <= j <= hi:
            if self.readable(j):
                return j
            j += direction
        return None

    def next_readable(self, i: int, direction: int) -> int | None:
        """The readable sample after i (direction 1) or before it (-1), None at the end."""
        return self._readable_from(i + direction, direction)

    # -- moving -----------------------------------------------------------------------------
    def clamp(self, i: int) -> int:
        """Index i if readable, else the next readable one after it, else the last before it."""
        i = max(self.lo, min(len(self) - 1, i))
        j = self._readable_from(i, 1)
        if j is None:
            j = self._readable_from(i, -1)
        return i if j is None else j

    def go(self, i: int) -> int:
        self.index = self.clamp(i)
        return self.index

    def step(self, n: int) -> int:
        """Move n readable samples (negative: back), stepping over damaged ones; stops at the ends."""
        j = self.index
        direction = 1 if n > 0 else -1
        for _ in range(abs(n)):
            k = self._readable_from(j + direction, direction)
            if k is None:
                break
            j = k
        self.index = j
        return j

    def seek(self, t: float) -> int:
        """Go to the last readable sample at or before t (the first one when t is before them)."""
        i = self.store.index_at(t)
        j = self._readable_from(i, -1)
        return self.go(i if j is None else j)

    def nearest(self, t: float) -> int:
        """The readable sample closest to t (not moving there). Samples are never exactly an
        interval apart, so 'at or before' landed one early whenever the later one came late."""
        i = self.store.index_at(t)
        before = self._readable_from(i, -1)
        after = self._readable_from(i + 1, 1)
        best: int | None = None
        for k in (before, after):
            if k is None:
                continue
            tk = self.time_at(k)
            if tk is None:
                continue
            tb = self.time_at(best) if best is not None else None
            if best is None or tb is None or abs(tk - t) < abs(tb - t):
                best = k
        return self.clamp(i) if best is None else best

    def at_end(self, i: int | None = None) -> bool:
        """No readable sample after i (default: the cursor's index)."""
        return self._readable_from((self.index if i is None else i) + 1, 1) is None

    def gap(self, i: int, j: int) -> float:
        """Recorded seconds between samples i and j (monotonic, 0 across a segment start)."""
        a, b = self.sample(i), self.sample(j)
        if a is None or b is None:
            ta, tb = self.time_at(i), self.time_at(j)
            return max(0.0, tb - ta) if ta is not None and tb is not None else 0.0
        return max(0.0, b.mono - a.mono)

    # -- frames -----------------------------------------------------------------------------
    def _warm_from(self, i: int) -> int:
        return max(self.lo, i - self.window)

    def frame_at(self, i: int) -> Frame:
        """Frame of sample i as a replay from the start would show it (cached)."""
        hit = self._exact.get(i)
        if hit is not None:
            self._exact.move_to_end(i)
            return hit
        hit = self._advised_from_cache(i)
        if hit is not None:
            return hit
        backwards, self._asked = i < self._asked, i
        if self._pipe is None or self._pipe_at != i - 1:
            self._pipe = self.new_pipeline()
            # Stepping back: warm up a window further, so the next `window` steps back are
            # judged over cached frames (no derive) instead of each warming up again.
            for j in range(self._warm_from(i - self.window if backwards else i), i):
                self._push(j, exact=False)
        return self._push(i, exact=True)

    def frames(self, lo: int, hi: int) -> Iterator[tuple[int, Frame]]:
        """(index, frame) for each readable sample in [lo, hi], in order (warm-up included)."""
        for i in range(lo, hi + 1):
            frame = self.frame_at(i)
            if not _damaged(frame):
                yield i, frame

    def strided(self, plan: list[int], advice_span_s: float,
                primer: int | None = None) -> Iterator[tuple[int, Frame, RawSample | None]]:
        """(index, frame, sample) at each index of `plan` (a report over every k-th sample), each
        derived from the plan's point before: counters are cumulative, so every rate is the exact
        time-weighted average over its span; gauges (pending IO, history length, lock trees) are as
        at the point. The rules judge `advice_span_s`, so they still see enough frames. `primer`:
        the sample before the first point, for its rates. A damaged point: (index, a stale frame,
        None). Not cached: a strided frame is not the frame of its moment."""
        from mysqltop.core.pipeline import FramePipeline

        pipe = FramePipeline(advice_span_s=advice_span_s)
        prev: int | None = None
        if primer is not None and (raw := self.sample(primer)) is not None:
            pipe.push(raw, advise=False)
            prev = primer
        starts = getattr(self.store, "is_segment_start", None)
        for i in plan:
            raw = self.sample(i)
            if raw is None:
                yield i, self._damaged_frame(i), None
                continue
            if starts is not None and starts(i):
                pipe.forget_previous()
                prev = None
            polls = 1 if prev is None else i - prev
            yield i, pipe.push(raw, polls=polls), raw
            if raw.error is None:       # a stale sample carries no counters: the next spans it
                prev = i

    def history(self, i: int, n: int) -> list[Frame]:
        """Up to n frames ending at i (i's own is exact), for charts and sparklines."""
        frame = self.frame_at(i)
        out = []
        for j in range(max(self.lo, i - n + 1), i):
            hit = self._exact.get(j) or self._warm.get(j)
            if hit is not None:
                out.append(hit)
        out.append(frame)
        return out

    def _push(self, j: int, *, exact: bool) -> Frame:
        assert self._pipe is not None
        hit = self._exact.get(j)
        raw = self.sample(j)
        if raw is None:
            frame = hit or self._damaged_frame(j)
            exact = True
        else:
            # Warm-up frames: numbers exact, advice left out (worked out from the cache if shown).
            frame = self._pipe.push(raw, advise=exact, judged=j >= self.floor)
        self._pipe_at = j
        self._store(j, frame, exact)
        return frame

    def _store(self, j: int, frame: Frame, exact: bool) -> None:
        store = self._exact if exact else self._warm
        store[j] = frame
        if len(store) > self.cache_size:
            store.popitem(last=False)

    def _advised_from_cache(self, i: int) -> Frame | None:
        """A warm-up frame made exact: its advice over the cached frames before it (the window
        the pipeline held), without deriving anything again. None when some are not cached."""
        frame = self._warm.get(i)
        raw = self.sample(i) if frame is not None else None
        if frame is None or raw is None:
            return None
        window = [frame]
        j, stop = i - 1, max(self.lo, self.floor)
        while len(window) < self.window and j >= stop:
            f = self._exact.get(j) or self._warm.get(j)
            if f is None:
                return None
            if not _damaged(f):
                window.append(f)
            j -= 1
        window.reverse()
        from mysqltop.core.pipeline import advise_into

        advise_into(frame, window, raw.variables)
        del self._warm[i]
        self._store(i, frame, True)
        return frame

    def _damaged_frame(self, i: int) -> Frame:
        try:
            self.store.sample(i)
            why = "damaged sample"
        except UserError as exc:
            why = exc.message
        return Frame(time=self.clock_at(i), stale=True, errors={"recording": why})


def _damaged(frame: Frame) -> bool:
    return frame.stale and "recording" in frame.errors
