"""derive(prev, cur) → Frame: the one path from samples to what every view shows (docs/json.md).

Pure and cheap (runs every second): both samples are already parsed (ParsedSample), nothing is
re-parsed here. Each number uses the best source the sample has — the InnoDB status text first
where it is the classic source, status variables where they are more exact or the only source
(MariaDB 10.6+) — and rates are None on the first sample, on Δt ≤ 0, on a server restart
(Uptime went backwards) and per counter when it went backwards. Never negative.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from collections.abc import Sequence

from mysqltop.core import hotspots as hs
from mysqltop.core import blocking as lock_tree
from mysqltop.core import pressure_signals
from mysqltop.core import row_lock_time as rlt
from mysqltop.core import stall_rows
from mysqltop.core import stalls as stall_tree
from mysqltop.core import top_sql, wait_load
from mysqltop.core.counters import Number, first_rate, rate, rate_of_sum, total, valid_dt
from mysqltop.core.frame import (Ahi, CappedRead, Counters, Flush, Frame, Host, Hotspot, Io, IoThread, Locks,
                                 Semaphores, ServerInfo, TableCache, Throughput)
from mysqltop.core.innodb.model import InnodbStatus
from mysqltop.core.instrumentation import ENABLE_SQL, hint_config
from mysqltop.core.carried_reads import latch_counters, latch_reads, status_span
from mysqltop.core.parsed import ParsedSample
from mysqltop.core.server_version import predates_performance_schema
from mysqltop.core.sample import Failure, HostSample, RawSample, own_statements, sent_statements

# Rows read where InnoDB has no row counters (MariaDB) and Rows_read is not polled.
HANDLER_READS = tuple(f"Handler_read_{k}" for k in ("first", "key", "last", "next", "prev", "rnd", "rnd_next"))

# What derive reads from SHOW GLOBAL STATUS: the poller's filtered status must include these.
STATUS_NAMES: tuple[str, ...] = (
    "Uptime", "Com_commit", "Com_rollback", "Handler_commit", "Questions", "Threads_running",
    "Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted",
    "Rows_read", "Handler_write", "Handler_update", "Handler_delete",
    "Innodb_data_reads", "Innodb_data_writes", "Innodb_data_fsyncs",
    "Innodb_data_pending_reads", "Innodb_data_pending_writes", "Innodb_data_pending_fsyncs",
    "Innodb_async_reads_pending", "Innodb_async_writes_pending",
    "Innodb_buffer_pool_pages_flushed", "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_data",
    "Innodb_buffer_pool_pages_free",
    "Innodb_checkpoint_age", "Innodb_checkpoint_max_age", "Innodb_lsn_current", "Innodb_lsn_last_checkpoint",
    "Innodb_os_log_written", "Innodb_history_list_length", "Innodb_max_trx_id",
    "Innodb_ibuf_size", "Innodb_row_lock_waits", "Innodb_row_lock_time", "Innodb_row_lock_current_waits",
    "Innodb_deadlocks", "Innodb_buffer_pool_pages_total", *HANDLER_READS,
    "Binlog_commits", "Binlog_group_commits", "Innodb_os_log_fsyncs",
    "Table_open_cache_hits", "Table_open_cache_misses", "Table_open_cache_overflows",
    "Table_open_cache_active_instances", "Opened_tables", "Open_tables",
    "Innodb_adaptive_hash_hash_searches", "Innodb_adaptive_hash_non_hash_searches",
    *pressure_signals.STATUS_NAMES,
)
# INNODB_METRICS counters derive reads (MySQL 5.7+/8.x count AHI searches and deadlocks only there).
METRIC_NAMES: tuple[str, ...] = ("adaptive_hash_searches", "adaptive_hash_searches_btree", "lock_deadlocks",
                                  *(f"buffer_flush_{k}_total_pages" for k in ("background", "adaptive", "sync")))
# Variables derive reads (redo capacity when the server prints no max checkpoint age).
VARIABLE_NAMES: tuple[str, ...] = ("innodb_log_file_size", "innodb_log_files_in_group", "innodb_redo_log_capacity",
                                   "innodb_read_io_threads", "innodb_write_io_threads")

# A committing read-write transaction takes two numbers from the counter "Trx id counter" shows:
# its id and its serialisation number (trx_no) — measured on MariaDB 10.11: Δcounter = 2·ΔCom_commit
# for single-statement UPDATE transactions; the same allocator since InnoDB 5.0. Approximate: a
# rolled-back or (5.5 and older) read-only transaction takes one number.
TRX_IDS_PER_WRITE_TRX = 2

# InnoDB keeps the checkpoint age below ~81 % of the redo capacity (log_sys->max_checkpoint_age is
# capacity minus safety margins); only used when the server does not print the real value.
MAX_CHECKPOINT_AGE_FRACTION = 0.81

ENABLE_PS_HINT = (f"{ENABLE_SQL}; on MariaDB latches created at startup are only instrumented from the "
                  f"server config: [mysqld] {hint_config()}")


def derive(prev: ParsedSample | None, cur: ParsedSample, prev_host: RawSample | None = None,
           polls: int = 1, prev_mutex: ParsedSample | None = None, *, counters: bool = True) -> Frame:
    """`prev`: the previous good sample (server rates); `prev_host`: the previous sample with host
    counters, good or not (host rates keep their own clock while the server does not answer).
    Without `prev_host`, host rates use `prev`. `polls`: how many polls lie between prev and cur
    (a report over every k-th sample: counters are cumulative, so the rates are the exact
    averages over the span; only the monitor's own statements need counting k times).
    `prev_mutex`: the last earlier sample with SHOW ENGINE INNODB MUTEX rows, for a sample that has
    them when `prev` has not (an import's two mutex snapshots): its latch waits over that span.
    `counters=False`: no `latch_counters` (a consumer that never exports them: the fleet overview)."""
    raw = cur.raw
    host_prev = prev_host if prev_host is not None else (prev.raw if prev is not None else None)
    admin = raw.server.monitor_connection_admin
    frame = _Draft(Frame(time=raw.wall, server=ServerInfo(raw.server.version, raw.server.flavor, raw.server.address,
                                                          cur.status.get("uptime"), _clock(raw.server_time),
                                                          admin if isinstance(admin, bool) else None,
                                                          raw.server.uid, raw.server.replaced_at)))
    frame.errors.update(raw.errors)
    frame.errors.update(cur.errors)
    frame.capped_reads = _capped(raw)
    for key, at in (raw.read_at or {}).items():
        if not str(key).endswith("_before") and isinstance(at, list) and at and isinstance(at[0], (int, float)):
            frame.read_at[key] = float(at[0])         # carried from an earlier read (its cost)
    if raw.error:
        frame.stale = True
        frame.errors["poll"] = raw.error
        frame.failure = (raw.failure or Failure.OTHER).value   # recordings before the typed field: other
        frame.host = _host(host_prev, raw)            # local counters do not wait for the server
        return frame.made()
    if prev is not None and prev.raw.error:
        prev = None                                   # a stale sample carries no counters
    if prev is not None and not prev.raw.server.same_server(raw.server):
        prev = None                                   # another server answers here: nothing to diff
    if prev_mutex is not None and not prev_mutex.raw.server.same_server(raw.server):
        prev_mutex = None
    dt = cur.raw.mono - prev.raw.mono if prev is not None else None
    frame.elapsed = dt if valid_dt(dt) else None
    poll_ms, late_ms = raw.timings_ms.get("poll"), raw.timings_ms.get("late")
    frame.poll_s = poll_ms / 1000.0 if isinstance(poll_ms, (int, float)) else None
    frame.late_s = late_ms / 1000.0 if isinstance(late_ms, (int, float)) else None
    server_dt = dt
    prev = status_span(prev, cur, dt, frame)
    if prev is not None and _restarted(prev, cur):
        server_dt = None
        frame.notes.append("server restarted (Uptime went backwards): rates resume with the next sample")

    frame.throughput = _throughput(prev, cur, server_dt, polls)
    frame.semaphores = _semaphores(prev, cur, server_dt)
    frame.io = _io(prev, cur, server_dt)
    frame.flush = _flush(prev, cur, server_dt)
    frame.locks = _locks(prev, cur, server_dt)
    frame.table_cache = _table_cache(prev, cur, server_dt)
    frame.ahi = _ahi(prev, cur, server_dt)
    frame.pressure = pressure_signals.pressure(prev, cur, server_dt)
    _lock_activity(prev, cur, frame, server_dt)
    frame.host = _host(host_prev, raw)
    frame.hotspots = _hotspots(prev, cur, server_dt, frame, prev_mutex)
    frame.counters = _counters(cur)
    frame.latch_counters = latch_counters(cur) if counters else []
    frame.deadlock = cur.innodb.deadlock if cur.innodb is not None else None
    frame.digests = top_sql.rates(raw.digests)
    made = frame.made()
    return dataclasses.replace(made, load=wait_load.of(made, raw.active_sessions))


class _Draft:
    """A frame's fields while derive works them out: a Frame never changes once made (`made`),
    so every view and every judgement of it reads the same value."""

    notes: list[str]
    read_at: dict[str, float]
    elapsed: float | None

    def __init__(self, start: Frame) -> None:
        self.__dict__.update({f.name: getattr(start, f.name) for f in dataclasses.fields(Frame)})

    def __getattr__(self, name: str) -> Any:               # the Frame's fields, for the type checker
        raise AttributeError(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__[name] = value

    def made(self) -> Frame:
        return Frame(**self.__dict__)


def _capped(raw: RawSample) -> list[CappedRead]:
    out = []
    for key, c in (raw.capped or {}).items():
        if not isinstance(c, dict) or not isinstance(c.get("cap"), str):
            continue                                  # a recording's value of another shape
        nums = {k: float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
                for k in ("limit", "measured", "retry_in_s") for v in (c.get(k),)}
        out.append(CappedRead(str(key), c["cap"], now=c.get("now") is True, **nums))
    return out


def _present_total(cur: ParsedSample, names: tuple[str, ...]) -> Number | None:
    present = [v for n in names if (v := cur.stat(n)) is not None]
    return sum(present) if present else None


def _sum_of(cur: ParsedSample, names: tuple[str, ...]) -> int | None:
    values = [cur.stat(n) for n in names]
    return None if None in values else sum(values)  # type: ignore[arg-type]


def _counters(cur: ParsedSample) -> Counters:
    """The server's cumulative counters of this sample, from the same sources the rates use."""
    c = Counters()
    c.commits, c.rollbacks, c.questions = cur.stat("Com_commit"), cur.stat("Com_rollback"), cur.stat("Questions")
    c.transactions = _sum_of(cur, ("Com_commit", "Com_rollback"))
    c.rows_read = _first(cur.stat("Innodb_rows_read"), _get(cur.innodb, "row_operations.rows_read"),
                         cur.stat("Rows_read"), _present_total(cur, HANDLER_READS))
    changed = ("inserted", "updated", "deleted")
    c.rows_changed = _first(_sum_of(cur, tuple(f"Innodb_rows_{k}" for k in changed)),
                            _sum_pair([(None, _get(cur.innodb, f"row_operations.rows_{k}")) for k in changed])[1],
                            _sum_of(cur, ("Handler_write", "Handler_update", "Handler_delete")))
    c.data_reads, c.data_writes = cur.stat("Innodb_data_reads"), cur.stat("Innodb_data_writes")
    c.data_fsyncs = cur.stat("Innodb_data_fsyncs")
    c.redo_bytes = cur.stat("Innodb_os_log_written")
    c.pages_flushed = cur.stat("Innodb_buffer_pool_pages_flushed")
    c.row_lock_waits, c.row_lock_wait_ms = cur.stat("Innodb_row_lock_waits"), cur.stat("Innodb_row_lock_time")
    c.deadlocks = _first(cur.stat("Innodb_deadlocks"), (cur.raw.innodb_metrics or {}).get("lock_deadlocks"))
    sem = [v for f in _SEM_FIELDS["os_waits"] if (v := _get(cur.innodb, "semaphores." + f)) is not None]
    c.semaphore_os_waits = sum(sem) if sem else None
    pressure_signals.fill_counters(c, cur)
    return c


def _restarted(prev: ParsedSample, cur: ParsedSample) -> bool:
    up0, up1 = prev.stat("Uptime"), cur.stat("Uptime")
    return (up0 is not None and up1 is not None and up1 < up0) or \
        (prev.raw.server.version is not None and cur.raw.server.version is not None
         and prev.raw.server.version != cur.raw.server.version)


def _stat_pair(prev: ParsedSample | None, cur: ParsedSample, name: str) -> tuple[Number | None, Number | None]:
    return (prev.stat(name) if prev else None), cur.stat(name)


def _stat_rate(prev: ParsedSample | None, cur: ParsedSample, names: tuple[str, ...],
               dt: float | None) -> float | None:
    """Rate of the sum of status counters; None unless all are present in both samples."""
    pairs = [_stat_pair(prev, cur, n) for n in names]
    if any(p is None or c is None for p, c in pairs):
        return None
    return rate_of_sum(pairs, dt)


def _innodb_pair(prev: ParsedSample | None, cur: ParsedSample, path: str) -> tuple[Number | None, Number | None]:
    """('transactions.trx_id_counter') of both samples' parsed InnoDB status."""
    return _get(prev.innodb if prev else None, path), _get(cur.innodb, path)


def _get(status: InnodbStatus | None, path: str) -> Number | None:
    obj: object = status
    for part in path.split("."):
        if obj is None:
            return None
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, (int, float)) and not isinstance(obj, bool) else None


def _sum_pair(pairs: Sequence[tuple[Number | None, Number | None]]) -> tuple[Number | None, Number | None]:
    """Component pairs → (Σprev, Σcur), None where any component is missing."""
    prevs, curs = [p for p, _ in pairs], [c for _, c in pairs]
    return (None if None in prevs else sum(prevs)), (None if None in curs else sum(curs))  # type: ignore[arg-type]


def _present_sum(prev: ParsedSample | None, cur: ParsedSample,
                 names: tuple[str, ...]) -> tuple[Number | None, Number | None]:
    """(Σprev, Σcur) over the counters present in both samples (a poll may read only some)."""
    pairs = [p for p in (_stat_pair(prev, cur, n) for n in names) if p[0] is not None and p[1] is not None]
    return _sum_pair(pairs) if pairs else (None, None)


def _clock(value: object) -> float | None:
    """The server's clock as recorded, when it is a plausible epoch (2000–2100); a recording is
    hostile input, and a time no calendar can show must not reach the views."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 946_684_800 <= value <= 4_102_444_800:
        return float(value)
    return None


def _client_questions(prev: ParsedSample | None, cur: ParsedSample,
                      polls: int = 1) -> tuple[Number | None, Number | None]:
    """Questions without mysqltop's own statements (8–10 per poll: most of the qps of a server doing
    10 qps). A reset stays a reset: only a forward count is corrected. Across `polls` > 1 polls,
    each poll in between sent what `cur` sent."""
    q_prev, q_cur = _stat_pair(prev, cur, "Questions")
    if prev is None or q_prev is None or q_cur is None or q_cur < q_prev:
        return q_prev, q_cur
    own = own_statements(prev.raw, cur.raw) + max(0, polls - 1) * len(sent_statements(cur.raw))
    return q_prev, max(q_prev, q_cur - own)


def _client_rows_read(prev: ParsedSample | None, cur: ParsedSample) -> tuple[Number | None, Number | None]:
    """Rows_read without the rows the monitor's own session read in between (its P_S, status and
    lock queries: ~370 rows a poll, all of an idle server's "rows read/s"). Its session counter
    is cumulative, so this holds across any number of polls; a reconnect (the counter starts
    again) or a sample without it leaves the count as it is."""
    r_prev, r_cur = _stat_pair(prev, cur, "Rows_read")
    if prev is None or r_prev is None or r_cur is None or r_cur < r_prev:
        return r_prev, r_cur
    a, b = prev.raw.own_rows_read, cur.raw.own_rows_read
    if not isinstance(a, int) or not isinstance(b, int) or b < a:
        return r_prev, r_cur
    return r_prev, max(r_prev, r_cur - (b - a))


def _throughput(prev: ParsedSample | None, cur: ParsedSample, dt: float | None, polls: int = 1) -> Throughput:
    t = Throughput()
    t.commits_per_s = rate(*_stat_pair(prev, cur, "Com_commit"), dt)
    t.rollbacks_per_s = rate(*_stat_pair(prev, cur, "Com_rollback"), dt)
    t.tps = _stat_rate(prev, cur, ("Com_commit", "Com_rollback"), dt)
    t.committed_per_s = rate(*_stat_pair(prev, cur, "Handler_commit"), dt)
    t.qps = rate(*_client_questions(prev, cur, polls), dt)
    # a status variable first: statement text in the status can make its counters unknown
    ids_per_s = first_rate([_stat_pair(prev, cur, "Innodb_max_trx_id"),           # MariaDB status
                            _innodb_pair(prev, cur, "transactions.trx_id_counter")], dt)
    t.write_trx_per_s = ids_per_s / TRX_IDS_PER_WRITE_TRX if ids_per_s is not None else None
    ro = "row_operations."
    t.rows_read_per_s = first_rate([_stat_pair(prev, cur, "Innodb_rows_read"),
                                    _innodb_pair(prev, cur, ro + "rows_read"),
                                    _client_rows_read(prev, cur),                # MariaDB: no Innodb_rows_*
                                    _present_sum(prev, cur, HANDLER_READS)], dt)
    t.rows_changed_per_s = first_rate([
        _sum_pair([_stat_pair(prev, cur, f"Innodb_rows_{k}") for k in ("inserted", "updated", "deleted")]),
        _sum_pair([_innodb_pair(prev, cur, ro + f"rows_{k}") for k in ("inserted", "updated", "deleted")]),
        _sum_pair([_stat_pair(prev, cur, f"Handler_{k}") for k in ("write", "update", "delete")]),
    ], dt)
    t.threads_running = cur.stat("Threads_running")
    t.binlog_commits_per_s = rate(*_stat_pair(prev, cur, "Binlog_commits"), dt)
    t.binlog_group_commits_per_s = rate(*_stat_pair(prev, cur, "Binlog_group_commits"), dt)
    t.redo_fsyncs_per_s = rate(*_stat_pair(prev, cur, "Innodb_os_log_fsyncs"), dt)
    return t


def _table_cache(prev: ParsedSample | None, cur: ParsedSample, dt: float | None) -> TableCache:
    tc = TableCache()
    tc.hits_per_s = rate(*_stat_pair(prev, cur, "Table_open_cache_hits"), dt)
    tc.misses_per_s = rate(*_stat_pair(prev, cur, "Table_open_cache_misses"), dt)
    tc.overflows_per_s = rate(*_stat_pair(prev, cur, "Table_open_cache_overflows"), dt)
    tc.opened_tables_per_s = rate(*_stat_pair(prev, cur, "Opened_tables"), dt)
    tc.open_tables = cur.stat("Open_tables")
    tc.active_instances = cur.stat("Table_open_cache_active_instances")
    return tc


def _ahi(prev: ParsedSample | None, cur: ParsedSample, dt: float | None) -> Ahi:
    """MariaDB counts AHI searches in status variables; MySQL 5.7+/8.x in INNODB_METRICS
    (adaptive_hash_searches / adaptive_hash_searches_btree, enabled by default)."""
    m0 = (prev.raw.innodb_metrics or {}) if prev is not None else {}
    m1 = cur.raw.innodb_metrics or {}
    a = Ahi()
    a.hash_searches_per_s = first_rate([_stat_pair(prev, cur, "Innodb_adaptive_hash_hash_searches"),
                                        (m0.get("adaptive_hash_searches"), m1.get("adaptive_hash_searches"))], dt)
    a.btree_searches_per_s = first_rate([_stat_pair(prev, cur, "Innodb_adaptive_hash_non_hash_searches"),
                                         (m0.get("adaptive_hash_searches_btree"),
                                          m1.get("adaptive_hash_searches_btree"))], dt)
    return a


_SEM_FIELDS = {  # counter → field per kind (mutex lines name theirs differently)
    "os_waits": ("mutex_os_waits", "rw_shared_os_waits", "rw_excl_os_waits", "rw_sx_os_waits"),
    "spins": ("mutex_spin_waits", "rw_shared_spins", "rw_excl_spins", "rw_sx_spins"),
    "rounds": ("mutex_spin_rounds", "rw_shared_rounds", "rw_excl_rounds", "rw_sx_rounds"),
}


def _current_row_waits(s: ParsedSample) -> Number | None:
    """Innodb_row_lock_current_waits, else the TRANSACTIONS section's "LOCK WAIT"s."""
    listed = (len(s.innodb.transactions.lock_waits)
              if s.innodb is not None and "TRANSACTIONS" in s.innodb.sections else None)
    return _first(s.stat("Innodb_row_lock_current_waits"), listed)


