"""Each finding's own metric: the number its first remedy must improve, measured over frames.

One place for "did it work": the report's compare shows it before → after a setting changed, and
the scenario suite applies each remedy and asserts on it. Pure, O(frames).
"""

from __future__ import annotations

from typing import Callable, Sequence

from mysqltop.core.frame import Frame
from mysqltop.core.rules import trends
from mysqltop.core.rules.rule_kit import LatchFamily
from mysqltop.core.rules.io_flush import COMMIT
from mysqltop.core.rules.latches import AHI, BUFFER_POOL, INDEX_TREE, TABLE_CACHE

Getter = Callable[[Frame], "float | None"]


def _latch_ms(family: LatchFamily) -> Getter:
    return lambda f: sum(h.wait_ms_per_s or 0.0 for h in f.hotspots
                         if h.source == "performance_schema" and family.matches(h)) if f.hotspots else None


def _writes(f: Frame) -> float | None:
    t = f.throughput
    return next((x for x in (t.binlog_commits_per_s, t.write_trx_per_s, t.commits_per_s) if x is not None), None)


# finding id → (label, per-frame getter); averaged time-weighted over the window
_AVERAGED: dict[str, tuple[str, Getter]] = {
    "commit_path": ("write transactions/s", _writes),
    "table_cache_misses": ("table cache misses/s", lambda f: f.table_cache.misses_per_s),
    "table_cache": ("table cache latch wait ms/s", _latch_ms(TABLE_CACHE)),
    "ahi_latch": ("AHI latch wait ms/s", _latch_ms(AHI)),
    "buffer_pool_mutex": ("buffer pool latch wait ms/s", _latch_ms(BUFFER_POOL)),
    "index_tree_latch": ("index tree latch wait ms/s", _latch_ms(INDEX_TREE)),
    "row_lock_waits": ("row lock wait ms/s", lambda f: f.locks.row_lock_wait_ms_per_s),
    "cpu_saturation": ("mysqld CPU, cores", lambda f: f.host.mysqld_cpu_pct / 100.0
                       if f.host is not None and f.host.mysqld_cpu_pct is not None else None),
    "cpu_other_process": ("busiest other process CPU, cores", lambda f: f.host.top_process_cpu_pct / 100.0
                          if f.host is not None and f.host.top_process_cpu_pct is not None else None),
    "checkpoint_age": ("checkpoint age % of max", lambda f: f.flush.checkpoint_age_pct),
    "pending_aio_reads": ("pending reads", lambda f: f.io.pending_reads),
    "pending_aio_writes": ("pending writes", lambda f: f.io.pending_writes),
    "commit_latches": ("commit latch wait ms/s", _latch_ms(COMMIT)),
    "log_waits": ("log buffer waits/s", lambda f: f.pressure.log_waits_per_s),
    "buffer_pool_wait_free": ("free page waits/s", lambda f: f.pressure.buffer_pool_wait_free_per_s),
    "binlog_cache_disk": ("binlog cache spills/s", lambda f: f.pressure.binlog_cache_disk_use_per_s),
    "thread_cache": ("threads created/s", lambda f: f.pressure.threads_created_per_s),
    "tmp_disk_tables": ("temporary tables on disk/s", lambda f: f.pressure.tmp_disk_tables_per_s),
    "max_connections": ("refused connections/s", lambda f: f.pressure.connections_refused_per_s),
}


FINDINGS: tuple[str, ...] = (*_AVERAGED, "purge_lag")


def label(finding: str) -> str | None:
    if finding == "purge_lag":
        return "history list growth/s"
    return _AVERAGED[finding][0] if finding in _AVERAGED else None


def value(finding: str, frames: Sequence[Frame]) -> float | None:
    """The finding's metric over live frames (time-weighted mean; a trend for the history list)."""
    live = [f for f in frames if not f.stale and f.elapsed]
    if finding == "purge_lag":
        return trends.slope([(f.time, f.flush.history_list_length) for f in live
                              if f.flush.history_list_length is not None])
    if finding not in _AVERAGED:
        return None
    get = _AVERAGED[finding][1]
    pairs = [(v, f.elapsed or 0.0) for f in live if (v := get(f)) is not None]
    seconds = sum(dt for _, dt in pairs)
    return sum(v * dt for v, dt in pairs) / seconds if seconds else None
