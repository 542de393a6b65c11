"""FindingScan: the findings series around the moment shown, judged ahead in idle time, so that
`]` and `[` are a lookup.

Where the next finding starts is the first sample whose findings include one the readable sample
before it did not have; finding it sample by sample when the key is pressed costs a derive and a
judgement per sample (a few ms each: minutes of a recording are seconds of waiting). A replay's
feed thread is idle most of the time, so there a cursor of the scan's own, over the same store
and with the same judge settings, works through the FINDING_SCAN samples after the moment shown,
then the FINDING_SCAN before it, and keeps for each sample whether it is readable and the ids of
its findings. It fills the view cursor's Judgements (timeline/judge.py), so a finding landed on
is shown with its findings at once. Moving elsewhere plans the scan from there, keeping what is
known.
"""

from __future__ import annotations

import time
from typing import Callable, Final

from mysqltop.timeline.cursor import Cursor

FINDING_SCAN = 3600           # samples looked through for the next finding before giving up
_UNREADABLE: Final = frozenset({"\0unreadable"})


class FindingScan:
    def __init__(self, view: Cursor, reach: int = FINDING_SCAN,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.view = view
        self.reach = reach
        self.clock = clock
        judge = view.judge
        self.cursor = Cursor(view.store, floor=view.floor, every_s=judge.every_s, min_span_s=judge.min_span_s,
                             judgements=judge.judgements)
        self._known: dict[int, frozenset[str]] = {}
        self._interned: dict[frozenset[str], frozenset[str]] = {}
        self._planned_at: int | None = None
        self._todo: list[list[int]] = []          # [next, last] ranges still to scan, in order

    # -- what is known ----------------------------------------------------------------------
    def readable(self, i: int) -> bool | None:
        """Whether sample i is readable; None when the scan has not reached it."""
        ids = self._known.get(i)
        return None if ids is None else ids is not _UNREADABLE

    def ids(self, i: int) -> frozenset[str] | None:
        """The ids of the findings at sample i (empty: unreadable, or a stale frame); None when
        the scan has not reached it."""
        ids = self._known.get(i)
        return None if ids is None else (frozenset() if ids is _UNREADABLE else ids)

    # -- the work ---------------------------------------------------------------------------
    @property
    def pending(self) -> bool:
        return bool(self._todo)

    def done_around(self, i: int) -> bool:
        """The scan planned around sample i has nothing left to do."""
        return self._planned_at == i and not self._todo

    def follow(self, i: int) -> None:
        """Plan the scan around sample i (the moment shown): after it first, then before it."""
        if i == self._planned_at:
            return
        self._planned_at = i
        lo, hi = max(self.view.lo, self.view.floor), len(self.view) - 1
        self._todo = [r for r in ([i, min(hi, i + self.reach)], [max(lo, i - self.reach), i - 1]) if r[0] <= r[1]]
        # the scan's frames: the longest span a judgement reads, twice (more at short intervals;
        # at the start of a recording the span is short, a little later it is whole)
        spans = [k - self.cursor.span_start(k) + 1 for k in (i, min(hi, i + self.reach)) if lo <= k <= hi]
        self.cursor.cache_size = max(64, 2 * max(spans, default=0) + 16)

    def step(self, budget_s: float) -> bool:
        """Scan for about `budget_s` (one sample at least); False when there was nothing to do."""
        if not self._todo:
            return False
        until = self.clock() + budget_s
        while self._todo:
            todo = self._todo[0]
            while todo[0] <= todo[1]:
                i = todo[0]
                todo[0] += 1
                if i not in self._known:
                    self._known[i] = self._judge(i)
                    if self.clock() >= until:
                        return True
            self._todo.pop(0)
        return True

    def _judge(self, i: int) -> frozenset[str]:
        cur = self.cursor
        if cur.sample(i) is None:
            return _UNREADABLE
        if cur.derived(i).stale:
            ids: frozenset[str] = frozenset()
        else:
            ids = frozenset(a.id for a in cur.findings_at(i).advice)
        return self._interned.setdefault(ids, ids)
