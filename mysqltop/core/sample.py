"""RawSample: exactly what one poll read. The unit that is recorded and replayed.

Nothing here is derived: texts and rows are kept as the server returned them, so a parser
fix later improves old recordings too (docs/architecture.md). All fields are plain data (str, int,
float, lists, dicts) so a recording can store them without knowing this class.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Failure(str, Enum):
    """Why a whole poll failed, decided by the source where it caught the error (by exception type
    and error code) and recorded with the sample; views switch on it, never on message words."""

    TIMEOUT = "timeout"              # connected, but the server did not answer in time (frozen, overloaded)
    UNREACHABLE = "unreachable"      # no connection could be made (refused, no route, unknown host)
    LOST = "lost"                    # an established connection went away (restart, kill, network)
    DENIED = "denied"                # the server answered but refuses us (password, account locked, grants)
    OTHER = "other"                  # anything else (an unexpected result shape, a client bug)
    # Not a failure: the poll is still running past the interval (a busy or frozen server, not yet
    # counted as not answering). The sample carries the host counters of its moment, so the host
    # view keeps its own clock; the server's answer comes later, as a late sample.
    WAITING = "waiting"


class Cap(str, Enum):
    """The bound that cut one read of a poll (RawSample.capped), decided by the source from the
    error code or the bytes counted; the read is then skipped for a back-off that grows."""

    STATEMENT_TIME = "statement_time"    # max_statement_time (MariaDB) / MAX_EXECUTION_TIME (MySQL) ended it
    LOCK_WAIT = "lock_wait"              # lock_wait_timeout / innodb_lock_wait_timeout ended its wait
    ANSWER_SIZE = "answer_size"          # its answer was larger than the client takes (sources/wire.py)


# Keys of RawSample.timings_ms / errors, in the order one poll runs its statements. The server's
# Questions counter includes them, so derive takes them out of qps (see own_statements).
POLL_STATEMENTS: tuple[str, ...] = (
    "innodb_status", "innodb_mutex", "ps_waits", "global_status", "innodb_metrics", "server_time",
    "lock_waits", "row_locks", "transactions", "sessions", "session_states", "lock_sessions", "metadata_locks",
    "mdl_plugin", "digests", "variables")
STATUS_STATEMENT = "global_status"      # the statement that reads Questions


def sent_statements(raw: "RawSample") -> list[str]:
    """Statements this poll really sent, in execution order ("skipped: …" errors were not sent)."""
    return [k for k in POLL_STATEMENTS
            if k in raw.timings_ms or (k in raw.errors and not raw.errors[k].startswith("skipped:"))]


def own_statements(prev: "RawSample", cur: "RawSample") -> int:
    """The monitor's statements between two reads of Questions: the rest of the previous poll
    after its status statement, and the current poll up to and including it (Questions counts a
    statement when it starts, so the status statement counts itself)."""
    def split(raw: RawSample) -> tuple[int, int]:
        sent = sent_statements(raw)
        if STATUS_STATEMENT not in sent:
            return 0, 0
        n = sent.index(STATUS_STATEMENT) + 1
        return n, len(sent) - n
    return split(prev)[1] + split(cur)[0]


@dataclass(frozen=True)
class ServerIdentity:
    version: str | None = None          # VERSION(), e.g. "10.11.19-MariaDB-0+deb12u1"
    flavor: str | None = None           # "mysql" | "mariadb" | "percona"
    address: str | None = None          # "127.0.0.1:3306" or the socket path
    hostname: str | None = None         # @@hostname
    local: bool = False                 # server runs on this host (mysqld process watched)
    # The monitor's account has SUPER or CONNECTION ADMIN: it may take the one connection the
    # server keeps past max_connections. None: not known (an import, an older recording).
    monitor_connection_admin: bool | None = None
    # Which server this is, whatever address answers as it: a digest of @@server_uuid (MySQL), else
    # @@server_id, @@hostname and @@datadir; None: not known (an import, an older recording).
    uid: str | None = None
    # When (epoch) a different server than the one watched before began answering at this address
    # (another uid, or the same uid with its redo log moved back: a restored snapshot); None: the
    # same server since the monitor started. Samples on both sides of it are never diffed.
    replaced_at: float | None = None

    def same_server(self, other: "ServerIdentity") -> bool:
        """Can counters of `other`'s samples be diffed with ours?"""
        return same_server(self.uid, self.replaced_at, other.uid, other.replaced_at)


def same_server(uid: str | None, replaced_at: float | None, other_uid: str | None,
                other_replaced_at: float | None) -> bool:
    """One server on both sides (ServerIdentity, frame.ServerInfo): the same uid, and no
    replacement between them. An unknown uid (an import, an older recording) is the same."""
    if replaced_at != other_replaced_at:
        return False
    return uid is None or other_uid is None or uid == other_uid


