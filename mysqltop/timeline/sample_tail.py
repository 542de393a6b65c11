"""SampleTail: a headless session's newest samples as read, as a store the timeline cursor reads.

`record`, `snapshot`, the fleet and `serve` poll without a screen to step back on: their timeline
(polled.PolledTimeline) needs only the samples of the longest span a rule judges, back from the
newest. Held as read (no packing: nothing steps back through them), for `seconds` of monotonic
time and never more than `capacity` samples (a clock that stands still). Indexes are absolute,
the i-th sample of the session, as in every store.
"""

from __future__ import annotations

import bisect
from collections import deque

from mysqltop.core.sample import RawSample

MAX_SAMPLES = 14_400     # an hour at the fastest interval (0.25 s)


class SampleTail:
    """The window's times and indexes, and (here) every raw sample in it; a subclass keeps fewer
    raw samples by overriding `sample` and `_hold`/`_let_go` (thin_tail.ThinTail)."""

    def __init__(self, seconds: float | None, capacity: int = MAX_SAMPLES) -> None:
        """`seconds`: how much is kept back from the newest (None: all, up to `capacity`)."""
        self.seconds = seconds
        self.capacity = max(2, capacity)
        self._samples: deque[RawSample] = deque()
        self._walls: deque[float] = deque()
        self._monos: deque[float] = deque()
        self._first = 0

    @property
    def first(self) -> int:
        return self._first

    def __len__(self) -> int:
        return self._first + len(self._walls)

    def sample(self, i: int) -> RawSample:
        k = i - self._first
        if not 0 <= k < len(self._samples):
            raise IndexError(f"sample {i} is not held (held: {self._first}..{len(self) - 1})")
        return self._samples[k]

    def time_or_none(self, i: int) -> float | None:
        k = i - self._first
        return self._walls[k] if 0 <= k < len(self._walls) else None

    def index_at(self, t: float) -> int:
        """The last sample at or before t (the first held when t is earlier)."""
        return self._first + max(0, bisect.bisect_right(self._walls, t) - 1)

    def append(self, raw: RawSample) -> int:
        """Hold `raw` (the oldest let go past `seconds` or `capacity`); its index."""
        i = len(self)
        self._hold(i, raw)
        self._walls.append(raw.wall)
        self._monos.append(raw.mono)
        newest = raw.mono
        while len(self._walls) > 1 and (
                len(self._walls) > self.capacity
                or (self.seconds is not None and self._monos[0] < newest - self.seconds)):
            self._monos.popleft()
            self._walls.popleft()
            self._first += 1
        self._let_go()
        return i

    def _hold(self, i: int, raw: RawSample) -> None:
        self._samples.append(raw)

    def _let_go(self) -> None:
        """Drop the raw samples before `first`."""
        while len(self._samples) > len(self._walls):
            self._samples.popleft()
