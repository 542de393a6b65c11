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

import bisect
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from mysqltop.core.frame import WAIT_CLASSES as CLASSES
from mysqltop.core.frame import ClassShape, Frame, LoadSession, LoadSlice, WaitLoad
from mysqltop.core.load_slices import LoadFold, of_sessions
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
    # By dimension (core/load_slices.py): dimension → [{value, sessions, classes}], and the same
    # for each finding's span [{id, first, last, slices}]; empty without active session samples.
    slices: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    spans: list[dict[str, Any]] = field(default_factory=list)


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
MAX_SESSION_ROWS = 256   # active session rows read of one sample (a source keeps ≤ 201)
WINDOW_TOP = 10          # a report window's values per dimension
SPAN_TOP = 5             # a finding's span's values per dimension
MAX_SPANS = 20           # findings whose span the report slices
MAX_SPAN_ROWS = 400_000  # active session rows a report keeps for the findings' spans (~40 MB)


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


def of(frame: Frame, active: Any = None) -> WaitLoad:
    """The sample's active sessions by class; all None when the sample holds no session counts.
    `active`: the sample's active session rows (RawSample.active_sessions), sliced by dimension."""
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
    load.sessions = sessions_of(active, counts, frame)
    load.sessions_known = isinstance(active, list)
    if load.sessions:
        load.slices = of_sessions(load.sessions)
    return load


def _session_rows(active: Any) -> list[LoadSession]:
    """RawSample.active_sessions rows (hostile: a recording's) → LoadSessions; bad rows skipped."""
    out: list[LoadSession] = []
    if not isinstance(active, list):
        return out
    for r in active[:MAX_SESSION_ROWS]:
        if not isinstance(r, list) or len(r) < 9:
            continue
        n = r[8]
        if isinstance(n, bool) or not isinstance(n, (int, float)) or not math.isfinite(n) or n <= 0:
            continue
        cls = r[0] if r[0] in CLASSES else OTHER
        text = ["" if v is None else str(v) for v in r[1:8]]
        out.append(LoadSession(cls, text[0], text[1], text[2], text[3], text[4], text[6] or text[5], float(n)))
    return out


def sessions_of(active: Any, counts: dict[str, float], frame: Frame) -> list[LoadSession]:
    """The sample's active sessions by every dimension, agreeing with its wait classes: the latch,
    IO and row-lock time the server counts beyond the sessions whose own rows show it (`counts`,
    after the moves out of CPU) is given to the sessions on CPU, each its share."""
    rows = _session_rows(active)
    if not rows:
        return rows
    shown = dict.fromkeys(CLASSES, 0.0)
    for s in rows:
        shown[s.wait_class] += s.sessions
    on_cpu = shown[CPU]
    excess = {c: max(0.0, counts.get(c, 0.0) - shown[c]) for c in (ROW_LOCK, LATCH, IO)}
    moved = sum(excess.values())
    if on_cpu <= 0 or moved <= 0:
        return rows
    scale = min(1.0, on_cpu / moved) / on_cpu                 # never more than the CPU sessions
    hot = next((h.name for h in frame.hotspots if not h.own), "latch")
    objects = {ROW_LOCK: "row (waiter not listed)", LATCH: hot, IO: "data file"}
    out: list[LoadSession] = []
    for s in rows:
        if s.wait_class != CPU:
            out.append(s)
            continue
        left = s.sessions
        for c, e in excess.items():
            part = s.sessions * e * scale
            if part > 0:
                out.append(LoadSession(c, objects[c], s.sql, s.user, s.host, s.schema, s.state, part))
                left -= part
        if left > 1e-9:
            out.append(LoadSession(CPU, s.object, s.sql, s.user, s.host, s.schema, s.state, left))
    return out


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
        # frames' active sessions by dimension (core/load_slices.py): the window's, and each
        # frame's kept for the spans of the findings, known once the window is read
        self.by_dimension = LoadFold()
        # (time, dt, sessions as tuples of interned strings): a window of 3,600 frames of 20
        # sessions each holds a few MB; past MAX_SPAN_ROWS rows the spans fold what was kept
        self.session_points: list[tuple[float, float, list[tuple[Any, ...]]]] = []
        self._rows_kept = 0
        self._strings: dict[str, str] = {}

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
        if ld.sessions_known and not frame.stale:
            self.by_dimension.add(frame)
            if self._rows_kept + len(ld.sessions) <= MAX_SPAN_ROWS:
                self._rows_kept += len(ld.sessions)
                one = self._strings.setdefault
                self.session_points.append((frame.time, dt, [
                    (one(x.wait_class, x.wait_class), one(x.object, x.object), one(x.sql, x.sql), one(x.user, x.user),
                     one(x.host, x.host), one(x.schema, x.schema), one(x.state, x.state), x.sessions)
                    for x in ld.sessions]))

    def span_slices(self, spans: Iterable[tuple[str, float, float]], top: int = SPAN_TOP,
                    most: int = MAX_SPANS) -> list[dict[str, Any]]:
        """The load by dimension over each (id, first, last) span: a finding's or a stall's."""
        out: list[dict[str, Any]] = []
        times = [t for t, _, _ in self.session_points]
        for ident, first, last in spans:
            if len(out) >= most:
                break
            lo, hi = bisect.bisect_left(times, first), bisect.bisect_right(times, last)
            acc = LoadFold()
            for _, dt, rows in self.session_points[lo:hi]:
                acc.add_sessions(dt, [LoadSession(*r) for r in rows])
            got = acc.slices(top)
            if got:
                out.append({"id": ident, "first": first, "last": last, "slices": _plain_slices(got)})
        return out

    def summary(self, points: int, top: int = TOP_SHAPES,
                spans: Iterable[tuple[str, float, float]] = ()) -> LoadSummary:
        if not self.seconds:
            return LoadSummary(cores=self.cores)
        slices = _plain_slices(self.by_dimension.slices(WINDOW_TOP))
        classes = {c: self.sums[c] / self.seconds for c in CLASSES}
        ranked = sorted(self.shapes.items(), key=lambda kv: -kv[1])
        per = [{"wait_class": c, "shape": s, "sessions": v / self.seconds}
               for c in CLASSES for (s, v) in [(s, v) for (cls, s), v in ranked if cls == c][:top]]
        return LoadSummary(sum(classes.values()), self.peak[0] if self.peak else None,
                           self.peak[1] if self.peak else None, self.cores, classes, per, self._series(points),
                           slices, self.span_slices(spans) if slices else [])

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


def _plain_slices(slices: dict[str, list[LoadSlice]]) -> dict[str, list[dict[str, Any]]]:
    return {d: [{"value": x.value, "sessions": x.sessions, "classes": dict(x.classes)} for x in rows]
            for d, rows in slices.items()}
