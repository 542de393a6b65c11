"""The one metric registry: every name mysqltop exports, its type, unit, help and the Frame field
it reads. `serve` (views/prometheus.py), `snapshot --format openmetrics` (views/headless.py) and
docs/metrics.md all come from this table, so the vocabularies cannot drift.

Conventions (Prometheus's own, as mysqld_exporter follows them): what the server counts since it
started is a counter with the server's own value (`_total`, `_seconds_total`, `_bytes_total`; a
restart is a counter reset, which rate() and increase() handle); levels are gauges; base units
(seconds, bytes, ratios 0..1). The per-interval rates stay in JSON, CSV and the TUI, where a
person reads them; PromQL computes its own from the counters.

Latch series are stable and bounded: every latch that has waited since the server started keeps
its own series (that set only grows), up to `MAX_LATCH_SERIES` per server; latches beyond the cap
are summed into `latch="other"`, itself a counter (a latch once there stays there).
Pure: no IO, no clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

from mysqltop.core.frame import Frame, LatchCounter, severity_rank

PREFIX = "mysqltop"
OTHER = "other"
MAX_LATCH_SERIES = 500        # per server: latch series of their own before the rest go to "other"
MAX_BLOCKING_ROOTS = 5        # blocking roots exported per server, most sessions behind first
MAX_LOAD_SERIES = 50          # per server and dimension: users / schemas with a series before "other"

COUNTER, GAUGE = "counter", "gauge"
# Who fills a metric: the newest frame (serve and snapshot alike), the exporter's own bookkeeping
# (serve only), or the snapshot's frame header (snapshot only).
FRAME, EXPORTER, SNAPSHOT = "frame", "exporter", "snapshot"


@dataclass(frozen=True)
class Metric:
    name: str                 # family name; a counter's samples add `_total`
    kind: str                 # counter | gauge
    help: str
    path: str | None = None   # the Frame field it reads ("counters.commits"); None: filled by its owner
    scale: float = 1.0        # Frame unit → base unit (ms → s: 0.001; % → ratio: 0.01)
    unit: str = ""            # seconds | bytes | ratio | "" (a count)
    labels: tuple[str, ...] = ()
    scope: str = FRAME
    frame_field: str = ""     # docs: the per-interval JSON/CSV field a person reads for it

    @property
    def full(self) -> str:
        return f"{PREFIX}_{self.name}"

    @property
    def sample(self) -> str:
        """The name its samples carry in the Prometheus text format."""
        return f"{self.full}_total" if self.kind == COUNTER else self.full


def _c(name: str, help_: str, path: str, scale: float = 1.0, unit: str = "", rate: str = "") -> Metric:
    return Metric(name, COUNTER, help_, path, scale, unit, frame_field=rate)


def _g(name: str, help_: str, path: str, scale: float = 1.0, unit: str = "") -> Metric:
    return Metric(name, GAUGE, help_, path, scale, unit, frame_field=path)


SCALARS: tuple[Metric, ...] = (
    # counters: the server's own values
    _c("transactions", "transactions ended: Com_commit + Com_rollback", "counters.transactions",
       rate="throughput.tps"),
    _c("commits", "COMMITs (Com_commit)", "counters.commits", rate="throughput.commits_per_s"),
    _c("rollbacks", "ROLLBACKs (Com_rollback)", "counters.rollbacks", rate="throughput.rollbacks_per_s"),
    _c("questions", "statements the server counted (Questions), every monitor's own included",
       "counters.questions"),
    _c("rows_read", "InnoDB rows read (Innodb_rows_read, else Rows_read / Handler_read_*)", "counters.rows_read",
       rate="throughput.rows_read_per_s"),
    _c("rows_changed", "InnoDB rows inserted, updated or deleted", "counters.rows_changed",
       rate="throughput.rows_changed_per_s"),
    _c("data_reads", "InnoDB data file reads (Innodb_data_reads)", "counters.data_reads", rate="io.reads_per_s"),
    _c("data_writes", "InnoDB data file writes (Innodb_data_writes)", "counters.data_writes",
       rate="io.writes_per_s"),
    _c("data_fsyncs", "InnoDB fsyncs (Innodb_data_fsyncs)", "counters.data_fsyncs", rate="io.fsyncs_per_s"),
    _c("redo_written_bytes", "redo log bytes written (Innodb_os_log_written)", "counters.redo_bytes",
       unit="bytes", rate="flush.log_bytes_per_s"),
    _c("pages_flushed", "buffer pool pages flushed (Innodb_buffer_pool_pages_flushed)",
       "counters.pages_flushed", rate="flush.pages_flushed_per_s"),
    _c("row_lock_waits", "row lock waits (Innodb_row_lock_waits)", "counters.row_lock_waits",
       rate="locks.row_lock_waits_per_s"),
    _c("row_lock_wait_seconds", "the server's own row lock wait time (Innodb_row_lock_time): a wait is added "
       "whole when it ends, so it stays flat during a stall and then jumps by every waiter's whole wait; "
       "mysqltop_row_lock_blocked_seconds_total grows while sessions wait",
       "counters.row_lock_wait_ms", 0.001, "seconds", rate="locks.row_lock_wait_ms_per_s"),
    _c("deadlocks", "deadlocks (Innodb_deadlocks, else INNODB_METRICS lock_deadlocks)", "counters.deadlocks",
       rate="locks.deadlocks_per_s"),
    _c("semaphore_os_waits", "InnoDB semaphore OS waits, every latch kind (SEMAPHORES section)",
       "counters.semaphore_os_waits", rate="semaphores.os_waits_per_s"),
    _c("log_waits", "writes that waited for room in the redo log buffer (Innodb_log_waits)", "counters.log_waits",
       rate="pressure.log_waits_per_s"),
    _c("buffer_pool_wait_free", "waits for a free buffer pool page (Innodb_buffer_pool_wait_free)",
       "counters.buffer_pool_wait_free", rate="pressure.buffer_pool_wait_free_per_s"),
    _c("binlog_cache_disk_use", "transactions whose binary log cache spilled to a temporary file "
       "(Binlog_cache_disk_use)", "counters.binlog_cache_disk_use", rate="pressure.binlog_cache_disk_use_per_s"),
    _c("threads_created", "threads created for connections: thread cache misses (Threads_created)",
       "counters.threads_created", rate="pressure.threads_created_per_s"),
    _c("tmp_disk_tables", "implicit temporary tables created on disk (Created_tmp_disk_tables)",
       "counters.tmp_disk_tables", rate="pressure.tmp_disk_tables_per_s"),
    _c("connection_errors_max_connections", "connections refused because max_connections was reached "
       "(Connection_errors_max_connections)", "counters.connection_errors_max_connections",
       rate="pressure.connection_errors_max_connections_per_s"),
    # levels
    _g("uptime_seconds", "seconds since the server started (Uptime)", "server.uptime_s", unit="seconds"),
    _g("threads_running", "Threads_running", "throughput.threads_running"),
    _g("threads_connected", "Threads_connected", "pressure.threads_connected"),
    _g("max_connections", "the max_connections variable as last read", "pressure.max_connections"),
    _g("max_used_connections", "the most sessions connected at once since the server started "
       "(Max_used_connections)", "pressure.max_used_connections"),
    _g("dirty_pages", "modified pages in the buffer pool", "flush.dirty_pages"),
    _g("dirty_pages_ratio", "modified pages / (database + free pages), 0..1", "flush.dirty_pct", 0.01, "ratio"),
    _g("checkpoint_age_bytes", "redo written since the last checkpoint", "flush.checkpoint_age_bytes",
       unit="bytes"),
    _g("checkpoint_age_ratio", "checkpoint age / usable redo capacity, 0..1", "flush.checkpoint_age_pct", 0.01,
       "ratio"),
    _g("history_list_length", "undo history not yet purged (transactions)", "flush.history_list_length"),
    _g("io_pending_reads", "pending InnoDB reads", "io.pending_reads"),
    _g("io_pending_writes", "pending InnoDB writes", "io.pending_writes"),
    _g("io_pending_fsyncs", "pending InnoDB fsyncs", "io.pending_fsyncs"),
    _g("row_lock_current_waits", "transactions waiting for a row lock now", "locks.row_lock_current_waits"),
    _g("longest_lock_wait_seconds", "the longest current row lock wait", "locks.longest_lock_wait_s",
       unit="seconds"),
    _g("blocked_sessions", "sessions waiting on a lock of any kind now (row, metadata, user, backup)",
       "locks.blocked_sessions"),
    _g("longest_transaction_seconds", "age of the oldest open transaction", "locks.longest_transaction_s",
       unit="seconds"),
    _g("semaphore_waiting_threads", "threads in the InnoDB semaphore wait array now",
       "semaphores.waiting_threads"),
    _g("semaphore_longest_wait_seconds", "the longest wait in the InnoDB semaphore wait array now",
       "semaphores.longest_wait_s", unit="seconds"),
    _g("host_cpus", "CPUs of the database host", "host.cpus"),
    _g("host_run_queue", "runnable threads on the database host", "host.run_queue"),
    _g("host_load1", "1-minute load average of the database host", "host.load1"),
    _g("mysqld_cpu_ratio", "CPU used by mysqld, in CPUs (1 = one core busy)", "host.mysqld_cpu_pct", 0.01, "ratio"),
)

HOST_CPU = Metric("host_cpu_ratio", GAUGE, "share of the host's CPU time by mode over the last poll, 0..1",
                  labels=("mode",), unit="ratio")
HOST_CPU_MODES = (("user", "cpu_user_pct"), ("system", "cpu_system_pct"), ("iowait", "cpu_iowait_pct"),
                  ("steal", "cpu_steal_pct"))
LATCH_WAITS = Metric("latch_waits", COUNTER, "waits on the latch since the server started (performance_schema "
                     "COUNT_STAR; SHOW ENGINE INNODB MUTEX os_waits/waits summed by name)",
                     labels=("latch", "source"), frame_field="hotspots[].waits_per_s")
LATCH_WAIT_SECONDS = Metric("latch_wait_seconds", COUNTER, "time waited on the latch since the server started, "
                            "summed over threads (timed performance_schema instruments)",
                            labels=("latch", "source"), unit="seconds", frame_field="hotspots[].wait_ms_per_s")
LATCH_WAITING = Metric("latch_waiting_threads", GAUGE, "threads waiting on the latch now (InnoDB semaphore "
                       "wait array)", labels=("latch", "source"), frame_field="hotspots[].waiting_threads")
FINDING = Metric("finding", GAUGE, "a finding raised on the newest frame; the value is its severity "
                 "(1 info, 2 warning, 3 critical)", labels=("id",), frame_field="advice[]")
BLOCKING_ROOT = Metric("blocking_root_waiters", GAUGE, "sessions waiting behind this blocking session (the end "
                       "of a wait-for chain the server's rows confirm, any lock kind; `session` is its thread id, "
                       "what KILL takes)",
                       labels=("session",), frame_field="blocking[].blocked")
STALL_WAITING = Metric("stall_waiting_sessions", GAUGE, "sessions piled up on one lock (a stall); `root` is the "
                       "holder's thread id only where the server's rows name it, else `inferred` (the server lists "
                       "no holder: no single session to kill) or `unknown`",
                       labels=("kind", "root"), frame_field="stalls[].waiting")
SERVER_INFO = Metric("server_info", GAUGE, "the monitored server", labels=("flavor", "version"))
LABELLED: tuple[Metric, ...] = (HOST_CPU, LATCH_WAITS, LATCH_WAIT_SECONDS, LATCH_WAITING, FINDING, BLOCKING_ROOT,
                                STALL_WAITING, SERVER_INFO)

# The exporter's own (serve): filled from its poller, never from a frame.
UP = Metric("up", GAUGE, "1 when the newest poll of the server gave fresh data", scope=EXPORTER)
LATE = Metric("late", GAUGE, "1 when no poll result came for more than 1.5 intervals (a poll is hanging)",
              scope=EXPORTER)
FRAME_AGE = Metric("last_frame_age_seconds", GAUGE, "seconds since the newest poll result arrived",
                   unit="seconds", scope=EXPORTER)
DOWN_FOR = Metric("down_seconds", GAUGE, "seconds since the server last gave fresh data, while it does not "
                  "(absent when it answers)", unit="seconds", scope=EXPORTER)
POLL_DURATION = Metric("poll_duration_seconds", GAUGE, "wall time of the newest poll (round trip and host read)",
                       unit="seconds", scope=EXPORTER)
POLLS = Metric("polls", COUNTER, "polls made", scope=EXPORTER)
STALE_POLLS = Metric("stale_polls", COUNTER, "polls that gave no fresh data (timeout, connection lost, access "
                     "denied)", scope=EXPORTER)
LATE_POLLS = Metric("late_polls", COUNTER, "poll results that came more than 1.5 intervals after the previous "
                    "one", scope=EXPORTER)
QUERIES = Metric("queries", COUNTER, "statements clients sent (Questions without mysqltop's own), counted by this "
                 "exporter since it started", scope=EXPORTER, frame_field="throughput.qps")
ROW_LOCK_BLOCKED = Metric("row_lock_blocked_seconds", COUNTER, "blocked session-seconds on row locks counted by "
                          "this exporter since it started: every second a session waits adds one second, as it "
                          "passes (waits in progress from the lock tables, finished ones from "
                          "Innodb_row_lock_time, each second once); rate() is the sessions blocked on average",
                          unit="seconds", scope=EXPORTER, frame_field="locks.row_lock_wait_ms_per_s")
SESSION_SECONDS = Metric("session_seconds", COUNTER, "active sessions × seconds by what they wait on "
                         "(docs/wait-classes.md), counted by this exporter since it started: rate() is the "
                         "average active sessions of each class", unit="seconds", labels=("wait_class",),
                         scope=EXPORTER, frame_field="load")
USER_SESSION_SECONDS = Metric("user_session_seconds", COUNTER, "active sessions × seconds by the sessions' user "
                              "(docs/wait-classes.md, Dimensions), counted by this exporter since it started; the "
                              "first --max-load-series users of a server have a series, the rest count in "
                              "user=\"other\"", unit="seconds", labels=("user",), scope=EXPORTER, frame_field="load")
SCHEMA_SESSION_SECONDS = Metric("schema_session_seconds", COUNTER, "active sessions × seconds by the sessions' "
                                "default schema, counted by this exporter since it started; the first "
                                "--max-load-series schemas of a server have a series, the rest count in "
                                "schema=\"other\"", unit="seconds", labels=("schema",), scope=EXPORTER,
                                frame_field="load")
EXPORTER_METRICS: tuple[Metric, ...] = (UP, LATE, FRAME_AGE, DOWN_FOR, POLL_DURATION, POLLS, STALE_POLLS,
                                        LATE_POLLS, QUERIES, ROW_LOCK_BLOCKED, SESSION_SECONDS,
                                        USER_SESSION_SECONDS, SCHEMA_SESSION_SECONDS)

# One frame's header (snapshot --format openmetrics).
SAMPLE_TIME = Metric("sample_time_seconds", GAUGE, "epoch seconds of the sample", unit="seconds", scope=SNAPSHOT)
STALE = Metric("stale", GAUGE, "1 when the server gave no fresh data for this frame", scope=SNAPSHOT)
SNAPSHOT_METRICS: tuple[Metric, ...] = (SAMPLE_TIME, STALE)

ALL: tuple[Metric, ...] = (*EXPORTER_METRICS, *SNAPSHOT_METRICS, *SCALARS, *LABELLED)


# ---- reading a frame -----------------------------------------------------------------------------

def number(v: object) -> float | None:
    """A finite number, or None (JSON null, NaN, a bool, text)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:                  # an integer past a float's range: a forged counter
        return None
    return f if math.isfinite(f) else None


