"""Made-up frames of a server that stops answering and comes back (possibly restarted)."""

from __future__ import annotations

from mysqltop.core.frame import Frame

T0 = 1_800_000_000.0      # 2027-01-15 08:00:00 UTC


def fresh(t: float, uptime: float) -> Frame:
    f = Frame(time=T0 + t, elapsed=1.0)
    f.server.uptime_s = uptime
    return f


def stale(t: float, failure: str, why: str) -> Frame:
    f = Frame(time=T0 + t, stale=True, failure=failure)
    f.errors["poll"] = why
    return f
