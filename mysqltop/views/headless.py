"""Headless formatters: Frames → text, JSON lines, CSV, OpenMetrics. Pure over Frames.

Each format is a `FrameWriter` with `header()` (printed once before the first frame), `frame(f)`
(one frame's output) and `footer()`; the command writes and flushes after each frame. Output is
built from the Frame dataclasses, so a field added to the contract shows up in JSON, CSV and
OpenMetrics without touching this module.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from typing import Any, Callable, Iterable

from mysqltop.core import metrics, units
from mysqltop.core.safe_text import json_text, visible
from mysqltop.views import deadlocks_text, locks_text
from mysqltop.core.deadlocks import DeadlockBook
from mysqltop.core.frame import (COMMITTED_LABEL, Flush, Frame, Host, Io, IoThread, Locks, Pressure, Semaphores,
                                 Throughput, WaitLoad, iso_utc)
from mysqltop.core.fleet_rank import latch_totals
from mysqltop.core.hotspots import OWN_LABEL, SOURCE_SHORT, TOP_HOTSPOTS

FORMATS = ("text", "json", "csv", "openmetrics", "prometheus")

# Scalar groups of a Frame, flattened as `<group>.<field>` in CSV and `mysqltop_<group>_<field>`
# in OpenMetrics. Lists (io.threads, hotspots, advice) are not scalars.
SCALAR_GROUPS: tuple[tuple[str, type], ...] = (
    ("throughput", Throughput), ("locks", Locks), ("semaphores", Semaphores), ("io", Io), ("flush", Flush),
    ("host", Host), ("load", WaitLoad), ("pressure", Pressure),
)


def scalar_fields(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls) if f.name not in ("threads", "top", "sessions", "slices")]   # lists: JSON only


def _finite(v: Any) -> Any:
    """JSON/CSV/OpenMetrics have no NaN/inf for us: a non-finite number is 'no value'."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


# ---- number formatting: core/units, shared with the TUI ------------------------------------
fmt_num = units.num
fmt_bytes = units.bytes_
fmt_seconds = units.duration


def fmt_pct(v: float | None, *, share: bool = False) -> str:
    return units.share(v) if share else units.pct(v)


def _io_busy(thread: IoThread) -> bool:
    """'waiting for i/o request' is idle; MariaDB 10.6+ pool slots have no per-thread state."""
    s = thread.state.lower()
    return not thread.pool_slot and bool(s) and "wait" not in s


# ---- text ---------------------------------------------------------------------------------


LABEL_W = 12      # "THROUGHPUT  ": continuation lines of a wrapped group start under its values


def _kv(pairs: Iterable[tuple[str, str]]) -> str:
    return "  ".join(f"{k} {v}" for k, v in pairs)


def _wrap(line: str, width: int | None) -> str:
    """Fold a `LABEL      k v  k v …` line at the two-space gaps between pairs so a terminal never
    cuts a number or a word in two; unfolded when width is None (pipes and files: one line per
    group for grep)."""
    if width is None or len(line) <= width:
        return line
    pairs = line[LABEL_W:].split("  ")
    lines, cur = [], line[:LABEL_W] + pairs[0]
    for pair in pairs[1:]:
        if len(cur) + 2 + len(pair) > width:
            lines.append(cur)
            cur = " " * LABEL_W + pair
        else:
            cur += "  " + pair
    lines.append(cur)
    return "\n".join(lines)


