"""Pressure signals (docs/signals.md): the status counters of buffers, caches and queues of fixed
size, as per-second rates and levels of frame.pressure, and the server's own counters of those
with a finding (frame.counters, what Prometheus exports). Pure."""

from __future__ import annotations

from mysqltop.core.counters import rate, rate_of_sum
from mysqltop.core.frame import Counters, Pressure
from mysqltop.core.parsed import ParsedSample

# Pressure signals (docs/signals.md): status counter → Pressure field (a rate), level → field.
PRESSURE_RATES: tuple[tuple[str, str], ...] = (
    ("Innodb_log_waits", "log_waits_per_s"), ("Innodb_log_write_requests", "log_write_requests_per_s"),
    ("Innodb_buffer_pool_wait_free", "buffer_pool_wait_free_per_s"),
    ("Innodb_buffer_pool_read_requests", "buffer_pool_read_requests_per_s"),
    ("Innodb_buffer_pool_reads", "buffer_pool_disk_reads_per_s"),
    ("Binlog_cache_use", "binlog_cache_use_per_s"), ("Binlog_cache_disk_use", "binlog_cache_disk_use_per_s"),
    ("Binlog_stmt_cache_disk_use", "binlog_stmt_cache_disk_use_per_s"), ("Binlog_bytes_written", "binlog_bytes_per_s"),
    ("Connections", "connections_per_s"), ("Threads_created", "threads_created_per_s"),
    ("Created_tmp_tables", "tmp_tables_per_s"), ("Created_tmp_disk_tables", "tmp_disk_tables_per_s"),
    ("Table_locks_waited", "table_locks_waited_per_s"), ("Select_full_join", "select_full_join_per_s"),
    ("Sort_merge_passes", "sort_merge_passes_per_s"),
    ("Connection_errors_max_connections", "connection_errors_max_connections_per_s"),
    ("Aborted_connects", "aborted_connects_per_s"),
)
# Connections the server failed for reasons of its own or the network's (not max_connections):
# summed into one rate, none of them has a knob of its own.
CONNECTION_ERRORS_OTHER: tuple[str, ...] = tuple(
    f"Connection_errors_{k}" for k in ("accept", "internal", "peer_address", "select", "tcpwrap"))
# … and the server's own counters of those that have a finding (Prometheus exports them).
PRESSURE_COUNTERS: tuple[tuple[str, str], ...] = (
    ("Innodb_log_waits", "log_waits"), ("Innodb_buffer_pool_wait_free", "buffer_pool_wait_free"),
    ("Binlog_cache_disk_use", "binlog_cache_disk_use"), ("Threads_created", "threads_created"),
    ("Created_tmp_disk_tables", "tmp_disk_tables"),
    ("Connection_errors_max_connections", "connection_errors_max_connections"),
)
PRESSURE_LEVELS: tuple[tuple[str, str], ...] = (
    ("Threads_cached", "threads_cached"), ("Threads_connected", "threads_connected"),
    ("Innodb_os_log_pending_writes", "log_pending_writes"), ("Innodb_os_log_pending_fsyncs", "log_pending_fsyncs"),
    ("Max_used_connections", "max_used_connections"),
)
STATUS_NAMES: tuple[str, ...] = tuple(dict.fromkeys(
    (*(name for name, _ in (*PRESSURE_RATES, *PRESSURE_LEVELS)), *CONNECTION_ERRORS_OTHER)))


def pressure(prev: ParsedSample | None, cur: ParsedSample, dt: float | None) -> Pressure:
    """Rates over the interval (None on the first sample, Δt ≤ 0, a reset) and levels now."""
    p = Pressure()
    for name, attr in PRESSURE_RATES:
        setattr(p, attr, rate(prev.stat(name) if prev is not None else None, cur.stat(name), dt))
    for name, attr in PRESSURE_LEVELS:
        setattr(p, attr, cur.stat(name))
    p.connection_errors_other_per_s = rate_of_sum(
        ((prev.stat(n) if prev is not None else None, cur.stat(n)) for n in CONNECTION_ERRORS_OTHER), dt)
    p.max_connections = cur.var_int("max_connections")
    p.connections_refused_per_s = connections_refused(p)
    return p


def connections_refused(p: Pressure) -> float | None:
    """Connects refused for max_connections per second. Connection_errors_max_connections counts
    those refused before the login; MariaDB refuses an account without SUPER / CONNECTION ADMIN
    after its login while the one connection kept for those is free, and counts that only in
    Aborted_connects (measured on 10.11). So at the limit the refusals are Aborted_connects, which
    holds the others too (a wrong password at that moment counts as one); below it, the counter."""
    at_limit = (p.threads_connected is not None and p.max_connections is not None
                and p.threads_connected >= p.max_connections)
    present = [x for x in (p.connection_errors_max_connections_per_s, p.aborted_connects_per_s if at_limit else None)
               if x is not None]
    return max(present) if present else None


def fill_counters(c: Counters, cur: ParsedSample) -> None:
    for name, attr in PRESSURE_COUNTERS:
        setattr(c, attr, cur.stat(name))
