"""The Prometheus view: a prometheus_client collector over the newest frame of each server.

Every name, type, unit and help comes from the registry (core/metrics.py), shared with `snapshot
--format openmetrics`. Cumulative things are counters with the server's own values, levels are
gauges; every series carries `server`. A frame with no fresh data exports no server values (a gap
in the graphs, `mysqltop_up 0`) rather than stale numbers. Latch series are stable: every latch
that has waited keeps its own (up to the registry's cap per server, the rest summed into
`latch="other"`). Label values are server-controlled text: control characters are made visible
here, and prometheus_client escapes backslash, quote and newline in both exposition formats.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Iterable, Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from mysqltop.core import metrics as reg
from mysqltop.core.fleet import latch_totals
from mysqltop.core.safe_text import visible
from mysqltop.fleet import ServerState

FRESH_INTERVALS = 3.0         # a fresh frame older than this many intervals is not exported
Family = CounterMetricFamily | GaugeMetricFamily


def _label(v: object) -> str:
    return visible("" if v is None else v)[:200]


def family(m: reg.Metric, *, server: bool = True) -> Family:
    labels = ["server", *m.labels] if server else list(m.labels)
    if m.kind == reg.COUNTER:
        return CounterMetricFamily(m.full, m.help, labels=labels)
    return GaugeMetricFamily(m.full, m.help, labels=labels)


class FleetCollector(Collector):
    """Collects on every scrape from `states()` (the poller's copies; never waits on a poll)."""

    def __init__(self, states: Callable[[], list[ServerState]], interval: float,
                 max_latches: int = reg.MAX_LATCH_SERIES, clock: Callable[[], float] = time.monotonic) -> None:
        self.states = states
        self.interval = interval
        self.max_latches = max_latches
        self.clock = clock
        self._latches: dict[str, reg.LatchSeries] = {}
        self._lock = threading.Lock()          # scrapes may run concurrently; LatchSeries is stateful

    def describe(self) -> Iterable[Family]:
        return []          # no fixed set: label values come from the servers

    def collect(self) -> Iterator[Family]:
        return self.collect_for(None)

    def collect_for(self, names: set[str] | None) -> Iterator[Family]:
        """The families of the servers named (None: every server)."""
        now = self.clock()
        fams = {m.name: family(m) for m in (*reg.EXPORTER_METRICS, *reg.SCALARS, *reg.LABELLED)}
        with self._lock:
            for st in self.states():
                if names is None or st.name in names:
                    self._server(st, now, fams)
        return iter([f for f in fams.values() if f.samples or f.name in (reg.UP.full, reg.POLLS.full)])

    def _server(self, st: ServerState, now: float, fams: dict[str, Family]) -> None:
        server = _label(st.name)
        silent = st.silent_for(now)
        fresh = st.frame is not None and not st.frame.stale
        fams[reg.UP.name].add_metric([server], 1.0 if fresh else 0.0)
        fams[reg.LATE.name].add_metric([server], 1.0 if silent > 1.5 * self.interval else 0.0)
        if st.arrived is not None:
            fams[reg.FRAME_AGE.name].add_metric([server], silent)
        down = st.down_for(now)
        if down is not None:
            fams[reg.DOWN_FOR.name].add_metric([server], down)
        if st.poll_s is not None:
            fams[reg.POLL_DURATION.name].add_metric([server], st.poll_s)
        fams[reg.POLLS.name].add_metric([server], st.polls)
        fams[reg.STALE_POLLS.name].add_metric([server], st.stale)
        fams[reg.LATE_POLLS.name].add_metric([server], st.late)
        fams[reg.QUERIES.name].add_metric([server], st.queries)
        known = st.good or st.frame
        if known is not None and (known.server.flavor or known.server.version):
            fams[reg.SERVER_INFO.name].add_metric(
                [server, _label(known.server.flavor), _label(known.server.version)], 1.0)
        frame = st.frame
        if frame is None or frame.stale or silent > max(FRESH_INTERVALS * self.interval, 5.0):
            return
        for m, v in reg.scalar_values(frame):
            fams[m.name].add_metric([server], v)
        for mode, v in reg.host_cpu_values(frame):
            fams[reg.HOST_CPU.name].add_metric([server, mode], v)
        series = self._latches.get(st.name)
        if series is None:
            series = self._latches[st.name] = reg.LatchSeries(self.max_latches)
        for s in series.samples(frame.latch_counters):
            labels = [server, _label(s.latch), _label(s.source)]
            if s.waits is not None:
                fams[reg.LATCH_WAITS.name].add_metric(labels, s.waits)
            if s.wait_s is not None:
                fams[reg.LATCH_WAIT_SECONDS.name].add_metric(labels, s.wait_s)
        for t in latch_totals([h for h in frame.hotspots if h.source == "semaphores"]):
            if t.waiting_threads is not None:
                fams[reg.LATCH_WAITING.name].add_metric([server, _label(t.name), _label(t.source)],
                                                        t.waiting_threads)
        for finding_id, severity in reg.finding_values(frame):
            fams[reg.FINDING.name].add_metric([server, _label(finding_id)], severity)
        for session, waiters in reg.blocking_values(frame):
            fams[reg.BLOCKING_ROOT.name].add_metric([server, session], waiters)
