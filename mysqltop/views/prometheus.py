"""The Prometheus view: the exposition of the newest frame of each server, text format or OpenMetrics.

Every name, type, unit and help comes from the registry (core/metrics.py), shared with `snapshot
--format openmetrics`. Cumulative things are counters with the server's own values, levels are
gauges; every series carries `server`. A frame with no fresh data exports no server values (a gap
in the graphs, `mysqltop_up 0`) rather than stale numbers. Latch series are stable: every latch
that has waited keeps its own (up to the registry's cap per server, the rest summed into
`latch="other"`). Label values are server-controlled text: control characters are made visible,
then backslash, quote and newline escaped as both formats require.

Rendered here rather than through prometheus_client's collectors: a server's sample lines are the
same in both formats and change only when its frame does, so they are built once per frame — on
the poll thread as the frame arrives (`prepare`) — and a scrape joins bytes (100 servers, ~23k
series: a few ms, against ~200 ms building samples anew). Only the exporter's own few lines per
server (up, ages, poll counts) are built per scrape.
"""

from __future__ import annotations

import functools
import math
import threading
import time
from typing import Callable

from mysqltop.core import metrics as reg
from mysqltop.core.fleet_rank import latch_totals
from mysqltop.core.frame import WAIT_CLASSES, Frame
from mysqltop.core.safe_text import visible
from mysqltop.fleet import ServerState

FRESH_INTERVALS = 3.0         # a fresh frame older than this many intervals is not exported
TEXT = "text/plain; version=0.0.4; charset=utf-8"
OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"

Chunks = dict[str, bytes]             # family name → its sample lines, encoded


@functools.lru_cache(maxsize=65536)
def _label(v: object) -> str:
    """A label value: control characters made visible, cut to 200, then escaped for the format."""
    text = visible("" if v is None else v)[:200]
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _value(v: float) -> str:
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v)}.0"
    return repr(float(v))


def _header(m: reg.Metric, openmetrics: bool) -> str:
    help_ = m.help.replace("\\", "\\\\").replace("\n", "\\n")
    if openmetrics:
        unit = f"# UNIT {m.full} {m.unit}\n" if m.unit else ""
        return f"# HELP {m.full} {help_}\n# TYPE {m.full} {m.kind}\n{unit}"
    return f"# HELP {m.sample} {help_}\n# TYPE {m.sample} {m.kind}\n"


FRAME_FAMILIES: tuple[reg.Metric, ...] = (*reg.SCALARS, reg.HOST_CPU, reg.LATCH_WAITS, reg.LATCH_WAIT_SECONDS,
                                          reg.LATCH_WAITING, reg.FINDING, reg.BLOCKING_ROOT, reg.STALL_WAITING)
OWN_FAMILIES: tuple[reg.Metric, ...] = (*reg.EXPORTER_METRICS, reg.SERVER_INFO)
ALL_FAMILIES = (*OWN_FAMILIES, *FRAME_FAMILIES)
ALWAYS = {reg.UP.name, reg.POLLS.name}        # declared even with no server yet


