"""FramePipeline: RawSample → Frame, the one path live, replay and headless share.

Keeps the previous *good* ParsedSample (a stale poll carries no counters, so the next good
frame's rates span the gap — the true average over it), the recent frames as they were derived
(as far back as the longest span a rule judges: core/advice.HORIZON_S) and a Judge over them.
`push` hands out the frame composed with its findings (core/judge.compose); the derived frames
the judge reads are never changed.
"""

from __future__ import annotations

from collections import deque

from mysqltop.core.derive import derive
from mysqltop.core.frame import Frame
from mysqltop.timeline.judge import Judge, Judgement, compose
from mysqltop.core.parsed import ParsedSample, parse_sample
from mysqltop.core.sample import Failure, RawSample

# A bound on the frames held whatever their times (a clock that stands still): an hour at 0.25 s.
MAX_FRAMES = 14_400


class FramePipeline:
    def __init__(self, *, advice_every_s: float = 0.0, min_span_s: float | None = 0.0) -> None:
        """`advice_every_s`: judge again only when this much sample time has passed, the frames
        in between carrying the last judgement (a fleet of many servers). `min_span_s`: every
        rule judges at least this span (a report over every k-th sample; see timeline/judge.py)."""
        self._prev: ParsedSample | None = None
        self._prev_host: RawSample | None = None      # the last sample with host counters, stale or not
        self._prev_mutex: ParsedSample | None = None  # the last sample with SHOW ENGINE INNODB MUTEX rows
        self._frames: deque[Frame] = deque()           # derived frames, positions _first.._first+len-1
        self._first = 0
        self.judge = Judge(self, every_s=advice_every_s, min_span_s=min_span_s)

    # -- FrameSeries (what the judge reads) ---------------------------------------------------
    @property
    def lo(self) -> int:
        return self._first

    def frame_at_position(self, i: int) -> Frame | None:
        k = i - self._first
        return self._frames[k] if 0 <= k < len(self._frames) else None

    @property
    def window(self) -> list[Frame]:
        """The derived frames held, oldest first (the newest last)."""
        return list(self._frames)

    def recent(self) -> list[tuple[Frame, Judgement | None]]:
        """The derived frames held, oldest first, each with its findings when judged: what a
        cursor over the same samples adopts instead of deriving and judging them again."""
        return [(f, self.judge.cached(self._first + k)) for k, f in enumerate(self._frames)]

    def forget_previous(self) -> None:
        """The next frame has no rates (a new recording segment); the frames judged stay."""
        self._prev = None
        self._prev_host = None
        self._prev_mutex = None

    def derive(self, raw: RawSample, polls: int = 1) -> Frame:
        """The frame of `raw` from the previous good sample, held for the judge (no findings)."""
        cur = parse_sample(raw) if raw.error is None else ParsedSample(raw)
        try:
            frame = derive(self._prev, cur, self._prev_host, polls, self._prev_mutex)
        except Exception as exc:  # noqa: BLE001 — a derive bug on odd input must not end a live session
            frame = Frame(time=raw.wall, stale=True, errors={"derive": f"{type(exc).__name__}: {exc}"[:300]},
                          failure=Failure.OTHER.value)
        if raw.error is None:
            self._prev = cur
        if raw.host is not None:
            self._prev_host = raw
        if cur.mutex:
            self._prev_mutex = cur
        self._hold(frame)
        return frame

    def push(self, raw: RawSample, *, advise: bool = True, polls: int = 1) -> Frame:
        """The frame of `raw` with its findings. advise=False leaves the findings out (a sample
        that only primes the rates of the next). `polls`: polls since the previous sample pushed
        (see derive)."""
        frame = self.derive(raw, polls)
        if not advise:
            return frame
        return compose(frame, self.judge.at(self._first + len(self._frames) - 1, raw.variables))

    def _hold(self, frame: Frame) -> None:
        self._frames.append(frame)
        horizon = self.judge.horizon_s
        while len(self._frames) > 1 and (
                len(self._frames) > MAX_FRAMES
                or (horizon is not None and self._frames[0].time < frame.time - horizon - 1.0)):
            self._frames.popleft()
            self._first += 1

