"""What one frame says at fleet level: its hottest latch, its worst finding, the trouble rank.

Pure: the overview sorts its rows with `trouble_key` and the Prometheus endpoint ranks latches
with `latch_totals`, so both agree on what "hottest" means.

One concept over its layers: sources/fleet_sources.py opens the members, fleet.py polls them,
core/fleet_rank.py ranks a frame, views/fleet_rows.py makes the rows, views/tui/fleet_app.py shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

from mysqltop.core.frame import Advice, Frame, Hotspot, severity_rank
from mysqltop.core.hotspots import is_own


@dataclass(frozen=True)
class LatchTotal:
    """One latch (name within a source) summed over its rows (several created-at sites)."""

    name: str
    source: str
    waits_per_s: float | None = None
    wait_ms_per_s: float | None = None
    waiting_threads: float | None = None

    @property
    def heat(self) -> tuple[float, float, float]:
        """Ordering: wait time first, then waits, then threads waiting now (semaphores)."""
        return (self.wait_ms_per_s or 0.0, self.waits_per_s or 0.0, self.waiting_threads or 0.0)


def _add(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else a + b


def latch_totals(hotspots: list[Hotspot]) -> list[LatchTotal]:
    """Hotspots merged by (name, source), hottest first."""
    # summed as plain lists, each LatchTotal made once (every poll of every server comes here)
    merged: dict[tuple[str, str], list[float | None]] = {}
    for h in hotspots:
        sums = merged.get((h.name, h.source))
        if sums is None:
            merged[(h.name, h.source)] = [h.waits_per_s, h.wait_ms_per_s, h.waiting_threads]
        else:
            sums[0] = _add(sums[0], h.waits_per_s)
            sums[1] = _add(sums[1], h.wait_ms_per_s)
            sums[2] = _add(sums[2], h.waiting_threads)
    totals = [LatchTotal(name, source, *sums) for (name, source), sums in merged.items()]
    return sorted(totals, key=lambda t: t.heat, reverse=True)


def hottest_latch(frame: Frame | None, totals: list[LatchTotal] | None = None) -> LatchTotal | None:
    """`totals`: the frame's latch_totals when the caller has them already."""
    if frame is None or frame.stale:
        return None
    totals = latch_totals(frame.hotspots) if totals is None else totals
    totals = [t for t in totals if not is_own(t.name)]      # mysqltop's own reads: not the server's
    return totals[0] if totals and any(totals[0].heat) else None


def worst_finding(frame: Frame | None) -> Advice | None:
    if frame is None or not frame.advice:
        return None
    return max(frame.advice, key=lambda a: severity_rank(a.severity))


def trouble_key(finding: Advice | None, latch: LatchTotal | None, not_answering: bool) -> tuple[int, float]:
    """Sort key, most troubled first when sorted descending: a server that does not answer, then
    by the severity of its worst finding, then by its hottest latch's wait time."""
    if not_answering:
        return (9, 0.0)
    return (severity_rank(finding.severity) if finding else 0,
            (latch.wait_ms_per_s or 0.0) if latch else 0.0)
