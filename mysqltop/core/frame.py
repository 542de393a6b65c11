"""Frame: what the views show, derived from two RawSamples. Keys follow docs/json.md (contract).

Every number that may be missing is Optional: None means "the server or the moment gives no
value" and is printed as JSON null. Rates are None on the first sample, on Δt ≤ 0 and on
counter resets — never negative.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from mysqltop.core.innodb.deadlock import Deadlock
from mysqltop.core.blocking import Blocker, Session, SessionState, Transaction
from mysqltop.core.stalls import Stall
from mysqltop.core.sample import Failure, same_server

Num = float | None


@dataclass
class ServerInfo:
    version: str | None = None
    flavor: str | None = None
    address: str | None = None
    uptime_s: Num = None      # server Uptime of this sample (a reset shows a restart)
    time: Num = None          # the server's clock at the poll (epoch; JSON: ISO 8601 UTC), None: not read
    # mysqltop's account may connect past max_connections (SUPER / CONNECTION ADMIN); None: not known
    monitor_connection_admin: bool | None = None
    # Which server answered (core/sample.py ServerIdentity.uid), and since when (epoch; JSON: ISO
    # 8601 UTC) a different server than before answers at this address; None: not known / the same.
    uid: str | None = None
    replaced_at: Num = None

    def same_server(self, other: "ServerInfo") -> bool:
        """The same server answered both frames (core/sample.py same_server)."""
        return same_server(self.uid, self.replaced_at, other.uid, other.replaced_at)


@dataclass
class Throughput:
    tps: Num = None
    qps: Num = None
    commits_per_s: Num = None
    rollbacks_per_s: Num = None
    write_trx_per_s: Num = None
    rows_read_per_s: Num = None
    rows_changed_per_s: Num = None
    threads_running: Num = None
    # Beyond the contract: the commit path. Binary log commits and the groups they were flushed
    # in (MariaDB Binlog_commits / Binlog_group_commits), and redo log fsyncs (Innodb_os_log_fsyncs).
    binlog_commits_per_s: Num = None
    binlog_group_commits_per_s: Num = None
    redo_fsyncs_per_s: Num = None
    # Transactions the server committed per second, autocommit statements and read-only ones
    # included (Δ Handler_commit): unlike tps (COMMIT/ROLLBACK statements), never 0 while
    # autocommit writes run. The headline and the stall advice read this.
    committed_per_s: Num = None


# What committed_per_s is called wherever it is shown (Handler_commit counts statements too).
COMMITTED_LABEL = "engine commits/s"


def committed_or_tps(t: Throughput) -> tuple[str, Num]:
    """The throughput headline and its label: engine commits/s where the server counts them,
    else tps (COMMIT/ROLLBACK statements)."""
    return (COMMITTED_LABEL, t.committed_per_s) if t.committed_per_s is not None else ("tps", t.tps)


@dataclass
class Hotspot:
    name: str
    kind: str                 # mutex | rwlock | sxlock | semaphore | cond | other
    source: str               # performance_schema | innodb_mutex | semaphores
    waits_per_s: Num = None
    wait_ms_per_s: Num = None
    share: Num = None         # 0..1 of all waits (by wait time when known, else by count)
    site: str | None = None   # created-at file:line where known
    # semaphores only (a wait-array snapshot has no rate): threads waiting there now, longest wait
    waiting_threads: Num = None
    longest_wait_s: Num = None
    # Taken by mysqltop's own reads (INNODB_TRX, SHOW ENGINE INNODB STATUS): listed last, labelled,
    # with no share, and never a finding's cause (core/hotspots.py OWN_LATCHES).
    own: bool = False
    # The rates are a start→end delta of two SHOW ENGINE INNODB MUTEX snapshots this many seconds
    # apart (an import's mutex-status1→2), not this frame's interval; None: the frame's interval.
    span_s: Num = None


@dataclass
class HotspotTotal:
    """A latch's waits as the counters hold them at the first sample — since the server started or
    the counters were last reset — for the first frame, whose rates need a second sample."""

    name: str
    kind: str
    source: str               # performance_schema | innodb_mutex
    waits: Num = None
    wait_ms: Num = None       # performance_schema timed instruments only
    share: Num = None         # 0..1 of all counted waits (by wait time when known, else by count)
    site: str | None = None


@dataclass
class Semaphores:
    os_waits_per_s: Num = None
    spin_waits_per_s: Num = None
    spin_rounds_per_s: Num = None
    waiting_threads: Num = None
    longest_wait_s: Num = None


@dataclass
class IoThread:
    id: int
    role: str                 # read | write | log | insert buffer | ...
    state: str
    pool_slot: bool = False   # a task-pool slot (MariaDB 10.6+): the server keeps no state for it


@dataclass
class Io:
    threads: list[IoThread] = field(default_factory=list)
    pending_reads: Num = None
    pending_writes: Num = None
    pending_fsyncs: Num = None
    reads_per_s: Num = None
    writes_per_s: Num = None
    fsyncs_per_s: Num = None


@dataclass
class Flush:
    pages_flushed_per_s: Num = None
    dirty_pages: Num = None
    dirty_pct: Num = None
    checkpoint_age_bytes: Num = None
    checkpoint_age_pct: Num = None
    log_bytes_per_s: Num = None
    history_list_length: Num = None
    # Beyond the contract: change buffer size in pages (InnoDB status "Ibuf: size N", or
    # Innodb_ibuf_size where sane); the change_buffer rule compares it to the buffer pool.
    ibuf_size_pages: Num = None
    # Beyond the contract: INNODB_METRICS buffer_flush_* where enabled — the page cleaner's paced
    # flushing (background + adaptive, held to innodb_io_capacity/_max) and the sync flushing a
    # full redo log forces.
    paced_flushed_per_s: Num = None
    # Beyond the contract: buffer pool pages on the free list, % of its usable pages (free + LRU).
    free_pct: Num = None
    sync_flushed_per_s: Num = None


@dataclass
class Host:
    cpus: Num = None
    run_queue: Num = None
    load1: Num = None
    cpu_user_pct: Num = None
    cpu_system_pct: Num = None
    cpu_iowait_pct: Num = None
    cpu_steal_pct: Num = None
    ctx_switches_per_s: Num = None
    # mysqld's CPU in % of ONE core (150 = one and a half cores busy, as top shows a process);
    # None when the server is not on this host. Views show it in the host's unit (% of all
    # cores, like cpu_user_pct / cpu_system_pct) through mysqld_pct_of_host().
    mysqld_cpu_pct: Num = None
    # The busiest process other than mysqld (local hosts, while the CPUs are busy): its name
    # (from the OS: untrusted text), pid and CPU in % of ONE core, like mysqld_cpu_pct.
    top_process: str | None = None
    top_process_pid: int | None = None
    top_process_cpu_pct: Num = None

    def mysqld_pct_of_host(self) -> float | None:
        """mysqld's CPU as % of all the host's cores: the unit of cpu_user_pct/cpu_system_pct."""
        if self.mysqld_cpu_pct is None or not self.cpus:
            return None
        return self.mysqld_cpu_pct / self.cpus


@dataclass
class Locks:
    """Beyond the contract: InnoDB row-lock waits (a hot row shows here, not among the latches)."""
    row_lock_waits_per_s: Num = None       # Δ Innodb_row_lock_waits
    row_lock_wait_ms_per_s: Num = None     # Δ Innodb_row_lock_time (ms) per second
    row_lock_current_waits: Num = None     # Innodb_row_lock_current_waits, else TRANSACTIONS "LOCK WAIT"s
    longest_lock_wait_s: Num = None        # TRANSACTIONS: longest "TRX HAS BEEN WAITING N SEC"
    deadlocks_per_s: Num = None            # Δ Innodb_deadlocks (MariaDB) or INNODB_METRICS lock_deadlocks
    blocked_sessions: Num = None           # sessions behind the blocking trees (frame.blocking); None: not read
    longest_transaction_s: Num = None      # age of the oldest transaction (frame.transactions)
    # Waits in progress, counted from their start times (a stall reads as its worst moment; the
    # server's counters move only when a wait starts or ends): sessions waiting on any lock now
    # (row, metadata, global, table, user), the longest of those waits, and the time they spent
    # waiting per second of this interval.
    waiting_sessions: Num = None
    longest_wait_s: Num = None
    waiting_ms_per_s: Num = None


# What active sessions wait on (core/wait_load.py, docs/wait-classes.md), in chart order; each is
# a WaitLoad field.
WAIT_CLASSES: tuple[str, ...] = ("cpu", "row_lock", "metadata_lock", "latch", "io", "commit", "other")


@dataclass
class ClassShape:
    wait_class: str
    shape: str               # raw: views pass it through safe_text
    sessions: int


@dataclass
class LoadSession:
    """Active sessions of one sample that share every dimension (core/active_sessions.py): the
    unit the load is sliced by. `sessions` may be a fraction: a share of the sessions on CPU
    given to the latch and IO waits no processlist row shows (core/wait_load.py)."""
    wait_class: str
    object: str              # what it waits on: table (index), lock, latch, file kind, "CPU"
    sql: str                 # statement shape; raw: views pass every text through safe_text
    user: str
    host: str                # client host, without its port
    schema: str
    state: str
    sessions: float


@dataclass
class LoadSlice:
    """One value of one dimension in one sample: its active sessions and their wait classes."""
    value: str
    sessions: float
    classes: dict[str, float] = field(default_factory=dict)


@dataclass
class DigestRate:
    """One statement digest over the span since the previous digest read (core/top_sql.py)."""
    schema: str | None
    digest: str
    sql: str                 # DIGEST_TEXT as the server normalised it; raw: views pass it through safe_text
    calls_per_s: float
    avg_ms: float
    max_ms: float | None     # the largest since the server's counters started
    load: float              # seconds spent per second: average sessions running it
    rows_examined_per_call: float | None
    rows_sent_per_call: float | None
    tmp_disk_tables_per_s: float | None
    no_index_used_per_s: float | None
    span_s: float


@dataclass
class WaitLoad:
    """Active sessions of one sample by wait class (the classes add up to `active`); `cores`: the
    host's CPUs where known, what `active` compares against."""
    active: float | None = None
    cores: float | None = None
    cpu: float | None = None
    row_lock: float | None = None
    metadata_lock: float | None = None
    latch: float | None = None
    io: float | None = None
    commit: float | None = None
    other: float | None = None
    top: list[ClassShape] = field(default_factory=list)
    # The sample's active sessions by every dimension (empty where the sample holds none: older
    # recordings, imports without a processlist), and each dimension's top values
    # (core/load_slices.py: sql, user, host, schema, object → rows, most sessions first).
    sessions: list[LoadSession] = field(default_factory=list)
    slices: dict[str, list[LoadSlice]] = field(default_factory=dict)
    # the sample holds active session rows: `sessions` empty then means none was active
    sessions_known: bool = False

    def value(self, cls: str) -> float | None:
        return getattr(self, cls)

    def classes(self) -> list[tuple[str, float]]:
        return [(c, v) for c in WAIT_CLASSES if (v := self.value(c)) is not None]


