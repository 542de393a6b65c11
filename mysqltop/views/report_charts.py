"""The incident window as charts in `report` text and Markdown: TPS/QPS over the window with
the findings' spans (advice episodes, TPS drops) and bookmarks marked as vertical lines.

Plain text (no colour): a report is read in files, mail and tickets. Drawn by views/charts.py.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from mysqltop.core.report import Report
from mysqltop.views.charts import ChartSpec, Series, chart

WIDTH, HEIGHT = 100, 12
B = TypeVar("B")


def spans(r: Report) -> list[tuple[float, float, str]]:
    """What the report found, as time spans: advice episodes and TPS drops."""
    out = [(e.first, e.last, e.message) for e in r.advice]
    out += [(d.start, d.end, "TPS drop") for d in r.drops]
    return out


def marks(r: Report) -> list[tuple[float, str]]:
    out = []
    for b in r.bookmarks:
        t = b.get("time")
        if isinstance(t, (int, float)):
            out.append((float(t), str(b.get("note") or b.get("trigger") or "")))
    return out


def throughput_charts(r: Report, width: int = WIDTH, height: int = HEIGHT) -> list[str]:
    """TPS and QPS, one chart each (QPS is often ten times TPS: one scale would flatten TPS)."""
    if len(r.timeline) < 2:
        return []
    times = [p.time for p in r.timeline]
    out: list[str] = []
    for label, values in (("TPS", [p.tps for p in r.timeline]), ("QPS", [p.qps for p in r.timeline])):
        spec = ChartSpec(times, [Series(label.lower(), values)], f"{label} (UTC)", marks=marks(r), spans=spans(r),
                         span_name="finding", utc=True)
        out += chart(spec, width, height, color=False).rstrip("\n").splitlines()
    return out


def blocks(r: Report, block: Callable[..., B]) -> list[B]:
    """Report blocks (built with the caller's Block type) holding the charts."""
    lines = throughput_charts(r)
    if not lines:
        return []
    found: list[Any] = spans(r)
    note = f"│ lines mark the first and last sample of each of the {len(found)} finding(s)" if found else ""
    return [block("Charts", [note] if note else [], pre=lines)]
