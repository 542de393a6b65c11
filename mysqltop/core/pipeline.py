"""FramePipeline: RawSample → Frame, the one path live, replay and headless share.

Keeps the previous *good* ParsedSample (a stale poll carries no counters, so the next good
frame's rates span the gap — the true average over it) and a window of recent frames for the
views and the advice rules.
"""

from __future__ import annotations

from collections import deque
from typing import Mapping

from mysqltop.core import advice as _advice
from mysqltop.core.derive import derive
from mysqltop.core.frame import Advice, Frame
from mysqltop.core.parsed import ParsedSample, parse_sample
from mysqltop.core.rules.base import RECENT_S
from mysqltop.core.sample import Failure, RawSample


class FramePipeline:
    def __init__(self, window: int = 120, advice_span_s: float = RECENT_S, advice_every_s: float = 0.0) -> None:
        """`advice_span_s`: the span the rules judge (live: the last minute; a report over every
        k-th sample widens it so the rules still see enough frames). `advice_every_s`: judge again
        only when this much sample time has passed, the frames in between carrying the last
        judgement (a fleet of many servers: a finding needs tens of seconds of evidence anyway)."""
        self.advice_span_s = advice_span_s
        self.advice_every_s = advice_every_s
        self._judged: tuple[float, list[Advice]] | None = None    # (sample time, advice) of the last judgement
        self._prev: ParsedSample | None = None
        self._prev_host: RawSample | None = None      # the last sample with host counters, stale or not
        self._prev_mutex: ParsedSample | None = None  # the last sample with SHOW ENGINE INNODB MUTEX rows
        self._window: deque[Frame] = deque(maxlen=max(window, 1))

    @property
    def window(self) -> list[Frame]:
        """Recent frames, oldest first; the last is the newest."""
        return list(self._window)

    @property
    def last(self) -> Frame | None:
        """The newest frame (no copy of the window)."""
        return self._window[-1] if self._window else None

    def forget_previous(self) -> None:
        """The next frame has no rates (a new recording segment), the advice window stays."""
        self._prev = None
        self._prev_host = None
        self._prev_mutex = None

    def push(self, raw: RawSample, *, advise: bool = True, polls: int = 1, judged: bool = True) -> Frame:
        """The frame of `raw`. advise=False skips the rules (a replay warming its window up: only
        the last frame's advice is shown). `polls`: polls since the previous sample pushed (see
        derive). judged=False keeps the frame out of the window the rules judge (a sample before
        the range a timeline was opened at: it gives rates and charts, not evidence)."""
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
        if judged:
            self._window.append(frame)
        if advise:
            last = self._judged
            if last is not None and 0.0 <= frame.time - last[0] < self.advice_every_s:
                frame.advice = list(last[1])
            else:
                advise_into(frame, list(self._window), raw.variables, self.advice_span_s)
                self._judged = (frame.time, frame.advice)
        return frame


def advise_into(frame: Frame, window: list[Frame], variables: Mapping[str, str],
                span_s: float = RECENT_S) -> None:
    """frame.advice over `window` (oldest first, ending with `frame`), as push() computes it."""
    try:
        frame.advice = _advice.advise(window, variables, span_s)
    except Exception as exc:  # noqa: BLE001 — a broken rule must not cost the frame
        frame.errors["advice"] = f"{type(exc).__name__}: {exc}"[:300]
