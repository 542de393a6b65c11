"""Judging: the findings at one position, worked out a slice at a time.

A seek far from anything cached needs the frames of the longest span a rule judges (five minutes:
hundreds of frames) before its findings. The frame itself needs two samples, so it is shown at
once; the thread that owns the store (a feed thread) then derives the span's frames back from the
position in slices between its commands and ticks, and judges once they are all there. A key
pressed meanwhile waits one slice at most. Nothing is thrown away when the position changes: the
frames derived stay in the cursor's cache for the next position's span.
"""

from __future__ import annotations

import time
from typing import Callable

from mysqltop.timeline.cursor import Cursor
from mysqltop.timeline.judge import Judgement

# Frames of the span a position may lack and still be judged at once (a few derives): the next
# sample while playing or stepping, or a span partly derived by an earlier Judging.
AT_ONCE = 8


class Judging:
    def __init__(self, cursor: Cursor, position: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.cursor = cursor
        self.position = position
        self.clock = clock
        self.next = position - 1            # the next frame to derive, going back
        self.stop = cursor.span_start(position)
        self.judgement: Judgement | None = None

    @property
    def pending(self) -> bool:
        return self.judgement is None

    def step(self, budget_s: float) -> None:
        """Derive frames back through the span until `budget_s` has passed (one at least); judge
        when none are left."""
        until = self.clock() + budget_s
        while self.next >= self.stop:
            self.cursor.derived(self.next)
            self.next -= 1
            if self.clock() >= until:
                return
        if self.judgement is None:
            self.judgement = self.cursor.findings_at(self.position)