def value_of(frame: Frame, m: Metric) -> float | None:
    """`m`'s value in `frame`, in its base unit; None when the frame has none."""
    if m.path is None:
        return None
    obj: Any = frame
    for part in m.path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    v = number(obj)
    return None if v is None else v * m.scale


def scalar_values(frame: Frame) -> Iterable[tuple[Metric, float]]:
    for m in SCALARS:
        v = value_of(frame, m)
        if v is not None:
            yield m, v


def host_cpu_values(frame: Frame) -> Iterable[tuple[str, float]]:
    if frame.host is not None:
        for mode, attr in HOST_CPU_MODES:
            v = number(getattr(frame.host, attr))
            if v is not None:
                yield mode, v / 100.0


def finding_values(frame: Frame) -> Iterable[tuple[str, float]]:
    """(id, severity rank) once per id, the most severe when an id appears twice."""
    worst: dict[str, int] = {}
    for a in frame.advice:
        worst[a.id] = max(worst.get(a.id, 0), severity_rank(a.severity))
    return sorted((i, float(r)) for i, r in worst.items())


def blocking_values(frame: Frame) -> Iterable[tuple[str, float]]:
    """(session, sessions behind it) for every root of any lock kind with a KILL line: a
    row-lock tree's root, and the end of every stall's chain the server's rows confirm (a
    holder that waits itself, or one of a hot row's passing holders, is none)."""
    out: dict[str, float] = {}
    for b in frame.blocking:
        if b.thread_id is not None and b.kill:
            out[str(b.thread_id)] = max(out.get(str(b.thread_id), 0.0), float(b.blocked))
    for st in frame.stalls:
        if st.root is not None and st.root.thread_id is not None and st.root.kill:
            key = str(st.root.thread_id)
            out[key] = max(out.get(key, 0.0), float(st.waiting))
    return sorted(out.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_BLOCKING_ROOTS]


