"""Diagnosis scenarios: one injected problem on a throwaway MariaDB, watched the way `mysqltop`
watches it, then the first remedy applied and the finding's own metric measured again.

Shared by tests/live/test_scenarios*.py (assertions) and bench/diagnosis (the table):

    sc = SCENARIOS["commit (transactions)"]
    env = server_env(sc, build_dir)     # slow log storage (slow_sync.py) for the commit scenarios
    with ThrowawayMariaDB(extra_args=sc.server_args, name="diag", env=env) as db:
        r = run(db, sc)
        r.advice, r.top_hotspot, r.first_remedy, r.metric_before, r.metric_after, r.truth

Each scenario polls for `observe` samples (1 s apart, as live mode), reads the server's own
performance_schema deltas as root around that span (`truth`: latch → (waits/s, wait ms/s)), then
applies its remedy (a dynamic SET GLOBAL or the KILL the finding names) and polls `after` more
samples. Durations are sample counts, not sleeps: a slow poll on a busy box stretches the window.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from mysqltop.core.advice import advise
from mysqltop.core.frame import Advice, Frame
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.rules import finding_metrics
from tests.support import slow_sync
from tests.support.load import LoadGenerator, LoadSpec, ReadViewHolder

BINLOG_SQL = ("SELECT COUNT_MISC, SUM_TIMER_MISC FROM performance_schema.file_summary_by_event_name "
              "WHERE EVENT_NAME = 'wait/io/file/sql/binlog'")
PS_SQL = ("SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT FROM performance_schema."
          "events_waits_summary_global_by_event_name WHERE EVENT_NAME LIKE 'wait/synch/%' AND COUNT_STAR > 0")


# A remedy works when the finding's metric falls to at most this share of what it was.
REMEDIED_SHARE = 0.1


@dataclass
class Scenario:
    name: str
    server_args: list[str]
    load: LoadSpec | None
    finding: str | None                      # the advice id expected first (None: a control)
    remedy: str | None = None                # SQL applied after observing ("KILL {holder}" for the read view)
    metric: str = ""                         # what the proof measures, for the table
    read_view: bool = False                  # open a consistent snapshot before the load starts
    observe: int = 14
    after: int = 8
    warmup_s: float = 2.0
    # When set, the proof alternates remedy and revert (3 × `after`/2 samples each) and compares
    # the remedy's phases with the reverted ones: a shared busy host's own swings cancel out.
    revert: str | None = None
    # Slow log storage: every fsync/fdatasync of the server takes this much longer (slow_sync.py)
    sync_delay_ms: float = 0.0
    # Seconds the remedy may take to show: the `after` window slides on until the metric is at
    # most REMEDIED_SHARE of before (purge works off a backlog once the read view is gone; on a
    # busy host it starts slower). 0: the first `after` window is the result.
    settle_s: float = 0.0


@dataclass
class Result:
    scenario: Scenario
    frames: list[Frame]
    variables: dict[str, str]
    advice: list[Advice]
    truth: dict[str, tuple[float, float]]    # short latch name → (waits/s, wait ms/s) from the server
    # the same figures' bounds: the server's counters read just before and just after each of
    # the monitor's two end reads, so its deltas and Δt lie between them whatever the host's
    # scheduling delays (name → ((waits/s lo, hi), (wait ms/s lo, hi)))
    truth_bounds: dict[str, tuple[tuple[float, float], tuple[float, float]]] = field(default_factory=dict)
    after_frames: list[Frame] = field(default_factory=list)
    holder_thread: int | None = None
    server_pid: int | None = None            # the throwaway server's mariadbd
    # the binary log's syncs over the observed window per the server (P_S file IO; MariaDB does
    # not instrument its redo log file): (syncs/s, ms per sync), None when not measured
    binlog_syncs: tuple[float, float] | None = None
    metric_before: float | None = None
    metric_after: float | None = None

    @property
    def finding(self) -> Advice | None:
        return next((a for a in self.advice if a.id == self.scenario.finding), None)

    @property
    def top_hotspot(self) -> str | None:
        """The latch with the most wait time over the observed window (per P_S, the monitor's view)."""
        totals: dict[str, float] = {}
        for f in self.frames:
            for h in f.hotspots:
                if h.source == "performance_schema":
                    totals[h.name] = totals.get(h.name, 0.0) + (h.wait_ms_per_s or 0.0) * (f.elapsed or 0.0)
        return max(totals, key=totals.__getitem__) if totals else None

    @property
    def first_remedy(self) -> str:
        """The action the finding names first: a KILL, a SET GLOBAL, a `knob = value`, else its words."""
        a = self.finding
        if a is None:
            return "-"
        head = a.message.split(": ", 1)[-1].split(";")[0]
        for pattern in (r"KILL \d+", r"SET GLOBAL \w+ = \w+", r"\b[a-z_]+ = [\w.]+(?! —)"):
            m = re.search(pattern, head)
            if m is not None:
                return m.group(0)
        return head.split(" — ")[-1].split(" (")[0][:60]


def _ps(db: Any) -> tuple[float, dict[str, tuple[int, int]]]:
    rows = db.query(PS_SQL)
    return time.monotonic(), {r[0].rsplit("/", 1)[-1]: (int(r[1]), int(r[2])) for r in rows}


def _binlog_syncs(db: Any) -> tuple[float, int, int] | None:
    rows = db.query(BINLOG_SQL)
    return (time.monotonic(), int(rows[0][0]), int(rows[0][1])) if rows else None


def _per_sync(before: tuple[float, int, int] | None,
              after: tuple[float, int, int] | None) -> tuple[float, float] | None:
    """(syncs/s, ms per sync) between two marks; the misc operations of a log being appended to
    and synced are its syncs (plus a rare open/close at rotation)."""
    if before is None or after is None or after[1] <= before[1] or after[0] <= before[0]:
        return None
    n = after[1] - before[1]
    return n / (after[0] - before[0]), (after[2] - before[2]) / 1e9 / n


def _bounds(pre0: tuple[float, dict[str, tuple[int, int]]], post0: tuple[float, dict[str, tuple[int, int]]],
            pre1: tuple[float, dict[str, tuple[int, int]]], post1: tuple[float, dict[str, tuple[int, int]]],
            ) -> dict[str, tuple[tuple[float, float], tuple[float, float]]]:
    """Rates the monitor can have measured between reads at some moment in [pre0, post0] and
    some moment in [pre1, post1]: least change over the longest span, most over the shortest."""
    short, long = pre1[0] - post0[0], post1[0] - pre0[0]
    out = {}
    for k, (c1, s1) in post1[1].items():
        c_lo, s_lo = pre1[1].get(k, (0, 0))
        c0_hi, s0_hi = post0[1].get(k, (0, 0))
        c0_lo, s0_lo = pre0[1].get(k, (0, 0))
        if short <= 0:
            continue
        out[k] = (((c_lo - c0_hi) / long, (c1 - c0_lo) / short),
                  ((s_lo - s0_hi) / 1e9 / long, (s1 - s0_lo) / 1e9 / short))
    return out


def _truth(before: tuple[float, dict[str, tuple[int, int]]],
           after: tuple[float, dict[str, tuple[int, int]]]) -> dict[str, tuple[float, float]]:
    (t0, p0), (t1, p1) = before, after
    dt = t1 - t0
    return {k: ((c - p0.get(k, (0, 0))[0]) / dt, (s - p0.get(k, (0, 0))[1]) / 1e9 / dt) for k, (c, s) in p1.items()}


class Watcher:
    """The live source and pipeline mysqltop runs, polled one sample at a time."""

    def __init__(self, db: Any) -> None:
        from mysqltop.cli import build_parser
        from mysqltop.arguments import open_live

        args = build_parser().parse_args(["snapshot", *db.cli_args(), "--interval", "1"])
        self.source, _caps = open_live(args)
        self.pipe = PolledTimeline()
        self.variables: dict[str, str] = {}
        self._next = time.monotonic()

    def poll(self, n: int, after_each: Callable[[], None] | None = None,
             before_each: Callable[[], None] | None = None) -> list[Frame]:
        out = []
        for _ in range(n):
            delay = self._next - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._next = time.monotonic() + 1.0
            if before_each is not None:
                before_each()
            raw = self.source.read()
            if after_each is not None:
                after_each()
            if raw is None:
                continue
            if raw.variables:
                self.variables.update(raw.variables)
            out.append(self.pipe.push(raw))
        return out

    def close(self) -> None:
        self.source.close()


def _remedied(sc: Scenario, before: float | None, after: list[Frame]) -> bool:
    now = metric_of(sc.finding, after)
    return before is not None and now is not None and now <= REMEDIED_SHARE * before


def metric_of(finding: str | None, frames: list[Frame]) -> float | None:
    """The finding's own metric over frames (core.rules.finding_metrics): what its remedy must improve."""
    return finding_metrics.value(finding, frames) if finding else None


def run(db: Any, sc: Scenario) -> Result:
    gen = LoadGenerator(db.root_kwargs(), sc.load) if sc.load is not None else None
    holder: ReadViewHolder | None = None
    watcher = Watcher(db)
    try:
        if gen is not None:
            gen.prepare()
        if sc.read_view:
            holder = ReadViewHolder(db.root_kwargs(), table=sc.load.table if sc.load else "sbtest1")
        if gen is not None:
            gen.start()
        time.sleep(sc.warmup_s)
        # the server's own counters right after the baseline sample (whose successors' rates make
        # the window) and right after the last one: both marks trail their sample by one query,
        # so on a loaded host the two spans shift together instead of one being longer
        marks: list[tuple[float, dict[str, tuple[int, int]]]] = []
        syncs: list[tuple[float, int, int] | None] = []
        pre: list[tuple[float, dict[str, tuple[int, int]]]] = []
        def mark() -> None:
            marks.append(_ps(db))
            syncs.append(_binlog_syncs(db))

        watcher.poll(1, before_each=lambda: pre.append(_ps(db)), after_each=mark)
        frames = watcher.poll(sc.observe - 1)
        frames += watcher.poll(1, before_each=lambda: pre.append(_ps(db)))
        marks.append(_ps(db))
        syncs.append(_binlog_syncs(db))
        result = Result(sc, frames, dict(watcher.variables), advise(frames, watcher.variables, min_span_s=None),
                        _truth(marks[0], marks[1]), _bounds(pre[0], marks[0], pre[1], marks[1]),
                        holder_thread=holder.thread_id if holder else None,
                        server_pid=db.pid, binlog_syncs=_per_sync(syncs[0], syncs[1]))
        result.metric_before = metric_of(sc.finding, frames)
        if sc.remedy is not None and sc.revert is not None:
            with_remedy: list[Frame] = []
            without: list[Frame] = []
            for _ in range(3):
                for sql, into in ((sc.remedy, with_remedy), (sc.revert, without)):
                    db.query(sql)
                    watcher.poll(1)                         # the sample spanning the change
                    into += watcher.poll(sc.after // 2)
            result.after_frames = with_remedy
            result.metric_before = metric_of(sc.finding, without)
            result.metric_after = metric_of(sc.finding, with_remedy)
        elif sc.remedy is not None:
            db.query(sc.remedy.format(holder=result.holder_thread))
            watcher.poll(2)                                 # let the change take hold
            after = watcher.poll(sc.after)
            deadline = time.monotonic() + sc.settle_s
            while time.monotonic() < deadline and not _remedied(sc, result.metric_before, after):
                after = after[1:] + watcher.poll(1)
            result.after_frames = after
            result.metric_after = metric_of(sc.finding, after)
        return result
    finally:
        watcher.close()
        if gen is not None:
            gen.stop()
        if holder is not None:
            holder.close()


def server_env(sc: Scenario, build_dir: Path) -> dict[str, str]:
    """The server's extra environment for sc: slow log storage when it asks for it (builds the
    library into build_dir; slow_sync.NoCompiler without a C compiler)."""
    if not sc.sync_delay_ms:
        return {}
    return slow_sync.server_env(slow_sync.build(Path(build_dir)), sc.sync_delay_ms)


def _spec(**kw: Any) -> LoadSpec:
    return LoadSpec(transactions=10**7, duration=300, **kw)


# Durable commits on slow log storage: every commit group syncs the redo log and the binary log
# (fdatasync on MariaDB 10.11 — O_DIRECT redo, not O_DSYNC, so the delay lands on it too), each
# sync LOG_SYNC_DELAY_MS slower than the host's disk. 8 writers queue on group commit the way a
# busy primary does, yet at ~80-150 commits/s leave a shared 2-core box CPU to spare.
DURABLE = ["--log-bin=mysql-bin", "--sync-binlog=1", "--innodb-flush-log-at-trx-commit=1",
           "--innodb-flush-method=O_DIRECT"]
LOG_SYNC_DELAY_MS = 20.0
COMMIT_WRITERS = 8

SCENARIOS: dict[str, Scenario] = {s.name: s for s in (
    Scenario("commit (autocommit inserts)", DURABLE, _spec(mode="insert", threads=COMMIT_WRITERS), "commit_path",
             "SET GLOBAL innodb_flush_log_at_trx_commit = 2", "commits/s", observe=10, after=8,
             revert="SET GLOBAL innodb_flush_log_at_trx_commit = 1", sync_delay_ms=LOG_SYNC_DELAY_MS),
    Scenario("commit (transactions)", DURABLE, _spec(mode="oltp", threads=COMMIT_WRITERS), "commit_path",
             "SET GLOBAL innodb_flush_log_at_trx_commit = 2", "commits/s", observe=10, after=8,
             revert="SET GLOBAL innodb_flush_log_at_trx_commit = 1", sync_delay_ms=LOG_SYNC_DELAY_MS),
    Scenario("table cache", ["--table-open-cache=64"], _spec(mode="tables", threads=16, tables=200),
             "table_cache_misses", "SET GLOBAL table_open_cache = 2000", "misses/s", observe=20),
    Scenario("AHI", ["--innodb-adaptive-hash-index=ON"], _spec(mode="ahi", threads=16, rows=20_000),
             "ahi_latch", "SET GLOBAL innodb_adaptive_hash_index = OFF", "btr_search_latch ms/s", observe=20),
    Scenario("read view + updates", [], _spec(mode="update", threads=4, rows=10_000), "purge_lag",
             "KILL {holder}", "history growth/s", read_view=True, observe=16, settle_s=60),
    Scenario("hot row", [], _spec(mode="hot", threads=8, hold_ms=20), "row_lock_waits"),
    Scenario("small pool scans", ["--innodb-buffer-pool-size=6M"], _spec(mode="scan", threads=4, rows=30_000),
             "buffer_pool_mutex"),
    # random updates over 100k rows in a pool that holds them: the redo log drives flushing
    Scenario("io capacity capped", ["--innodb-io-capacity=100", "--innodb-io-capacity-max=200",
                                    "--innodb-log-file-size=96M", "--innodb-buffer-pool-size=256M"],
             _spec(mode="update", threads=4, rows=100_000), "checkpoint_age",
             "SET GLOBAL innodb_io_capacity_max = 2000, GLOBAL innodb_io_capacity = 1000",
             "checkpoint age % of max", warmup_s=75, observe=20, after=12),
    Scenario("small redo", ["--innodb-log-file-size=8M", "--innodb-buffer-pool-size=256M"],
             _spec(mode="update", threads=4, rows=100_000), "checkpoint_age",
             "SET GLOBAL innodb_log_file_size = 268435456", "checkpoint age % of max", warmup_s=20, observe=20,
             after=12),
    Scenario("calm control", [], _spec(mode="oltp", threads=2, rate=5), None, observe=10),
    Scenario("busy-but-healthy control", [], _spec(mode="oltp", threads=4, rate=60), None, observe=12),
)}
