"""What one poll asks the server, and sending it: the statements, which of them are due, and the
round trips that run them.

Statements that cannot hurt the server: plain, bounded reads of rows — no ordered or limited
aggregate, no sort, no GROUP BY, nothing that needs an internal temporary table beyond the one
the server fills for an information_schema table it is asked about (and never
information_schema.PROCESSLIST, whose LONGTEXT column sends that table to disk). The rows kept
are chosen client-side (sources/lock_reads.py).

Round trips (CLIENT.MULTI_STATEMENTS; result sets walked with nextset()): the first carries
everything read every poll. INNODB_TRX and the lock-wait join are the dearest reads on a busy
server (every transaction, copied under the transaction-system latch) and tell nothing new while
no transaction waits for a lock and none is old: a second round trip reads them only when the
first one shows a row-lock wait (Innodb_row_lock_current_waits), a session waiting for a lock
(metadata, global read, backup, table or user lock: whoever holds it may be a transaction), a
transaction ACTIVE for OLD_TRANSACTION_S or more in the InnoDB status text, or cannot tell. Otherwise the transactions
come from the status text (core/blocking.py) and the lock waits are known to be none. A statement
the server refuses for good is not sent again; the sample keeps saying why it is missing.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from mysqltop.core.derive import METRIC_NAMES
from mysqltop.core.derive import STATUS_NAMES as DERIVE_STATUS_NAMES
from mysqltop.core.derive import VARIABLE_NAMES as DERIVE_VARIABLE_NAMES
from mysqltop.core.hotspots import PS_SUMMARY_EVERY_S
from mysqltop.core.sample import POLL_STATEMENTS, Cap
from mysqltop.sources import capabilities as caps_mod
from mysqltop.sources import lock_reads as locks_src
from mysqltop.sources.capabilities import Capabilities
from mysqltop.sources.digest_reads import K_DIGESTS, DigestBook
from mysqltop.sources.latch_reads import LatchReads
from mysqltop.sources.failure import CONNECTION_GONE, ER_UNKNOWN_TABLE, PERMANENT
from mysqltop.sources.read_caps import CAP_ERRORS, CapBook, cut_words

# The status counters the frame reads come from derive (one list, no drift). Everything else
# stays on the server: each row costs the client a packet to decode every poll, for every server
# of a fleet.
STATUS_NAMES: tuple[str, ...] = tuple(dict.fromkeys(DERIVE_STATUS_NAMES))

# Settings the advice cites; innodb_% is read whole (cheap, and only every VARIABLES_EVERY_S).
VARIABLE_NAMES: tuple[str, ...] = (
    "table_open_cache", "table_open_cache_instances", "table_definition_cache", "sync_binlog",
    "log_bin", "max_connections", "thread_handling", "thread_pool_size", "performance_schema",
    "version", "version_comment", "hostname", "binlog_format", "binlog_cache_size", "thread_cache_size",
    "tmp_table_size", "max_heap_table_size", *DERIVE_VARIABLE_NAMES,
)
VARIABLES_EVERY_S = 60.0
# MUTEX returned no rows in this many polls → ask only every MUTEX_RETRY_S: MySQL lists a latch
# only after it waited, so an idle server just started has none yet (the incident comes later).
MUTEX_GIVE_UP_POLLS = 5
MUTEX_RETRY_S = 60.0

# The latch summary walks every instance once per instrument class: about a millisecond of the
# server's CPU on a busy server, hundreds with a table cache of 100,000 tables. After the first two
# polls (rates at once) it is read every PS_SUMMARY_EVERY_S, or once every took / PS_DUTY seconds
# when dearer (at most PS_SLOWEST_S); the samples between carry its last two reads and their rates
# over the real span between them (RawSample.ps_waits_before). PS_EARLY_S: a poll this much before
# the due time reads it, so jitter does not push the read a whole interval later.
PS_DUTY = 0.02
PS_SLOWEST_S = 60.0
PS_EARLY_S = 0.25

# SHOW GLOBAL STATUS is paced the same way, carried between reads with the read before it
# (RawSample.global_status_before): its counters' rates are then over the real span between the
# two reads. Reads of rows as they are now (no counters: a sample may carry an older read, dated)
# whose cadence follows their cost: a read that took T is sent again after T / PACED_DUTY seconds (at
# most PACED_SLOWEST_S), the samples between carrying it with the time it was read
# (RawSample.read_at). Cheap, they are read every poll; 1,000 open transactions joined with
# their sessions, or a flood of lock waits, cost a server hundreds of milliseconds a read.
PACED_DUTY = 0.02
PACED_SLOWEST_S = 60.0
# Below this a read is never paced (nor the latch summary): a loaded box's run queue stretches
# the wall time of cheap reads to tens of milliseconds, which says nothing of their cost. A read's
# cost is the lesser of its last two wall times: a scheduler's delay comes and goes, a table cache
# of 100,000 tables stays.
COSTLY_S = 0.1

# A transaction ACTIVE this long in the InnoDB status text makes the poll read INNODB_TRX (who runs
# it, rows locked): younger ones come and go with normal work and the status text lists them.
OLD_TRANSACTION_S = 2
# "---TRANSACTION 1234, ACTIVE 7 sec" / "ACTIVE (PREPARED) 7 sec". Statement text inside the
# status can imitate such a line: that only makes the poll read INNODB_TRX, never skip it.
_ACTIVE = re.compile(r"^---TRANSACTION [^\n]*?\bACTIVE (?:\(PREPARED\) )?(\d{1,9}) sec", re.M)


def _in_list(names: tuple[str, ...]) -> str:
    return ", ".join(f"'{n}'" for n in names)


STATUS_SQL = f"SHOW GLOBAL STATUS WHERE Variable_name IN ({_in_list(STATUS_NAMES)})"
METRICS_SQL = f"SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN ({_in_list(METRIC_NAMES)}) AND "
# MariaDB counts these in SHOW GLOBAL STATUS too (Innodb_deadlocks, Innodb_adaptive_hash_*), which
# derive reads first: INNODB_METRICS is asked there only for the rest (the page cleaner's split,
# off by default), and every METRICS_RETRY_S while none of those is enabled.
STATUS_HAS_METRICS = ("lock_deadlocks", "adaptive_hash_searches", "adaptive_hash_searches_btree")
METRICS_RETRY_S = 60.0
VARIABLES_SQL = (f"SHOW GLOBAL VARIABLES WHERE Variable_name LIKE 'innodb\\_%' "
                 f"OR Variable_name IN ({_in_list(VARIABLE_NAMES)})")

# Statement keys used in RawSample.timings_ms / errors, in the order a poll sends them.
K_STATUS, K_MUTEX, K_PS, K_GSTATUS, K_METRICS = POLL_STATEMENTS[:5]
K_LOCK_WAITS, K_TRANSACTIONS, K_SESSIONS = locks_src.K_LOCK_WAITS, locks_src.K_TRANSACTIONS, locks_src.K_SESSIONS
K_VARS = POLL_STATEMENTS[-1]
K_MDL_PLUGIN = "mdl_plugin"
K_TIME = "server_time"
PACED = (K_SESSIONS, locks_src.K_SESSION_STATES, K_TRANSACTIONS, K_LOCK_WAITS, locks_src.K_ROW_LOCKS,
         locks_src.K_LOCK_SESSIONS, locks_src.K_METADATA_LOCKS)


@dataclass
class PollStats:
    """What the last poll cost on the wire (bench/poll reads these)."""

    round_trips: int = 0
    statements: int = 0
    bytes_received: int = 0
    bytes_sent: int = 0


@dataclass
class Poll:
    """Results of one poll, filled statement by statement."""

    values: dict[str, Any] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    none_waiting: bool = False        # lock waits not asked: the first round trip showed no row-lock wait


def _status_value(rows: Any, name: str) -> int | None:
    for r in rows or ():
        if len(r) >= 2 and str(r[0]) == name:
            v = r[1].decode() if isinstance(r[1], (bytes, bytearray)) else str(r[1])
            return int(v) if v.isdigit() else None
    return None


def lock_waiting_sessions(rows: Any, state_col: int) -> bool:
    """Is a session of the sessions read waiting for a lock the server keeps outside InnoDB's
    row locks ("Waiting for table metadata lock", "… global read lock", "User lock" …)?"""
    for r in rows or ():
        state = r[state_col] if len(r) > state_col else None
        if isinstance(state, str) and ((state.startswith("Waiting for") and "lock" in state) or state == "User lock"):
            return True
    return False


def oldest_active_s(status_text: str) -> int | None:
    """The longest ACTIVE time of the status text's transactions; None when it lists none."""
    return max((int(m.group(1)) for m in _ACTIVE.finditer(status_text)), default=None)


