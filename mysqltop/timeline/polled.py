"""PolledTimeline: a polling session's timeline — its store of samples and the one Cursor over it.

The engine appends each sample it reads (`push`) and gets the frame of the newest index, with
its findings, from the same Cursor and Judge that a pause, a step back or a replay reads: live is
the newest index of that cursor. While `following`, the cursor's index tracks the newest sample;
pausing (the live TUI's navigator) is the index staying where it is while samples go on coming.
Nothing is derived or judged twice, and nothing is handed from one frame cache to another.

The store is the live TUI's session history (`live_timeline`: the ring of the last hour, then
what the session recorded) or, headless (`record`, `snapshot`, the fleet, `serve`), a SampleTail
of the longest span a rule judges. A new interval (`set_interval`) keeps the history's length in
seconds: the ring keeps time, not a count of samples, and the cursor's cache is sized to hold a
judgement's span at the new pace.
"""

from __future__ import annotations

from typing import Protocol

from mysqltop.core.advice import HORIZON_S
from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample
from mysqltop.timeline.cursor import CACHE, Cursor, SampleStore
from mysqltop.timeline.ring import SampleRing
from mysqltop.timeline.sample_tail import SampleTail
from mysqltop.timeline.session_store import SessionStore

# Beyond the span judged, the frames a cache keeps for charts and sparklines (views: TREND).
CHART_FRAMES = 300


class GrowingStore(SampleStore, Protocol):
    """A store the engine appends to (SampleTail, SessionStore)."""

    def append(self, raw: RawSample) -> int: ...


class PolledTimeline:
    def __init__(self, store: GrowingStore | None = None, *, advice_every_s: float = 0.0,
                 min_span_s: float | None = 0.0, counters: bool = True) -> None:
        """`advice_every_s`: judge again only when this much sample time has passed, the frames
        in between carrying the last judgement (a fleet of many servers). `min_span_s`: every rule
        judges at least this span (timeline/judge.py). `counters=False`: frames without
        `latch_counters` (core/derive.py)."""
        span = None if min_span_s is None else max(HORIZON_S, min_span_s)
        self.store: GrowingStore = store if store is not None else SampleTail(
            None if span is None else span + 1.0)
        self.cursor = Cursor(self.store, every_s=advice_every_s, min_span_s=min_span_s, counters=counters)
        self.following = True
        self._forgotten = self.store.first

    @property
    def newest(self) -> int:
        """The newest index (-1: none yet)."""
        return len(self.store) - 1

    def push(self, raw: RawSample, *, advise: bool = True) -> Frame:
        """Append `raw`; its frame with its findings (advise=False: without, for a sample that
        only primes the rates of the next)."""
        i = self.store.append(raw)
        if self.following:
            self.cursor.index = i
        self._forget()
        return self.cursor.frame_at(i) if advise else self.cursor.derived(i)

    def frame(self, i: int) -> Frame:
        return self.cursor.frame_at(i)

    def set_interval(self, seconds: float) -> None:
        """Polls every `seconds` from now on: the cursor's cache holds a judgement's span and
        the charts' frames at that pace (the ring keeps its hour by time already)."""
        horizon = self.cursor.judge.horizon_s or HORIZON_S
        self.cursor.cache_size = max(CACHE, int(horizon / max(seconds, 1e-3)) + CHART_FRAMES)

    def _forget(self) -> None:
        """Frames and findings of samples the store let go are of no use to anyone."""
        first = self.store.first
        if first > self._forgotten:
            self.cursor.forget_before(first, self._forgotten)
            self._forgotten = first


def live_timeline(interval: float) -> PolledTimeline:
    """The live TUI's: the session's last hour in memory, then what it records (`--record`, `r`)."""
    timeline = PolledTimeline(SessionStore(SampleRing()))
    timeline.set_interval(interval)
    return timeline
