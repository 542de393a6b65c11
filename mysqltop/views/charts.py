"""Time charts drawn with plotext: series over a time axis, with marks (bookmarks) and spans
(advice episodes, findings) as vertical lines.

Used where a person looks at a chart rather than reads numbers: a zoomed TUI pane and the
incident report. plotext costs milliseconds per chart, so the 1 s grid panes keep their
sparklines and only a zoomed pane (one at a time) or a report pays it.

Labels can carry server-side names (latch names): they are made visible (core.safe_text) before
plotext sees them, so the ANSI text it returns holds only the escapes plotext wrote itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Sequence

from mysqltop.core.safe_text import visible

ANSI_SGR = re.compile(r"\x1b\[[0-9;]*m")
COLORS = ("green", "orange", "cyan", "magenta", "blue", "red")
MARK_COLOR = "red"          # bookmarks
MARK_GLYPH = "▼"
PLAIN_MARKERS = ("•", "+", "x", "o")
SPAN_COLOR = "yellow"       # advice episodes / findings: their first and last sample


@dataclass
class Series:
    label: str
    values: Sequence[float | None]          # one per time; None: no value (gap)


@dataclass
class ChartSpec:
    times: Sequence[float]                  # epoch seconds, ascending
    series: Sequence[Series]
    title: str = ""
    marks: Sequence[tuple[float, str]] = ()                 # (epoch, label)
    spans: Sequence[tuple[float, float, str]] = field(default_factory=tuple)   # (first, last, label)
    y_label: str = ""
    span_name: str = "advice"
    utc: bool = False                       # time axis in UTC (reports) rather than local time (TUI)


def clock(epoch: float, seconds: bool = True, utc: bool = False) -> str:
    when = datetime.fromtimestamp(epoch, timezone.utc) if utc else datetime.fromtimestamp(epoch)
    return when.strftime("%H:%M:%S" if seconds else "%H:%M")


def chart(spec: ChartSpec, width: int, height: int, color: bool = True) -> str:
    """The chart as text `width`×`height` cells: ANSI colours when `color`, plain otherwise."""
    import plotext as plt   # here, not at the top: the TUI's first paint does not wait for it

    times = list(spec.times)
    plt.clear_figure()
    plt.plotsize(max(20, width), max(6, height))
    plt.theme("clear")
    if not times:
        plt.title(visible(spec.title) + " (no samples)")
        return _finish(color)
    t0 = times[-1]
    drawn = False
    for n, s in enumerate(spec.series):
        pts = [(t - t0, v) for t, v in zip(times, s.values) if v is not None]
        if not pts:
            continue
        xs, ys = zip(*pts)
        # colour tells braille lines apart; plain text (reports) needs a glyph per series
        marker = "braille" if color else PLAIN_MARKERS[n % len(PLAIN_MARKERS)]
        plt.plot(list(xs), list(ys), label=visible(s.label), marker=marker, color=COLORS[n % len(COLORS)])
        drawn = True
    lo = times[0] - t0
    top = max((v for s in spec.series for v in s.values if v is not None), default=0.0)
    bottom = min((v for s in spec.series for v in s.values if v is not None), default=0.0)
    if drawn and top == bottom == 0:
        plt.ylim(0, 1)            # a flat zero sits on the axis floor, not mid-way down a −1..1 axis
    shown = [t - t0 for t, _ in spec.marks if times[0] <= t <= t0]
    if shown and drawn:           # bookmarks: a ▼ on top of the chart (reads without colour)
        plt.scatter(shown, [top] * len(shown), marker=MARK_GLYPH, color=MARK_COLOR)
    for first, last, _ in spec.spans:
        for t in {first, last}:
            if times[0] <= t <= t0:
                plt.vline(t - t0, SPAN_COLOR)
    ticks = 5 if width >= 60 else 3
    span = -lo
    if span > 0:
        at = [lo + span * k / (ticks - 1) for k in range(ticks)]
        plt.xticks(at, [clock(t0 + x, span < 3 * 3600, spec.utc) for x in at])
    title = visible(spec.title)
    legend = []
    if shown:
        legend.append(f"· {MARK_GLYPH} bookmark")
    if any(times[0] <= a <= t0 or times[0] <= b <= t0 for a, b, _ in spec.spans):
        legend.append(f"· │ {spec.span_name} start/end")
    plt.title(" ".join([title, *legend]) if legend else title)
    if spec.y_label:
        plt.ylabel(visible(spec.y_label))
    if not drawn:
        plt.title(title + " (no values yet)")
    return _finish(color)


def _finish(color: bool) -> str:
    import plotext as plt

    out = plt.build()
    plt.clear_figure()
    return out if color else ANSI_SGR.sub("", out)


def episodes(times: Sequence[float], flags: Sequence[bool]) -> list[tuple[float, float]]:
    """Runs of consecutive True flags as (first time, last time)."""
    out: list[tuple[float, float]] = []
    start: float | None = None
    prev: float | None = None
    for t, f in zip(times, flags):
        if f and start is None:
            start = t
        if not f and start is not None:
            out.append((start, prev if prev is not None else start))
            start = None
        prev = t
    if start is not None and prev is not None:
        out.append((start, prev))
    return out

