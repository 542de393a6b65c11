"""Database load by wait class: every active session of a sample in one class, from what the poll
already read (docs/wait-classes.md).

A session is active when its command is work (not Sleep, not a server thread). Its processlist
state names most classes outright (metadata and table locks, commit and log, IO on temporary
tables); what the state cannot tell is taken from the server's own counts, moved out of the
sessions that look like they run on CPU:
  row lock   the sessions in the lock-wait trees (else Innodb_row_lock_current_waits): a session
             waiting for a row shows "Updating" or "Sending data" like one that runs
  latch      latch wait time as thread-equivalents (performance_schema wait/synch ms per second
             / 1000), else the SEMAPHORES wait array's waiting threads
  IO         InnoDB's pending synchronous reads (a session reading a page it needs)
each capped at the sessions left on CPU, so the classes always add up to the active sessions.
Pure: reads one Frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from mysqltop.core.frame import WAIT_CLASSES as CLASSES
from mysqltop.core.frame import ClassShape, Frame, WaitLoad
from mysqltop.core.statement_shape import shape

CPU, ROW_LOCK, METADATA_LOCK, LATCH, IO, COMMIT, OTHER = CLASSES
LABELS = {CPU: "CPU / running", ROW_LOCK: "row lock", METADATA_LOCK: "metadata / table lock", LATCH: "latch",
          IO: "IO", COMMIT: "commit / log", OTHER: "other"}


@dataclass
class LoadSummary:
    """Database load by wait class over the window (core/wait_load.py): time-weighted averages of
    the active sessions of each class, the peak, each class's top statement shapes by average
    sessions, and the chart's points (each the average of its run of frames)."""
    active_avg: float | None = None
    active_peak: float | None = None
    peak_time: float | None = None
    cores: float | None = None
    classes: dict[str, float] = field(default_factory=dict)
    top: list[dict[str, Any]] = field(default_factory=list)        # {wait_class, shape, sessions}
    series: dict[str, list[float | None]] = field(default_factory=dict)   # time + one list per class


# Commands that are not a session's work (an idle connection, server threads, replication).
IDLE_COMMANDS = frozenset({"Sleep", "Daemon", "Binlog Dump", "Binlog Dump GTID", "Slave_IO", "Slave_SQL",
                           "Slave_worker", "Connect", "(other)", "Killed"})
# Commands that run statements: their state decides, and a state not listed is CPU.
STATEMENT_COMMANDS = frozenset({"Query", "Execute", "Prepare", "Fetch", "Long Data", "Init DB", "Field List"})

# Processlist states, lower case, by prefix (MySQL 5.0 → 9.x, MariaDB): the first that matches.
STATE_CLASSES: tuple[tuple[str, str], ...] = (
    ("waiting for table metadata lock", METADATA_LOCK),
    ("waiting for schema metadata lock", METADATA_LOCK),
    ("waiting for stored function metadata lock", METADATA_LOCK),
    ("waiting for stored procedure metadata lock", METADATA_LOCK),
    ("waiting for trigger metadata lock", METADATA_LOCK),
    ("waiting for event metadata lock", METADATA_LOCK),
    ("waiting for table level lock", METADATA_LOCK),
    ("waiting for table flush", METADATA_LOCK),
    ("waiting for global read lock", METADATA_LOCK),
    ("waiting for backup lock", METADATA_LOCK),
    ("waiting for commit lock", METADATA_LOCK),
    ("waiting for lock", METADATA_LOCK),           # Locked (≤ 5.5), user locks GET_LOCK
    ("locked", METADATA_LOCK),
    ("table lock", METADATA_LOCK),
    ("user lock", METADATA_LOCK),
    ("commit", COMMIT),                            # MariaDB "Commit", "Commit implicit"
    ("waiting for handler commit", COMMIT),
    ("query end", COMMIT),                         # 5.x: the commit (redo fsync, binlog) ends here
    ("waiting for prior transaction to commit", COMMIT),
    ("writing to binlog", COMMIT),
    ("waiting for binlog", COMMIT),
    ("binlog", COMMIT),
    ("sync binlog", COMMIT),
    ("waiting for semi-sync ack", COMMIT),
    ("waiting for semi_sync ack", COMMIT),
    ("copying to tmp table on disk", IO),
    ("converting heap to", IO),                    # "converting HEAP to ondisk" / "… to Aria"
    ("removing tmp table", IO),
    ("waiting for disk space", IO),
    ("reading file", IO),
    ("user sleep", OTHER),
    ("waiting on cond", OTHER),
    ("waiting for ", OTHER),                       # anything else a session waits for by name
)

TOP_SHAPES = 3           # statement shapes kept per class


def state_class(command: str | None, state: str | None) -> str | None:
    """The class a (command, state) names; None for a session that is not active."""
    command = command or ""
    if command in IDLE_COMMANDS:
        return None
    s = (state or "").strip().lower()
    for prefix, cls in STATE_CLASSES:
        if s.startswith(prefix):
            return cls
    return CPU if command in STATEMENT_COMMANDS or not command else OTHER


def _row_lock_waiters(frame: Frame) -> tuple[set[int], float | None]:
    ids: set[int] = set()

    def walk(nodes: Iterable) -> None:  # type: ignore[type-arg]
        for w in nodes:
            if w.thread_id is not None:
                ids.add(w.thread_id)
            walk(w.waiters)

    for b in frame.blocking:
        walk(b.waiters)
    counted = frame.locks.row_lock_current_waits
    return ids, (float(len(ids)) if ids else counted)