def _locks(prev: ParsedSample | None, cur: ParsedSample, dt: float | None) -> Locks:
    lk = Locks()
    lk.row_lock_waits_per_s = rate(*_stat_pair(prev, cur, "Innodb_row_lock_waits"), dt)
    waits = cur.innodb.transactions.lock_waits if cur.innodb is not None else []
    lk.row_lock_current_waits = _current_row_waits(cur)
    if cur.raw.lock_waits is not None:   # the server's lock tables: no statement can print into them
        lk.longest_lock_wait_s = lock_tree.longest_wait_s(cur.raw.lock_waits, cur.raw.row_locks)
    else:
        lk.longest_lock_wait_s = max((w.get("waiting_s") or 0 for w in waits), default=None)
    metrics = (prev.raw.innodb_metrics or {}) if prev is not None else {}
    lk.deadlocks_per_s = first_rate([_stat_pair(prev, cur, "Innodb_deadlocks"),
                                     (metrics.get("lock_deadlocks"),
                                      (cur.raw.innodb_metrics or {}).get("lock_deadlocks"))], dt)
    return lk


UNRECORDED_KEYS = ("lock_waits", "transactions", "sessions")


def _lock_activity(prev: ParsedSample | None, cur: ParsedSample, frame: _Draft, dt: float | None = None) -> None:
    raw = cur.raw
    frame.blocking = lock_tree.blocking_tree(raw.lock_waits, raw.row_locks)
    frame.transactions = lock_tree.transactions(raw.transactions, raw.innodb_status)
    frame.sessions = lock_tree.sessions(raw.sessions, raw.lock_sessions)
    frame.session_states = lock_tree.session_states(raw.session_states)
    lk = frame.locks
    if raw.error is None:
        # the status text lists the transactions too: with it, none listed means none active
        frame.unrecorded = [k for k in UNRECORDED_KEYS if getattr(raw, k) is None and k not in raw.errors
                            and not (k == "transactions" and (frame.transactions or raw.innodb_status))]
        frame.unrecorded += [k for k in raw.not_recorded or () if k not in UNRECORDED_KEYS]
    if raw.lock_waits is not None:
        # sessions blocked, each once (the holders of a shared row each count all its waiters)
        lk.blocked_sessions = (sum(b.blocked for b in frame.blocking) if raw.row_locks is None
                               else len(lock_tree.row_waits(raw.lock_waits, raw.row_locks)))
    if frame.transactions:
        lk.longest_transaction_s = frame.transactions[0].age_s
    elif raw.transactions is not None:
        lk.longest_transaction_s = 0
    row_unseen = raw.lock_waits is None or (raw.lock_waits == [] and bool(lk.row_lock_current_waits))
    frame.stalls = stall_tree.find(
        frame.blocking, raw.lock_sessions, raw.metadata_locks, raw.server.flavor, frame.time,
        row_waiting=lk.row_lock_current_waits if row_unseen else None,
        row_longest=lk.longest_lock_wait_s if row_unseen else None, unrecorded=frozenset(frame.unrecorded),
        lock_waits=raw.lock_waits, row_locks=raw.row_locks, timeouts=_lock_timeouts(cur))
    frame.metadata_blocking = stall_tree.metadata_trees(frame.stalls, raw.lock_sessions)
    if raw.lock_sessions is not None:
        # every kind of lock: a session waiting on a metadata, user or backup lock is blocked too
        server_level = sum(1 for s in stall_rows.lock_sessions(raw.lock_sessions)
                           if s.kind not in (None, "row_lock", "innodb_queue"))
        if server_level or lk.blocked_sessions is not None:
            lk.blocked_sessions = (lk.blocked_sessions or 0) + server_level
    _waits_in_progress(prev, cur, frame, dt)