def _prose(text: str, indent: str, width: int | None) -> str:
    if width is None or len(text) <= width:
        return text
    import textwrap

    return textwrap.fill(text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


def _table(rows: list[tuple[str, str, str, str, str, str]]) -> list[str]:
    """Hotspot rows (name, src, three numbers, site) in aligned columns."""
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return ["  " + "  ".join([r[0].ljust(widths[0]), r[1].ljust(widths[1]),
                              *(c.rjust(w) for c, w in zip(r[2:5], widths[2:5])), r[5]]).rstrip() for r in rows]


def text_frame(f: Frame, top: int = TOP_HOTSPOTS, width: int | None = None,
               listed: int = locks_text.TOP_TRANSACTIONS) -> str:
    """`top` hotspots; `listed` transactions and sessions at most."""
    s = f.server
    head = f"== {iso_utc(f.time)}"
    head += f"  Δ{f.elapsed:.2f}s" if f.elapsed is not None else "  (first sample: no rates yet)"
    head += f"  {s.flavor or '?'} {s.version or '?'} @ {s.address or '?'}"
    if f.stale:
        head += "  STALE (no fresh data from the server)"
    out = [head]

    srcs = f", sources: {', '.join(f.sources)}" if f.sources else ""
    out.append(f"HOTSPOTS (hottest first{srcs})")
    if f.hotspots:
        rows = [("name", "src", "waits/s", "ms/s", "share", "site")]
        for h in f.hotspots[:top]:
            rows.append((h.name + (f" ({OWN_LABEL})" if h.own else ""), SOURCE_SHORT[h.source].upper() if h.source in SOURCE_SHORT else h.source, fmt_num(h.waits_per_s),
                         fmt_num(h.wait_ms_per_s), fmt_pct(h.share, share=True), h.site or ""))
        out += _table(rows)
        if len(f.hotspots) > top:
            out.append(f"  … {len(f.hotspots) - top} more")
    elif f.hotspot_totals:
        out[-1] = f"HOTSPOTS (totals since the counters started{srcs})"
        rows = [("name", "src", "waits", "ms", "share", "site")]
        for c in f.hotspot_totals[:top]:
            rows.append((c.name, SOURCE_SHORT.get(c.source, c.source).upper(), fmt_num(c.waits), fmt_num(c.wait_ms),
                         fmt_pct(c.share, share=True), c.site or ""))
        out += _table(rows)
    elif f.elapsed is None and not f.stale:
        out.append("  (rates from the next sample)")
    else:
        out.append("  (none measured)")

    t = f.throughput
    # committed transactions lead: tps counts COMMIT/ROLLBACK statements only (autocommit reads 0)
    out.append(_wrap("THROUGHPUT  " + _kv([(COMMITTED_LABEL, fmt_num(t.committed_per_s)),
                                     ("tps", fmt_num(t.tps)), ("qps", fmt_num(t.qps)),
                                     ("commits/s", fmt_num(t.commits_per_s)),
                                     ("rollbacks/s", fmt_num(t.rollbacks_per_s)),
                                     ("write trx/s", fmt_num(t.write_trx_per_s)),
                                     ("rows read/s", fmt_num(t.rows_read_per_s)),
                                     ("rows changed/s", fmt_num(t.rows_changed_per_s)),
                                     ("threads running", fmt_num(t.threads_running))]), width))
    lk = f.locks
    out.append(_wrap("ROW LOCKS   " + _kv([("waits/s", fmt_num(lk.row_lock_waits_per_s)),
                                     ("wait ms/s", fmt_num(lk.row_lock_wait_ms_per_s)),
                                     ("waiting now", fmt_num(lk.row_lock_current_waits)),
                                     ("longest wait", fmt_seconds(lk.longest_lock_wait_s)),
                                     ("deadlocks/s", fmt_num(lk.deadlocks_per_s)),
                                     ("waiting on any lock", fmt_num(lk.waiting_sessions)),
                                     ("longest", fmt_seconds(lk.longest_wait_s))]), width))
    out += locks_text.text_lines(f, listed)
    if f.deadlock is not None:
        out.append("DEADLOCK    " + deadlocks_text.one_line(f.deadlock))
    m = f.semaphores
    out.append(_wrap("SEMAPHORES  " + _kv([("os waits/s", fmt_num(m.os_waits_per_s)),
                                     ("spin waits/s", fmt_num(m.spin_waits_per_s)),
                                     ("spin rounds/s", fmt_num(m.spin_rounds_per_s)),
                                     ("waiting threads", fmt_num(m.waiting_threads)),
                                     ("longest wait", fmt_seconds(m.longest_wait_s))]), width))
    i = f.io
    line = "IO          " + _kv([("pending r/w/fsync", "/".join(fmt_num(x) for x in
                                                             (i.pending_reads, i.pending_writes, i.pending_fsyncs))),
                                ("reads/s", fmt_num(i.reads_per_s)), ("writes/s", fmt_num(i.writes_per_s)),
                                ("fsyncs/s", fmt_num(i.fsyncs_per_s))])
    if i.threads:
        busy = [t_ for t_ in i.threads if _io_busy(t_)]
        roles: dict[str, int] = {}
        for t_ in i.threads:
            roles[t_.role] = roles.get(t_.role, 0) + 1
        line += "  threads " + ", ".join(f"{n} {r}" for r, n in roles.items())
        if busy:
            line += "  busy: " + ", ".join(f"#{t_.id} {t_.role} '{t_.state}'" for t_ in busy[:4])
    out.append(_wrap(line, width))
    fl = f.flush
    out.append(_wrap("FLUSH       " + _kv([("pages flushed/s", fmt_num(fl.pages_flushed_per_s)),
                                     ("dirty pages", f"{fmt_num(fl.dirty_pages)} ({fmt_pct(fl.dirty_pct)})"),
                                     ("checkpoint age", f"{fmt_bytes(fl.checkpoint_age_bytes)} "
                                                        f"({fmt_pct(fl.checkpoint_age_pct)})"),
                                     ("log", units.bytes_rate(fl.log_bytes_per_s)),
                                     ("history list", fmt_num(fl.history_list_length))]), width))
    hs = f.host
    if hs is not None:
        out.append(_wrap("HOST        " + _kv([("cpus", fmt_num(hs.cpus)), ("run queue", fmt_num(hs.run_queue)),
                                         ("load1", f"{hs.load1:.2f}" if hs.load1 is not None else units.NA),
                                         ("cpu usr/sys/iowait/steal of all cores", "/".join(fmt_pct(x) for x in (
                                             hs.cpu_user_pct, hs.cpu_system_pct, hs.cpu_iowait_pct,
                                             hs.cpu_steal_pct))),
                                         ("ctx switches/s", fmt_num(hs.ctx_switches_per_s)),
                                         ("mysqld cpu of all cores", fmt_pct(hs.mysqld_pct_of_host()))]),
                         width))
    else:
        out.append("HOST        (not measured)")
    if f.advice:
        out.append("ADVICE")
        for a in f.advice:
            out.append(_prose(f"  [{a.severity}] {a.message}", "    ", width))
            if a.evidence:
                out.append(_prose(f"      evidence: {a.evidence}", "      ", width))
    for n in f.notes:
        out.append(f"note: {n}")
    for stmt, err in f.errors.items():
        out.append(f"error: {stmt}: {err}")
    # every value above may carry server or recording text: one rule for all of it
    return "\n".join(visible(line) for line in "\n".join(out).split("\n")) + "\n\n"


# ---- JSON lines -----------------------------------------------------------------------------
def _clean(o: Any) -> Any:
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items()}
    if isinstance(o, list):
        return [_clean(v) for v in o]
    return _finite(o)


