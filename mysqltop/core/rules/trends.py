"""Trends of a series shared by rules and the report: TPS drops and linear slope. Pure, O(n)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from mysqltop.core.frame import Frame

# A drop is TPS below half of what it was just before: a halving is what users feel, and
# steady OLTP load varies far less than that between one-second samples (sysbench: about ±20 %).
DROP_RATIO = 0.5
# "Just before": the median TPS of the previous 30 s — long enough to ride out noise, short
# enough that a planned change of load becomes the new normal within half a minute.
BASELINE_S = 30.0
BASELINE_MIN_POINTS = 3
# Below this baseline TPS the server is idle and "drops" are noise.
DROP_BASELINE_MIN_TPS = 10.0
# A stall keeps the sessions busy while commits stop; when Threads_running falls with TPS the
# clients simply sent less, which is not a drop. Running threads must stay at this share of theirs.
DEMAND_KEPT_RATIO = 0.5
# Threads_running counts the monitor's own poll; a stall has at least one *other* session inside.
OWN_THREADS = 1


@dataclass
class Drop:
    start: float              # epoch of the first frame below the threshold (end of its interval)
    end: float                # epoch of the last frame below it
    min_tps: float
    baseline_tps: float       # median TPS of the BASELINE_S before the drop
    baseline_running: float | None = None   # median Threads_running then

    @property
    def depth(self) -> float:
        """How far below the baseline the worst sample fell, 0..1."""
        return 1.0 - self.min_tps / self.baseline_tps if self.baseline_tps else 0.0


def median(values: Sequence[float]) -> float | None:
    if not values:
        return None
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


Point = tuple[float, float, "float | None"]     # (time, TPS, Threads_running)


def drops(frames: Sequence[Frame], get: Callable[[Frame], float | None] | None = None) -> list[Drop]:
    """Runs of consecutive frames whose TPS fell below DROP_RATIO × the median of the previous
    BASELINE_S seconds while the sessions kept running (Threads_running held up). O(n·k)."""
    get = get or (lambda f: f.throughput.tps)
    return drops_in([(f.time, v, f.throughput.threads_running) for f in frames
                     if not f.stale and (v := get(f)) is not None])


def drops_in(points: Sequence[Point], baseline_s: float = BASELINE_S) -> list[Drop]:
    """`drops` over (time, TPS, Threads_running) points, oldest first. `baseline_s`: "just before"
    (wider for points further apart than a poll, so a baseline still holds a few of them)."""
    out: list[Drop] = []
    cur: Drop | None = None
    lo = 0
    for i, (t, v, running) in enumerate(points):
        while lo < i and points[lo][0] < t - baseline_s:
            lo += 1
        before = points[lo:i]
        if cur is not None:                   # inside a drop, keep judging against its baseline
            base, base_running = cur.baseline_tps, cur.baseline_running
        elif len(before) >= BASELINE_MIN_POINTS:
            base = median([p[1] for p in before]) or 0.0
            base_running = median([p[2] for p in before if p[2] is not None])
        else:
            continue
        demand_kept = running is None or base_running is None or (
            running - OWN_THREADS >= max(1.0, DEMAND_KEPT_RATIO * (base_running - OWN_THREADS)))
        # A drop starts with a fall: when the previous sample was already that low, the baseline is
        # just catching up with a lower load that came earlier (and was judged then).
        fell = cur is not None or i == 0 or points[i - 1][1] >= DROP_RATIO * base
        if base >= DROP_BASELINE_MIN_TPS and v < DROP_RATIO * base and demand_kept and fell:
            if cur is None:
                cur = Drop(t, t, v, base, base_running)
                out.append(cur)
            else:
                cur.end, cur.min_tps = t, min(cur.min_tps, v)
        else:
            cur = None
    return out


def slope(points: Sequence[tuple[float, float]]) -> float | None:
    """Least-squares slope (units per second) of (time, value) points; None with < 2 times."""
    n = len(points)
    if n < 2:
        return None
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    return sum((t - mt) * (v - mv) for t, v in points) / var if var else None