def _lock_timeouts(s: ParsedSample) -> dict[str, float]:
    """lock_wait_timeout and innodb_lock_wait_timeout, where the variables were read."""
    out: dict[str, float] = {}
    for name in ("lock_wait_timeout", "innodb_lock_wait_timeout"):
        try:
            out[name] = float(s.variables[name])
        except (KeyError, ValueError):
            continue
    return out


def _row_lock_side(s: ParsedSample, longest_s: float | None = None) -> rlt.RowLockSide:
    return rlt.RowLockSide(
        time_ms=_int(s.stat("Innodb_row_lock_time")), started=_int(s.stat("Innodb_row_lock_waits")),
        current=_int(_current_row_waits(s)),
        waits=lock_tree.row_waits(s.raw.lock_waits) if s.raw.lock_waits is not None else None,
        longest_s=longest_s, sessions=_int(s.stat("Threads_connected")))


def _waits_in_progress(prev: ParsedSample | None, cur: ParsedSample, frame: _Draft, dt: float | None) -> None:
    """Waits counted from their start times, each waited second once (core/row_lock_time.py):
    Innodb_row_lock_time adds a wait whole when it ends, so a stall of sixteen sessions reads
    0 ms/s while it lasts and then the whole stall in one second."""
    raw = cur.raw
    lk = frame.locks
    row_waits = lock_tree.row_waits(raw.lock_waits, raw.row_locks)   # {waiting trx: seconds}
    server_waits = [st.time_s or 0.0 for st in (stall_rows.lock_sessions(raw.lock_sessions))
                    if st.kind not in (None, "row_lock")]
    group_waits = stall_rows.waiting_groups(frame.session_states)   # (sessions, longest) per waiting state
    n_server = len(server_waits) if raw.lock_sessions is not None else sum(n for n, _ in group_waits)
    n_row = len(row_waits) if raw.lock_waits is not None else lk.row_lock_current_waits
    lk.row_lock_wait_ms_per_s = rlt.wait_ms_per_s(
        _row_lock_side(prev) if prev is not None else None,
        _row_lock_side(cur, lk.longest_lock_wait_s), dt)
    if n_row is None and raw.session_states is None and raw.lock_sessions is None:
        return
    lk.waiting_sessions = (n_row or 0) + n_server
    longest = [*row_waits.values(), *server_waits, *(x for _, x in group_waits if x is not None)]
    if lk.longest_lock_wait_s is not None:
        longest.append(lk.longest_lock_wait_s)
    lk.longest_wait_s = max(longest, default=0.0 if lk.waiting_sessions == 0 else None)
    if dt is None or dt <= 0:
        return
    if raw.lock_sessions is not None:
        server_ms = sum(min(w, dt) for w in server_waits) / dt * 1000.0
    else:
        server_ms = sum(n * min(x or 0.0, dt) for n, x in group_waits) / dt * 1000.0
    lk.waiting_ms_per_s = (lk.row_lock_wait_ms_per_s or 0.0) + server_ms