def json_frame(f: Frame) -> str:
    return json_text(_clean(f.to_dict()), separators=(",", ":")) + "\n"


# ---- CSV ------------------------------------------------------------------------------------
CSV_HEAD = ["time", "elapsed", "stale", "server.version", "server.flavor", "server.address"]
CSV_TAIL = ["hotspot.top.name", "hotspot.top.source", "hotspot.top.waits_per_s",
            "hotspot.top.wait_ms_per_s", "hotspot.top.share", "hotspots", "advice"]
# The load of the frame's busiest users and schemas (load.slices): a fixed number of columns,
# whatever the server's sessions are — `load.user.1`, `load.user.1.sessions`, … after the others.
CSV_LOAD_DIMENSIONS = ("user", "schema")
CSV_LOAD_TOP = 3
CSV_LOAD = [c for d in CSV_LOAD_DIMENSIONS for n in range(1, CSV_LOAD_TOP + 1)
            for c in (f"load.{d}.{n}", f"load.{d}.{n}.sessions")]


def csv_columns() -> list[str]:
    cols = list(CSV_HEAD)
    for group, cls in SCALAR_GROUPS:
        cols += [f"{group}.{name}" for name in scalar_fields(cls)]
    return cols + CSV_TAIL + CSV_LOAD


def _csv_cell(v: Any) -> Any:
    v = _finite(v)
    if v is None:
        return ""
    if isinstance(v, str):
        return visible(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.6g}" if abs(v) < 1e15 else f"{v:.0f}"
    return v


def csv_row(f: Frame) -> list[Any]:
    row: list[Any] = [iso_utc(f.time), f.elapsed, f.stale, f.server.version, f.server.flavor, f.server.address]
    for group, cls in SCALAR_GROUPS:
        obj = getattr(f, group)
        row += [None if obj is None else getattr(obj, name) for name in scalar_fields(cls)]
    top = f.hotspots[0] if f.hotspots else None
    row += ([top.name, top.source, top.waits_per_s, top.wait_ms_per_s, top.share] if top else [None] * 5)
    row += [len(f.hotspots), len(f.advice)]
    for d in CSV_LOAD_DIMENSIONS:
        busiest = f.load.slices.get(d, [])[:CSV_LOAD_TOP]
        for s in [*busiest, *[None] * (CSV_LOAD_TOP - len(busiest))]:
            row += [None, None] if s is None else [s.value, s.sessions]
    return [_csv_cell(v) for v in row]


