"""A timeline's deadlocks as of each of its moments: the DeadlockBook fold (core/deadlocks, the one
`report` and `snapshot` use) run over the frames in order, keeping what the book held each time it
changed, so the book up to any moment already folded is a lookup, never a fold again.

Live, the feed folds each frame as it makes it; a replay reads the recording's frames a slice at a
time in its feed thread (deadlock_reading.py). Folding and looking up happen in that one thread;
what `at` returns is a value the view only reads (built once per change, not per look-up). A change
keeps the count of deadlocks the book had kept (its `seen` list only grows, its entries never
change) and copies of the patterns whose count moved, the others shared with the change before;
frames are never touched.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace

from mysqltop.core.deadlocks import DeadlockBook, DeadlockPattern
from mysqltop.core.frame import Frame


@dataclass(frozen=True)
class DeadlocksAt:
    """The book of the frames from the first folded (`since`, its epoch) up to sample `index`:
    `samples` samples, damaged and stale ones included. Read only."""

    book: DeadlockBook
    since: float
    samples: int
    index: int


@dataclass(frozen=True)
class _Change:
    seen: int                                # entries of the book's `seen` list then
    patterns: dict[str, DeadlockPattern]     # as they were then; read only
    captured: int
    dropped: int
    counted: float | None


class DeadlockHistory:
    def __init__(self) -> None:
        self._book = DeadlockBook()
        self._at: list[int] = []             # sample index of each change, ascending
        self._changes: list[_Change] = []
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
        before = (b.captured, b.dropped, b.counted, len(b.seen))
        new = b.add(frame)
        if self._first is None:
            self._first, self._since = i, frame.time
        self._last = i
        if (b.captured, b.dropped, b.counted, len(b.seen)) == before:
            return
        patterns = self._changes[-1].patterns if self._changes else {}
        if new is not None and new.signature in b.patterns and not new.prior:
            patterns = {**patterns, new.signature: replace(b.patterns[new.signature])}
        self._at.append(i)
        self._changes.append(_Change(len(b.seen), patterns, b.captured, b.dropped, b.counted))

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
            self._built = (c, DeadlockBook(seen=self._book.seen[:c.seen], patterns=dict(c.patterns),
                                           captured=c.captured, dropped=c.dropped, counted=c.counted))
        return self._built[1]

    def forget_before(self, lo: int) -> None:
        """No moment before sample lo will be asked for (live history dropped it): keep one change
        before it, the book there, and drop the rest."""
        k = bisect.bisect_right(self._at, lo) - 1
        if k > 0:
            del self._at[:k], self._changes[:k]