def _semaphores(prev: ParsedSample | None, cur: ParsedSample, dt: float | None) -> Semaphores:
    s = Semaphores()

    def per_s(counter: str) -> float | None:
        return rate_of_sum([_innodb_pair(prev, cur, "semaphores." + f) for f in _SEM_FIELDS[counter]], dt)

    s.os_waits_per_s, s.spin_waits_per_s, s.spin_rounds_per_s = per_s("os_waits"), per_s("spins"), per_s("rounds")
    if cur.innodb is not None and ("SEMAPHORES" in cur.innodb.sections or cur.innodb.semaphores.waits):
        waits = cur.innodb.semaphores.waits
        s.waiting_threads = len(waits)
        s.longest_wait_s = max((w.seconds or 0.0 for w in waits), default=0.0)
    return s


def _io(prev: ParsedSample | None, cur: ParsedSample, dt: float | None) -> Io:
    io = Io()
    f = cur.innodb.file_io if cur.innodb is not None else None
    if f is not None:
        io.threads = [IoThread(t.id, t.role, t.state) for t in f.io_threads]
        if not io.threads and cur.innodb is not None and "FILE I/O" in cur.innodb.sections:
            io.threads = _pool_threads(cur)
        io.pending_reads = _first(f.pending_reads, total(f.pending_aio_reads))
        io.pending_writes = _first(f.pending_writes, total(f.pending_aio_writes))
        # the parser's total (log + buffer pool, or MariaDB 10.6+'s single "Pending flushes (fsync): N")
        io.pending_fsyncs = _first(f.pending_fsyncs, total([f.pending_flush_log, f.pending_flush_buffer_pool]))
    # MariaDB 10.6+ prints no aio lists: the status counters are the source there.
    io.pending_reads = _first(io.pending_reads, cur.stat("Innodb_async_reads_pending"),
                              cur.stat("Innodb_data_pending_reads"))
    io.pending_writes = _first(io.pending_writes, cur.stat("Innodb_async_writes_pending"),
                               cur.stat("Innodb_data_pending_writes"))
    io.pending_fsyncs = _first(io.pending_fsyncs, cur.stat("Innodb_data_pending_fsyncs"))
    fio = "file_io."
    io.reads_per_s = first_rate([_innodb_pair(prev, cur, fio + "os_file_reads"),
                                 _stat_pair(prev, cur, "Innodb_data_reads")], dt)
    io.writes_per_s = first_rate([_innodb_pair(prev, cur, fio + "os_file_writes"),
                                  _stat_pair(prev, cur, "Innodb_data_writes")], dt)
    io.fsyncs_per_s = first_rate([_innodb_pair(prev, cur, fio + "os_fsyncs"),
                                  _stat_pair(prev, cur, "Innodb_data_fsyncs")], dt)
    return io


