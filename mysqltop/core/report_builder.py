"""ReportBuilder: the incident report accumulated frame by frame, in memory bounded by the window's
length only through small per-frame tuples (the TPS timeline), so a day-long recording is fine.

The advice that holds over the whole window needs frames: a uniform subsample of at most
ADVICE_SAMPLE_MAX live frames is kept for it (every frame while the window is short). Rates are
per-frame averages, so the shares and means the rules compute are unbiased on a subsample.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from mysqltop.core.advice import advise
from mysqltop.core.deadlocks import DeadlockBook
from mysqltop.core import top_sql
from mysqltop.core.wait_load import LoadAccumulator
from mysqltop.core.deadlocks import summarise as summarise_deadlocks
from mysqltop.core.frame import (
    DigestRate,
    COMMITTED_LABEL, WAIT_CLASSES, Frame, Hotspot, committed_or_tps, restarted_between, severity_rank,
)
from mysqltop.core.lock_report import LockWindow, StallEpisode
from mysqltop.core.hotspots import TOP_HOTSPOTS
from mysqltop.core.incident_report import (
    LOAD_POINTS, OUTAGES_MAX, AdviceEpisode, DropInfo, HotspotSummary, Outage, Report, ReportSeries, Stat,
    TimelinePoint,
)
from mysqltop.core.rules import KNOBS, finding_metrics, trends
from mysqltop.core.rules.rule_kit import clock, cpu_busy_pct, num
from mysqltop.core.stalls import NOT_RECORDED, NOT_RECORDED_WORDS

# An advice that disappears for a few seconds (a noisy sample at its threshold) is the same episode:
# gone for at most this long, beyond the frames' own spacing (a report over every k-th sample too).
EPISODE_GAP_S = 3.0
# Two hours at 1 s: plenty for "sustained over the window", ~20 MB of frames at most.
ADVICE_SAMPLE_MAX = 7200

Getter = Callable[[Frame], "float | None"]


def _host(attr: str) -> Getter:
    return lambda f: getattr(f.host, attr) if f.host is not None else None


# (section, key, getter): every figure the report keeps avg/min/max/peak-time of.
FIGURES: tuple[tuple[str, str, Getter], ...] = (
    ("throughput", "tps", lambda f: f.throughput.tps),
    ("throughput", "qps", lambda f: f.throughput.qps),
    ("throughput", "threads_running", lambda f: f.throughput.threads_running),
    ("throughput", "rows_read_per_s", lambda f: f.throughput.rows_read_per_s),
    ("throughput", "rows_changed_per_s", lambda f: f.throughput.rows_changed_per_s),
    ("throughput", "committed_per_s", lambda f: f.throughput.committed_per_s),
    ("io", "pending_reads", lambda f: f.io.pending_reads),
    ("io", "pending_writes", lambda f: f.io.pending_writes),
    ("io", "pending_fsyncs", lambda f: f.io.pending_fsyncs),
    ("io", "reads_per_s", lambda f: f.io.reads_per_s),
    ("io", "writes_per_s", lambda f: f.io.writes_per_s),
    ("io", "fsyncs_per_s", lambda f: f.io.fsyncs_per_s),
    ("flush", "pages_flushed_per_s", lambda f: f.flush.pages_flushed_per_s),
    ("flush", "dirty_pct", lambda f: f.flush.dirty_pct),
    ("flush", "checkpoint_age_pct", lambda f: f.flush.checkpoint_age_pct),
    ("flush", "log_bytes_per_s", lambda f: f.flush.log_bytes_per_s),
    ("flush", "history_list_length", lambda f: f.flush.history_list_length),
    ("host", "run_queue", _host("run_queue")),
    ("host", "cpu_busy_pct", cpu_busy_pct),
    ("host", "cpu_iowait_pct", _host("cpu_iowait_pct")),
    ("host", "cpu_steal_pct", _host("cpu_steal_pct")),
    ("host", "load1", _host("load1")),
    ("host", "mysqld_cpu_pct", _host("mysqld_cpu_pct")),
    ("locks", "row_lock_waits_per_s", lambda f: f.locks.row_lock_waits_per_s),
    ("locks", "row_lock_wait_ms_per_s", lambda f: f.locks.row_lock_wait_ms_per_s),
    ("locks", "row_lock_current_waits", lambda f: f.locks.row_lock_current_waits),
    ("locks", "deadlocks_per_s", lambda f: f.locks.deadlocks_per_s),
)


# Chart points kept (a chart is ~100 columns wide): past this, neighbouring points are merged.
CHART_POINTS = 240
CHART_HOTSPOTS = 3
_RATES = ("tps", "qps")


def _row_lock_blocked(f: Frame) -> float | None:
    """Sessions waiting for a row lock: the load's row-lock class, else the server's own count."""
    return f.load.row_lock if f.load.row_lock is not None else f.locks.row_lock_current_waits


# (ReportSeries field, getter): gauges, kept as their maximum over each chart point.
_GAUGES: tuple[tuple[str, Getter], ...] = (
    ("history_list_length", lambda f: f.flush.history_list_length),
    ("pending_reads", lambda f: f.io.pending_reads),
    ("pending_writes", lambda f: f.io.pending_writes),
    ("pending_fsyncs", lambda f: f.io.pending_fsyncs),
    ("checkpoint_age_pct", lambda f: f.flush.checkpoint_age_pct),
    ("dirty_pct", lambda f: f.flush.dirty_pct),
    ("row_lock_blocked", _row_lock_blocked),
    ("metadata_lock_blocked", lambda f: f.load.metadata_lock),
)


class _Bucket:
    """A run of frames: Σ rate × Δt and Σ Δt per rate, max per gauge, Σ wait ms per hotspot,
    Σ sessions × Δt per wait class (with the Δt of the frames that had session counts)."""

    __slots__ = ("time", "sums", "dts", "peaks", "hot", "hot_dt", "load", "load_dt")

    def __init__(self, f: Frame) -> None:
        dt = f.elapsed or 0.0
        self.time = f.time
        tp = f.throughput
        self.sums = [(v or 0.0) * dt for v in (tp.tps, tp.qps)]
        self.dts = [dt if v is not None else 0.0 for v in (tp.tps, tp.qps)]
        self.peaks = [get(f) for _, get in _GAUGES]
        self.hot = {(h.source, h.name): h.wait_ms_per_s * dt for h in f.hotspots if h.wait_ms_per_s is not None}
        self.hot_dt = dt
        known = f.load.active is not None
        self.load = [(f.load.value(c) or 0.0) * dt for c in WAIT_CLASSES] if known else [0.0] * len(WAIT_CLASSES)
        self.load_dt = dt if known else 0.0

    def merge(self, o: "_Bucket") -> "_Bucket":
        self.time = o.time
        self.sums = [a + b for a, b in zip(self.sums, o.sums)]
        self.dts = [a + b for a, b in zip(self.dts, o.dts)]
        self.peaks = [b if a is None else a if b is None else max(a, b) for a, b in zip(self.peaks, o.peaks)]
        for k, v in o.hot.items():
            self.hot[k] = self.hot.get(k, 0.0) + v
        self.hot_dt += o.hot_dt
        self.load = [a + b for a, b in zip(self.load, o.load)]
        self.load_dt += o.load_dt
        return self


class _SeriesAcc:
    """Chart points over any number of frames in bounded memory: buckets of 2^k frames."""

    def __init__(self, cap: int = CHART_POINTS) -> None:
        self.cap = max(2, cap)
        self.buckets: list[_Bucket] = []
        self.per = 1              # frames per bucket
        self.open_n = 0           # frames in the last bucket

    def add(self, f: Frame) -> None:
        b = _Bucket(f)
        if self.buckets and self.open_n < self.per:
            self.buckets[-1].merge(b)
            self.open_n += 1
            return
        self.buckets.append(b)
        self.open_n = 1
        if len(self.buckets) > self.cap:
            merged = [self.buckets[i].merge(self.buckets[i + 1]) if i + 1 < len(self.buckets) else self.buckets[i]
                      for i in range(0, len(self.buckets), 2)]
            odd = len(self.buckets) % 2 == 1          # then the new frame's bucket stays alone
            self.buckets = merged
            self.open_n = self.open_n if odd else self.per + self.open_n
            self.per *= 2

    def series(self, hotspots: Sequence[tuple[str, str]]) -> ReportSeries:
        s = ReportSeries()
        for b in self.buckets:
            s.time.append(b.time)
            for name, total, dt in zip(_RATES, b.sums, b.dts):
                getattr(s, name).append(total / dt if dt > 0 else None)
            for (name, _), peak in zip(_GAUGES, b.peaks):
                getattr(s, name).append(peak)
        for key in hotspots:
            s.hotspot_wait_ms[key[1]] = [b.hot.get(key, 0.0) / b.hot_dt if b.hot_dt > 0 else None
                                         for b in self.buckets]
        if any(b.load_dt > 0 for b in self.buckets):
            s.load = {c: [b.load[i] / b.load_dt if b.load_dt > 0 else None for b in self.buckets]
                      for i, c in enumerate(WAIT_CLASSES)}
        return s


class _StatAcc:
    """avg = Σ value × Δt / Σ Δt: a frame that covers 5 s (a late poll) counts five times one
    that covers 1 s, so the average is the window's true mean rate (Σ Δcounter / Σ Δt)."""

    __slots__ = ("total", "weight", "n", "lo", "hi", "hi_t")

    def __init__(self) -> None:
        self.total, self.weight, self.n = 0.0, 0.0, 0
        self.lo: float | None = None
        self.hi: float | None = None
        self.hi_t: float | None = None

    def add(self, v: float | None, t: float, dt: float) -> None:
        if v is None:
            return
        self.total, self.weight, self.n = self.total + v * dt, self.weight + dt, self.n + 1
        if self.lo is None or v < self.lo:
            self.lo = v
        if self.hi is None or v > self.hi:
            self.hi, self.hi_t = v, t

    def stat(self) -> Stat:
        if not self.n:
            return Stat()
        avg = self.total / self.weight if self.weight > 0 else self.lo
        return Stat(avg, self.lo, self.hi, self.hi_t, self.n)


