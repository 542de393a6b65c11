"""The pressure counters (frame.pressure, docs/signals.md) as `label value` pairs for the TPS / QPS
pane: the connections against max_connections, then each wait on a buffer, cache or queue of fixed
size per second. A wait that happens is drawn warm; refused connections hot, and first."""

from __future__ import annotations

from rich.text import Text

from mysqltop.core import units
from mysqltop.core.frame import Pressure
from mysqltop.views.tui.widgets.render import Palette

# (label, field) of the per-second waits, in the order of docs/signals.md.
WAITS: tuple[tuple[str, str], ...] = (
    ("log waits/s", "log_waits_per_s"), ("free waits/s", "buffer_pool_wait_free_per_s"),
    ("binlog spills/s", "binlog_cache_disk_use_per_s"), ("new threads/s", "threads_created_per_s"),
    ("tmp disk/s", "tmp_disk_tables_per_s"), ("sort merges/s", "sort_merge_passes_per_s"),
    ("full joins/s", "select_full_join_per_s"), ("tbl lock waits/s", "table_locks_waited_per_s"),
)
REFUSED = "refused/s"


def refused(p: Pressure, palette: Palette) -> tuple[str, Text] | None:
    """Refused connections while there are any: the pair the pane puts first."""
    x = p.connections_refused_per_s
    return (REFUSED, Text(units.num(x), style=palette.hot)) if x else None


def pairs(p: Pressure, palette: Palette) -> list[tuple[str, str | Text]]:
    """The waits that happen first (a pane too short for every line still shows them), then the
    connections, then the waits that do not."""
    happening: list[tuple[str, str | Text]] = []
    quiet: list[tuple[str, str | Text]] = []
    for label, field in WAITS:
        x = getattr(p, field)
        if x:
            happening.append((label, Text(units.num(x), style=palette.warm)))
        else:
            quiet.append((label, units.num(x)))
    conns: list[tuple[str, str | Text]] = []
    if p.threads_connected is not None:
        limit = f"/{units.num(p.max_connections)}" if p.max_connections is not None else ""
        conns.append(("conn", units.num(p.threads_connected) + limit))
    conns.append(("conn/s", units.num(p.connections_per_s)))
    return [*happening, *conns, *quiet]