def _pool_threads(cur: ParsedSample) -> list[IoThread]:
    """MariaDB 10.6+ prints no I/O thread lines: async IO runs on a task pool sized by
    innodb_read/write_io_threads, so list those slots (no per-thread state exists)."""
    out: list[IoThread] = []
    for role in ("read", "write"):
        n = cur.var_int(f"innodb_{role}_io_threads") or 0
        base = len(out)                 # each slot its own id: 0-3 read, 4-7 write (not 0,0,0,0 / 4,4,4,4)
        out += [IoThread(base + i, role, "pool slot (no per-thread state)", pool_slot=True)
                for i in range(min(n, 64))]
    return out


def _add(a: Number | None, b: Number | None) -> Number | None:
    """a + b, treating a missing free-page count as 0 (a full pool prints none on some servers)."""
    return None if a is None else a + (b or 0)


def _free_pct(free: Number | None, lru: Number | None) -> float | None:
    """Free-list pages as % of the pool's usable pages (free + LRU)."""
    if free is None or lru is None or free < 0 or lru < 0 or free + lru == 0:
        return None
    return 100.0 * free / (free + lru)


def _flush(prev: ParsedSample | None, cur: ParsedSample, dt: float | None) -> Flush:
    fl = Flush()
    inno = cur.innodb
    fl.pages_flushed_per_s = first_rate([_stat_pair(prev, cur, "Innodb_buffer_pool_pages_flushed"),
                                         _innodb_pair(prev, cur, "buffer_pool.pages_written")], dt)
    # Dirty % as InnoDB computes it for innodb_max_dirty_pages_pct (buf_get_modified_ratio_pct):
    # modified pages over the pool's usable pages, LRU (database pages) + free — not over LRU alone,
    # which reads 100 % on a mostly empty pool.
    bp = inno.buffer_pool if inno is not None else None
    if bp is not None and bp.modified_pages is not None:
        fl.dirty_pages = bp.modified_pages
        fl.dirty_pct = dirty_pct(bp.modified_pages, bp.database_pages, bp.free_pages)
        fl.free_pct = _free_pct(bp.free_pages, bp.database_pages)
    else:
        fl.dirty_pages = cur.stat("Innodb_buffer_pool_pages_dirty")
        fl.dirty_pct = dirty_pct(fl.dirty_pages, cur.stat("Innodb_buffer_pool_pages_data"),
                                 cur.stat("Innodb_buffer_pool_pages_free"))
        fl.free_pct = _free_pct(cur.stat("Innodb_buffer_pool_pages_free"), cur.stat("Innodb_buffer_pool_pages_data"))
    lsn, ckpt = _get(inno, "log.lsn"), _get(inno, "log.checkpoint_lsn")
    age: Number | None = lsn - ckpt if lsn is not None and ckpt is not None and lsn >= ckpt else None
    if age is None:
        age = cur.stat("Innodb_checkpoint_age")
    if age is None:
        lsn_s, ckpt_s = cur.stat("Innodb_lsn_current"), cur.stat("Innodb_lsn_last_checkpoint")
        age = lsn_s - ckpt_s if lsn_s is not None and ckpt_s is not None and lsn_s >= ckpt_s else None
    fl.checkpoint_age_bytes = age
    fl.checkpoint_age_pct = _pct(age, _max_checkpoint_age(cur))
    fl.log_bytes_per_s = first_rate([_innodb_pair(prev, cur, "log.lsn"),
                                     _stat_pair(prev, cur, "Innodb_lsn_current"),
                                     _stat_pair(prev, cur, "Innodb_os_log_written")], dt)
    # The page cleaner's paced flushing (held to innodb_io_capacity / _max) apart from the flushing
    # a full redo log forces; INNODB_METRICS counts them where module_buffer is enabled (off by default).
    m0 = (prev.raw.innodb_metrics or {}) if prev is not None else {}
    m1 = cur.raw.innodb_metrics or {}
    paced = [(m0.get(f"buffer_flush_{k}_total_pages"), m1.get(f"buffer_flush_{k}_total_pages"))
             for k in ("background", "adaptive")]
    if all(a is not None and b is not None for a, b in paced):
        fl.paced_flushed_per_s = rate(sum(a or 0 for a, _ in paced), sum(b or 0 for _, b in paced), dt)
    fl.sync_flushed_per_s = rate(m0.get("buffer_flush_sync_total_pages"), m1.get("buffer_flush_sync_total_pages"), dt)
    fl.history_list_length = _first(cur.stat("Innodb_history_list_length"),      # not printed by statements
                                     _metric(cur, "trx_rseg_history_len"),
                                     _get(inno, "transactions.history_list_length"))
    # MariaDB 10.11 reports an uninitialised Innodb_ibuf_size when the change buffer is off: keep
    # only sizes that fit in the buffer pool.
    pool = _first(_get(inno, "buffer_pool.size_pages"), cur.stat("Innodb_buffer_pool_pages_total"), 2**32)
    ibuf = _first(_get(inno, "insert_buffer.ibuf_size"), cur.stat("Innodb_ibuf_size"))
    fl.ibuf_size_pages = ibuf if ibuf is not None and ibuf <= pool else None  # type: ignore[operator]
    return fl