def _latch_threads(frame: Frame) -> float:
    ms = sum(h.wait_ms_per_s or 0.0 for h in frame.hotspots if h.source == "performance_schema" and not h.own)
    return max(ms / 1000.0, frame.semaphores.waiting_threads or 0.0)


def of(frame: Frame) -> WaitLoad:
    """The sample's active sessions by class; all None when the sample holds no session counts."""
    cores = float(frame.host.cpus) if frame.host is not None and frame.host.cpus else None
    if not frame.session_states:
        return WaitLoad(cores=cores)
    counts = dict.fromkeys(CLASSES, 0.0)
    for g in frame.session_states:
        cls = state_class(g.command, g.state)
        if cls is not None:
            counts[cls] += g.sessions
    waiter_ids, row_waiters = _row_lock_waiters(frame)

    def move(to: str, amount: float | None) -> None:
        n = min(max(amount or 0.0, 0.0), counts[CPU])
        counts[CPU] -= n
        counts[to] += n

    move(ROW_LOCK, row_waiters)
    move(LATCH, _latch_threads(frame))
    move(IO, frame.io.pending_reads)
    load = WaitLoad(sum(counts.values()), cores)
    for c in CLASSES:
        setattr(load, c, counts[c])
    load.top = _top_shapes(frame, waiter_ids)
    return load


def _top_shapes(frame: Frame, row_waiters: set[int]) -> list[ClassShape]:
    """The busiest statement shapes of each class, from the busy sessions the poll listed."""
    by: dict[tuple[str, str], int] = {}
    for s in frame.sessions:
        cls = ROW_LOCK if s.thread_id in row_waiters else state_class(s.command, s.state)
        if cls is None:
            continue
        key = (cls, shape(s.statement) or f"({s.command or '?'}: {s.state or '?'})")
        by[key] = by.get(key, 0) + 1
    out: list[ClassShape] = []
    for cls in CLASSES:
        ranked = sorted(((k[1], n) for k, n in by.items() if k[0] == cls), key=lambda x: (-x[1], x[0]))
        out += [ClassShape(cls, sh, n) for sh, n in ranked[:TOP_SHAPES]]
    return out


def add_seconds(acc: tuple[float, ...], frame: Frame) -> tuple[float, ...]:
    """Session-seconds per class (CLASSES order) plus this fresh frame's: each class's sessions ×
    the seconds since the previous sample (what Prometheus takes as a counter)."""
    ld, dt = frame.load, frame.elapsed
    base = acc if len(acc) == len(CLASSES) else (0.0,) * len(CLASSES)
    if frame.stale or dt is None or ld.active is None:
        return base
    return tuple(a + (ld.value(c) or 0.0) * dt for a, c in zip(base, CLASSES))


class LoadAccumulator:
    """The window's load for the report: fed each live frame with its Δt (report_builder)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.sums = dict.fromkeys(CLASSES, 0.0)
        self.peak: tuple[float, float] | None = None        # (active, time)
        self.cores: float | None = None
        self.shapes: dict[tuple[str, str], float] = {}      # (class, shape) → sessions × seconds
        self.points: list[tuple[float, float, list[float]]] = []   # (time, dt, per class)

    def add(self, frame: Frame) -> None:
        ld, dt = frame.load, frame.elapsed
        if ld.active is None or not dt or dt <= 0:
            return
        self.seconds += dt
        values = [ld.value(c) or 0.0 for c in CLASSES]
        for c, v in zip(CLASSES, values):
            self.sums[c] += v * dt
        if self.peak is None or ld.active > self.peak[0]:
            self.peak = (ld.active, frame.time)
        self.cores = ld.cores or self.cores
        for t in ld.top:
            key = (t.wait_class, t.shape)
            self.shapes[key] = self.shapes.get(key, 0.0) + t.sessions * dt
        self.points.append((frame.time, dt, values))

    def summary(self, points: int, top: int = TOP_SHAPES) -> LoadSummary:
        if not self.seconds:
            return LoadSummary(cores=self.cores)
        classes = {c: self.sums[c] / self.seconds for c in CLASSES}
        ranked = sorted(self.shapes.items(), key=lambda kv: -kv[1])
        per = [{"wait_class": c, "shape": s, "sessions": v / self.seconds}
               for c in CLASSES for (s, v) in [(s, v) for (cls, s), v in ranked if cls == c][:top]]
        return LoadSummary(sum(classes.values()), self.peak[0] if self.peak else None,
                           self.peak[1] if self.peak else None, self.cores, classes, per, self._series(points))

    def _series(self, n: int) -> dict[str, list[float | None]]:
        k = max(1, -(-len(self.points) // max(1, n)))
        out: dict[str, list[float | None]] = {"time": [], **{c: [] for c in CLASSES}}
        for i in range(0, len(self.points), k):
            run = self.points[i:i + k]
            span = sum(dt for _, dt, _ in run)
            out["time"].append(run[-1][0])
            for j, c in enumerate(CLASSES):
                out[c].append(sum(v[j] * dt for _, dt, v in run) / span if span else None)
        return out
