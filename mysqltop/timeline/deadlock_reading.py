"""Reading a store's deadlocks into a DeadlockHistory from its oldest sample on, a slice at a time,
so the thread that owns the store (a replay's feed thread: SQLite objects stay in theirs) does it
between its commands and ticks, and the `d` view of any moment is then a lookup.

Its own Cursor with a small cache derives each frame as replay and `report` do (the same two
samples), so reading a whole recording neither fills nor evicts the cache of the cursor that moves
through it.
"""

from __future__ import annotations

import time
from typing import Callable

from mysqltop.timeline.cursor import Cursor, SampleStore
from mysqltop.timeline.deadlock_history import DeadlockHistory


class DeadlockReading:
    def __init__(self, store: SampleStore, history: DeadlockHistory,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.cursor = Cursor(store, cache=2)
        self.history = history
        self.clock = clock
        self.next = store.first             # the next sample to fold

    @property
    def total(self) -> int:
        """Samples to read, from the oldest held."""
        return len(self.cursor) - self.cursor.lo

    @property
    def read(self) -> int:
        return self.next - self.cursor.lo

    @property
    def pending(self) -> bool:
        return self.next < len(self.cursor)

    def step(self, budget_s: float) -> None:
        """Fold samples until `budget_s` has passed (one at least) or none are left."""
        until = self.clock() + budget_s
        while self.pending:
            self.history.add(self.next, self.cursor.derived(self.next))
            self.next += 1
            if self.clock() >= until:
                return