def dirty_pct(modified: Number | None, database: Number | None, free: Number | None) -> float | None:
    """The one dirty-page percentage (frames, `parse` text): InnoDB's buf_get_modified_ratio_pct,
    modified / (database pages + free pages) — what innodb_max_dirty_pages_pct is compared with and
    what MariaDB prints as "Percent of dirty pages(LRU & free pages)"."""
    return _pct(modified, _add(database, free))


def _max_checkpoint_age(cur: ParsedSample) -> Number | None:
    exact = _first(cur.stat("Innodb_checkpoint_max_age"), _get(cur.innodb, "log.max_checkpoint_age"))
    if exact:
        return exact
    capacity = cur.var_int("innodb_redo_log_capacity")            # MySQL 8.0.30+
    if not capacity:
        size = cur.var_int("innodb_log_file_size")
        files = cur.var_int("innodb_log_files_in_group") or 1      # MariaDB 10.5+: one file
        capacity = size * files if size else None
    return capacity * MAX_CHECKPOINT_AGE_FRACTION if capacity else None


_CPU_IGNORED = {"guest", "guest_nice"}   # Linux counts guest time inside user/nice already


def _host(prev: RawSample | None, cur: RawSample) -> Host | None:
    h = cur.host
    if h is None:
        return None
    # /proc/stat procs_running counts the thread reading it (our poller): report the others.
    load1 = h.loadavg[0] if h.loadavg and math.isfinite(h.loadavg[0]) else None   # NaN: not read (imports)
    out = Host(cpus=h.cpus, run_queue=max(h.procs_running - 1, 0), load1=load1)
    ph = prev.host if prev is not None else None
    dt = cur.mono - prev.mono if prev is not None else None
    if ph is None or not valid_dt(dt):
        return out
    deltas = {k: v - ph.cpu_times[k] for k, v in h.cpu_times.items()
              if k in ph.cpu_times and k not in _CPU_IGNORED}
    busy_total = sum(deltas.values())
    if deltas and busy_total > 0 and all(d >= 0 for d in deltas.values()):
        def pct(*keys: str) -> float:
            return 100.0 * sum(deltas.get(k, 0.0) for k in keys) / busy_total
        out.cpu_user_pct = pct("user", "nice")
        out.cpu_system_pct = pct("system", "irq", "softirq")
        out.cpu_iowait_pct = pct("iowait") if "iowait" in deltas else None
        out.cpu_steal_pct = pct("steal") if "steal" in deltas else None
    out.ctx_switches_per_s = rate(ph.ctx_switches, h.ctx_switches, dt)
    if cur.server.local:
        mysqld = rate(ph.mysqld_cpu_s, h.mysqld_cpu_s, dt)   # backwards: mysqld restarted
        out.mysqld_cpu_pct = mysqld * 100.0 if mysqld is not None else None
    _top_process(ph, h, dt, out)
    return out


