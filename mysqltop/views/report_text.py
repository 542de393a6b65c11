"""Render an incident Report (or a Comparison of two) as text, Markdown or JSON.

Text and Markdown share one layout: `_blocks` turns a report into titled blocks of lines and
tables; each format only decides how a block looks.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone

from mysqltop.core import units as u
from mysqltop.core.frame import COMMITTED_LABEL
from mysqltop.core.safe_text import json_text, visible
from mysqltop.core.incident_report import Comparison, Report, Stat
from mysqltop.views import deadlocks_text, load_chart, locks_text, report_charts

SPARK = "▁▂▃▄▅▆▇█"
SPARK_WIDTH = 60


@dataclass
class Block:
    title: str
    lines: list[str] = field(default_factory=list)
    header: list[str] | None = None             # a table when set
    rows: list[list[str]] = field(default_factory=list)
    pre: list[str] = field(default_factory=list)   # preformatted (sparkline): kept as is
    key: str = ""                               # what the block is, for other layouts (the HTML page)


def report_blocks(r: Report) -> list[Block]:
    """The report's blocks (each with its `key`), every line made visible: for other layouts."""
    return _visible(_report_blocks(r))


def compare_blocks(c: Comparison) -> list[Block]:
    """The comparison's blocks (each with its `key`), every line made visible."""
    return _visible(_compare_blocks(c))


def render(obj: Report | Comparison, fmt: str) -> str:
    if fmt == "json":
        return json_text(obj.to_dict()) + "\n"
    blocks = _compare_blocks(obj) if isinstance(obj, Comparison) else _report_blocks(obj)
    return (_markdown if fmt == "md" else _text)(blocks)


# --- formatting helpers ------------------------------------------------------------------------

def _ts(epoch: float | None, date: bool = False) -> str:
    if epoch is None:
        return u.NA
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%d %H:%M:%S" if date else "%H:%M:%S")


def _span(first: float, last: float) -> str:
    return _ts(first) if first == last else f"{_ts(first)}–{_ts(last)}"


def _peak(s: Stat, fmt=u.num) -> str:
    if s.max is None:
        return u.NA
    return fmt(s.max) if s.max == 0 else f"{fmt(s.max)} at {_ts(s.max_time)}"   # a zero peak has no moment


def _avg_max(s: Stat, fmt=u.num) -> str:
    return u.NA if s.avg is None else f"avg {fmt(s.avg)}, max {_peak(s, fmt)}"


