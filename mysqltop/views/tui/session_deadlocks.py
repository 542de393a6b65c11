"""The live session's deadlocks: a DeadlockBook folded as the feed makes each frame, so the `d`
view lists the whole session without deriving its frames again when it opens.

Frames stay values of two samples; the fold lives here, beside the feed that hands them out. The
feed thread folds, the UI thread reads: it is given a copy, made only when the book changed (a
new deadlock, or the server's counter moved), never the book being folded.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mysqltop.core.deadlocks import DeadlockBook
from mysqltop.core.frame import Frame


@dataclass(frozen=True)
class SessionDeadlocks:
    """What the session's frames held, from `since` (epoch of its first frame) over `samples`."""

    book: DeadlockBook
    since: float
    samples: int


class SessionFold:
    def __init__(self) -> None:
        self._book = DeadlockBook()
        self._copy = DeadlockBook()
        self._since: float | None = None
        self._samples = 0

    def add(self, frame: Frame) -> SessionDeadlocks:
        b = self._book
        before = (b.captured, b.dropped, b.counted, len(b.seen))
        b.add(frame)
        if self._since is None:
            self._since = frame.time
        self._samples += 1
        if (b.captured, b.dropped, b.counted, len(b.seen)) != before:
            self._copy = _copy(b)
        return SessionDeadlocks(self._copy, self._since, self._samples)


def _copy(b: DeadlockBook) -> DeadlockBook:
    """What the view reads: the lists and the patterns (whose counts move) its own."""
    return DeadlockBook(seen=list(b.seen), patterns={k: replace(p) for k, p in b.patterns.items()},
                        captured=b.captured, dropped=b.dropped, counted=b.counted)
