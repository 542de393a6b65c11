"""Time-series charts for the HTML report, as numbers: SVG path data, rectangles and ticks.

Why a module of our own (not pygal or another chart library): the page needs a few plain line
and stacked-area charts on one time axis, with spans shaded and moments marked, drawn with no
script and under a Content-Security-Policy that forbids scripts and inline style attributes.
Libraries emit their own markup, scripts and style attributes that would have to be audited and
patched for that. Here Python computes numbers only — path data made of coordinates, tick
positions — and the autoescaped Jinja template (templates/charts.html.j2) writes every element
and every label, so no text from a recording reaches the page except through the template's
escaping. Pure: no IO.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Sequence

from mysqltop.core import units

# The viewBox: the SVG scales to its box (two charts a row on a desktop, one on a phone).
WIDTH, HEIGHT = 420.0, 190.0
LANES, LANE_H = 4, 5.0    # finding bars above the plot area, one lane each while they overlap
LEFT, RIGHT, TOP, BOTTOM = 46.0, 8.0, 8.0 + LANES * LANE_H, 22.0
# Two points further apart than this many typical steps have no samples between them: the line
# breaks there and the span is shaded as not recorded (pt-stalk collections, outages, gaps).
GAP_STEPS = 4.0
MAX_BANDS = 60            # past this, bands of a kind closer than MERGE_PX are drawn as one
MERGE_PX = 2.0
MARK_PX, MARK_TITLES = 6.0, 5     # moments this close are drawn as one line, its title naming a few
TIME_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float | None]
    css: str                            # the colour class the template gives it


@dataclass(frozen=True)
class Span:
    start: float
    end: float
    kind: str                           # stall | finding | gap
    title: str


@dataclass(frozen=True)
class Moment:
    time: float
    label: str                          # a short tag drawn at the top ("1", "R")
    title: str


@dataclass(frozen=True)
class Chart:
    key: str                            # unique on the page (ids are made from it)
    title: str
    times: Sequence[float]
    series: Sequence[Series]
    t0: float
    t1: float
    spans: Sequence[Span] = ()
    moments: Sequence[Moment] = ()
    stacked: bool = False
    reference: tuple[float, str] | None = None   # a level drawn across (the cores) and its label
    y_max: float | None = None                   # a fixed top (100 for percentages)
    fmt: Callable[[float], str] = units.num
    empty: str = "not recorded in this window"


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True)
class Shape:
    css: str
    name: str
    d: str                              # SVG path data: coordinates only


@dataclass(frozen=True)
class Band:
    x: float
    y: float
    w: float
    h: float
    kind: str
    title: str


@dataclass(frozen=True)
class Mark:
    x: float
    label: str
    title: str


@dataclass(frozen=True)
class LegendItem:
    css: str
    name: str
    value: str                          # its peak over the window


@dataclass(frozen=True)
class Plot:
    key: str
    title: str
    width: float
    height: float
    left: float
    top: float
    right: float                        # x of the plot area's right edge
    bottom: float                       # y of the plot area's bottom edge
    lines: tuple[Shape, ...]
    areas: tuple[Shape, ...]
    bands: tuple[Band, ...]
    marks: tuple[Mark, ...]
    xticks: tuple[Tick, ...]
    yticks: tuple[Tick, ...]
    reference: Tick | None              # y and label of the reference level
    legend: tuple[LegendItem, ...]
    points: int                         # data points drawn
    empty: str | None                   # why nothing is drawn (None: something is)
    labels: tuple["Label", ...] = ()    # the row labels of a strip
    strip: bool = False                 # a strip of rows (what fired when), not a chart of values


def _r(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def nice_ticks(hi: float, count: int = 4) -> list[float]:
    """0 and round steps (1, 2, 2.5, 5 × 10^k) up to at least hi."""
    if hi <= 0:
        return [0.0, 1.0]
    raw = hi / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    n = math.ceil(hi / step - 1e-9)
    return [i * step for i in range(n + 1)]


def time_ticks(t0: float, t1: float, count: int = 6) -> list[tuple[float, str]]:
    """Round UTC times between t0 and t1 with a label each (HH:MM:SS, HH:MM past ten minutes)."""
    span = max(t1 - t0, 1e-9)
    step = next((s for s in TIME_STEPS if span / s <= count), TIME_STEPS[-1] * math.ceil(span / TIME_STEPS[-1] / count))
    fmt = "%H:%M:%S" if step < 60 else "%H:%M"
    out: list[tuple[float, str]] = []
    t = float(math.ceil(t0 / step) * step)
    while t <= t1 + 1e-9:
        out.append((t, datetime.fromtimestamp(t, timezone.utc).strftime(fmt)))
        t += step
    return out


def gaps(times: Sequence[float]) -> list[tuple[int, float, float]]:
    """(i, from, to) for each point i with no samples between it and the point before: further
    apart than GAP_STEPS typical steps; the span runs to where point i's own step begins."""
    steps = sorted(b - a for a, b in zip(times, times[1:]) if b > a)
    if not steps:
        return []
    typical = steps[len(steps) // 2]
    return [(i, times[i - 1], times[i] - typical) for i in range(1, len(times))
            if times[i] - times[i - 1] > GAP_STEPS * typical]


def _segments(n: int, breaks: set[int], known: Callable[[int], bool]) -> list[list[int]]:
    """Runs of point indexes with a value, cut at the gaps."""
    out: list[list[int]] = []
    run: list[int] = []
    for i in range(n):
        if not known(i) or i in breaks:
            if run:
                out.append(run)
            run = [i] if known(i) else []
            continue
        run.append(i)
    if run:
        out.append(run)
    return out


def _line_d(xs: list[float], ys: list[float]) -> str:
    if len(xs) == 1:                               # a lone point: a short dash, so it shows
        return f"M{_r(xs[0] - 1.5)} {_r(ys[0])}H{_r(xs[0] + 1.5)}"
    return "M" + "L".join(f"{_r(x)} {_r(y)}" for x, y in zip(xs, ys))


def _bands(spans: Sequence[Span], x: Callable[[float], float], t0: float, t1: float,
           top: float, bottom: float) -> tuple[Band, ...]:
    """Stalls and what was not recorded shade the plot's height; findings are thin bars in lanes
    above it (one that lasts the whole window must not tint everything under it)."""
    out: list[Band] = []
    lanes: list[float] = []                        # the right edge of each finding lane
    for kind in ("gap", "stall", "finding"):
        mine = sorted((max(s.start, t0), min(s.end, t1), s.title) for s in spans if s.kind == kind
                      and s.end >= t0 and s.start <= t1)
        # overlapping shades are one; findings keep a lane each unless there are too many
        reach = MERGE_PX if len(mine) > MAX_BANDS else 0.0 if kind != "finding" else -math.inf
        merged: list[list] = []
        for a, b, title in mine:
            if merged and x(a) - x(merged[-1][1]) <= reach:
                last = merged[-1]
                last[1] = max(last[1], b)
                last[3] += 1
                if last[3] == 2:
                    last[2] = f"{last[2]} (and more)"
                continue
            merged.append([a, b, title, 1])
        for a, b, title, _ in merged:
            xa, xb = x(a), x(b)
            w = max(xb - xa, 1.5)
            xa = min(xa, x(t1) - w)
            if kind != "finding":
                out.append(Band(round(xa, 1), top, round(w, 1), bottom - top, kind, title))
                continue
            lane = next((i for i, edge in enumerate(lanes) if edge + 1.0 < xa), None)
            if lane is None:
                lane = len(lanes) if len(lanes) < LANES else min(range(len(lanes)), key=lanes.__getitem__)
                if lane == len(lanes):
                    lanes.append(0.0)
            lanes[lane] = max(lanes[lane], xa + w)
            out.append(Band(round(xa, 1), top - (lane + 1) * LANE_H, round(w, 1), LANE_H - 1.0, kind, title))
    return tuple(out)


def _marks(moments: Sequence[Moment], x: Callable[[float], float], t0: float, t1: float) -> tuple[Mark, ...]:
    """One line per moment; moments closer than MARK_PX are one line ("3–9", the first titles)."""
    groups: list[list[Moment]] = []
    for m in sorted((m for m in moments if t0 <= m.time <= t1), key=lambda m: m.time):
        if groups and x(m.time) - x(groups[-1][0].time) < MARK_PX:
            groups[-1].append(m)
        else:
            groups.append([m])
    out = []
    for g in groups:
        label = g[0].label if len(g) == 1 else f"{g[0].label}–{g[-1].label}"
        title = "\n".join(m.title for m in g[:MARK_TITLES]) + (f"\n… {len(g) - MARK_TITLES} more"
                                                              if len(g) > MARK_TITLES else "")
        out.append(Mark(round(x(g[0].time), 1), label, title))
    return tuple(out)


def draw(c: Chart) -> Plot:
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM
    t0, t1 = c.t0, max(c.t1, c.t0 + 1.0)
    n = len(c.times)

    def x(t: float) -> float:
        return LEFT + (t - t0) / (t1 - t0) * (right - LEFT)

    breaks = {i for i, _, _ in gaps(c.times)}
    spans = list(c.spans) + [Span(a, b, "gap", "not recorded: no samples here") for _, a, b in gaps(c.times) if b > a]
    series = [s for s in c.series if any(v is not None for v in s.values[:n])]
    if c.stacked:
        tops = [sum(s.values[i] or 0.0 for s in series) for i in range(n)]
        hi = max(tops, default=0.0)
    else:
        hi = max((v for s in series for v in s.values[:n] if v is not None), default=0.0)
    if c.reference is not None:
        hi = max(hi, c.reference[0])
    yt = nice_ticks(c.y_max if c.y_max is not None and hi <= c.y_max else hi)
    top_v = yt[-1]

    def y(v: float) -> float:
        return bottom - v / top_v * (bottom - TOP)

    lines: list[Shape] = []
    areas: list[Shape] = []
    drawn = 0
    if c.stacked:
        def has(i: int) -> bool:
            return any(s.values[i] is not None for s in series)
        runs = _segments(n, breaks, has)
        base = [0.0] * n
        for s in series:
            vals = [s.values[i] or 0.0 for i in range(n)]
            if not any(vals):
                continue
            parts = []
            for run in runs:
                upper = [(x(c.times[i]), y(base[i] + vals[i])) for i in run]
                lower = [(x(c.times[i]), y(base[i])) for i in reversed(run)]
                if len(run) == 1:
                    (ux, uy), (lx, ly) = upper[0], lower[0]
                    upper, lower = [(ux - 1.5, uy), (ux + 1.5, uy)], [(lx + 1.5, ly), (lx - 1.5, ly)]
                parts.append("M" + "L".join(f"{_r(px)} {_r(py)}" for px, py in upper + lower) + "Z")
            areas.append(Shape(s.css, s.name, "".join(parts)))
            drawn += sum(len(r) for r in runs)
            base = [b + v for b, v in zip(base, vals)]
    else:
        for s in series:
            known = s.values
            runs = _segments(n, breaks, lambda i: i < len(known) and known[i] is not None)
            d = "".join(_line_d([x(c.times[i]) for i in run], [y(known[i] or 0.0) for i in run]) for run in runs)
            lines.append(Shape(s.css, s.name, d))
            drawn += sum(len(r) for r in runs)
    def peak(s: Series) -> float | None:
        return max((v for v in s.values[:n] if v is not None), default=None)

    legend = tuple(LegendItem(s.css, s.name, "" if (p := peak(s)) is None else f"max {c.fmt(p)}") for s in series
                   if not c.stacked or (peak(s) or 0.0) > 0)
    ref = None
    if c.reference is not None:
        ref = Tick(round(y(c.reference[0]), 1), c.reference[1])
    return Plot(
        key=c.key, title=c.title, width=WIDTH, height=HEIGHT, left=LEFT, top=TOP, right=right, bottom=bottom,
        lines=tuple(lines), areas=tuple(areas), bands=_bands(spans, x, t0, t1, TOP, bottom),
        marks=_marks(c.moments, x, t0, t1),
        xticks=tuple(Tick(round(x(t), 1), label) for t, label in time_ticks(t0, t1)),
        yticks=tuple(Tick(round(y(v), 1), c.fmt(v)) for v in yt),
        reference=ref, legend=legend, points=drawn,
        empty=None if drawn else c.empty)


@dataclass(frozen=True)
class Label:
    x: float
    y: float
    text: str


@dataclass(frozen=True)
class Row:
    label: str
    kind: str                           # stall or a severity: drawn as bar-<kind>
    spans: Sequence[tuple[float, float, str]]     # (start, end, title)


ROW_H = 22.0


def strip(key: str, title: str, rows: Sequence[Row], t0: float, t1: float,
          moments: Sequence[Moment] = ()) -> Plot:
    """What fired when: one row per finding (its label above, its episodes as bars), on the
    same time axis as the charts below it."""
    t1 = max(t1, t0 + 1.0)
    right = WIDTH - RIGHT
    top = 8.0
    bottom = top + max(1, len(rows)) * ROW_H
    height = bottom + BOTTOM

    def x(t: float) -> float:
        return LEFT + (min(max(t, t0), t1) - t0) / (t1 - t0) * (right - LEFT)

    bands, labels = [], []
    for i, row in enumerate(rows):
        y = top + i * ROW_H
        labels.append(Label(LEFT + 2, round(y + 9, 1), row.label))
        for a, b, tip in row.spans:
            if b < t0 or a > t1:
                continue
            w = max(x(b) - x(a), 1.5)
            bands.append(Band(round(min(x(a), right - w), 1), round(y + 11, 1), round(w, 1), 8.0, f"bar-{row.kind}", tip))
    return Plot(
        key=key, title=title, width=WIDTH, height=height, left=LEFT, top=top, right=right, bottom=bottom,
        lines=(), areas=(), bands=tuple(bands),
        marks=_marks(moments, x, t0, t1),
        xticks=tuple(Tick(round(x(t), 1), label) for t, label in time_ticks(t0, t1)), yticks=(),
        reference=None, legend=(), points=len(bands), empty=None if rows else "no finding in this window",
        labels=tuple(labels), strip=True)
