"""Reset-safe rates from cumulative counters.

A rate is None — never negative, never a guess — when there is no previous value, when Δt is
not positive, or when the counter went backwards (server restart, FLUSH STATUS, P_S truncate).
"""

from __future__ import annotations

import math
from typing import Iterable

Number = int | float


def delta(prev: Number | None, cur: Number | None) -> Number | None:
    """cur − prev, None when either is missing or the counter went backwards."""
    if prev is None or cur is None or cur < prev:
        return None
    return cur - prev


def valid_dt(dt: float | None) -> bool:
    return dt is not None and math.isfinite(dt) and dt > 0


def rate(prev: Number | None, cur: Number | None, dt: float | None) -> float | None:
    """(cur − prev) / dt, or None (first sample, Δt ≤ 0, counter reset)."""
    if not valid_dt(dt):
        return None
    d = delta(prev, cur)
    return None if d is None else d / dt  # type: ignore[operator]


def total(values: Iterable[Number | None]) -> Number | None:
    """Sum of the present values; None when none is present."""
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def rate_of_sum(pairs: Iterable[tuple[Number | None, Number | None]], dt: float | None) -> float | None:
    """Rate of a sum of counters (e.g. mutex + RW os waits). Only kinds present in both samples
    count; any kind that went backwards makes the whole rate None."""
    if not valid_dt(dt):
        return None
    d_sum: Number = 0
    seen = False
    for prev, cur in pairs:
        if prev is None or cur is None:
            continue
        if cur < prev:
            return None
        d_sum += cur - prev
        seen = True
    return d_sum / dt if seen else None  # type: ignore[operator]


def first_rate(candidates: Iterable[tuple[Number | None, Number | None]], dt: float | None) -> float | None:
    """Rate from the first source present in both samples (e.g. InnoDB status text, then the
    status variable). A source present in both samples but reset gives None — falling back to
    another source would hide the reset."""
    if not valid_dt(dt):
        return None
    for prev, cur in candidates:
        if prev is not None and cur is not None:
            return rate(prev, cur, dt)
    return None