@dataclass(frozen=True)
class HostSample:
    """Raw host counters (cumulative where the OS keeps them cumulative)."""

    cpus: int
    cpu_times: dict[str, float]         # cumulative seconds: user, nice, system, idle, iowait, irq, softirq, steal
    ctx_switches: int                   # cumulative
    procs_running: int                  # /proc/stat, includes the reader itself
    procs_blocked: int
    loadavg: tuple[float, float, float]
    disk_reads: int | None = None       # cumulative completed reads, all disks
    disk_writes: int | None = None
    disk_read_bytes: int | None = None
    disk_write_bytes: int | None = None
    mysqld_cpu_s: float | None = None   # cumulative user+system seconds of the mysqld process
    mysqld_threads: int | None = None
    mysqld_rss: int | None = None
    # The busiest processes other than mysqld since the previous read, while the host's CPUs were
    # busy: [[pid, name, cumulative user+system CPU seconds], …] (None: not looked at).
    top_procs: list[list[Any]] | None = None


@dataclass(frozen=True)
class RawSample:
    wall: float                                     # epoch seconds when the poll started
    mono: float                                     # monotonic seconds; Δt comes from this
    server: ServerIdentity = field(default_factory=ServerIdentity)
    innodb_status: str | None = None                # SHOW ENGINE INNODB STATUS text
    innodb_mutex: list[list[str]] | None = None     # SHOW ENGINE INNODB MUTEX rows [Type, Name, Status]
    ps_waits: list[list[Any]] | None = None         # [EVENT_NAME, COUNT_STAR, SUM, MIN, AVG, MAX] (ps)
    global_status: dict[str, str] = field(default_factory=dict)   # filtered SHOW GLOBAL STATUS
    innodb_metrics: dict[str, int] | None = None    # INNODB_METRICS name → COUNT (enabled only)
    variables: dict[str, str] = field(default_factory=dict)       # latest known global variables
    host: HostSample | None = None
    # statement → client-side ms; plus "poll" (the whole poll) and "late" (how much longer than
    # the interval it took, when it did: a busy server's answer, delivered late, not dropped)
    timings_ms: dict[str, float] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)          # statement → error text
    error: str | None = None        # whole poll failed (timeout, disconnect): frame is stale
    failure: Failure | None = None  # the typed reason when `error` is set (None in old recordings)
    # Lock waits, transactions and sessions (row shapes: sources/lock_reads.py); None: not read
    # (old recordings, a server that refused, a failed poll).
    lock_waits: list[list[Any]] | None = None
    transactions: list[list[Any]] | None = None
    sessions: list[list[Any]] | None = None
    session_states: list[list[Any]] | None = None
    # While a session waits on a lock: every session that may hold it, and the metadata locks
    # where the server lists them (row shapes: sources/lock_reads.py); None: not read.
    lock_sessions: list[list[Any]] | None = None
    metadata_locks: list[list[Any]] | None = None
    # Every lock InnoDB lists while a transaction waits, with its transaction (row shape:
    # sources/lock_reads.py): the roots and their waiter counts, whole; None: not read (MySQL 8,
    # older recordings).
    row_locks: list[list[Any]] | None = None
    # The server's own clock (epoch seconds) read in the same round trip; None: not read (old
    # recordings, replays of them, a failed poll).
    server_time: float | None = None
    # The monitor's own session's Rows_read, read with server_time (MariaDB, whose rows read/s
    # comes from Rows_read, which counts the monitor's own statements too); None: not read.
    own_rows_read: int | None = None
    # What this sample's source never had, as POLL_STATEMENTS keys (and "variables"): an import
    # sets it to what the collection did not hold for this moment, so views say "not recorded"
    # and no rule advises a privilege, instrument or setting for it. None: a live poll (a field
    # it lacks was not needed, not readable or refused — errors says which).
    not_recorded: list[str] | None = None
    # Reads of this poll cut by a bound, and reads skipped while their back-off lasts: statement
    # key → {"cap": Cap value, "limit": seconds or bytes, "measured": seconds run or bytes sent
    # before the cut (null when skipped), "retry_in_s": seconds until it is sent again, "now":
    # cut in this poll}. None: none (and in older recordings).
    capped: dict[str, dict[str, Any]] | None = None
    # A read made at a slower cadence than the polls (its cost: the latch summary of a server with
    # a huge table cache), carried in the samples between reads: statement key → [wall, mono] of
    # the read a field holds ("ps_waits", "ps_waits_before", "global_status", …); a key absent:
    # read in this poll.
    # None: every field read in this poll (and in older recordings).
    read_at: dict[str, list[float]] | None = None
    # The latch summary's read before the one in ps_waits, while it is read at a slower cadence:
    # the latch rates come from these two reads (Hotspot.span_s), whatever poll carries them.
    ps_waits_before: list[list[Any]] | None = None
    # Every active session of this poll as [wait_class, wait_object, shape, user, host, schema,
    # command, state, sessions] (core/active_sessions.py), identical tuples counted once: the load
    # by statement, user, client host, schema or object over any window is a fold over them.
    # None: not read (older recordings, imports without a processlist, a failed poll).
    active_sessions: list[list[Any]] | None = None
    # Statement digests that ran since the previous digest read (read every few polls; row shape:
    # sources/digest_reads.py): their calls, time and rows over that span. None: not read in
    # this poll (between reads, digests off, older recordings).
    digests: list[list[Any]] | None = None
    # SHOW GLOBAL STATUS's read before the one in global_status, while its cost paces it (read_at
    # "global_status", "global_status_before"): the counters' rates are over these two reads.
    global_status_before: dict[str, str] | None = None
