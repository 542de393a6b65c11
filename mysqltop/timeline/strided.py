"""Strided: a report over hours reads every k-th sample, through a Cursor like any other timeline.

The points of a plan (range.Range.points: keyframes, segment ends) are a store of their own:
point k is sample plan[k] of the store under them. A Cursor over the points derives each from the
point before — counters are cumulative, so every rate is the exact time-weighted average over its
span; gauges (pending IO, history length, lock trees) are as at the point — and its judge sees
at least `min_span_s` of points, so the rules still see enough of them. A point that starts a
recording segment takes no rates from the one before (the pause between two incident windows).
"""

from __future__ import annotations

from typing import Callable, Iterator

from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample
from mysqltop.timeline.cursor import Cursor, SampleStore


class _Points:
    """The plan's samples by point number (SampleStore), and their spacing in polls (Spacing)."""

    def __init__(self, store: SampleStore, plan: list[int], primer: int | None,
                 starts: Callable[[int], bool]) -> None:
        self.store = store
        self.plan = ([primer] if primer is not None else []) + plan
        self.starts = starts
        self._times: dict[int, float | None] = {}

    @property
    def first(self) -> int:
        return 0

    def __len__(self) -> int:
        return len(self.plan)

    def sample(self, k: int) -> RawSample:
        return self.store.sample(self.plan[k])

    def time_or_none(self, k: int) -> float | None:
        if not 0 <= k < len(self.plan):
            return None
        if k not in self._times:
            self._times[k] = self.store.time_or_none(self.plan[k])
        return self._times[k]

    def index_at(self, t: float) -> int:
        lo, hi = 0, len(self.plan) - 1
        best = 0
        while lo <= hi:
            m = (lo + hi) // 2
            tm = self.time_or_none(m)
            if tm is not None and tm <= t:
                best, lo = m, m + 1
            else:
                hi = m - 1
        return best

    def polls(self, j: int, k: int) -> int:
        return max(1, self.plan[k] - self.plan[j])

    def restarts(self, k: int) -> bool:
        return self.starts(self.plan[k])


def strided(store: SampleStore, plan: list[int], min_span_s: float, primer: int | None = None,
            starts: Callable[[int], bool] = lambda i: False) -> Iterator[tuple[int, Frame, RawSample | None]]:
    """(index, frame, sample) at each index of `plan`, each frame derived from the plan's point
    before; `primer`: the sample before the first point, for its rates; `starts(i)`: sample i
    begins a recording segment. A damaged point: (index, a stale frame, None). Not cached beyond
    the span judged: a strided frame is not the frame of its moment."""
    points = _Points(store, plan, primer, starts)
    cursor = Cursor(points, min_span_s=min_span_s, spacing=points)
    first = 1 if primer is not None else 0
    for k in range(first, len(points)):
        raw = cursor.sample(k)
        frame = cursor.frame_at(k)
        yield points.plan[k], frame, raw
