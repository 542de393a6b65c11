"""The latch summary read (performance_schema.events_waits_summary_global_by_event_name): which
statement a poll sends for it, and which of its rows the poll keeps.

Kept: the count and the total wait of each latch that waited (MIN/AVG/MAX are not read, and
condition waits are threads sleeping, never a hotspot: core/hotspots.py), i.e.
  EVENT_NAME LIKE 'wait/synch/%' AND EVENT_NAME NOT LIKE 'wait/synch/cond/%' AND COUNT_STAR > 0

Such a WHERE alone saves the server nothing: the table has no index, and the server aggregates
each row over every instance of its class before any filter sees it. Its rows come one
instrument class at a time in a fixed order — every mutex, then every rwlock/sxlock/prlock, then
cond, file, table, socket, idle, metadata (the table's scan, MariaDB and MySQL alike) — and the
classes after the latches cost the server as much as the latches (0.6 of a read's 1.2 ms under
16 sysbench threads with every wait/synch instrument on). So the first read of a connection is
whole, and tells how many latch classes lead (n); from then on the poll reads only those and the
first cond class after them: MariaDB stops after n + 1 rows examined (LIMIT ROWS EXAMINED) and
sends the rows that waited and that cond row (COUNT_STAR > 0 OR a cond class: a WHERE of LIKEs
on every row would cost the server 0.1 ms more), other servers send the n + 1 rows (LIMIT; the
120 latches that never waited cost the client 0.5 ms to decode, MariaDB's filter spares it that);
the rows kept are chosen here. The last row must be that cond class — a class registered since (a
plugin installed at runtime) pushes a latch there — else the read is incomplete: its rows are not
used and the next poll reads the table whole again. A server whose short read is cut short twice
in a row is read whole from then on.
"""

from __future__ import annotations

from typing import Any

TABLE = "performance_schema.events_waits_summary_global_by_event_name"
WHOLE_SQL = f"SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT FROM {TABLE}"
COND = "wait/synch/cond/"
# the rows that waited, and the cond class after the latches (it tells where they end)
_KEEP = f"COUNT_STAR > 0 OR EVENT_NAME LIKE '{COND}%'"
ROWS_EXAMINED_FROM = (5, 5, 21)          # MariaDB's LIMIT ROWS EXAMINED


def is_latch(name: Any) -> bool:
    """EVENT_NAME LIKE 'wait/synch/%' AND NOT LIKE 'wait/synch/cond/%' (LIKE: any case)."""
    n = str(name).lower()
    return n.startswith("wait/synch/") and not n.startswith(COND)


def _is_cond(row: Any) -> bool:
    return bool(row) and str(row[0]).lower().startswith(COND)


def _waited(row: Any) -> bool:
    """COUNT_STAR > 0."""
    try:
        return int(row[1]) > 0
    except (TypeError, ValueError, IndexError):
        return False


class LatchReads:
    """One connection's latch summary reads: whole, or up to the row after the latch classes."""

    def __init__(self, flavor: str, version: tuple[int, ...]) -> None:
        self.examined = flavor == "mariadb" and tuple(version[:3]) >= ROWS_EXAMINED_FROM
        self.classes: int | None = None      # the leading latch rows of the last whole read (None: read whole)
        self.cut = 0                         # short reads cut short since the last one that was not
        self.off = False                     # cut short twice in a row: read whole from now on

    def sql(self) -> str:
        n = self.classes
        if n is None:
            return WHOLE_SQL
        if self.examined:
            return f"{WHOLE_SQL} WHERE {_KEEP} LIMIT ROWS EXAMINED {n + 1}"
        return f"{WHOLE_SQL} LIMIT {n + 1}"

    def rows(self, rows: Any) -> list[Any] | None:
        """The rows kept of a read (latches that waited); None when a short read was cut short
        of a latch class: the next poll reads it whole."""
        rows = list(rows or ())
        latch = [is_latch(r[0]) if r else False for r in rows]
        lead = latch.index(False) if False in latch else len(latch)
        # a run of latch rows, then a cond class and no latch after it (where the latches end)
        ordered = lead < len(latch) and _is_cond(rows[lead]) and not any(latch[lead:])
        if self.classes is None:
            self.classes = lead if ordered and lead > 0 and not self.off else None
        elif ordered:
            self.cut = 0
        else:
            self.cut += 1
            self.off = self.cut >= 2
            self.classes = None
            return None
        return [r for r, is_l in zip(rows, latch) if is_l and _waited(r)]
