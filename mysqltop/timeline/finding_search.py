"""FindingSearch: where the next (or previous) finding starts — the first sample whose findings
include one the readable sample before it did not have. The findings are the cursor's Judge's
series, so `]` lands where `report` says a finding began. What a FindingScan has judged ahead is
looked up; the rest is judged here, sample by sample.
"""

from __future__ import annotations

from mysqltop.timeline.cursor import Cursor
from mysqltop.timeline.finding_scan import FINDING_SCAN, FindingScan


class FindingSearch:
    def __init__(self, cursor: Cursor, scan: FindingScan | None = None) -> None:
        self.cursor = cursor
        self.scan = scan

    def next(self, i: int, direction: int) -> tuple[int, list[str]] | None:
        """(sample, ids of the findings that start there) after i (direction 1) or before it
        (-1); None when none starts within FINDING_SCAN samples."""
        j = self._next_readable(i, direction)
        for _ in range(FINDING_SCAN):
            if j is None:
                return None
            started = self.started(j)
            if started:
                return j, started
            j = self._next_readable(j, direction)
        return None

    def started(self, j: int) -> list[str]:
        """Ids of the findings of sample j that the readable sample before it did not have."""
        ids = self.ids(j)
        p = self._next_readable(j, -1)
        before = self.ids(p) if p is not None else frozenset()
        return sorted(ids - before)

    def ids(self, j: int) -> frozenset[str]:
        """The ids of the findings at sample j: the judge's series, no frame composed."""
        known = self.scan.ids(j) if self.scan is not None else None
        if known is not None:
            return known
        if self.cursor.derived(j).stale:
            return frozenset()
        return frozenset(a.id for a in self.cursor.findings_at(j).advice)

    def _next_readable(self, i: int, direction: int) -> int | None:
        cur, scan = self.cursor, self.scan
        j, lo, hi = i + direction, cur.lo, len(cur) - 1
        while lo <= j <= hi:
            known = scan.readable(j) if scan is not None else None
            if known if known is not None else cur.readable(j):
                return j
            j += direction
        return None
