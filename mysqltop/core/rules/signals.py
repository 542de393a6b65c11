"""Time-series signals shared by rules and the report: TPS drops and linear trend. Pure, O(n)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from mysqltop.core.frame import Frame

# A drop is TPS below half the window's median: a halving is what users feel, and steady OLTP
# load varies far less than that between one-second samples (sysbench: about ±20 %).
DROP_RATIO = 0.5
# Below this median TPS the server is idle and "drops" are noise.
DROP_BASELINE_MIN_TPS = 10.0


@dataclass
class Drop:
    start: float              # epoch of the first frame below the threshold (end of its interval)
    end: float                # epoch of the last frame below it
    min_tps: float
    baseline_tps: float       # the window's median TPS

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


def drops(frames: Sequence[Frame], get: Callable[[Frame], float | None] | None = None) -> list[Drop]:
    """Runs of consecutive frames whose TPS fell below DROP_RATIO × the median."""
    get = get or (lambda f: f.throughput.tps)
    points = [(f.time, v) for f in frames if not f.stale and (v := get(f)) is not None]
    base = median([v for _, v in points])
    if base is None or base < DROP_BASELINE_MIN_TPS:
        return []
    out: list[Drop] = []
    cur: Drop | None = None
    for t, v in points:
        if v < DROP_RATIO * base:
            if cur is None:
                cur = Drop(t, t, v, base)
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