@dataclass
class _HotAcc:
    first: Hotspot
    seen: int = 0
    ms_weight: float = 0.0        # Σ wait ms (rate × Δt)
    count_weight: float = 0.0     # Σ waits
    thread_weight: float = 0.0    # Σ waiting threads × Δt (SEMAPHORES)
    waits_dt: float = 0.0         # Σ Δt of the frames with a waits/s figure
    ms_dt: float = 0.0            # Σ Δt of the frames with a wait ms/s figure
    peak: float | None = None
    peak_t: float | None = None
    span_s: float | None = None   # measured between two snapshots this far apart (Hotspot.span_s)


class ReportBuilder:
    def __init__(self, top: int = TOP_HOTSPOTS, advice_sample_max: int = ADVICE_SAMPLE_MAX) -> None:
        self.top = top
        self.first: Frame | None = None
        self.last: Frame | None = None
        self.frames = self.live = self.stale = 0
        self.stats = {(sec, key): _StatAcc() for sec, key, _ in FIGURES}
        self.points: list[trends.Point] = []
        self.qps: list[float | None] = []
        self.hot: dict[tuple[str, str], _HotAcc] = {}
        self.host_frames = self.saturated = 0
        self.cpus: float | None = None
        self.notes: dict[str, int] = {}
        self.errors: dict[str, int] = {}
        self.unrecorded: dict[str, int] = {}     # row source → samples that did not hold it at all
        self._open: dict[str, AdviceEpisode] = {}   # advice id → its episode still open
        self._done: list[AdviceEpisode] = []
        self._sample: list[Frame] = []
        self._sample_max = max(2, advice_sample_max)
        self._stride = 1
        self.lock_window = LockWindow()
        self.committed: list[tuple[float, float]] = []     # (time, engine commits/s, else tps)
        self.committed_label = COMMITTED_LABEL
        self._elapsed = 0.0
        self._series = _SeriesAcc()
        self.outages: list[Outage] = []
        self.restarts: list[float] = []
        self.servers: list[dict[str, Any]] = []
        self._down: Outage | None = None
        self._fresh: Frame | None = None              # the last fresh frame with an Uptime
        self.deadlocks = DeadlockBook()
        self.load = LoadAccumulator()
        self.digest_reads: list[list[DigestRate]] = []   # each digest read's top digests (top_sql.window)

    def _server(self, f: Frame) -> None:
        """A different server than the last one answers from f on: an entry of its own, and no
        restart told across it (its Uptime is another server's)."""
        last = self.servers[-1] if self.servers else None
        if last is not None and f.server.same_server(last["info"]):
            last["last"] = f.time
            return
        if len(self.servers) < OUTAGES_MAX:
            self.servers.append({"info": f.server, "first": f.time, "last": f.time})
        self._fresh = None

    def _outage(self, f: Frame) -> None:
        if f.outage:
            if self._down is None:
                self._down = Outage(f.time, f.time, 0, f.why_stale(), f.failure)
                if len(self.outages) < OUTAGES_MAX:
                    self.outages.append(self._down)
            self._down.end = f.time
            self._down.frames += 1
            return
        if f.stale:
            return
        self._down = None
        self._server(f)
        up = f.server.uptime_s
        if up is not None:
            if self._fresh is not None and restarted_between(self._fresh, f) and len(self.restarts) < OUTAGES_MAX:
                self.restarts.append(f.time - up)
            self._fresh = f

    def add(self, f: Frame) -> None:
        self.frames += 1
        self.first = self.first or f
        self.last = f
        for n in f.notes:
            self.notes[n] = self.notes.get(n, 0) + 1
        for k in f.errors:
            self.errors[k] = self.errors.get(k, 0) + 1
        for k in f.unrecorded:
            self.unrecorded[k] = self.unrecorded.get(k, 0) + 1
        self._episodes(f)
        self._outage(f)
        self.deadlocks.add(f)
        if f.stale:
            self.stale += 1
            return
        self.lock_window.add(f)                 # a snapshot: the first frame (no rates yet) counts too
        if f.elapsed is None:
            return
        self.live += 1
        self._elapsed += f.elapsed
        for sec, key, get in FIGURES:
            self.stats[(sec, key)].add(get(f), f.time, f.elapsed)
        if f.throughput.tps is not None:
            self.points.append((f.time, f.throughput.tps, f.throughput.threads_running))
            self.qps.append(f.throughput.qps)
        label, c = committed_or_tps(f.throughput)
        if c is not None:
            self.committed.append((f.time, c))
            self.committed_label = label
        self._hotspots(f)
        self._series.add(f)
        self.load.add(f)
        if f.digests and not f.stale:
            self.digest_reads.append(f.digests)
        if f.host is not None:
            self.host_frames += 1
            if f.host.cpus:
                self.cpus = max(self.cpus or 0, f.host.cpus)
                self.saturated += (f.host.run_queue or 0) > f.host.cpus
        if (self.live - 1) % self._stride == 0:
            self._sample.append(f)
            if len(self._sample) > self._sample_max:   # thin to every other one, on the same grid
                self._sample = self._sample[::2]
                self._stride *= 2

    def _hotspots(self, f: Frame) -> None:
        for h in f.hotspots:
            if h.own:
                continue          # mysqltop's own footprint: not the server's hotspot
            dt = h.span_s if h.span_s is not None else f.elapsed or 0.0    # the time its rates are over
            a = self.hot.get((h.source, h.name))
            if a is None:
                a = self.hot[(h.source, h.name)] = _HotAcc(h)
            if h.span_s is not None:
                a.span_s = max(a.span_s or 0.0, h.span_s)
            a.seen += 1
            a.thread_weight += (h.waiting_threads or 0.0) * dt
            if h.waits_per_s is not None:
                a.count_weight += h.waits_per_s * dt
                a.waits_dt += dt
                if a.peak is None or h.waits_per_s > a.peak:
                    a.peak, a.peak_t = h.waits_per_s, f.time
            if h.wait_ms_per_s is not None:
                a.ms_weight += h.wait_ms_per_s * dt
                a.ms_dt += dt

    def _episodes(self, f: Frame) -> None:
        for a in f.advice:
            open_ = self._open.get(a.id)
            if open_ is not None and f.time - open_.last - (f.elapsed or 0.0) <= EPISODE_GAP_S + 1e-6:
                ep = open_
                ep.last, ep.frames = f.time, ep.frames + 1
                if severity_rank(a.severity) >= severity_rank(ep.severity):
                    ep.severity, ep.message, ep.evidence = a.severity, a.message, a.evidence
            else:
                if open_ is not None:
                    self._done.append(open_)
                ep = AdviceEpisode(a.id, a.severity, a.message, a.evidence, f.time, f.time, 1)
            self._open[a.id] = ep

    def _hotspot_summaries(self) -> list[HotspotSummary]:
        """Share = the hotspot's part of all waiting its source measured over the window (wait time
        where timed, else wait counts, else waiting threads), so a busy minute outweighs a calm hour."""
        totals: dict[str, dict[str, float]] = {}
        for (src, _), a in self.hot.items():
            t = totals.setdefault(src, {"ms": 0.0, "count": 0.0, "threads": 0.0})
            t["ms"] += a.ms_weight
            t["count"] += a.count_weight
            t["threads"] += a.thread_weight
        measure = {src: next((m for m in ("ms", "count", "threads") if t[m] > 0), "ms") for src, t in totals.items()}
        weight = {"ms": lambda a: a.ms_weight, "count": lambda a: a.count_weight, "threads": lambda a: a.thread_weight}
        out = []
        for (src, _), a in self.hot.items():
            m = measure[src]
            total = totals[src][m]
            h = a.first
            out.append(HotspotSummary(
                name=h.name, kind=h.kind, source=src, site=h.site,
                share=weight[m](a) / total if total else 0.0,
                waits_per_s=a.count_weight / a.waits_dt if a.waits_dt > 0 else None,
                wait_ms_per_s=a.ms_weight / a.ms_dt if a.ms_dt > 0 else None,
                peak_waits_per_s=a.peak, peak_time=a.peak_t, seen_pct=100.0 * a.seen / (self.live or 1),
                span_s=a.span_s))
        out.sort(key=lambda s: (-s.share, -(s.wait_ms_per_s or 0.0), -(s.waits_per_s or 0.0), s.name))
        return out[:self.top]

    def build(self, variables: Mapping[str, str] | None = None,
              bookmarks: Sequence[Mapping[str, Any]] = (), samples: int | None = None, stride: int = 1) -> Report:
        """`samples`: samples in the window (default: the frames added); `stride` > 1: the frames
        added were every stride-th of them (each frame's rates the average over its span)."""
        start = self.first.time if self.first else None   # the first sample in range, as --start chose it
        end = self.last.time if self.last else None
        resolution = None
        if stride > 1 and self.live:
            resolution = self._elapsed / self.live
        baseline = max(trends.BASELINE_S, trends.BASELINE_MIN_POINTS * (resolution or 0.0))
        drops = trends.drops_in(self.points, baseline)
        spans = [(d.start, d.end) for d in drops]
        timeline, k = [], 0
        for (t, tps, _), qps in zip(self.points, self.qps):
            while k < len(spans) and spans[k][1] < t:
                k += 1
            timeline.append(TimelinePoint(t, tps, qps, k < len(spans) and spans[k][0] <= t <= spans[k][1]))
        sections: dict[str, dict[str, Any]] = {"throughput": {}, "io": {}, "flush": {}, "host": {}, "locks": {}}
        for (sec, key), acc in self.stats.items():
            sections[sec][key] = acc.stat()
        server = self.last.server if self.last else None
        episodes = self._done + list(self._open.values())
        # stalls first (the story), then every other finding in the order it began
        episodes.sort(key=lambda e: (not e.id.startswith("stall_"), e.first, -severity_rank(e.severity), e.id))
        window_advice = advise(self._sample, variables or {}, min_span_s=None)
        hotspots = self._hotspot_summaries()
        timed = [(h.source, h.name) for h in hotspots if h.wait_ms_per_s is not None][:CHART_HOTSPOTS]
        return Report(
            start=start, end=end, duration_s=(end - start) if start is not None and end is not None else 0.0,
            frames=self.frames, live_frames=self.live, stale_frames=self.stale,
            samples=self.frames if samples is None else samples, stride=max(1, stride), resolution_s=resolution,
            series=self._series.series(timed),
            server={"version": server.version if server else None, "flavor": server.flavor if server else None,
                    "address": server.address if server else None},
            throughput=sections["throughput"], timeline=timeline,
            drops=[DropInfo(d.start, d.end, d.min_tps, d.baseline_tps, 100.0 * d.depth) for d in drops],
            hotspots=hotspots, io=sections["io"], flush=sections["flush"],
            host={"cpus": self.cpus,
                  "saturated_pct": 100.0 * self.saturated / self.host_frames if self.host_frames and self.cpus else None,
                  **sections["host"]},
            locks=sections["locks"], advice=episodes,
            window_advice=window_advice,
            notes=sorted(self.notes, key=lambda n: -self.notes[n]), errors=dict(self.errors),
            unrecorded=dict(sorted(self.unrecorded.items())),
            bookmarks=[dict(b) for b in bookmarks
                       if start is not None and end is not None and start <= b["time"] <= end],
            variables={k: str(v) for k, v in (variables or {}).items() if k.lower() in KNOBS},
            blocking_chains=self.lock_window.longest_chains(),
            long_transactions=self.lock_window.longest_transactions(),
            finding_metrics={k: v for k in finding_metrics.FINDINGS if (v := finding_metrics.value(k, self._sample)) is not None},
            outages=list(self.outages), restarts=list(self.restarts),
            servers=[{"uid": e["info"].uid, "version": e["info"].version, "flavor": e["info"].flavor,
                      "address": e["info"].address, "first": e["first"], "last": e["last"]} for e in self.servers],
            stalls=(stalls := self._stall_episodes()), headline=headline(stalls, self.first),
            deadlocks=summarise_deadlocks(self.deadlocks),
            load=self.load.summary(LOAD_POINTS, spans=[(e.id, e.first, e.last) for e in episodes]),
            digests=top_sql.window(self.digest_reads, sum(r[0].span_s for r in self.digest_reads)))

    def _stall_episodes(self) -> list[StallEpisode]:
        eps = self.lock_window.stall_episodes()
        pts = self.committed
        for ep in eps:
            ep.tps_before = _mean([c for t, c in pts if ep.start - STALL_CONTEXT_S <= t < ep.start])
            ep.tps_during = _mean([c for t, c in pts if ep.start <= t <= ep.end])
            ep.tps_after = None if ep.open else _mean([c for t, c in pts if ep.end < t <= ep.end + STALL_CONTEXT_S])
            ep.tps_label = self.committed_label
        return eps


