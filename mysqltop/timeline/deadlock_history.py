"""A timeline's deadlocks as of each of its moments: the DeadlockBook fold (core/deadlocks, the one
`report` and `snapshot` use) run over the frames in order, keeping what the book held each time it
changed, so the book up to any moment already folded is a lookup, never a fold again.

Live, the feed folds each frame as it makes it; a replay reads the recording's frames a slice at a
time in its feed thread (deadlock_reading.py). Folding and looking up happen in that one thread;
what `at` returns is a value the view only reads (built once per change, not per look-up). A change
keeps the count of deadlocks the book had kept (its `seen` list only grows, its entries never
change) and a copy of the pattern whose count moved, filed under that pattern: the book of any
change is a look-up per pattern, and memory grows by one small entry per change (a whole patterns
dict copied per change grew as the square: 69 MB at 2,000 deadlocks of distinct shapes). The
deadlocks listed are the newest MAX_KEPT, read from a log of the newest few hundred; frames are
never touched.
"""

from __future__ import annotations

import bisect
import itertools
from collections import deque
from dataclasses import dataclass, replace

from mysqltop.core.deadlocks import MAX_KEPT, DeadlockBook, DeadlockPattern, SeenDeadlock
from mysqltop.core.frame import Frame


@dataclass(frozen=True)
class DeadlocksAt:
    """The book of the frames from the first folded (`since`, its epoch) up to sample `index`:
    `samples` samples, damaged and stale ones included. Read only."""

    book: DeadlockBook
    since: float
    samples: int
    index: int


LOG_SPARE = 56          # deadlocks the log holds past MAX_KEPT (moments a little back in time)


@dataclass(frozen=True)
class _Change:
    number: int                              # changes made before this one (never renumbered)
    total: int                               # deadlocks the book had taken (kept or not)
    captured: int
    unpatterned: int
    counted: float | None


class DeadlockHistory:
    def __init__(self) -> None:
        self._book = DeadlockBook()
        self._at: list[int] = []             # sample index of each change, ascending
        self._changes: list[_Change] = []
        self._made = 0                       # changes made so far
        # Each deadlock the book took, the newest MAX_KEPT + LOG_SPARE: a change's book lists the
        # newest MAX_KEPT it had, read from here, so nothing is copied per change.
        self._log: deque[SeenDeadlock] = deque(maxlen=MAX_KEPT + LOG_SPARE)
        self._taken = 0                      # deadlocks appended to the log, ever
        # Each pattern as it was after each change that moved it (change numbers ascending): the
        # patterns of any change are a look-up per pattern, and the memory one entry per change.
        self._versions: dict[str, tuple[list[int], list[DeadlockPattern]]] = {}
        self._built: tuple[_Change, DeadlockBook] | None = None    # the last change's book, as handed out
        self._first: int | None = None       # index and epoch of the first frame folded
        self._since = 0.0
        self._last = -1                      # index of the last frame folded

    @property
    def folded(self) -> int | None:
        """The index of the last frame folded (None: none yet)."""
        return self._last if self._first is not None else None

    def add(self, i: int, frame: Frame) -> None:
        """Fold the frame of sample i; samples come in order."""
        b = self._book
        before = (b.captured, b.dropped, b.counted, b.unpatterned, len(b.seen))
        new = b.add(frame)
        if self._first is None:
            self._first, self._since = i, frame.time
        self._last = i
        if new is not None:
            self._log.append(new)
            self._taken += 1
        if (b.captured, b.dropped, b.counted, b.unpatterned, len(b.seen)) == before:
            return
        number = self._made
        self._made += 1
        if new is not None and new.signature in b.patterns and not new.prior:
            numbers, versions = self._versions.setdefault(new.signature, ([], []))
            numbers.append(number)
            versions.append(replace(b.patterns[new.signature]))
        self._at.append(i)
        self._changes.append(_Change(number, self._taken, b.captured, b.unpatterned, b.counted))

    def at(self, i: int | None = None) -> DeadlocksAt | None:
        """The book up to sample i (None: the last folded); None while the fold has not reached it."""
        if self._first is None or (i is not None and i > self._last):
            return None
        i = self._last if i is None else i
        k = bisect.bisect_right(self._at, i) - 1
        return DeadlocksAt(self._book_of(self._changes[k]) if k >= 0 else DeadlockBook(), self._since,
                           max(0, i - self._first + 1), i)

    def _book_of(self, c: _Change) -> DeadlockBook:
        if self._built is None or self._built[0] is not c:
            oldest = self._taken - len(self._log)          # the log's first entry, counted from the start
            lo = max(c.total - MAX_KEPT, oldest)
            seen = list(itertools.islice(self._log, lo - oldest, max(lo, c.total) - oldest))
            patterns = {}
            for sig, (numbers, versions) in self._versions.items():
                k = bisect.bisect_right(numbers, c.number) - 1
                if k >= 0:
                    patterns[sig] = versions[k]
            # `dropped`: those taken but not listed (older than the newest MAX_KEPT, or, for a
            # moment so far back that the log no longer holds its newest, those too)
            self._built = (c, DeadlockBook(seen=seen, patterns=patterns, captured=c.captured,
                                           dropped=c.total - len(seen), unpatterned=c.unpatterned,
                                           counted=c.counted, prior=self._book.prior))
        return self._built[1]

    def forget_before(self, lo: int) -> None:
        """No moment before sample lo will be asked for (live history dropped it): keep one change
        before it, the book there, and drop the rest."""
        k = bisect.bisect_right(self._at, lo) - 1
        if k > 0:
            del self._at[:k], self._changes[:k]
            first = self._changes[0].number
            for numbers, versions in self._versions.values():      # keep each pattern's version then
                j = bisect.bisect_right(numbers, first) - 1
                if j > 0:
                    del numbers[:j], versions[:j]