class StatementPlan:
    """Which statements a poll of one connection sends, and what the server refused for good.
    Made anew for every new connection (maybe a restarted, upgraded server)."""

    def __init__(self, caps: Capabilities, own_thread_id: int | None = None, mdl_plugin: bool = False,
                 book: CapBook | None = None) -> None:
        self.caps = caps
        self.book = book or CapBook()            # reads a bound cut: skipped while their back-off lasts
        self.mono = 0.0                          # the time of the poll being planned
        self.paced_due: dict[str, float] = {}     # PACED reads: when each is sent next,
        self.last_read: dict[str, tuple[Any, float, float]] = {}   # its last read (rows, wall, mono),
        self.last_took: dict[str, float] = {}     # every read's last wall time (K_PS too): its cost
        self.carried: dict[str, tuple[Any, float, float]] = {}     # and what this poll carries instead
        self.ps_due_at = float("-inf")           # the latch summary: when it is read next,
        self.ps_reads: list[tuple[Any, float, float]] = []   # its last two reads (rows, wall, mono),
        self.ps_every_poll = True                # and whether the last poll read it
        self.status_reads: list[tuple[Any, float, float]] = []   # SHOW GLOBAL STATUS: its last two reads,
        self.status_every_poll = True            # and whether the last poll read it (else its cost paces it)
        self.ps_slowed = False                   # this poll leaves it out: not due (its cost)
        self.latches = LatchReads(caps.flavor, caps.version_tuple)   # the latch summary: whole or short
        self.metrics_rows = True                 # the last INNODB_METRICS answer had rows (asked first anyway)
        self.metrics_asked_at = float("-inf")
        names = [n for n in METRIC_NAMES if caps.flavor != "mariadb" or n not in STATUS_HAS_METRICS]
        self._metrics_sql = (f"SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN "
                             f"({_in_list(tuple(names))}) AND ")
        self.own_thread_id = own_thread_id       # our connection: left out of SHOW PROCESSLIST's rows
        self.disabled: dict[str, str] = {}       # statement key → permanent error text
        self.mutex_empty_polls = 0
        self.mutex_asked_at = float("-inf")
        self.variables_at: float | None = None
        self.multi = True                        # the server takes multi-statements
        self.mdl_plugin = mdl_plugin
        self.locks = locks_src.reads(caps.flavor, caps.version_tuple, caps.performance_schema, mdl_plugin)
        self.digests = DigestBook()              # statement digests: a bounded delta, every DIGEST_EVERY_S

    def statements(self, mono: float) -> list[tuple[str, str]]:
        """(key, SQL) of the first round trip of a poll at `mono`."""
        c = self.caps
        self.mono = mono
        self.carried = {}
        stmts = [(K_STATUS, "SHOW ENGINE INNODB STATUS")]
        if c.poll_mutex and (self.mutex_empty_polls < MUTEX_GIVE_UP_POLLS
                             or mono - self.mutex_asked_at >= MUTEX_RETRY_S):
            self.mutex_asked_at = mono
            stmts.append((K_MUTEX, "SHOW ENGINE INNODB MUTEX"))
        self.ps_slowed = c.performance_schema and mono < self.ps_due_at and K_PS not in self.disabled
        if c.performance_schema and not self.ps_slowed:
            stmts.append((K_PS, self.latches.sql()))
        stmts.append((K_GSTATUS, STATUS_SQL))
        if c.metrics_column and (self.metrics_rows or mono - self.metrics_asked_at >= METRICS_RETRY_S):
            self.metrics_asked_at = mono
            cond = "ENABLED = 1" if c.metrics_column == "ENABLED" else "STATUS = 'enabled'"
            stmts.append((K_METRICS, self._metrics_sql + cond))
        stmts.append((K_TIME, self._clock_sql()))
        stmts += self.locks.first_trip()
        if c.performance_schema and K_DIGESTS not in self.disabled and self.digests.due(mono):
            stmts.append((K_DIGESTS, self.digests.sql(mono)))
        if self.variables_due(mono):
            stmts.append((K_VARS, VARIABLES_SQL))
        return self._due(stmts)

    def _due(self, stmts: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """Leave out what the server refused for good and what a bound cut, while it backs off;
        a PACED read not due yet is carried from its last read instead."""
        out = []
        for k, s in stmts:
            if k in self.disabled or not self.book.due(k, self.mono):
                continue
            if self.mono < self.paced_due.get(k, float("-inf")) and k in self.last_read:
                self.carried[k] = self.last_read[k]
                continue
            out.append((k, s))
        return out

    def values(self, poll: Poll) -> dict[str, Any]:
        """The poll's rows by statement: read now, else carried from an earlier read."""
        return {**{k: c[0] for k, c in self.carried.items()}, **poll.values}

    def _cost(self, key: str, took: float) -> float:
        """The read's cost: the lesser of its last two wall times (see COSTLY_S)."""
        before = self.last_took.get(key, took)
        self.last_took[key] = took
        return min(before, took)

    def _paced(self, key: str, rows: Any, took: float) -> None:
        if key in PACED or key == K_GSTATUS:
            took = self._cost(key, took)
            self.last_read[key] = (rows, time.time(), self.mono)
            self.paced_due[key] = self.mono + (min(PACED_SLOWEST_S, took / PACED_DUTY) if took >= COSTLY_S else 0.0)
            if key == K_GSTATUS:
                self.status_reads = [*self.status_reads[-1:], self.last_read[key]]
                if len(self.status_reads) < 2:
                    self.paced_due[key] = self.mono   # two reads first: a carried read always has its rates

    def status_summary(self, poll: Poll) -> dict[str, Any]:
        """RawSample fields of SHOW GLOBAL STATUS beyond its rows, while its cost paces it (a server
        with thousands of sessions sums every session's counters for it): the read before the one
        the sample holds, and when it was made (global_status_before, read_at), whenever the two
        are not one poll apart; the counters' rates are then over the real span between them."""
        was_every_poll = self.status_every_poll
        self.status_every_poll = K_GSTATUS in poll.values
        if (self.status_every_poll and was_every_poll) or len(self.status_reads) < 2:
            return {}
        before = self.status_reads[0]
        return {"global_status_before": {str(k): str(v) for k, v in before[0]},
                "read_at": {"global_status_before": list(before[1:])}}

    def latch_summary(self, rows: Any, took_s: float | None, wall: float) -> dict[str, Any]:
        """The RawSample fields of the latch summary for this poll: `rows` read now (None: not
        read: not due yet) → ps_waits, ps_waits_before, read_at."""
        was_every_poll = self.ps_every_poll
        if rows is not None:
            self.ps_reads = [*self.ps_reads[-1:], (rows, wall, self.mono)]
            took = self._cost(K_PS, took_s or 0.0)
            costly = min(PS_SLOWEST_S, took / PS_DUTY) if took >= COSTLY_S else 0.0
            self.ps_due_at = self.mono + (max(PS_SUMMARY_EVERY_S - PS_EARLY_S, costly)
                                          if len(self.ps_reads) >= 2 else costly)
            self.ps_every_poll = True
            if was_every_poll or len(self.ps_reads) < 2:
                return {"ps_waits": rows}
            before = self.ps_reads[0]
            return {"ps_waits": rows, "ps_waits_before": before[0], "read_at": {"ps_waits_before": list(before[1:])}}
        self.ps_every_poll = False
        if not self.ps_reads:
            return {}
        last = self.ps_reads[-1]
        out: dict[str, Any] = {"ps_waits": last[0], "read_at": {"ps_waits": list(last[1:])}}
        if len(self.ps_reads) == 2:
            before = self.ps_reads[0]
            out["ps_waits_before"] = before[0]
            out["read_at"]["ps_waits_before"] = list(before[1:])
        return out

    def saw_metrics(self, rows: Any) -> None:
        self.metrics_rows = bool(rows)

    def _clock_sql(self) -> str:
        """The server's clock (microseconds from 5.6.4 / MariaDB 5.3), for the live header; on
        MariaDB also this session's Rows_read, so rows r/s leaves the monitor's own reads out.
        From information_schema, which fills its one-row table for the name asked only, where
        performance_schema.session_status makes every status variable of the session first
        (0.31 against 0.21 ms of the server's CPU a poll under load)."""
        c = self.caps
        now = "UNIX_TIMESTAMP(NOW(6))" if c.version_tuple >= (5, 6, 4) else "UNIX_TIMESTAMP()"
        if c.flavor != "mariadb":
            return f"SELECT {now}"
        return (f"SELECT {now}, (SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS "
                "WHERE VARIABLE_NAME = 'ROWS_READ')")

    def second_trip(self, poll: Poll) -> list[tuple[str, str]]:
        """(key, SQL) of the reads the first round trip calls for: the transactions when one is
        old or waits, the lock-wait join when one waits (or when the first trip cannot tell).
        Sets poll.none_waiting when the lock waits are known to be none."""
        v = self.values(poll)
        status = v.get(K_STATUS)
        waits = _status_value(poll.values.get(K_GSTATUS), "Innodb_row_lock_current_waits")
        if K_GSTATUS not in poll.values and K_GSTATUS in self.carried and status and len(status[0]) > 2:
            # the status is an older read (its cost paces it): a waiting transaction's "LOCK WAIT"
            # line in this poll's status text tells instead (statement text can only add reads)
            waits = 1 if "LOCK WAIT" in str(status[0][2]) else 0
        oldest = oldest_active_s(str(status[0][2])) if status and len(status[0]) > 2 else OLD_TRANSACTION_S
        waiting = waits is None or waits > 0
        others = lock_waiting_sessions(v.get(K_SESSIONS), 5 if self.locks.ps else 6)
        out = []
        if waiting or others or (oldest is not None and oldest >= OLD_TRANSACTION_S):
            out.append((K_TRANSACTIONS, self.locks.transactions.sql))
        if waiting:
            out.append((K_LOCK_WAITS, self.locks.lock_waits.sql))
            if self.locks.row_locks is not None:
                out.append((locks_src.K_ROW_LOCKS, self.locks.row_locks.sql))
        elif K_LOCK_WAITS not in self.disabled:
            poll.none_waiting = True
        # who holds what they wait for: every session (idle ones too), and the metadata locks
        if (waiting or others) and self.locks.lock_sessions is not None:
            out.append((locks_src.K_LOCK_SESSIONS, self.locks.lock_sessions.sql))
        if others and self.locks.metadata_locks is not None:
            out.append((locks_src.K_METADATA_LOCKS, self.locks.metadata_locks.sql))
        out = self._due(out)
        if others and self.caps.flavor == "mariadb" and not self.mdl_plugin:
            # installed while the stall lasts (the m key, a DBA)? Last in the trip: while it is
            # not, the statement fails, which ends the batch with nothing left to send
            out.append((K_MDL_PLUGIN, locks_src.MDL_PLUGIN_SQL))
        return out

    def saw_plugins(self, poll: Poll) -> None:
        """The metadata_lock_info check of this poll: its table answered once the plugin is active
        (the next polls read its holders); its absence is no error to show or to stop asking."""
        if K_MDL_PLUGIN not in poll.values and K_MDL_PLUGIN not in poll.errors:
            return
        if poll.errors.pop(K_MDL_PLUGIN, None) is not None:
            poll.timings_ms.setdefault(K_MDL_PLUGIN, 0.0)    # sent all the same: Questions counts it
        self.disabled.pop(K_MDL_PLUGIN, None)
        if K_MDL_PLUGIN in poll.values and not self.mdl_plugin:
            self.mdl_plugin = True
            self.locks = locks_src.reads(self.caps.flavor, self.caps.version_tuple, self.caps.performance_schema, True)

    def plugin_gone(self) -> None:
        """metadata_lock_info was uninstalled while watched: back to the performance_schema read
        and to the check that sees the plugin return, instead of no holders for the session."""
        self.mdl_plugin = False
        self.locks = locks_src.reads(self.caps.flavor, self.caps.version_tuple, self.caps.performance_schema, False)

    def variables_due(self, mono: float) -> bool:
        return self.variables_at is None or mono - self.variables_at >= VARIABLES_EVERY_S

    def saw_mutex(self, rows: Any) -> None:
        """SHOW ENGINE INNODB MUTEX answered (maybe with no rows: ask less often)."""
        self.mutex_empty_polls = 0 if rows else self.mutex_empty_polls + 1

    def _cut(self, conn: Any, key: str, code: int, took: float, poll: Poll) -> None:
        cap = CAP_ERRORS[code]
        measured = getattr(conn, "refused_bytes", None) if cap is Cap.ANSWER_SIZE else round(took, 3)
        poll.timings_ms[key] = round(took * 1000.0, 3)        # sent: the server counted it
        poll.errors[key] = cut_words(key, self.book.cut(key, cap, measured, self.mono))

    def send(self, conn: Any, todo: list[tuple[str, str]], poll: Poll) -> int:
        """Send the statements (one round trip, or one each where multi-statements are refused),
        filling `poll`; the round trips it took. A connection-level error propagates."""
        import pymysql

        trips = 0
        while todo:
            batch = todo if self.multi else todo[:1]
            trips += 1
            done = 0
            cur = conn.cursor()
            try:
                t0 = time.perf_counter()
                try:
                    cur.execute(";\n".join(s for _, s in batch))
                    while True:
                        key = batch[done][0]
                        t1 = time.perf_counter()
                        poll.values[key] = cur.fetchall()
                        poll.timings_ms[key] = round((t1 - t0) * 1000.0, 3)
                        self.book.answered(key)
                        self._paced(key, poll.values[key], t1 - t0)
                        done += 1
                        t0 = t1
                        if not cur.nextset():
                            break
                except pymysql.err.MySQLError as e:
                    code = caps_mod.error_code(e)
                    if code == 1064 and self.multi and len(batch) > 1 and done == 0:
                        self.multi = False         # server refuses multi-statements: one by one
                        continue
                    if code in CAP_ERRORS and done < len(batch):
                        # a bound ended it: reported, skipped while it backs off, never sent again
                        # in this poll (an answer too large also cost the connection: the poll failed)
                        self._cut(conn, batch[done][0], code, time.perf_counter() - t0, poll)
                        if CAP_ERRORS[code] is Cap.ANSWER_SIZE:
                            raise
                    elif code == 0 or code >= 2000 or code in CONNECTION_GONE:
                        raise                      # client-side / connection-level: the poll failed
                    else:
                        key = batch[done][0]
                        poll.errors[key] = locks_src.explain_error(key, code, caps_mod.one_line(e), self.caps.grantee)
                        if key == locks_src.K_METADATA_LOCKS and self.mdl_plugin and code == ER_UNKNOWN_TABLE:
                            self.plugin_gone()
                        elif code in PERMANENT:
                            self.disabled[key] = poll.errors[key]
                    done += 1                      # the server stopped the batch after this one
            finally:
                try:
                    cur.close()
                except Exception:  # noqa: BLE001 - a connection broken mid-batch: what broke it is raised
                    pass
            todo = todo[done:] if done else todo[1:]
        return trips