def _procs(h: HostSample) -> dict[int, tuple[str, float]]:
    """pid → (name, CPU seconds) of a sample's top_procs rows that have the recorded shape."""
    out: dict[int, tuple[str, float]] = {}
    for row in h.top_procs or ():
        if isinstance(row, (list, tuple)) and len(row) >= 3:
            pid, name, cpu = row[0], row[1], row[2]
            if type(pid) is int and isinstance(cpu, (int, float)) and not isinstance(cpu, bool):
                out[pid] = (str(name), float(cpu))
    return out


def _top_process(ph: HostSample, h: HostSample, dt: float | None, out: Host) -> None:
    """The busiest other process: the highest CPU rate among processes listed in both samples."""
    before = _procs(ph)
    best: tuple[float, int, str] | None = None
    for pid, (name, cpu) in _procs(h).items():
        if pid not in before:
            continue
        r = rate(before[pid][1], cpu, dt)
        if r is not None and (best is None or r > best[0]):
            best = (r, pid, name)
    if best is not None:
        out.top_process_cpu_pct, out.top_process_pid, out.top_process = best[0] * 100.0, best[1], best[2]


def _mutex_span(before: ParsedSample, cur: ParsedSample, frame: _Draft) -> list[Hotspot]:
    """Latch waits between two SHOW ENGINE INNODB MUTEX snapshots further apart than one interval
    (pt-stalk's mutex-status1/2): ranked like any hotspots, their rates over the span and marked
    as one (Hotspot.span_s) — a start→end delta, never spread into a per-second series."""
    assert before.mutex is not None and cur.mutex is not None
    span = cur.raw.mono - before.raw.mono
    if not valid_dt(span):
        return []
    hot = hs.mutex_hotspots(before.mutex, cur.mutex, span)
    for h in hot:
        h.span_s = span
    frame.notes.append(f"latch hotspots over the {span:.0f} s between two SHOW ENGINE INNODB MUTEX snapshots "
                       "(a start→end delta: a span, not a per-second series)")
    return hot


