"""Top SQL with per-call statistics from the server's statement digests (RawSample.digests,
sources/digest_reads.py): each digest's calls per second, average and max latency, rows examined
and sent per call, temporary tables on disk and reads without an index, over the span since the
previous digest read — the top shapes by load (time spent per second, i.e. average active
sessions running it). Where digests are off the load view's shapes come from the processlist
(core/active_sessions.py). Pure; every value from the sample is hostile.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from mysqltop.core.frame import DigestRate

TOP = 10


def _n(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        return None
    return float(v)


def _s(v: Any, n: int) -> str | None:
    return None if v is None else str(v)[:n]


def rates(rows: Any, top: int = TOP) -> list[DigestRate]:
    """The sample's digest rows → the top digests by load (seconds spent per second)."""
    out: list[DigestRate] = []
    if not isinstance(rows, list):
        return out
    for r in rows[:5000]:
        if not isinstance(r, list) or len(r) < 11:
            continue
        calls, total, span = _n(r[3]), _n(r[4]), _n(r[10])
        if not calls or total is None or not span:
            continue
        per = lambda i: (x / calls) if (x := _n(r[i])) is not None else None   # noqa: E731
        out.append(DigestRate(
            schema=_s(r[0], 160), digest=_s(r[1], 64) or "", sql=_s(r[2], 300) or "",
            calls_per_s=calls / span, avg_ms=total / calls, max_ms=_n(r[5]), load=total / 1000.0 / span,
            rows_examined_per_call=per(6), rows_sent_per_call=per(7),
            tmp_disk_tables_per_s=(x / span) if (x := _n(r[8])) is not None else None,
            no_index_used_per_s=(x / span) if (x := _n(r[9])) is not None else None, span_s=span))
    out.sort(key=lambda d: (-d.load, -d.calls_per_s, d.digest))
    return out[:top]


def window(frames_digests: Iterable[list[DigestRate]], seconds: float, top: int = TOP) -> list[dict[str, Any]]:
    """Digests over a window (report): each read's counts summed, divided by the seconds the reads
    span; max_ms the largest seen."""
    acc: dict[tuple[str | None, str], dict[str, Any]] = {}
    for rows in frames_digests:
        for d in rows:
            a = acc.setdefault((d.schema, d.digest), {"schema": d.schema, "digest": d.digest, "sql": d.sql,
                                                      "calls": 0.0, "ms": 0.0, "max_ms": None, "examined": 0.0,
                                                      "sent": 0.0, "tmp_disk": 0.0, "no_index": 0.0})
            calls = d.calls_per_s * d.span_s
            a["calls"] += calls
            a["ms"] += d.avg_ms * calls
            a["max_ms"] = max(a["max_ms"] or 0.0, d.max_ms or 0.0)
            a["examined"] += (d.rows_examined_per_call or 0.0) * calls
            a["sent"] += (d.rows_sent_per_call or 0.0) * calls
            a["tmp_disk"] += (d.tmp_disk_tables_per_s or 0.0) * d.span_s
            a["no_index"] += (d.no_index_used_per_s or 0.0) * d.span_s
    if seconds <= 0:
        return []
    out = [{"schema": a["schema"], "digest": a["digest"], "sql": a["sql"], "calls_per_s": a["calls"] / seconds,
            "avg_ms": a["ms"] / a["calls"] if a["calls"] else None, "max_ms": a["max_ms"],
            "load": a["ms"] / 1000.0 / seconds,
            "rows_examined_per_call": a["examined"] / a["calls"] if a["calls"] else None,
            "rows_sent_per_call": a["sent"] / a["calls"] if a["calls"] else None,
            "tmp_disk_tables_per_s": a["tmp_disk"] / seconds, "no_index_used_per_s": a["no_index"] / seconds}
           for a in acc.values()]
    out.sort(key=lambda d: (-d["load"], -d["calls_per_s"], d["digest"]))
    return out[:top]
