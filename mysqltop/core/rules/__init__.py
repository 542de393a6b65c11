"""Diagnosis rules, one small function each, grouped by what they look at.

Every rule has the signature `rule(window, vars) -> Iterable[Advice]` (see rules.rule_kit) and must
stay O(len(window)): `advise` runs them all on every live frame.
"""

from __future__ import annotations

from mysqltop.core.rules import instruments, io_flush, latches, load, pressure, recurring_deadlocks, stall_rules
from mysqltop.core.rules.rule_kit import Rule

# Stalls first: a pile of sessions on a lock is the first finding among equally severe ones. A
# buffer or cache of fixed size too small (pressure) comes before the IO and load findings that
# show its effect: every transaction spilling its binlog cache is what slows the commit path.
# Rules that judge the last frame alone (durations the server measured) or events (deadlocks, each
# one seen in the samples of their span): they run from the first frame with rates, where the
# others need rules.rule_kit.MIN_FRAMES.
LAST_FRAME_RULES: tuple[Rule, ...] = (*stall_rules.RULES, *recurring_deadlocks.RULES)
RULES: tuple[Rule, ...] = (*stall_rules.RULES, *latches.RULES, *pressure.RULES, *io_flush.RULES, *load.RULES,
                           *recurring_deadlocks.RULES,
                           *instruments.RULES)

# The server variables the rules read or name: the report shows them, and a comparison of two
# windows says which of them changed in between (a before/after of a tuning change).
KNOBS: tuple[str, ...] = (
    "innodb_adaptive_hash_index", "innodb_adaptive_hash_index_parts", "innodb_adaptive_hash_index_partitions",
    "innodb_buffer_pool_size", "innodb_buffer_pool_instances", "table_open_cache", "table_open_cache_instances",
    "innodb_read_io_threads", "innodb_write_io_threads", "innodb_io_capacity", "innodb_io_capacity_max",
    "innodb_purge_threads", "innodb_thread_concurrency", "thread_handling", "innodb_spin_wait_delay",
    "innodb_sync_spin_loops", "innodb_flush_log_at_trx_commit", "sync_binlog", "innodb_log_file_size",
    "innodb_log_files_in_group", "innodb_redo_log_capacity", "innodb_change_buffer_max_size",
    "innodb_change_buffering", "innodb_lock_wait_timeout", "performance_schema",
    "innodb_log_buffer_size", "innodb_lru_scan_depth", "binlog_cache_size", "thread_cache_size", "tmp_table_size",
    "max_heap_table_size", "max_connections",
)