def sparkline(values: list[float | None], marks: list[bool], width: int = SPARK_WIDTH) -> tuple[str, str]:
    """(bars, marker line): values bucketed into ≤ width columns; '^' under buckets with a drop."""
    if not values:
        return "", ""
    per = max(1, -(-len(values) // width))
    buckets, flags = [], []
    for i in range(0, len(values), per):
        chunk = [v for v in values[i:i + per] if v is not None]
        buckets.append(sum(chunk) / len(chunk) if chunk else None)
        flags.append(any(marks[i:i + per]))
    known = [b for b in buckets if b is not None]
    hi = max(known, default=0.0) or 1.0
    bars = "".join(" " if b is None else SPARK[min(len(SPARK) - 1, int(b / hi * (len(SPARK) - 1) + 0.5))]
                   for b in buckets)
    return bars, "".join("^" if f else " " for f in flags).rstrip()


# --- one report ----------------------------------------------------------------------------------

def _report_blocks(r: Report, label: str = "") -> list[Block]:
    srv = r.server
    head = Block(f"mysqltop report{label}", key="head", lines=[
        f"server: {srv.get('flavor') or '?'} {srv.get('version') or '?'} at {srv.get('address') or '?'}",
        f"window: {_ts(r.start, True)} – {_ts(r.end, True)} UTC ({u.duration(r.duration_s)}, "
        f"{max(r.samples, r.frames)} samples, {r.stale_frames} stale)",
    ])
    if r.stride > 1:
        head.lines.append(
            f"resolution: one point per {u.duration(r.resolution_s or 0.0)} (every {r.stride}th sample, "
            f"{r.frames} points): rates and averages are exact over each span; peaks of gauges, lock "
            "trees and advice are as at the points")
    if r.headline:
        head.lines.insert(0, visible(r.headline))
    if not r.live_frames:
        head.lines.append("no frames with rates in this window: nothing to summarise")
        return [head]
    tp = r.throughput
    thr = Block("Throughput", key="throughput", lines=[
        *([f"{COMMITTED_LABEL} {_avg_max(tp['committed_per_s'])}, min {u.num(tp['committed_per_s'].min)} "
           "(Handler_commit: each autocommit statement, each statement of a transaction and its COMMIT)"] if tp.get("committed_per_s") and tp["committed_per_s"].samples else []),
        f"TPS {_avg_max(tp['tps'])}, min {u.num(tp['tps'].min)} (COMMIT/ROLLBACK statements)",
        f"QPS {_avg_max(tp['qps'])}, min {u.num(tp['qps'].min)}",
        f"Threads_running {_avg_max(tp['threads_running'])}",
    ])
    bars, marks = sparkline([p.tps for p in r.timeline], [p.drop for p in r.timeline])
    if bars:
        thr.pre = [f"TPS {bars}", *([f"    {marks}  ^ = drop"] if marks.strip() else []),
                   f"    {_ts(r.timeline[0].time)} … {_ts(r.timeline[-1].time)}"]
    drops = Block("TPS drops", key="drops")
    if r.drops:
        drops.lines.append(f"{len(r.drops)} drop(s) below 50 % of the TPS of the 30 s before, sessions still running:")
        drops.lines += [f"  {_span(d.start, d.end)}  min {u.num(d.min_tps)} TPS vs {u.num(d.baseline_tps)} before "
                        f"(−{d.depth_pct:.0f} %)" for d in r.drops]
    else:
        drops.lines.append("none (no fall below 50 % of the TPS of the 30 s before while sessions kept running)")
    if r.start is not None and any(ep.start < r.start for ep in r.stalls):
        drops.lines.append("the window starts inside a stall (see the STALL line above): there is no TPS before "
                           "it to fall from")
    hot = Block("Top hotspots (share of all waiting in the window, within each source)", key="hotspots",
                header=["#", "name", "share", "waits/s", "wait ms/s", "peak waits/s", "seen", "source"])
    hot.rows = [[str(i), h.name + (f" ({h.site})" if h.site and h.site not in h.name else ""), u.share(h.share),
                 u.num(h.waits_per_s), u.num(h.wait_ms_per_s),
                 u.NA if h.peak_waits_per_s is None else f"{u.num(h.peak_waits_per_s)} at {_ts(h.peak_time)}",
                 u.pct(h.seen_pct), h.source] for i, h in enumerate(r.hotspots, 1)]
    if not hot.rows:
        hot.lines.append("no latch waits measured (see notes for the sources this server offers)")
    spans = sorted({h.span_s for h in r.hotspots if h.span_s is not None})
    if spans:
        hot.lines.append(f"SHOW ENGINE INNODB MUTEX rows: waits between two snapshots {u.num(spans[-1])} s apart, "
                         "per second over that span (a start→end delta, not a series)")
    io, fl = r.io, r.flush
    peaks = Block("IO, flush and lock peaks", key="peaks", lines=[
        f"pending reads max {_peak(io['pending_reads'])}, writes max {_peak(io['pending_writes'])}, "
        f"fsyncs max {_peak(io['pending_fsyncs'])}",
        f"reads/s {_avg_max(io['reads_per_s'])}; writes/s {_avg_max(io['writes_per_s'])}; "
        f"fsyncs/s {_avg_max(io['fsyncs_per_s'])}",
        f"checkpoint age {_avg_max(fl['checkpoint_age_pct'], u.pct)}; dirty pages {_avg_max(fl['dirty_pct'], u.pct)}",
        f"redo {_avg_max(fl['log_bytes_per_s'], u.bytes_rate)}; pages flushed/s {_avg_max(fl['pages_flushed_per_s'])}",
        f"history list length {_avg_max(fl['history_list_length'])}",
    ])
    lk = r.locks
    if lk["row_lock_waits_per_s"].samples or lk["row_lock_current_waits"].samples:
        peaks.lines.append(
            f"row lock waits/s {_avg_max(lk['row_lock_waits_per_s'])}; waited ms/s "
            f"{_avg_max(lk['row_lock_wait_ms_per_s'])}; waiting at once max {_peak(lk['row_lock_current_waits'])}; "
            f"deadlocks/s max {_peak(lk['deadlocks_per_s'])}")
    h = r.host
    if h.get("cpus"):
        host = Block("Host", key="host", lines=[
            f"{u.num(h['cpus'])} CPUs; run queue {_avg_max(h['run_queue'])}; above the core count in "
            f"{u.pct(h['saturated_pct'])} of samples",
            f"CPU busy {_avg_max(h['cpu_busy_pct'], u.pct)}; iowait max {_peak(h['cpu_iowait_pct'], u.pct)}; "
            f"steal max {_peak(h['cpu_steal_pct'], u.pct)}; load1 max {_peak(h['load1'])}",
        ])
        if h["mysqld_cpu_pct"].avg is not None:
            host.lines.append(f"mysqld CPU {_avg_max(h['mysqld_cpu_pct'], u.pct)}")
    else:
        host = Block("Host", key="host", lines=["not recorded (the server was not on the recording host)"])
    adv = Block("Advice", key="advice")
    for e in r.advice:
        adv.lines += [f"[{e.severity}] {e.id}  {_span(e.first, e.last)} ({e.frames} samples)", f"  {e.message}",
                      f"  evidence: {e.evidence}"]
    if r.window_advice:
        adv.lines.append("Holding over the whole window:")
        adv.lines += [f"  [{a.severity}] {a.id}: {a.evidence}" for a in r.window_advice]
    if not adv.lines:
        adv.lines.append("no rule fired in this window")
    dead = [deadlocks_text.report_block(r.deadlocks, Block)] if r.deadlocks.captured or r.deadlocks.before \
        or r.deadlocks.counted else []
    blocks = [head, thr, *report_charts.blocks(r, Block), load_chart.report_block(r.load, Block),
              load_chart.top_load_block(r.load, Block, r.digests), drops, hot, peaks,
              *locks_text.report_blocks(r, Block), *dead, host, adv]
    if r.stalls:                       # the story first: right under the window line
        blocks.insert(1, locks_text.stall_block(r, Block))
    if r.bookmarks:
        blocks.insert(3, Block("Bookmarks", key="bookmarks", lines=[
            f"{_ts(b['time'])}  {b.get('trigger') or 'mark'}"
            + (f" (value {u.num(b['value'])})" if b.get("value") is not None else "")
            + (f": {b['note']}" if b.get("note") else "") for b in r.bookmarks]))
    if r.variables:
        blocks.append(Block("Settings the advice refers to", key="settings", lines=[
            ", ".join(f"{k} = {v}" for k, v in sorted(r.variables.items()))]))
    if len(r.servers) > 1:
        blocks.append(Block(f"{len(r.servers)} different servers answered at this address (no rate across a change)", [
            f"{_span(e['first'], e['last'])} UTC: {visible(str(e.get('flavor') or '?'))} "
            f"{visible(str(e.get('version') or '?'))} (server {e.get('uid') or '?'})" for e in r.servers],
            key="servers"))
    if r.outages or r.restarts:
        gone = Block("Server outages (no data from the server) and restarts", key="outages")
        gone.lines += [f"{_span(o.start, o.end)} UTC: no data in {o.frames} sample(s): {o.why}" for o in r.outages]
        gone.lines += [f"restarted at about {_ts(t)} UTC (the start its Uptime gives)" for t in r.restarts]
        blocks.append(gone)
    if r.notes or r.errors:
        blocks.append(Block("Notes", key="notes", lines=r.notes[:5] + [f"{k}: failed in {n} sample(s)" for k, n in r.errors.items()]))
    return blocks


# --- two windows ---------------------------------------------------------------------------------

def _compare_blocks(c: Comparison) -> list[Block]:
    a, b = c.a, c.b
    head = Block("mysqltop report: two windows compared", key="head", lines=[
        f"A: {_ts(a.start, True)} – {_ts(a.end, True)} UTC ({u.duration(a.duration_s)}, {a.frames} samples)",
        f"B: {_ts(b.start, True)} – {_ts(b.end, True)} UTC ({u.duration(b.duration_s)}, {b.frames} samples)",
    ])
    figures = Block("Headline figures", key="figures", header=["metric", "A", "B", "change"])
    figures.rows = [[d.metric, u.num(d.a), u.num(d.b), _change(d.change_pct)] for d in c.deltas]
    hot = Block("Hotspots (share of all waiting in each window, within its source)", key="hotspots",
                header=["name", "A share", "B share", "A waits/s", "B waits/s", "source"])
    hot.rows = [[h["name"], u.share(h["a_share"]), u.share(h["b_share"]), u.num(h["a_waits_per_s"]),
                 u.num(h["b_waits_per_s"]), h["source"]] for h in c.hotspots[:10]]
    adv = Block("Advice", key="advice", lines=[
        f"only in A (gone in B): {', '.join(c.advice_only_a) or 'none'}",
        f"only in B (new): {', '.join(c.advice_only_b) or 'none'}",
        f"in both: {', '.join(c.advice_both) or 'none'}",
    ])
    if c.variables_changed:
        adv.lines.append("settings changed between A and B: " + ", ".join(
            f"{d['name']} {d['a'] if d['a'] is not None else '-'} → {d['b'] if d['b'] is not None else '-'}"
            for d in c.variables_changed))
    for d in c.finding_metrics:         # did it work: each finding's own metric, A → B
        adv.lines.append(f"{d.metric} {u.num(d.a)} → {u.num(d.b)} ({_change(d.change_pct)})")
    for side, rep in (("A", a), ("B", b)):
        for e in rep.advice:
            adv.lines.append(f"{side} [{e.severity}] {e.id} {_span(e.first, e.last)}: {e.evidence}")
    return [head, figures, load_chart.compare_block(c.load, Block), hot, adv]


def _change(pct: float | None) -> str:
    if pct is None:
        return u.NA
    # One notation for every change, small or huge: "+12 %", "-40 %", "+4.6k %" (not "×47" next to "+600 %").
    if abs(pct) < 0.5:
        return "0 %"
    return ("+" if pct > 0 else "-") + (f"{abs(pct):.0f}" if abs(pct) < 1000 else u.num(abs(pct))) + " %"


# --- formats -------------------------------------------------------------------------------------

def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(x) for x in col) for col in zip(header, *rows)]
    fmt = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return [fmt(header), *(fmt(r) for r in rows)]


