"""Incident report of a window of frames: what happened, where InnoDB waited, what to change. Pure.

`build_report(frames, variables)` summarises frames already derived by the FramePipeline (so
each frame's `advice` is what live showed at that moment): the TPS/QPS timeline with drops
marked, the top hotspots over the window with their share, IO/flush peaks, host saturation,
every advice episode (first–last time, evidence), and the advice that holds over the whole
window. `compare(a, b)` puts two reports side by side with the change of each headline figure.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from mysqltop.core.advice import advise
from mysqltop.core.frame import Advice, Frame, iso_utc
from mysqltop.core.rules import signals

TOP_HOTSPOTS = 10
# An advice that disappears for a few frames (a noisy sample at its threshold) is the same episode.
EPISODE_GAP_FRAMES = 3
_SEVERITY_RANK = {"info": 0, "warning": 1, "critical": 2}

Getter = Callable[[Frame], "float | None"]


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
    waits_per_s: float | None          # mean over frames where it appeared
    wait_ms_per_s: float | None
    peak_waits_per_s: float | None
    peak_time: float | None
    seen_pct: float                    # % of live frames it appeared in


@dataclass
class AdviceEpisode:
    id: str
    severity: str                      # the most severe it reached
    message: str
    evidence: str                      # as shown at the episode's strongest (then last) frame
    first: float
    last: float
    frames: int


@dataclass
class Report:
    start: float | None
    end: float | None
    duration_s: float
    frames: int
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
    bookmarks: list[dict[str, Any]] = field(default_factory=list)   # {time, trigger, value, note} in range

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(dataclasses.asdict(self))


def _stat(frames: Sequence[Frame], get: Getter) -> Stat:
    total, n, lo, hi, hi_t = 0.0, 0, None, None, None
    for f in frames:
        v = get(f)
        if v is None:
            continue
        total, n = total + v, n + 1
        lo = v if lo is None or v < lo else lo
        if hi is None or v > hi:
            hi, hi_t = v, f.time
    return Stat(total / n, lo, hi, hi_t, n) if n else Stat()


def _busy(f: Frame) -> float | None:
    h = f.host
    return None if h is None or h.cpu_user_pct is None else h.cpu_user_pct + (h.cpu_system_pct or 0.0)


def _weight(h: Any, measure: str) -> float:
    v = h.wait_ms_per_s if measure == "time" else h.waits_per_s if measure == "count" else h.waiting_threads
    return v or 0.0


def _hotspots(live: Sequence[Frame], top: int) -> list[HotspotSummary]:
    """Share = the hotspot's part of all waiting its source measured over the window (wait time
    where timed, else wait counts, else waiting threads), so a busy minute outweighs a calm hour."""
    measure: dict[str, str] = {}
    for f in live:
        for h in f.hotspots:
            m = "time" if h.wait_ms_per_s is not None else "count" if h.waits_per_s is not None else "threads"
            if measure.get(h.source) != "time":
                measure[h.source] = m if measure.get(h.source) != "count" or m == "time" else "count"
    acc: dict[tuple[str, str], dict[str, Any]] = {}
    totals: dict[str, float] = {}
    for f in live:
        dt = f.elapsed or 0.0
        for h in f.hotspots:
            a = acc.setdefault((h.source, h.name), {"h": h, "weight": 0.0, "n": 0, "waits": [], "ms": [],
                                                    "peak": None, "peak_t": None})
            w = _weight(h, measure[h.source]) * dt
            a["weight"] += w
            totals[h.source] = totals.get(h.source, 0.0) + w
            a["n"] += 1
            if h.waits_per_s is not None:
                a["waits"].append(h.waits_per_s)
                if a["peak"] is None or h.waits_per_s > a["peak"]:
                    a["peak"], a["peak_t"] = h.waits_per_s, f.time
            if h.wait_ms_per_s is not None:
                a["ms"].append(h.wait_ms_per_s)
    n = len(live) or 1
    out = [HotspotSummary(name=a["h"].name, kind=a["h"].kind, source=src, site=a["h"].site,
                          share=a["weight"] / totals[src] if totals.get(src) else 0.0,
                          waits_per_s=_mean(a["waits"]), wait_ms_per_s=_mean(a["ms"]),
                          peak_waits_per_s=a["peak"], peak_time=a["peak_t"], seen_pct=100.0 * a["n"] / n)
           for (src, _), a in acc.items()]
    out.sort(key=lambda s: (-s.share, -(s.wait_ms_per_s or 0.0), -(s.waits_per_s or 0.0), s.name))
    return out[:top]


def _mean(vals: list[float]) -> float | None:
    return sum(vals) / len(vals) if vals else None


def _episodes(frames: Sequence[Frame]) -> list[AdviceEpisode]:
    open_: dict[str, tuple[AdviceEpisode, int]] = {}   # id → (episode, index of last frame seen)
    done: list[AdviceEpisode] = []
    for i, f in enumerate(frames):
        for a in f.advice:
            ep_last = open_.get(a.id)
            if ep_last is not None and i - ep_last[1] <= EPISODE_GAP_FRAMES:
                ep = ep_last[0]
                ep.last, ep.frames = f.time, ep.frames + 1
                if _SEVERITY_RANK.get(a.severity, 0) >= _SEVERITY_RANK.get(ep.severity, 0):
                    ep.severity, ep.message, ep.evidence = a.severity, a.message, a.evidence
            else:
                if ep_last is not None:
                    done.append(ep_last[0])
                ep = AdviceEpisode(a.id, a.severity, a.message, a.evidence, f.time, f.time, 1)
            open_[a.id] = (ep, i)
    done.extend(ep for ep, _ in open_.values())
    done.sort(key=lambda e: (e.first, -_SEVERITY_RANK.get(e.severity, 0), e.id))
    return done


def build_report(frames: Sequence[Frame], variables: Mapping[str, str] | None = None,
                 top: int = TOP_HOTSPOTS, bookmarks: Sequence[Mapping[str, Any]] = ()) -> Report:
    """`bookmarks`: the recorder's trigger marks ({time, trigger, value, note}); those inside the
    window are kept."""
    live = [f for f in frames if not f.stale and f.elapsed is not None]
    start = frames[0].time if frames else None    # the first sample in range, as --start chose it
    end = frames[-1].time if frames else None
    drops = signals.drops(live)
    in_drop = {f.time for f in live for d in drops if d.start <= f.time <= d.end}
    last = frames[-1].server if frames else None
    notes: dict[str, int] = {}
    errors: dict[str, int] = {}
    for f in frames:
        for n in f.notes:
            notes[n] = notes.get(n, 0) + 1
        for k in f.errors:
            errors[k] = errors.get(k, 0) + 1
    host_frames = [f for f in live if f.host is not None]
    cpus = max((f.host.cpus for f in host_frames if f.host and f.host.cpus), default=None)
    saturated = sum(1 for f in host_frames if cpus and f.host and (f.host.run_queue or 0) > cpus)
    return Report(
        start=start, end=end, duration_s=(end - start) if start is not None and end is not None else 0.0,
        frames=len(frames), live_frames=len(live), stale_frames=sum(1 for f in frames if f.stale),
        server={"version": last.version if last else None, "flavor": last.flavor if last else None,
                "address": last.address if last else None},
        throughput={
            "tps": _stat(live, lambda f: f.throughput.tps),
            "qps": _stat(live, lambda f: f.throughput.qps),
            "threads_running": _stat(live, lambda f: f.throughput.threads_running),
            "rows_read_per_s": _stat(live, lambda f: f.throughput.rows_read_per_s),
            "rows_changed_per_s": _stat(live, lambda f: f.throughput.rows_changed_per_s),
        },
        timeline=[TimelinePoint(f.time, f.throughput.tps, f.throughput.qps, f.time in in_drop) for f in live],
        drops=[DropInfo(d.start, d.end, d.min_tps, d.baseline_tps, 100.0 * d.depth) for d in drops],
        hotspots=_hotspots(live, top),
        io={k: _stat(live, g) for k, g in (
            ("pending_reads", lambda f: f.io.pending_reads), ("pending_writes", lambda f: f.io.pending_writes),
            ("pending_fsyncs", lambda f: f.io.pending_fsyncs), ("reads_per_s", lambda f: f.io.reads_per_s),
            ("writes_per_s", lambda f: f.io.writes_per_s), ("fsyncs_per_s", lambda f: f.io.fsyncs_per_s))},
        flush={k: _stat(live, g) for k, g in (
            ("pages_flushed_per_s", lambda f: f.flush.pages_flushed_per_s),
            ("dirty_pct", lambda f: f.flush.dirty_pct),
            ("checkpoint_age_pct", lambda f: f.flush.checkpoint_age_pct),
            ("log_bytes_per_s", lambda f: f.flush.log_bytes_per_s),
            ("history_list_length", lambda f: f.flush.history_list_length))},
        host={"cpus": cpus,
              "saturated_pct": 100.0 * saturated / len(host_frames) if host_frames and cpus else None,
              **{k: _stat(live, g) for k, g in (
                  ("run_queue", lambda f: f.host.run_queue if f.host else None),
                  ("cpu_busy_pct", _busy),
                  ("cpu_iowait_pct", lambda f: f.host.cpu_iowait_pct if f.host else None),
                  ("cpu_steal_pct", lambda f: f.host.cpu_steal_pct if f.host else None),
                  ("load1", lambda f: f.host.load1 if f.host else None),
                  ("mysqld_cpu_pct", lambda f: f.host.mysqld_cpu_pct if f.host else None))}},
        locks={k: _stat(live, g) for k, g in (
            ("row_lock_waits_per_s", lambda f: f.locks.row_lock_waits_per_s),
            ("row_lock_wait_ms_per_s", lambda f: f.locks.row_lock_wait_ms_per_s),
            ("row_lock_current_waits", lambda f: f.locks.row_lock_current_waits),
            ("deadlocks_per_s", lambda f: f.locks.deadlocks_per_s))},
        advice=_episodes(frames),
        window_advice=advise(frames, variables or {}, span_s=None),
        notes=sorted(notes, key=lambda n: -notes[n]),
        errors=errors,
        bookmarks=[dict(b) for b in bookmarks
                   if start is not None and end is not None and start <= b["time"] <= end],
    )


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
    return Comparison(a, b, deltas, hot, sorted(ids_a - ids_b), sorted(ids_b - ids_a), sorted(ids_a & ids_b))


def _jsonable(o: Any) -> Any:
    """Epoch fields → ISO 8601 UTC (as frames print them), NaN/inf → None."""
    if isinstance(o, dict):
        return {k: (iso_utc(v) if k in _TIME_KEYS and isinstance(v, (int, float)) else _jsonable(v))
                for k, v in o.items()}
    if isinstance(o, list):
        return [_jsonable(v) for v in o]
    if isinstance(o, float) and (o != o or o in (float("inf"), float("-inf"))):
        return None
    return o


_TIME_KEYS = {"start", "end", "time", "max_time", "peak_time", "first", "last"}