def _hotspots(prev: ParsedSample | None, cur: ParsedSample, dt: float | None, frame: _Draft,
              prev_mutex: ParsedSample | None = None) -> list[Hotspot]:
    """Fills frame.sources/notes on the way: which latch sources this sample has, what is missing."""
    groups: list[list[Hotspot]] = []
    ps_rows = cur.waits or {}
    has_ps = any(n.startswith(hs.SYNCH_PREFIX) and not n.startswith(hs.IDLE_PREFIX) for n in ps_rows)
    if has_ps:
        frame.sources.append("performance_schema")
        if not any("/innodb/" in n for n in ps_rows):
            frame.notes.append("performance_schema instruments no InnoDB latches: " + ENABLE_PS_HINT)
    elif cur.waits is None and "ps_waits" in (cur.raw.not_recorded or ()):
        frame.notes.append("latches: no performance_schema rows in an import (a collection holds at most two "
                           "SHOW ENGINE INNODB MUTEX snapshots)")
    elif cur.waits is None and predates_performance_schema(cur.raw.server.version):
        frame.notes.append("this server predates performance_schema (MySQL 5.5): latch waits come from "
                           "SEMAPHORES and SHOW ENGINE INNODB MUTEX")
    elif cur.waits is None and "GRANT" in cur.raw.errors.get("ps_waits", ""):
        frame.notes.append("latches not measured: " + cur.raw.errors["ps_waits"].removeprefix("skipped: "))
    elif cur.waits is None and cur.variables.get("performance_schema", "").upper() in ("OFF", "0"):
        frame.notes.append("latches not measured: performance_schema is OFF: set performance_schema=ON in the "
                           "server config and restart, then " + ENABLE_PS_HINT)
    elif cur.waits is None:
        frame.notes.append("performance_schema wait/synch data not read (performance_schema off or not "
                           "readable): set performance_schema=ON, then " + ENABLE_PS_HINT)
    else:
        frame.notes.append("performance_schema wait/synch instruments are off: " + ENABLE_PS_HINT)
    if cur.mutex:
        frame.sources.append("innodb_mutex")
    sem = cur.innodb.semaphores if cur.innodb is not None else None
    if sem is not None and (sem.waits or sem.mutex_os_waits is not None or sem.rw_shared_os_waits is not None):
        frame.sources.append("semaphores")

    spaced = latch_reads(cur, frame) if has_ps else None
    if spaced is not None:
        groups.append(spaced)
    if prev is None:
        frame.hotspot_totals = hs.counted_totals(ps_rows if has_ps else None, cur.mutex)
    if prev is not None and dt is not None and valid_dt(dt):
        if has_ps and prev.waits is not None and spaced is None:
            ps = hs.ps_hotspots(prev.waits, ps_rows, dt)
            if ps is None:
                frame.notes.append("performance_schema counters went backwards (TRUNCATE or restart): "
                                   "latch rates resume with the next sample")
            else:
                groups.append(ps)
        if cur.mutex and prev.mutex is not None:
            groups.append(hs.mutex_hotspots(prev.mutex, cur.mutex, dt))
    if cur.mutex and (prev is None or prev.mutex is None) and prev_mutex is not None and prev_mutex.mutex:
        groups.append(_mutex_span(prev_mutex, cur, frame))
    if sem is not None and sem.waits:
        groups.append(hs.semaphore_hotspots(sem.waits))   # a snapshot: no previous sample needed
    return hs.rank(*groups)


def _metric(cur: ParsedSample, name: str) -> int | None:
    v = (cur.raw.innodb_metrics or {}).get(name)
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**64 else None


def _int(v: Number | None) -> int | None:
    return None if v is None else int(v)


def _first(*values: Number | None) -> Number | None:
    return next((v for v in values if v is not None), None)


def _pct(part: Number | None, whole: Number | None) -> float | None:
    return 100.0 * part / whole if part is not None and whole else None