def _visible(blocks: list[Block]) -> list[Block]:
    """Every line, cell and title as one line with control characters shown (statement text,
    identifiers and notes come from the server or the recording)."""
    return [dataclasses.replace(
        b, title=visible(b.title), lines=[visible(x) for x in b.lines], pre=[visible(x) for x in b.pre],
        header=None if b.header is None else [visible(x) for x in b.header], rows=[[visible(c) for c in r] for r in b.rows]) for b in blocks]


def _text(blocks: list[Block]) -> str:
    blocks = _visible(blocks)
    out: list[str] = []
    for i, b in enumerate(blocks):
        out.append(b.title if i == 0 else f"\n{b.title.upper()}")
        out += [("  " + x) if i else x for x in b.lines]
        out += ["  " + x for x in b.pre]
        if b.header and b.rows:
            out += ["  " + x for x in _table(b.header, b.rows)]
    return "\n".join(out) + "\n"


# Markdown reads these as markup (emphasis, code, links, images, raw HTML, entities, strike,
# table cells): a statement like `/* [x](https://evil) <img src=…> */` or a user named `*a*` must
# show as typed when the report is pasted into a wiki or a ticket. `_` is markup only at a word
# edge (GFM leaves LOCK_table_cache alone), so only those are escaped.
_MD_ACTIVE = re.compile(r"[\\`*\[\]<>&~|]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def _md_inline(x: str) -> str:
    return _MD_ACTIVE.sub(lambda m: "\\" + m.group(), x)


def _md_cell(x: str) -> str:
    return _md_inline(x)


def _markdown(blocks: list[Block]) -> str:
    blocks = _visible(blocks)
    out: list[str] = []
    for i, b in enumerate(blocks):
        out += [f"{'#' if i == 0 else '##'} {_md_inline(b.title)}", ""]
        for x in b.lines:
            stripped = _md_inline(x.lstrip())
            out.append(("- " + stripped if not x.startswith("  ") else "  - " + stripped) if i else _md_inline(x) + "  ")
        if b.lines:
            out.append("")
        if b.pre:
            out += ["```", *b.pre, "```", ""]
        if b.header and b.rows:
            out.append("| " + " | ".join(_md_cell(h) for h in b.header) + " |")
            out.append("|" + "---|" * len(b.header))
            out += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in b.rows]
            out.append("")
    return "\n".join(out).rstrip() + "\n"