# Throughput "before" and "after" a stall: the 30 s on either side.
STALL_CONTEXT_S = 30.0


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def headline(stalls: Sequence[StallEpisode], first: Frame | None) -> str | None:
    """The story first: the biggest stall of the window, from–to, its root and what it cost."""
    if not stalls:
        return None
    ep = stalls[0]
    before_window = first is not None and ep.start < first.time - 1.0
    when = (f"{clock(ep.start)}{' (before this window)' if before_window else ''}–"
            f"{'still stalled at ' + clock(ep.end) if ep.open else clock(ep.end)} UTC")
    if ep.root_thread_id is not None:
        who = (f"root thread {ep.root_thread_id} {ep.root_user or '?'}@{(ep.root_host or '?').rsplit(':', 1)[0]}"
               f" ({ep.root_command or '?'}) — " + (f"{ep.kill};" if ep.kill else "no single KILL releases it;"))
    elif ep.source == NOT_RECORDED:
        who = f"{NOT_RECORDED_WORDS};"
    elif ep.candidate_ids:
        who = ("the holder was inferred, not listed by the server (no single KILL); candidates, oldest first: "
               f"threads {', '.join(str(i) for i in ep.candidate_ids[:6])}{' …' if len(ep.candidate_ids) > 6 else ''};")
    else:
        who = "the holder was not visible;"
    tps = " → ".join(f"{label} {num(x)}" for label, x in (("before", ep.tps_before), ("during", ep.tps_during),
                                                        ("after", ep.tps_after)) if x is not None)
    more = f" (+{len(stalls) - 1} more stall(s))" if len(stalls) > 1 else ""
    return (f"STALL {when}: {ep.max_waiting} session(s) blocked on {ep.on}, the longest for "
            f"{num(ep.longest_wait_s)} s; {who} {ep.tps_label} {tps or 'n/a'}{more}")


def build_report(frames: Sequence[Frame], variables: Mapping[str, str] | None = None,
                 top: int = TOP_HOTSPOTS, bookmarks: Sequence[Mapping[str, Any]] = ()) -> Report:
    """Report over `frames` (oldest first). `bookmarks`: the recorder's trigger marks
    ({time, trigger, value, note}); those inside the window are kept."""
    builder = ReportBuilder(top)
    for f in frames:
        builder.add(f)
    return builder.build(variables, bookmarks)
