"""performance_schema events_waits_summary_global_by_event_name rows (timers in picoseconds)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class WaitRow:
    event_name: str           # "wait/synch/mutex/innodb/buf_pool_mutex"
    count_star: int
    sum_timer_wait: int       # picoseconds
    min_timer_wait: int = 0
    avg_timer_wait: int = 0
    max_timer_wait: int = 0


def parse_wait_rows(rows: list[list[object]]) -> list[WaitRow]:
    """Rows [EVENT_NAME, COUNT_STAR, SUM, MIN, AVG, MAX]; values may be str or int."""
    raise NotImplementedError