SEVERITIES = ("info", "warning", "critical")     # Advice.severity, least to most urgent


def severity_rank(severity: str) -> int:
    """info 1 < warning 2 < critical 3; 0 for anything else."""
    return SEVERITIES.index(severity) + 1 if severity in SEVERITIES else 0


@dataclass
class TableCache:
    """Beyond the contract: the table open cache (Table_open_cache_*: MySQL 5.6+, MariaDB 10.1+)."""
    hits_per_s: Num = None
    misses_per_s: Num = None               # an open that found no free cached instance
    overflows_per_s: Num = None            # an instance closed because the cache was full
    opened_tables_per_s: Num = None        # Opened_tables: every server has it
    open_tables: Num = None
    active_instances: Num = None           # MariaDB: Table_open_cache_active_instances (it adds its own)


@dataclass
class Ahi:
    """Beyond the contract: adaptive hash index searches (MariaDB status; MySQL INNODB_METRICS)."""
    hash_searches_per_s: Num = None        # served by the hash index
    btree_searches_per_s: Num = None       # went down the B-tree (the AHI did not help)


@dataclass
class Pressure:
    """Beyond the contract: waits on a buffer, cache or queue of fixed size, each with its knob
    (docs/signals.md), per second of the interval; None where the server lacks the counter."""
    log_waits_per_s: Num = None              # Innodb_log_waits: the log buffer was full, a write waited
    log_write_requests_per_s: Num = None     # Innodb_log_write_requests: writes into the log buffer
    buffer_pool_wait_free_per_s: Num = None  # Innodb_buffer_pool_wait_free: no free page, waited for a flush
    buffer_pool_read_requests_per_s: Num = None  # Innodb_buffer_pool_read_requests: logical reads
    buffer_pool_disk_reads_per_s: Num = None     # Innodb_buffer_pool_reads: pages not in the pool
    binlog_cache_use_per_s: Num = None       # Binlog_cache_use: transactions through the binlog cache
    binlog_cache_disk_use_per_s: Num = None  # Binlog_cache_disk_use: … that spilled to a temporary file
    binlog_stmt_cache_disk_use_per_s: Num = None  # Binlog_stmt_cache_disk_use: non-transactional spills
    binlog_bytes_per_s: Num = None           # Binlog_bytes_written (MariaDB): bytes written to the binary log
    connections_per_s: Num = None            # Connections: connection attempts
    threads_created_per_s: Num = None        # Threads_created: a connection found no cached thread
    threads_cached: Num = None               # Threads_cached now
    threads_connected: Num = None            # Threads_connected now
    tmp_tables_per_s: Num = None             # Created_tmp_tables: implicit temporary tables
    tmp_disk_tables_per_s: Num = None        # Created_tmp_disk_tables: … created on disk
    table_locks_waited_per_s: Num = None     # Table_locks_waited: table locks not granted at once
    select_full_join_per_s: Num = None       # Select_full_join: joins without an index on the joined table
    sort_merge_passes_per_s: Num = None      # Sort_merge_passes: sorts that did not fit sort_buffer_size
    log_pending_writes: Num = None           # Innodb_os_log_pending_writes now
    log_pending_fsyncs: Num = None           # Innodb_os_log_pending_fsyncs now
    connection_errors_max_connections_per_s: Num = None  # Connection_errors_max_connections: refused, full
    connection_errors_other_per_s: Num = None  # Connection_errors_{accept,internal,peer_address,select,tcpwrap}
    aborted_connects_per_s: Num = None       # Aborted_connects: failed attempts (password, handshake, …)
    connections_refused_per_s: Num = None    # refused for max_connections, however the server counts it
    max_used_connections: Num = None         # Max_used_connections: the most connected at once since start
    max_connections: Num = None              # the max_connections variable as last read


