"""FindingSearch: where the next (or previous) finding starts — the first sample whose findings
include one the readable sample before it did not have. The findings are the cursor's Judge's
series, so `]` lands where `report` says a finding began.
"""

from __future__ import annotations

from mysqltop.timeline.cursor import Cursor

FINDING_SCAN = 3600           # samples looked through for the next finding before giving up


class FindingSearch:
    def __init__(self, cursor: Cursor) -> None:
        self.cursor = cursor

    def next(self, i: int, direction: int) -> tuple[int, list[str]] | None:
        """(sample, ids of the findings that start there) after i (direction 1) or before it
        (-1); None when none starts within FINDING_SCAN samples."""
        cur = self.cursor
        j = cur.next_readable(i, direction)
        for _ in range(FINDING_SCAN):
            if j is None:
                return None
            started = self.started(j)
            if started:
                return j, started
            j = cur.next_readable(j, direction)
        return None

    def started(self, j: int) -> list[str]:
        """Ids of the findings of sample j that the readable sample before it did not have."""
        ids = self.ids(j)
        p = self.cursor.next_readable(j, -1)
        before = self.ids(p) if p is not None else set()
        return sorted(ids - before)

    def ids(self, j: int) -> set[str]:
        """The ids of the findings at sample j: the judge's series, no frame composed."""
        if self.cursor.derived(j).stale:
            return set()
        return {a.id for a in self.cursor.findings_at(j).advice}
