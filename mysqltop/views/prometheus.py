"""The Prometheus view: a prometheus_client collector over the newest frame of each server.

Naming follows Prometheus conventions: base units in names (`_seconds`, `_bytes`, `_ratio` for
0..1), rates as gauges named `…_per_second` (they are already rates over the poll interval), and
`_total` only on true counters (this process's polls). A frame with no fresh data exports no
values (a gap in the graphs, `mysqltop_up 0`) rather than stale numbers. Latches are bounded: the
`top` hottest per server by wait time, the rest summed into `latch="other"` per source. Label
values are server-controlled text: control characters are made visible here, and
prometheus_client escapes backslash, quote and newline in both exposition formats.
"""

from __future__ import annotations

import math
import time
from typing import Callable, Iterable, Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from mysqltop.core.fleet import LatchTotal, latch_totals
from mysqltop.core.frame import Frame
from mysqltop.core.safe_text import visible
from mysqltop.views.fleet_poll import ServerState

PREFIX = "mysqltop"
OTHER = "other"
FRESH_INTERVALS = 3.0         # a fresh frame older than this many intervals is not exported

# (metric name without prefix, help, frame group, field, scale)
Field = tuple[str, str, str, str, float]
FIELDS: tuple[Field, ...] = (
    ("transactions_per_second", "commits + rollbacks per second (Com_commit + Com_rollback)",
     "throughput", "tps", 1.0),
    ("queries_per_second", "statements per second (Questions, without mysqltop's own)", "throughput", "qps", 1.0),
    ("commits_per_second", "COMMITs per second", "throughput", "commits_per_s", 1.0),
    ("rollbacks_per_second", "ROLLBACKs per second", "throughput", "rollbacks_per_s", 1.0),
    ("write_transactions_per_second", "read-write transactions started per second (trx id counter)",
     "throughput", "write_trx_per_s", 1.0),
    ("rows_read_per_second", "InnoDB rows read per second", "throughput", "rows_read_per_s", 1.0),
    ("rows_changed_per_second", "InnoDB rows inserted, updated or deleted per second",
     "throughput", "rows_changed_per_s", 1.0),
    ("threads_running", "Threads_running", "throughput", "threads_running", 1.0),
    ("pages_flushed_per_second", "buffer pool pages flushed per second", "flush", "pages_flushed_per_s", 1.0),
    ("dirty_pages", "modified pages in the buffer pool", "flush", "dirty_pages", 1.0),
    ("dirty_pages_ratio", "modified pages / (database + free pages), 0..1", "flush", "dirty_pct", 0.01),
    ("checkpoint_age_bytes", "redo written since the last checkpoint", "flush", "checkpoint_age_bytes", 1.0),
    ("checkpoint_age_ratio", "checkpoint age / usable redo capacity, 0..1", "flush", "checkpoint_age_pct", 0.01),
    ("redo_log_bytes_per_second", "redo log bytes written per second", "flush", "log_bytes_per_s", 1.0),
    ("history_list_length", "undo history not yet purged (transactions)", "flush", "history_list_length", 1.0),
    ("io_pending_reads", "pending InnoDB reads", "io", "pending_reads", 1.0),
    ("io_pending_writes", "pending InnoDB writes", "io", "pending_writes", 1.0),
    ("io_pending_fsyncs", "pending InnoDB fsyncs", "io", "pending_fsyncs", 1.0),
    ("io_reads_per_second", "InnoDB data file reads per second", "io", "reads_per_s", 1.0),
    ("io_writes_per_second", "InnoDB data file writes per second", "io", "writes_per_s", 1.0),
    ("io_fsyncs_per_second", "InnoDB fsyncs per second", "io", "fsyncs_per_s", 1.0),
    ("row_lock_waits_per_second", "row lock waits per second", "locks", "row_lock_waits_per_s", 1.0),
    ("row_lock_wait_seconds_per_second", "seconds spent waiting for row locks per second",
     "locks", "row_lock_wait_ms_per_s", 0.001),
    ("row_lock_current_waits", "transactions waiting for a row lock now", "locks", "row_lock_current_waits", 1.0),
    ("deadlocks_per_second", "deadlocks per second", "locks", "deadlocks_per_s", 1.0),
    ("semaphore_os_waits_per_second", "InnoDB semaphore OS waits per second", "semaphores", "os_waits_per_s", 1.0),
    ("semaphore_waiting_threads", "threads in the InnoDB semaphore wait array now",
     "semaphores", "waiting_threads", 1.0),
    ("host_cpus", "CPUs of the database host", "host", "cpus", 1.0),
    ("host_run_queue", "runnable threads on the database host", "host", "run_queue", 1.0),
    ("host_load1", "1-minute load average of the database host", "host", "load1", 1.0),
    ("host_context_switches_per_second", "context switches per second on the database host",
     "host", "ctx_switches_per_s", 1.0),
    ("mysqld_cpu_ratio", "CPU used by mysqld, in CPUs (1 = one core busy)", "host", "mysqld_cpu_pct", 0.01),
)
HOST_CPU_MODES = (("user", "cpu_user_pct"), ("system", "cpu_system_pct"), ("iowait", "cpu_iowait_pct"),
                  ("steal", "cpu_steal_pct"))


def _number(v: object) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    f = float(v)
    return f if math.isfinite(f) else None


def _label(v: object) -> str:
    return visible("" if v is None else v)[:200]


