"""Pressure signals (docs/signals.md): the status counters of buffers, caches and queues of fixed
size, as per-second rates and levels of frame.pressure, and the server's own counters of those
with a finding (frame.counters, what Prometheus exports). Pure."""

from __future__ import annotations

from mysqltop.core.counters import rate
from mysqltop.core.frame import Counters, Pressure
from mysqltop.core.parsed import ParsedSample

# Pressure signals (docs/signals.md): status counter → Pressure field (a rate), level → field.
PRESSURE_RATES: tuple[tuple[str, str], ...] = (
    ("Innodb_log_waits", "log_waits_per_s"), ("Innodb_log_write_requests", "log_write_requests_per_s"),
    ("Innodb_buffer_pool_wait_free", "buffer_pool_wait_free_per_s"),
    ("Innodb_buffer_pool_read_requests", "buffer_pool_read_requests_per_s"),
    ("Innodb_buffer_pool_reads", "buffer_pool_disk_reads_per_s"),
    ("Binlog_cache_use", "binlog_cache_use_per_s"), ("Binlog_cache_disk_use", "binlog_cache_disk_use_per_s"),
    ("Binlog_stmt_cache_disk_use", "binlog_stmt_cache_disk_use_per_s"),
    ("Connections", "connections_per_s"), ("Threads_created", "threads_created_per_s"),
    ("Created_tmp_tables", "tmp_tables_per_s"), ("Created_tmp_disk_tables", "tmp_disk_tables_per_s"),
    ("Table_locks_waited", "table_locks_waited_per_s"), ("Select_full_join", "select_full_join_per_s"),
    ("Sort_merge_passes", "sort_merge_passes_per_s"),
)
# … and the server's own counters of those that have a finding (Prometheus exports them).
PRESSURE_COUNTERS: tuple[tuple[str, str], ...] = (
    ("Innodb_log_waits", "log_waits"), ("Innodb_buffer_pool_wait_free", "buffer_pool_wait_free"),
    ("Binlog_cache_disk_use", "binlog_cache_disk_use"), ("Threads_created", "threads_created"),
    ("Created_tmp_disk_tables", "tmp_disk_tables"),
)
PRESSURE_LEVELS: tuple[tuple[str, str], ...] = (
    ("Threads_cached", "threads_cached"), ("Threads_connected", "threads_connected"),
    ("Innodb_os_log_pending_writes", "log_pending_writes"), ("Innodb_os_log_pending_fsyncs", "log_pending_fsyncs"),
)
STATUS_NAMES: tuple[str, ...] = tuple(dict.fromkeys(name for name, _ in (*PRESSURE_RATES, *PRESSURE_LEVELS)))


def pressure(prev: ParsedSample | None, cur: ParsedSample, dt: float | None) -> Pressure:
    """Rates over the interval (None on the first sample, Δt ≤ 0, a reset) and levels now."""
    p = Pressure()
    for name, attr in PRESSURE_RATES:
        setattr(p, attr, rate(prev.stat(name) if prev is not None else None, cur.stat(name), dt))
    for name, attr in PRESSURE_LEVELS:
        setattr(p, attr, cur.stat(name))
    return p


def fill_counters(c: Counters, cur: ParsedSample) -> None:
    for name, attr in PRESSURE_COUNTERS:
        setattr(c, attr, cur.stat(name))