@dataclass
class Counters:
    """The server's own cumulative counters as this sample read them (since the server started or
    FLUSH STATUS): what Prometheus takes as counters, while the per-interval rates above are what a
    person reads. None: the server does not offer it. A restart makes them go back (a counter reset)."""
    transactions: Num = None               # Com_commit + Com_rollback
    commits: Num = None                    # Com_commit
    rollbacks: Num = None                  # Com_rollback
    questions: Num = None                  # Questions, every client's statements and the monitor's own
    rows_read: Num = None                  # Innodb_rows_read, else Rows_read / Handler_read_*
    rows_changed: Num = None               # Innodb_rows_inserted+updated+deleted, else Handler_write+update+delete
    data_reads: Num = None                 # Innodb_data_reads
    data_writes: Num = None                # Innodb_data_writes
    data_fsyncs: Num = None                # Innodb_data_fsyncs
    redo_bytes: Num = None                 # Innodb_os_log_written
    pages_flushed: Num = None              # Innodb_buffer_pool_pages_flushed
    row_lock_waits: Num = None             # Innodb_row_lock_waits
    row_lock_wait_ms: Num = None           # Innodb_row_lock_time
    deadlocks: Num = None                  # Innodb_deadlocks (MariaDB), else INNODB_METRICS lock_deadlocks
    semaphore_os_waits: Num = None         # InnoDB status SEMAPHORES: OS waits of every latch kind
    log_waits: Num = None                  # Innodb_log_waits
    buffer_pool_wait_free: Num = None      # Innodb_buffer_pool_wait_free
    binlog_cache_disk_use: Num = None      # Binlog_cache_disk_use
    threads_created: Num = None            # Threads_created
    tmp_disk_tables: Num = None            # Created_tmp_disk_tables
    connection_errors_max_connections: Num = None  # Connection_errors_max_connections


