"""The report's timeline charts for the page: which series, in which order, with which spans.

Every chart shares the window's time axis and shows the same spans — stalls, the findings'
episodes and TPS drops, what was not recorded, outages — and the same moments (bookmarks and
triggers, numbered as the page lists them; server restarts). The figures are the report's own
chart points (Report.series), nothing derived again. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from mysqltop.core import units
from mysqltop.core.frame import WAIT_CLASSES, severity_rank
from mysqltop.core.incident_report import AdviceEpisode, Report
from mysqltop.core.safe_text import visible
from mysqltop.core.wait_load import LABELS
from mysqltop.views.page.svg_plot import Chart, Moment, Plot, Row, Series, Span, draw, strip

NO_SESSIONS = "no session counts in this window (an older recording, or an import without a processlist)"


@dataclass(frozen=True)
class Bookmark:
    label: str              # the number drawn on the charts
    time: str
    text: str


def clock(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%H:%M:%S")


def _span_words(a: float, b: float) -> str:
    return clock(a) if clock(a) == clock(b) else f"{clock(a)}–{clock(b)}"


def spans(r: Report) -> list[Span]:
    out = [Span(ep.start, ep.end, "stall",
                visible(f"stall {_span_words(ep.start, ep.end)} UTC: {ep.max_waiting} waiting on {ep.on}"))
           for ep in r.stalls]
    out += [Span(e.first, e.last, "finding", visible(f"[{e.severity}] {e.id} {_span_words(e.first, e.last)} UTC"))
            for e in r.advice if not e.id.startswith("stall_")]
    out += [Span(d.start, d.end, "finding", f"TPS drop {_span_words(d.start, d.end)} UTC (−{d.depth_pct:.0f} %)")
            for d in r.drops]
    out += [Span(o.start, o.end, "gap", visible(f"no data from the server {_span_words(o.start, o.end)} UTC: {o.why}"))
            for o in r.outages]
    return out


BOOKMARK_CHARS = 400


def bookmarks(r: Report) -> list[Bookmark]:
    """Every bookmark and trigger of the window, numbered as the charts mark them."""
    out = []
    for i, b in enumerate(r.bookmarks, 1):
        words = str(b.get("trigger") or "mark") + (f" (value {units.num(b['value'])})" if b.get("value") is not None
                                                   else "")
        if b.get("note"):
            words += f": {b['note']}"
        words = visible(words)
        out.append(Bookmark(str(i), clock(float(b["time"])),
                            words if len(words) <= BOOKMARK_CHARS else words[:BOOKMARK_CHARS - 1] + "…"))
    return out


def moments(r: Report) -> list[Moment]:
    out = [Moment(float(b["time"]), m.label, f"{m.label}. {m.time} {m.text}") for b, m in zip(r.bookmarks, bookmarks(r))]
    out += [Moment(t, "R", f"server restarted at about {clock(t)} UTC") for t in r.restarts]
    return out


STRIP_ROWS = 12


def rows(r: Report) -> list[Row]:
    """What fired when: the stalls, then each finding (its episodes on one row), then TPS drops."""
    out = []
    if r.stalls:
        out.append(Row(f"stalls ({len(r.stalls)})", "stall",
                       [(ep.start, ep.end, visible(f"stall {_span_words(ep.start, ep.end)} UTC: {ep.max_waiting} "
                                                   f"waiting on {ep.on}")) for ep in r.stalls]))
    by: dict[str, list[AdviceEpisode]] = {}
    for e in r.advice:
        if not e.id.startswith("stall_"):
            by.setdefault(e.id, []).append(e)
    for fid, eps in by.items():
        worst = max(eps, key=lambda e: severity_rank(e.severity))
        out.append(Row(visible(f"{fid} ({worst.severity})"), visible(worst.severity),
                       [(e.first, e.last, visible(f"[{e.severity}] {e.id} {_span_words(e.first, e.last)} UTC"))
                        for e in eps]))
    if r.drops:
        out.append(Row("TPS drops", "warning",
                       [(d.start, d.end, f"TPS drop {_span_words(d.start, d.end)} UTC (−{d.depth_pct:.0f} %)")
                        for d in r.drops]))
    if len(out) > STRIP_ROWS:
        rest = out[STRIP_ROWS - 1:]
        out = out[:STRIP_ROWS - 1] + [Row(f"{len(rest)} more findings", "info",
                                          [sp for row in rest for sp in row.spans])]
    return out


def plots(r: Report, prefix: str) -> tuple[Plot, ...]:
    """The charts of one window (`prefix` keeps their ids apart from another window's)."""
    s = r.series
    if r.start is None or r.end is None:
        return ()
    start, end, found, marked = r.start, r.end, spans(r), moments(r)

    def chart(key: str, title: str, series: list[Series], **opts: Any) -> Chart:
        return Chart(f"{prefix}{key}", title, s.time, series, start, end, spans=found, moments=marked, **opts)

    cores = r.load.cores
    found_rows = rows(r)
    head = (strip(f"{prefix}fired", "What fired when", found_rows, start, end, marked),) if found_rows else ()
    charts = [
        chart("load", "Database load by wait class (average active sessions)",
              [Series(LABELS[c], s.load[c], f"c-{c}") for c in WAIT_CLASSES if c in s.load], stacked=True,
              reference=(cores, f"{units.num(cores)} cores") if cores else None, empty=NO_SESSIONS),
        chart("tps", "Transactions per second (COMMIT + ROLLBACK)", [Series("tps", s.tps, "s0")]),
        chart("qps", "Queries per second", [Series("qps", s.qps, "s1")]),
        chart("latch", "Top latches, wait ms per second",
              [Series(visible(name), v, f"s{i}") for i, (name, v) in enumerate(s.hotspot_wait_ms.items())],
              empty="no timed latch waits in this window (see the notes for the sources this server offers)"),
        chart("blocked", "Sessions blocked on a lock",
              [Series("row lock", s.row_lock_blocked, "c-row_lock"),
               Series("metadata / table lock", s.metadata_lock_blocked, "c-metadata_lock")]),
        chart("history", "History list length (undo not yet purged)",
              [Series("history list", s.history_list_length, "s2")]),
        chart("flush", "Checkpoint age and dirty pages, % of their maximum",
              [Series("checkpoint age", s.checkpoint_age_pct, "s3"), Series("dirty pages", s.dirty_pct, "s4")],
              y_max=100.0, fmt=units.pct),
    ]
    return head + tuple(draw(c) for c in charts)
