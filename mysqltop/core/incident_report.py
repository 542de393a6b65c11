"""Incident report of a window of frames: what happened, where InnoDB waited, what to change. Pure.

`report_builder.build_report(frames, variables)` summarises frames already derived by the
timeline (so each frame's `advice` is what live showed at that moment): the TPS/QPS timeline with drops
marked, the top hotspots over the window with their share, IO/flush peaks, host saturation,
every advice episode (first–last time, evidence), and the advice that holds over the whole
window. `compare(a, b)` puts two reports side by side with the change of each headline figure.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable

from mysqltop.core.deadlocks import DeadlocksSummary
from mysqltop.core.frame import Advice, iso_utc
from mysqltop.core.lock_report import ChainSummary, StallEpisode, TransactionSummary
from mysqltop.core.wait_load import LoadSummary


@dataclass
class Stat:
    avg: float | None = None
    min: float | None = None
    max: float | None = None
    max_time: float | None = None      # epoch of the peak
    samples: int = 0


@dataclass
class TimelinePoint:
    time: float
    tps: float | None
    qps: float | None
    drop: bool = False


@dataclass
class ReportSeries:
    """The window as at most CHART_POINTS points for charts: each point is a run of frames
    (time: its last frame), rates and the load as their time-weighted mean over the run, gauges
    (history list length, pending IO, checkpoint age, dirty pages, blocked sessions) as their
    maximum in it, so a peak survives the downsampling."""

    time: list[float] = field(default_factory=list)
    tps: list[float | None] = field(default_factory=list)
    qps: list[float | None] = field(default_factory=list)
    history_list_length: list[float | None] = field(default_factory=list)
    pending_reads: list[float | None] = field(default_factory=list)
    pending_writes: list[float | None] = field(default_factory=list)
    pending_fsyncs: list[float | None] = field(default_factory=list)
    checkpoint_age_pct: list[float | None] = field(default_factory=list)
    dirty_pct: list[float | None] = field(default_factory=list)
    # sessions waiting for a row lock (the load's row-lock class, else Innodb_row_lock_current_waits)
    # and for a metadata, table, global read or user lock (the load's metadata-lock class)
    row_lock_blocked: list[float | None] = field(default_factory=list)
    metadata_lock_blocked: list[float | None] = field(default_factory=list)
    # wait ms/s of the report's top hotspots (by share; at most 3), keyed by name
    hotspot_wait_ms: dict[str, list[float | None]] = field(default_factory=dict)
    # average active sessions of each wait class (WAIT_CLASSES) per point; empty without session counts
    load: dict[str, list[float | None]] = field(default_factory=dict)


@dataclass
class DropInfo:
    start: float
    end: float
    min_tps: float
    baseline_tps: float
    depth_pct: float                   # how far below the baseline the worst sample fell


@dataclass
class HotspotSummary:
    name: str
    kind: str
    source: str
    site: str | None
    share: float                       # part of all waiting its source measured over the window
    waits_per_s: float | None          # time-weighted mean over frames where it appeared
    wait_ms_per_s: float | None
    peak_waits_per_s: float | None
    peak_time: float | None
    seen_pct: float                    # % of live frames it appeared in
    span_s: float | None = None        # its waits are a start→end delta of two snapshots this far apart


@dataclass
class AdviceEpisode:
    id: str
    severity: str                      # the most severe it reached
    message: str
    evidence: str                      # as shown at the episode's strongest (then last) frame
    first: float
    last: float
    frames: int


OUTAGES_MAX = 20


@dataclass
class Outage:
    start: float            # the first frame without server data
    end: float              # the last one
    frames: int
    why: str                # the first frame's reason (Frame.why_stale)
    failure: str | None     # core.sample.Failure value


LOAD_POINTS = 60          # columns of the report's load chart


@dataclass
class Report:
    start: float | None
    end: float | None
    duration_s: float
    frames: int                        # frames summarised (every sample, or one per `stride`)
    live_frames: int
    stale_frames: int
    server: dict[str, str | None]
    throughput: dict[str, Stat]
    timeline: list[TimelinePoint]
    drops: list[DropInfo]
    hotspots: list[HotspotSummary]
    io: dict[str, Stat]
    flush: dict[str, Stat]
    host: dict[str, Any]
    locks: dict[str, Stat]
    advice: list[AdviceEpisode]
    window_advice: list[Advice]        # advise() over the whole window
    notes: list[str] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    # row sources some samples did not hold at all (Frame.unrecorded: an import, an older
    # recording) → how many samples: unknown there, not none
    unrecorded: dict[str, int] = field(default_factory=dict)
    bookmarks: list[dict[str, Any]] = field(default_factory=list)   # {time, trigger, value, note} in range
    variables: dict[str, str] = field(default_factory=dict)         # the knobs the rules cite (rules.KNOBS)
    blocking_chains: list[ChainSummary] = field(default_factory=list)          # core/lock_report.py
    long_transactions: list[TransactionSummary] = field(default_factory=list)
    # finding id → its own metric over the window (core.rules.finding_metrics), every one measurable
    finding_metrics: dict[str, float] = field(default_factory=dict)
    # A long window is summarised over every stride-th sample (keyframes: cheap to read): each
    # frame's rates are the exact average over its span, gauges and advice are sampled at that
    # step. samples: in the window; resolution_s: mean seconds per frame (None: every sample).
    samples: int = 0
    stride: int = 1
    resolution_s: float | None = None
    series: ReportSeries = field(default_factory=ReportSeries)
    # Spans without server data (stale frames in a row; a late poll is not one), oldest first,
    # and the moments the server restarted (frame.restarted_between). Capped at OUTAGES_MAX each.
    outages: list[Outage] = field(default_factory=list)
    restarts: list[float] = field(default_factory=list)
    # Each server that answered at the address, in order (a failover, a restored snapshot: a
    # different server from `first` on): {uid, version, flavor, address, first, last}; one entry
    # when the same server answered throughout. Capped at OUTAGES_MAX.
    servers: list[dict[str, Any]] = field(default_factory=list)
    # Piles of sessions on a lock, biggest first, and the one line that tells the story first
    # (the biggest stall: from–to, root session, sessions blocked, throughput before/during/after).
    stalls: list[StallEpisode] = field(default_factory=list)
    headline: str | None = None
    # Each distinct deadlock of the window grouped by pattern, most frequent first (core/deadlocks.py).
    deadlocks: DeadlocksSummary = field(default_factory=DeadlocksSummary)
    load: LoadSummary = field(default_factory=LoadSummary)
    # Top SQL over the window from the statement digests (core/top_sql.window): [{schema, digest,
    # sql, calls_per_s, avg_ms, max_ms, load, rows_examined_per_call, rows_sent_per_call,
    # tmp_disk_tables_per_s, no_index_used_per_s}]; empty where digests were not read.
    digests: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(dataclasses.asdict(self))


@dataclass
class Delta:
    metric: str
    a: float | None
    b: float | None
    change_pct: float | None           # (b − a) / a, None when a is 0 or unknown


@dataclass
class Comparison:
    a: Report
    b: Report
    deltas: list[Delta]
    hotspots: list[dict[str, Any]]     # {name, source, a_share, b_share, a_waits_per_s, b_waits_per_s}
    advice_only_a: list[str]           # ids that fired in A but not in B (resolved)
    advice_only_b: list[str]           # new in B
    advice_both: list[str]
    variables_changed: list[dict[str, str | None]] = field(default_factory=list)   # {name, a, b}
    # each finding's own metric in A and B: did the setting changed in between help?
    finding_metrics: list[Delta] = field(default_factory=list)
    # the load by dimension in A and B: dimension → [{value, a, b}], what grew most first
    load: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(dataclasses.asdict(self))


_HEADLINES: tuple[tuple[str, Callable[[Report], float | None]], ...] = (
    ("tps avg", lambda r: r.throughput["tps"].avg),
    ("tps min", lambda r: r.throughput["tps"].min),
    ("qps avg", lambda r: r.throughput["qps"].avg),
    ("threads running avg", lambda r: r.throughput["threads_running"].avg),
    ("tps drops", lambda r: float(len(r.drops)) if r.live_frames else None),
    ("pending reads max", lambda r: r.io["pending_reads"].max),
    ("pending writes max", lambda r: r.io["pending_writes"].max),
    ("fsyncs/s avg", lambda r: r.io["fsyncs_per_s"].avg),
    ("checkpoint age % max", lambda r: r.flush["checkpoint_age_pct"].max),
    ("history list max", lambda r: r.flush["history_list_length"].max),
    ("row lock wait ms/s avg", lambda r: r.locks["row_lock_wait_ms_per_s"].avg),
    ("run queue avg", lambda r: r.host["run_queue"].avg),
    ("cpu busy % avg", lambda r: r.host["cpu_busy_pct"].avg),
)


def compare(a: Report, b: Report) -> Comparison:
    deltas = []
    for name, get in _HEADLINES:
        va, vb = get(a), get(b)
        if va is None and vb is None:
            continue
        change = 100.0 * (vb - va) / va if va and vb is not None else None
        deltas.append(Delta(name, va, vb, change))
    shares: dict[tuple[str, str], dict[str, Any]] = {}
    for side, rep in (("a", a), ("b", b)):
        for h in rep.hotspots:
            row = shares.setdefault((h.source, h.name), {"name": h.name, "source": h.source, "a_share": 0.0,
                                                         "b_share": 0.0, "a_waits_per_s": None,
                                                         "b_waits_per_s": None})
            row[f"{side}_share"], row[f"{side}_waits_per_s"] = h.share, h.waits_per_s
    hot = sorted(shares.values(), key=lambda d: -max(d["a_share"], d["b_share"]))
    ids_a = {e.id for e in a.advice} | {x.id for x in a.window_advice}
    ids_b = {e.id for e in b.advice} | {x.id for x in b.window_advice}
    changed = [{"name": k, "a": a.variables.get(k), "b": b.variables.get(k)}
               for k in sorted(set(a.variables) | set(b.variables)) if a.variables.get(k) != b.variables.get(k)]
    from mysqltop.core.rules import finding_metrics
    own = []
    for fid in sorted((ids_a | ids_b) & (set(a.finding_metrics) | set(b.finding_metrics))):
        va, vb, what = a.finding_metrics.get(fid), b.finding_metrics.get(fid), finding_metrics.label(fid)
        own.append(Delta(f"{fid}: {what}", va, vb, 100.0 * (vb - va) / abs(va) if va and vb is not None else None))
    return Comparison(a, b, deltas, hot, sorted(ids_a - ids_b), sorted(ids_b - ids_a), sorted(ids_a & ids_b),
                      changed, own, grown(a.load.slices, b.load.slices))


GROWN_ROWS = 10


def grown(a: dict[str, list[dict[str, Any]]], b: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Two windows' load by dimension side by side: (value, sessions in A, in B), what grew most
    first (Performance Insights' compare periods); a value in one window's top only is 0 in the
    other's as far as the report knows."""
    out: dict[str, list[dict[str, Any]]] = {}
    for dim in sorted(set(a) | set(b)):
        va = {x["value"]: x["sessions"] for x in a.get(dim, [])}
        vb = {x["value"]: x["sessions"] for x in b.get(dim, [])}
        rows = [{"value": v, "a": va.get(v, 0.0), "b": vb.get(v, 0.0)} for v in {*va, *vb}]
        rows.sort(key=lambda r: (-(r["b"] - r["a"]), r["value"]))
        out[dim] = rows[:GROWN_ROWS]
    return out


def _jsonable(o: Any) -> Any:
    """Epoch fields → ISO 8601 UTC (as frames print them), NaN/inf → None."""
    if isinstance(o, dict):
        return {k: (iso_utc(v) if k in _TIME_KEYS and isinstance(v, (int, float))
                    else [iso_utc(x) for x in v] if k in _TIME_KEYS and isinstance(v, list)
                    else _jsonable(v)) for k, v in o.items()}
    if isinstance(o, list):
        return [_jsonable(v) for v in o]
    if isinstance(o, float) and (o != o or o in (float("inf"), float("-inf"))):
        return None
    return o


_TIME_KEYS = {"start", "end", "time", "max_time", "peak_time", "first", "last", "restarts"}