@dataclass(slots=True)
class LatchCounter:
    """One latch's cumulative waits (every P_S wait/synch instrument that has waited, and SHOW ENGINE
    INNODB MUTEX rows summed by name): the counters behind Hotspot's rates, without a top-N cut."""
    name: str
    source: str               # performance_schema | innodb_mutex
    waits: Num = None
    wait_ms: Num = None       # timed performance_schema instruments only


@dataclass(frozen=True)
class CappedRead:
    """One read of the poll cut by a bound, or skipped while its back-off lasts (RawSample.capped)."""
    statement: str            # the poll statement's key (core/sample.py POLL_STATEMENTS, or a lock read)
    cap: str                  # core.sample.Cap value: statement_time | lock_wait | answer_size
    limit: Num = None         # the bound: seconds (statement_time, lock_wait) or bytes (answer_size)
    measured: Num = None      # seconds it ran / bytes it sent before the cut; None: skipped this poll
    retry_in_s: Num = None    # seconds until it is sent again
    now: bool = False         # cut in this very poll


@dataclass
class Advice:
    id: str
    severity: str             # one of SEVERITIES
    message: str
    evidence: str


@dataclass(frozen=True)
class Frame:
    """What one moment shows, derived from two samples (core/derive.py) and never changed after:
    the views compose a new value with its findings (timeline/judge.compose)."""

    time: float                               # epoch seconds of the sample (JSON: ISO 8601 UTC)
    elapsed: Num = None                       # seconds since the previous sample
    stale: bool = False
    server: ServerInfo = field(default_factory=ServerInfo)
    throughput: Throughput = field(default_factory=Throughput)
    hotspots: list[Hotspot] = field(default_factory=list)
    # First frame only (no rates yet): what the latch counters hold, hottest first.
    hotspot_totals: list[HotspotTotal] = field(default_factory=list)
    semaphores: Semaphores = field(default_factory=Semaphores)
    io: Io = field(default_factory=Io)
    flush: Flush = field(default_factory=Flush)
    host: Host | None = None
    advice: list[Advice] = field(default_factory=list)
    # Beyond the contract: which latch sources this server offers and notes on missing ones,
    # and per-statement errors of the poll (e.g. "mutex: access denied").
    sources: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    locks: Locks = field(default_factory=Locks)
    table_cache: TableCache = field(default_factory=TableCache)
    ahi: Ahi = field(default_factory=Ahi)
    pressure: Pressure = field(default_factory=Pressure)
    counters: Counters = field(default_factory=Counters)
    latch_counters: list[LatchCounter] = field(default_factory=list)
    # Why this frame is stale: a core.sample.Failure value ("timeout", "unreachable", "lost",
    # "denied", "other"), None for a fresh frame.
    failure: str | None = None
    # The poll behind this frame: how long it took, and how much longer than the interval (a
    # busy server's late answer, still delivered); None when unknown (replays of older recordings).
    poll_s: Num = None
    late_s: Num = None
    # Who blocks whom (core/blocking.py; JSON keys are the dataclass fields): blocking trees,
    # hottest first, each with a ready-to-copy "KILL <id>"; the longest-running transactions;
    # busy sessions longest first; sessions grouped by command/state. Empty when not read.
    blocking: list[Blocker] = field(default_factory=list)
    transactions: list[Transaction] = field(default_factory=list)
    sessions: list[Session] = field(default_factory=list)
    session_states: list[SessionState] = field(default_factory=list)
    # Piles of sessions on one lock, biggest first, each with the session to release (core/stalls.py);
    # the metadata / global / table / user-lock piles also as blocking trees, shaped like `blocking`.
    stalls: list[Stall] = field(default_factory=list)
    metadata_blocking: list[Blocker] = field(default_factory=list)
    # Row sources the sample does not hold at all — neither read nor refused: an older recording,
    # an import whose collection lacks them. Unknown, not none: panes say "not recorded".
    unrecorded: list[str] = field(default_factory=list)
    # The latest deadlock the server shows (LATEST DETECTED DEADLOCK, read whole: core/innodb/
    # deadlock.py); None when none since the server started or the status was not read. The
    # deadlocks of a whole timeline: core/deadlocks.py.
    deadlock: Deadlock | None = None
    # Active sessions by wait class (core/wait_load.py, docs/wait-classes.md): all None when the
    # sample holds no session counts (an older recording, an import without a processlist).
    load: WaitLoad = field(default_factory=WaitLoad)
    # Top statement digests by load since the previous digest read (performance_schema), on the
    # frames of a poll that read them; empty between reads and where digests are off.
    digests: list[DigestRate] = field(default_factory=list)
    # Reads cut by a bound in this poll or skipped while their back-off lasts, by statement.
    capped_reads: list[CappedRead] = field(default_factory=list)
    # Values read before this frame's poll (a read at a slower cadence than the polls, for its
    # cost): statement key → epoch time it was read (JSON: ISO 8601 UTC); empty: all read now.
    read_at: dict[str, float] = field(default_factory=dict)

    @property
    def outage(self) -> bool:
        """No server data and none coming for this moment: stale for any reason but a busy
        server's late answer (failure "waiting"), which still comes."""
        return self.stale and self.failure != Failure.WAITING.value

    def why_stale(self) -> str:
        """Why this frame holds no fresh data, in one line (empty for a fresh frame)."""
        if not self.stale:
            return ""
        return (self.errors.get("poll") or self.errors.get("recording")
                or next(iter(self.errors.values()), None) or _NO_DATA.get(self.failure or "", "no data"))

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["time"] = iso_utc(self.time)
        if self.server.time is not None:
            d["server"]["time"] = iso_utc(self.server.time)
        if self.server.replaced_at is not None:
            d["server"]["replaced_at"] = iso_utc(self.server.replaced_at)
        d["read_at"] = {k: iso_utc(v) for k, v in self.read_at.items()}
        return d


# What a stale frame says when the source gave no message (kinds are core.sample.Failure values).
_NO_DATA = {"timeout": "the server did not answer in time", "unreachable": "no connection to the server",
            "lost": "the connection to the server was lost", "denied": "the server refused the monitor's account"}


RESTART_SLACK_S = 1.5       # Uptime counts whole seconds: start times of one run differ by < 1 s


def restarted_between(before: Frame, after: Frame) -> bool:
    """The server restarted between two fresh frames: its Uptime went back, or the moment it
    started (frame time − Uptime) moved later than whole-second Uptime and the polls' own
    duration allow — a server down longer than it had been up comes back with a higher Uptime."""
    u0, u1 = before.server.uptime_s, after.server.uptime_s
    if u0 is None or u1 is None:
        return False
    if u1 < u0:
        return True
    slack = RESTART_SLACK_S + (before.poll_s or 0.0) + (after.poll_s or 0.0)
    return (after.time - u1) - (before.time - u0) > slack


def iso_utc(epoch: float) -> str:
    try:
        return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (ValueError, OverflowError, OSError):    # past year 9999 or not finite: no calendar time
        return f"@{epoch}"