def stall_values(frame: Frame) -> Iterable[tuple[tuple[str, str], float]]:
    """((kind, root), sessions waiting) per stall: root the confirmed holder's thread id, else
    the certainty ("inferred", "unknown"); the most sessions once per pair."""
    out: dict[tuple[str, str], float] = {}
    for st in frame.stalls:
        root = str(st.root.thread_id) if st.root is not None and st.root.thread_id is not None else st.certainty.value
        key = (st.kind, root)
        out[key] = max(out.get(key, 0.0), float(st.waiting))
    return sorted(out.items())[:MAX_BLOCKING_ROOTS]


@dataclass(frozen=True)
class LatchSample:
    latch: str
    source: str
    waits: float | None
    wait_s: float | None


class LatchSeries:
    """Which latches keep a series of their own, per server: the first `cap` seen, for good.

    A latch admitted stays admitted and one sent to `other` stays there, so each series — `other`
    included — is a counter of the same latches from scrape to scrape."""

    def __init__(self, cap: int = MAX_LATCH_SERIES) -> None:
        self.cap = max(0, cap)
        self._own: set[tuple[str, str]] = set()

    def samples(self, counters: Iterable[LatchCounter]) -> list[LatchSample]:
        out: list[LatchSample] = []
        other: dict[str, list[float | None]] = {}
        for c in counters:
            name = f"{OTHER} (latch)" if c.name == OTHER else c.name     # never merged into the bucket
            key = (name, c.source)
            if key not in self._own and len(self._own) < self.cap:
                self._own.add(key)
            waits, ms = number(c.waits), number(c.wait_ms)
            if key in self._own:
                out.append(LatchSample(name, c.source, waits, None if ms is None else ms / 1000.0))
                continue
            acc = other.setdefault(c.source, [None, None])
            if waits is not None:
                acc[0] = (acc[0] or 0.0) + waits
            if ms is not None:
                acc[1] = (acc[1] or 0.0) + ms / 1000.0
        out.extend(LatchSample(OTHER, src, w, s) for src, (w, s) in sorted(other.items()))
        return out