def _csv_line(cells: list[Any]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(cells)
    return buf.getvalue()


# ---- OpenMetrics ------------------------------------------------------------------------------
def _om_label(v: str) -> str:
    """A label value: control characters shown (`\\x1b`), then escaped as OpenMetrics says
    (backslash, double quote, line feed)."""
    return visible(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _om_value(v: float | int | bool) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int) or float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


def openmetrics_frame(f: Frame) -> str:
    """One complete exposition (ends in `# EOF`) in the registry's vocabulary (core/metrics.py),
    the same names, types and labels `serve` exposes: counters with the server's own values,
    levels as gauges, every series labelled with `server` (the frame's address).

    Missing values are left out rather than written as NaN, the Prometheus convention. No sample
    timestamps: node_exporter's textfile collector rejects them.
    """
    return _exposition(f, openmetrics=True)


def prometheus_frame(f: Frame) -> str:
    """The same exposition in the Prometheus text format (0.0.4), which `promtool check metrics`
    and node_exporter's textfile collector read: a counter's HELP and TYPE name its `_total`
    samples (OpenMetrics names the family without it, and a text parser then finds samples
    without help or type), no UNIT, no `# EOF`."""
    return _exposition(f, openmetrics=False)


def _exposition(f: Frame, openmetrics: bool) -> str:
    lines: list[str] = []
    server = visible(f.server.address or "")[:200]

    def family(m: metrics.Metric, samples: Iterable[tuple[tuple[str, ...], float]]) -> None:
        rows = [(labels, v) for labels, v in samples if math.isfinite(v)]
        if not rows:
            return
        name = m.full if openmetrics else m.sample
        lines.append(f"# TYPE {name} {m.kind}")
        if m.unit and openmetrics:
            lines.append(f"# UNIT {name} {m.unit}")
        lines.append(f"# HELP {name} {m.help}")
        names = ("server", *m.labels)
        for labels, v in rows:
            text = ",".join(f'{k}="{_om_label(x)}"' for k, x in zip(names, (server, *labels)))
            lines.append(f"{m.sample}{{{text}}} {_om_value(v)}")

    s = f.server
    if s.flavor or s.version:
        family(metrics.SERVER_INFO, [((s.flavor or "", s.version or ""), 1.0)])
    family(metrics.SAMPLE_TIME, [((), f.time)])
    family(metrics.STALE, [((), 1.0 if f.stale else 0.0)])
    if not f.stale:
        for m, v in metrics.scalar_values(f):
            family(m, [((), v)])
        family(metrics.HOST_CPU, [((mode,), v) for mode, v in metrics.host_cpu_values(f)])
        latches = metrics.LatchSeries().samples(f.latch_counters)
        family(metrics.LATCH_WAITS, [((x.latch, x.source), x.waits) for x in latches if x.waits is not None])
        family(metrics.LATCH_WAIT_SECONDS, [((x.latch, x.source), x.wait_s) for x in latches
                                            if x.wait_s is not None])
        family(metrics.LATCH_WAITING, [((t.name, t.source), t.waiting_threads) for t in latch_totals(f.hotspots)
                                       if t.waiting_threads is not None])
        family(metrics.FINDING, [((i,), v) for i, v in metrics.finding_values(f)])
        family(metrics.BLOCKING_ROOT, [((i,), v) for i, v in metrics.blocking_values(f)])
        family(metrics.STALL_WAITING, list(metrics.stall_values(f)))
    if openmetrics:
        lines.append("# EOF")
    return "\n".join(lines) + "\n"


# ---- writers ---------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class FrameWriter:
    header: Callable[[], str]
    frame: Callable[[Frame], str]
    footer: Callable[[], str]


def _nothing() -> str:
    return ""


def writer_for(fmt: str, width: int | None = None) -> FrameWriter:
    """`width`: fold text lines to it (a terminal); None keeps one line per group."""
    if fmt == "text":
        book = DeadlockBook()          # the frames' deadlocks by pattern, told after the last one

        def text(f: Frame) -> str:
            book.add(f)
            return text_frame(f, width=width)
        return FrameWriter(_nothing, text, lambda: deadlocks_text.snapshot_footer(book))
    if fmt == "json":
        return FrameWriter(_nothing, json_frame, _nothing)
    if fmt == "csv":
        return FrameWriter(lambda: _csv_line(csv_columns()), lambda f: _csv_line(csv_row(f)), _nothing)
    if fmt == "openmetrics":
        return FrameWriter(_nothing, openmetrics_frame, _nothing)
    if fmt == "prometheus":
        return FrameWriter(_nothing, prometheus_frame, _nothing)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