class FleetCollector(Collector):
    """Collects on every scrape from `states()` (the poller's copies; never waits on a poll)."""

    def __init__(self, states: Callable[[], list[ServerState]], interval: float,
                 top: int = 10, clock: Callable[[], float] = time.monotonic) -> None:
        self.states = states
        self.interval = interval
        self.top = max(0, top)
        self.clock = clock

    def describe(self) -> Iterable[GaugeMetricFamily]:
        return []          # no fixed set: label values come from the servers

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        now = self.clock()
        states = self.states()

        def gauge(name: str, help_: str, labels: tuple[str, ...] = ()) -> GaugeMetricFamily:
            return GaugeMetricFamily(f"{PREFIX}_{name}", help_, labels=["server", *labels])

        up = gauge("up", "1 when the newest poll of the server gave fresh data")
        late = gauge("late", "1 when no poll result came for more than 1.5 intervals (a poll is hanging)")
        age = gauge("last_frame_age_seconds", "seconds since the newest poll result arrived")
        duration = gauge("poll_duration_seconds", "wall time of the newest poll (round trip and host read)")
        info = gauge("server_info", "the monitored server", ("flavor", "version"))
        polls = CounterMetricFamily(f"{PREFIX}_polls", "polls made", labels=["server"])
        stale = CounterMetricFamily(f"{PREFIX}_stale_polls", "polls that gave no fresh data (timeout, "
                                    "connection lost, access denied)", labels=["server"])
        lates = CounterMetricFamily(f"{PREFIX}_late_polls", "poll results that came more than 1.5 "
                                    "intervals after the previous one", labels=["server"])
        fields = {name: gauge(name, help_) for name, help_, *_ in FIELDS}
        cpu = gauge("host_cpu_ratio", "share of the host's CPU time by mode, 0..1", ("mode",))
        waits = gauge("latch_waits_per_second", "latch waits per second (top latches, the rest as other)",
                      ("latch", "source"))
        wait_s = gauge("latch_wait_seconds_per_second", "seconds waited on the latch per second, summed "
                       "over threads (top latches, the rest as other)", ("latch", "source"))
        waiting = gauge("latch_waiting_threads", "threads waiting on the latch now (InnoDB semaphore "
                        "wait array: no rate there)", ("latch", "source"))
        finding = gauge("finding", "a finding raised on the newest frame (1 per id)", ("id", "severity"))

        for st in states:
            server = _label(st.name)
            silent = st.silent_for(now)
            up.add_metric([server], 1.0 if st.frame is not None and not st.frame.stale else 0.0)
            late.add_metric([server], 1.0 if silent > 1.5 * self.interval else 0.0)
            if st.arrived is not None:
                age.add_metric([server], silent)
            if st.poll_s is not None:
                duration.add_metric([server], st.poll_s)
            polls.add_metric([server], st.polls)
            stale.add_metric([server], st.stale)
            lates.add_metric([server], st.late)
            known = st.good or st.frame
            if known is not None and (known.server.flavor or known.server.version):
                info.add_metric([server, _label(known.server.flavor), _label(known.server.version)], 1.0)
            frame = st.frame
            if frame is None or frame.stale or silent > max(FRESH_INTERVALS * self.interval, 5.0):
                continue
            latches = st.latches if frame is st.summary_of else tuple(latch_totals(frame.hotspots))
            self._frame(server, frame, latches, fields, cpu, waits, wait_s, waiting, finding)

        yield from (up, late, age, duration, info, polls, stale, lates)
        yield from fields.values()
        yield from (cpu, waits, wait_s, waiting, finding)

    def _frame(self, server: str, frame: Frame, totals: tuple[LatchTotal, ...], fields: dict[str, GaugeMetricFamily],
               cpu: GaugeMetricFamily, waits: GaugeMetricFamily, wait_s: GaugeMetricFamily,
               waiting: GaugeMetricFamily, finding: GaugeMetricFamily) -> None:
        for name, _help, group, attr, scale in FIELDS:
            obj = getattr(frame, group, None)
            v = _number(getattr(obj, attr, None)) if obj is not None else None
            if v is not None:
                fields[name].add_metric([server], v * scale)
        if frame.host is not None:
            for mode, attr in HOST_CPU_MODES:
                v = _number(getattr(frame.host, attr))
                if v is not None:
                    cpu.add_metric([server, mode], v / 100.0)

        other: dict[str, list[float | None]] = {}
        seen: set[tuple[str, str]] = set()
        for i, t in enumerate(totals):
            name, source = _label(t.name), _label(t.source)
            if name == OTHER:
                name = f"{OTHER} (latch)"      # a latch really named so must not merge into the bucket
            if i < self.top and (name, source) not in seen:
                seen.add((name, source))
                labels = [server, name, source]
                for family, v in ((waits, t.waits_per_s), (wait_s, t.wait_ms_per_s), (waiting, t.waiting_threads)):
                    x = _number(v)
                    if x is not None:
                        family.add_metric(labels, x / 1000.0 if family is wait_s else x)
                continue
            acc = other.setdefault(t.source, [None, None, None])
            for j, v in enumerate((t.waits_per_s, t.wait_ms_per_s, t.waiting_threads)):
                x = _number(v)
                if x is not None:
                    acc[j] = (acc[j] or 0.0) + x
        for source, (w, ms, threads) in other.items():
            labels = [server, OTHER, _label(source)]
            if w is not None:
                waits.add_metric(labels, w)
            if ms is not None:
                wait_s.add_metric(labels, ms / 1000.0)
            if threads is not None:
                waiting.add_metric(labels, threads)

        for a in {a.id: a for a in frame.advice}.values():
            finding.add_metric([server, _label(a.id), _label(a.severity)], 1.0)