class Exposition:
    """Renders `states()` (the poller's copies; never waits on a poll) on every scrape."""

    def __init__(self, states: Callable[[], list[ServerState]], interval: float,
                 max_latches: int = reg.MAX_LATCH_SERIES, clock: Callable[[], float] = time.monotonic,
                 max_load: int = reg.MAX_LOAD_SERIES) -> None:
        self.states = states
        self.interval = interval
        self.max_latches = max_latches
        self.max_load = max_load
        # server → session-seconds by user and by schema, added as each frame arrives (prepare)
        self._load: dict[str, tuple[reg.LoadSeries, reg.LoadSeries]] = {}
        self.clock = clock
        self._latches: dict[str, reg.LatchSeries] = {}
        self._frames: dict[str, tuple[Frame, Chunks]] = {}    # server → (frame, its sample lines)
        self._servers: dict[str, str] = {}                    # server → its escaped label value
        self._headers = {(m.name, om): _header(m, om).encode() for m in ALL_FAMILIES for om in (False, True)}
        self._lock = threading.Lock()          # scrapes and polls run concurrently; the caches are shared

    def prepare(self, name: str, frame: Frame) -> None:
        """Build a new frame's lines now (the poll thread calls this as the frame arrives), and
        count its sessions by user and schema (every frame passes here once)."""
        if not frame.stale:
            with self._lock:
                self._chunks(name, frame)
                load = self._load.get(name)
                if load is None:
                    load = self._load[name] = (reg.LoadSeries("user", self.max_load),
                                               reg.LoadSeries("schema", self.max_load))
                for series in load:
                    series.add(frame)

    def render(self, names: set[str] | None = None, openmetrics: bool = False) -> bytes:
        """The exposition of the servers named (None: every server)."""
        now = self.clock()
        own: dict[str, list[str]] = {m.name: [] for m in OWN_FAMILIES}
        framed: list[Chunks] = []
        with self._lock:
            states = [st for st in self.states() if names is None or st.name in names]
            for st in states:
                self._own(st, now, own)
                frame = st.frame
                if frame is not None and not frame.stale and \
                        st.silent_for(now) <= max(FRESH_INTERVALS * self.interval, 5.0):
                    framed.append(self._chunks(st.name, frame))
            if names is None:                  # forget servers no longer watched
                for gone in set(self._frames) - {st.name for st in states}:
                    self._frames.pop(gone, None)
                    self._latches.pop(gone, None)
                    self._load.pop(gone, None)
        out: list[bytes] = []
        for m in OWN_FAMILIES:
            if own[m.name] or m.name in ALWAYS:
                out.append(self._headers[(m.name, openmetrics)])
                out.append("".join(own[m.name]).encode())
        for m in FRAME_FAMILIES:
            chunks = [c[m.name] for c in framed if m.name in c]
            if chunks:
                out.append(self._headers[(m.name, openmetrics)])
                out.extend(chunks)
        if openmetrics:
            out.append(b"# EOF\n")
        return b"".join(out)

    def _server(self, name: str) -> str:
        label = self._servers.get(name)
        if label is None:
            label = self._servers[name] = f'server="{_label(name)}"'
        return label

    def _own(self, st: ServerState, now: float, own: dict[str, list[str]]) -> None:
        server = "{" + self._server(st.name) + "}"
        silent = st.silent_for(now)
        fresh = st.frame is not None and not st.frame.stale

        def add(m: reg.Metric, v: float) -> None:
            own[m.name].append(f"{m.sample}{server} {_value(v)}\n")

        add(reg.UP, 1.0 if fresh else 0.0)
        add(reg.LATE, 1.0 if silent > 1.5 * self.interval else 0.0)
        if st.arrived is not None:
            add(reg.FRAME_AGE, silent)
        down = st.down_for(now)
        if down is not None:
            add(reg.DOWN_FOR, down)
        if st.poll_s is not None and math.isfinite(st.poll_s):
            add(reg.POLL_DURATION, st.poll_s)
        add(reg.POLLS, st.polls)
        add(reg.STALE_POLLS, st.stale)
        add(reg.LATE_POLLS, st.late)
        add(reg.QUERIES, st.queries)
        add(reg.ROW_LOCK_BLOCKED, st.row_lock_blocked_s)
        for cls, v in zip(WAIT_CLASSES, st.session_seconds):
            own[reg.SESSION_SECONDS.name].append(f'{reg.SESSION_SECONDS.sample}{{{self._server(st.name)},'
                                                 f'wait_class="{cls}"}} {_value(v)}\n')
        for m, series in zip((reg.USER_SESSION_SECONDS, reg.SCHEMA_SESSION_SECONDS), self._load.get(st.name, ())):
            for value, seconds in series.samples():
                own[m.name].append(f'{m.sample}{{{self._server(st.name)},{m.labels[0]}="{_label(value)}"}} '
                                   f'{_value(seconds)}\n')
        known = st.good or st.frame
        if known is not None and (known.server.flavor or known.server.version):
            own[reg.SERVER_INFO.name].append(
                f'{reg.SERVER_INFO.sample}{{{self._server(st.name)},flavor="{_label(known.server.flavor)}",'
                f'version="{_label(known.server.version)}"}} 1.0\n')

    def _chunks(self, name: str, frame: Frame) -> Chunks:
        cached = self._frames.get(name)
        if cached is not None and cached[0] is frame:
            return cached[1]
        series = self._latches.get(name)
        if series is None:
            series = self._latches[name] = reg.LatchSeries(self.max_latches)
        chunks = frame_chunks(self._server(name), frame, series)
        self._frames[name] = (frame, chunks)
        return chunks


def frame_chunks(server: str, frame: Frame, series: reg.LatchSeries) -> Chunks:
    """One fresh frame's sample lines by family; `server`: the label pair, escaped."""
    out: dict[str, list[str]] = {}

    def add(m: reg.Metric, labels: str, v: float | None) -> None:
        if v is not None and math.isfinite(v):
            out.setdefault(m.name, []).append(f"{m.sample}{{{server}{labels}}} {_value(v)}\n")

    for m, v in reg.scalar_values(frame):
        add(m, "", v)
    for mode, v in reg.host_cpu_values(frame):
        add(reg.HOST_CPU, f',mode="{mode}"', v)
    for s in series.samples(frame.latch_counters):
        labels = f',latch="{_label(s.latch)}",source="{_label(s.source)}"'
        add(reg.LATCH_WAITS, labels, s.waits)
        add(reg.LATCH_WAIT_SECONDS, labels, s.wait_s)
    for t in latch_totals([h for h in frame.hotspots if h.source == "semaphores"]):
        add(reg.LATCH_WAITING, f',latch="{_label(t.name)}",source="{_label(t.source)}"', t.waiting_threads)
    for finding_id, severity in reg.finding_values(frame):
        add(reg.FINDING, f',id="{_label(finding_id)}"', severity)
    for session, waiters in reg.blocking_values(frame):
        add(reg.BLOCKING_ROOT, f',session="{_label(session)}"', waiters)
    for (kind, root), waiting in reg.stall_values(frame):
        add(reg.STALL_WAITING, f',kind="{_label(kind)}",root="{_label(root)}"', waiting)
    return {k: "".join(v).encode() for k, v in out.items()}
