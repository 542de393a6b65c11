"""The incident window as charts in `report` text and Markdown: TPS, QPS, the top hotspots' wait
ms/s, history list length and pending IO over the window (Report.series: at most a few hundred
points), with the findings' spans (advice episodes, TPS drops) and bookmarks marked.

Plain text (no colour): a report is read in files, mail and tickets. Drawn by views/charts.py.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from mysqltop.core.incident_report import Report
from mysqltop.views.charts import ChartSpec, Series, chart

WIDTH, HEIGHT = 100, 12
MAX_SPANS = 12          # findings drawn one by one; more are merged where closer than a column
B = TypeVar("B")


def spans(r: Report) -> list[tuple[float, float, str]]:
    """What the report found, as time spans: advice episodes and TPS drops."""
    out = [(e.first, e.last, e.message) for e in r.advice]
    out += [(d.start, d.end, "TPS drop") for d in r.drops]
    return out


def drawn_spans(r: Report, width: int = WIDTH) -> list[tuple[float, float, str]]:
    """The findings' spans as a chart can show them: each one while there are few; past
    MAX_SPANS, spans less than a column apart are one (a day with hundreds of episodes would
    otherwise be a wall of lines)."""
    found = sorted(spans(r))
    if r.start is None or r.end is None or len(found) <= MAX_SPANS:
        return found
    column = (r.end - r.start) / max(1, width)
    out = [found[0]]
    for first, last, label in found[1:]:
        a, b, text = out[-1]
        if first - b <= column:
            out[-1] = (a, max(b, last), text if text == label else "findings")
        else:
            out.append((first, last, label))
    return out


def marks(r: Report) -> list[tuple[float, str]]:
    out = []
    for b in r.bookmarks:
        t = b.get("time")
        if isinstance(t, (int, float)):
            out.append((float(t), str(b.get("note") or b.get("trigger") or "")))
    return out


def _chart(r: Report, title: str, series: list[Series], width: int, height: int) -> list[str]:
    spec = ChartSpec(r.series.time, series, f"{title} (UTC)", marks=marks(r), spans=drawn_spans(r, width),
                     span_name="finding", utc=True)
    return chart(spec, width, height, color=False).rstrip("\n").splitlines()


def throughput_charts(r: Report, width: int = WIDTH, height: int = HEIGHT) -> list[str]:
    """TPS and QPS, one chart each (QPS is often ten times TPS: one scale would flatten TPS)."""
    s = r.series
    if len(s.time) < 2:
        return []
    return _chart(r, "TPS", [Series("tps", s.tps)], width, height) + _chart(r, "QPS", [Series("qps", s.qps)],
                                                                            width, height)


def _known(values: list[float | None]) -> bool:
    return any(v is not None for v in values)


def wait_charts(r: Report, width: int = WIDTH, height: int = HEIGHT) -> list[str]:
    """The top hotspots' wait ms/s (one chart), history list length, pending IO: each when measured."""
    s = r.series
    if len(s.time) < 2:
        return []
    out: list[str] = []
    hot = [Series(name, values) for name, values in s.hotspot_wait_ms.items() if _known(values)]
    if hot:
        out += _chart(r, "Top hotspots, wait ms/s", hot, width, height)
    if _known(s.history_list_length):
        out += _chart(r, "History list length", [Series("history", s.history_list_length)],
                      width, height)
    pending = [Series(label, values) for label, values in (("reads", s.pending_reads), ("writes", s.pending_writes),
                                                           ("fsyncs", s.pending_fsyncs)) if _known(values)]
    if pending:
        out += _chart(r, "Pending IO", pending, width, height)
    return out


def blocks(r: Report, block: Callable[..., B]) -> list[B]:
    """Report blocks (built with the caller's Block type) holding the charts."""
    lines = throughput_charts(r) + wait_charts(r)
    if not lines:
        return []
    found: list[Any] = spans(r)
    drawn = drawn_spans(r)
    notes = [f"│ lines mark the first and last sample of each of the {len(found)} finding(s)"
             + (f" (as {len(drawn)} span(s): those less than a column apart are drawn as one)"
                if len(drawn) < len(found) else "")] if found else []
    per = len(r.timeline) / len(r.series.time) if r.series.time else 1.0
    if per > 1.5:
        notes.append(f"one chart point per {per:.0f} frames: rates averaged over them, history and pending IO at their maximum")
    return [block("Charts", notes, pre=lines, key="charts")]
