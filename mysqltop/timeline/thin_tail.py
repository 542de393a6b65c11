"""ThinTail: a fleet member's newest samples, each one's time for as long as a rule judges, but its
raw rows only while a frame still derives from them.

A fleet (the overview, `serve`) polls every server each second and never steps back: each frame
is derived once, from its sample and the good one before it, and the judge then reads the
*frames* of the last five minutes (core/advice.HORIZON_S), which the cursor caches. Holding
five minutes of raw samples as well (the latch summary alone is ~100 row lists each) doubled
what every full garbage collection walks, for 20 servers ~1.5 M objects, and nothing read them.

So this store keeps, like SampleTail, every sample's time (the judge's spans and the window are
in seconds), and the raw samples a frame can still be derived from: the newest few, the newest
two good ones (a frame's rates come from the good sample before it, however long an outage
lasted) and the newest two with InnoDB mutex rows (a mutex read at a slower cadence diffs against
them). An older sample reads as let go (`sample` raises UserError): the cursor would show its
frame as a gap, which it never has to, since it caches every frame of the window
(PolledTimeline.set_interval sizes its cache to the window at the polling interval).
"""

from __future__ import annotations

from collections import deque

from mysqltop.core.sample import RawSample
from mysqltop.errors import UserError
from mysqltop.timeline.sample_tail import MAX_SAMPLES, SampleTail

RECENT = 4       # the newest raw samples kept whole (a frame reads its own and the one before)


class ThinTail(SampleTail):
    def __init__(self, seconds: float | None, capacity: int = MAX_SAMPLES, recent: int = RECENT) -> None:
        """`seconds`: how much is kept back from the newest (None: all, up to `capacity`)."""
        super().__init__(seconds, capacity)
        self._recent: deque[RawSample] = deque(maxlen=max(2, recent))
        # The newest two samples without an error, and with SHOW ENGINE INNODB MUTEX rows: the
        # newest is the frame being derived, the one before gives its rates.
        self._good: deque[tuple[int, RawSample]] = deque(maxlen=2)
        self._mutex: deque[tuple[int, RawSample]] = deque(maxlen=2)

    def sample(self, i: int) -> RawSample:
        n = len(self)
        if not self._first <= i < n:
            raise IndexError(f"sample {i} is not held (held: {self._first}..{n - 1})")
        k = i - (n - len(self._recent))
        if k >= 0:
            return self._recent[k]
        for j, raw in (*self._good, *self._mutex):
            if j == i:
                return raw
        raise UserError(f"sample {i} was let go once its frame was derived")

    def _hold(self, i: int, raw: RawSample) -> None:
        self._recent.append(raw)
        if raw.error is None:
            self._good.append((i, raw))
            if raw.innodb_mutex:
                self._mutex.append((i, raw))

    def _let_go(self) -> None:
        for kept in (self._good, self._mutex):
            while kept and kept[0][0] < self._first:
                kept.popleft()