class LoadSeries:
    """Session-seconds by one dimension's values (user or schema), per server: the first `cap`
    values seen keep a series of their own for good, the rest add to `other` — each series,
    `other` included, a counter of the same values from scrape to scrape (as LatchSeries)."""

    def __init__(self, field: str, cap: int = MAX_LOAD_SERIES) -> None:
        self.field = field
        self.cap = max(0, cap)
        self.seconds: dict[str, float] = {}

    def add(self, frame: Frame) -> None:
        """A fresh frame's active sessions × the seconds since the previous sample."""
        dt = frame.elapsed
        if frame.stale or not frame.load.sessions_known or not dt or dt <= 0:
            return
        for s in frame.load.sessions:
            value = str(getattr(s, self.field))
            value = f"{OTHER} ({self.field})" if value == OTHER else value   # never merged into the bucket
            if value not in self.seconds and len(self.seconds) - (OTHER in self.seconds) >= self.cap:
                value = OTHER
            self.seconds[value] = self.seconds.get(value, 0.0) + s.sessions * dt

    def samples(self) -> list[tuple[str, float]]:
        return sorted(self.seconds.items())


# ---- docs ------------------------------------------------------------------------------------------

def markdown_table() -> str:
    """The registry as docs/metrics.md holds it between its markers (tests/test_docs.py compares)."""
    rows = ["| metric | type | labels | from | help |", "|---|---|---|---|---|"]
    for m in ALL:
        labels = ", ".join(m.labels)
        origin = {EXPORTER: "serve", SNAPSHOT: "snapshot"}.get(m.scope) or (f"`{m.path}`" if m.path else "frame")
        if m.frame_field and m.frame_field != m.path:
            origin += f" (rate: `{m.frame_field}`)"
        rows.append(f"| `{m.sample}` | {m.kind} | {labels} | {origin} | {m.help.replace('|', '/')} |")
    return "\n".join(rows) + "\n"
