"""performance_schema events_waits_summary_global_by_event_name rows (timers in picoseconds).

Live rows come positional [EVENT_NAME, COUNT_STAR, SUM, MIN, AVG, MAX]. Pasted tables are read by
header, so a subset of columns or an aliased, scaled column works too: the 8.0 manual's
`SUM_TIMER_WAIT/1000000000 SUM_TIMER_WAIT_MS` gives 23.4719 → 23_471_900_000 ps, and sys-schema
formatted values ("23.47 ms") are read with their unit.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from mysqltop.core.textforms import Table


@dataclass
class WaitRow:
    event_name: str           # "wait/synch/mutex/innodb/buf_pool_mutex"
    count_star: int
    sum_timer_wait: int       # picoseconds
    min_timer_wait: int | None = 0   # None when the pasted table did not carry the column
    avg_timer_wait: int | None = 0
    max_timer_wait: int | None = 0


_TIMERS = ("sum_timer_wait", "min_timer_wait", "avg_timer_wait", "max_timer_wait")
_PS_PER = {"ps": 1, "ns": 10**3, "us": 10**6, "µs": 10**6, "usec": 10**6, "ms": 10**9, "msec": 10**9,
           "s": 10**12, "sec": 10**12, "min": 60 * 10**12, "h": 3600 * 10**12, "d": 86400 * 10**12}
# "23.47 ms", "1.07 s", "812 ns", "8.82 ms" (sys.format_pico_time / format_time)
_WITH_UNIT = re.compile(r"^\s*(-?[\d.]+)\s*(ps|ns|us|µs|ms|s|min|h|d)\s*$")
_DECIMAL = re.compile(r"^-?\d{1,30}(?:\.\d{1,30})?$")


def _number(value: Any, scale: int = 1) -> int | None:
    """Picoseconds (or a count) from int / Decimal / str, times `scale` for scaled aliases."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value * scale
    s = str(value).strip().replace(",", "")
    if m := _WITH_UNIT.match(s):
        s, scale = m.group(1), _PS_PER[m.group(2)]
    if not _DECIMAL.match(s):          # also rejects NULL, exponents and absurd lengths
        return None
    return int((Decimal(s) * scale).to_integral_value())


def parse_wait_rows(rows: Sequence[Sequence[object]]) -> list[WaitRow]:
    """Rows [EVENT_NAME, COUNT_STAR, SUM(, MIN, AVG, MAX)] (a live poll reads the first three);
    values may be str or int."""
    out = []
    for row in rows:
        if type(row) is list and len(row) == 3 and type(row[1]) is int and type(row[2]) is int \
                and type(row[0]) is str and row[0] and row[0] == row[0].strip():
            out.append(WaitRow(row[0], row[1], row[2]))   # a live poll's row: nothing to convert
            continue
        if not isinstance(row, (list, tuple)) or len(row) < 3 or not str(row[0] or "").strip():
            continue
        nums = [_number(v) for v in row[1:6]]
        if nums[0] is None or nums[1] is None:
            continue
        rest = [n or 0 for n in nums[2:]] + [0] * (5 - len(nums))   # live rows stay int-typed
        out.append(WaitRow(str(row[0]).strip(), nums[0], nums[1], *rest))
    return out


# --- tables from text -------------------------------------------------------------------------

_UNIT_SUFFIX = re.compile(r"^(.*?)(?:_(ps|ns|us|usec|ms|msec|s|sec))?$")


def _columns(header: list[str]) -> dict[str, tuple[int, int]]:
    """Header → {field: (column index, scale)}; "SUM_TIMER_WAIT_MS" → sum_timer_wait ×10⁹."""
    cols: dict[str, tuple[int, int]] = {}
    for i, raw in enumerate(header):
        h = raw.strip().lower()
        if h in ("event_name", "count_star", *_TIMERS):
            cols.setdefault(h, (i, 1))
            continue
        m = _UNIT_SUFFIX.match(h)
        if m and m.group(1) in _TIMERS and m.group(2):
            cols.setdefault(m.group(1), (i, _PS_PER[m.group(2)]))
    return cols


def is_waits_header(header: list[str]) -> bool:
    c = _columns(header)
    return {"event_name", "count_star", "sum_timer_wait"} <= set(c)


def is_wait_row(cells: list[str]) -> bool:
    """A headerless row: "wait/synch/mutex/innodb/buf_pool_mutex\t48215\t156566846225\t…"."""
    return (len(cells) == 6 and cells[0].strip().startswith(("wait/", "idle"))
            and all(_number(c) is not None for c in cells[1:]))


def parse_waits_table(table: Table) -> list[WaitRow]:
    if not is_waits_header(table.header):
        rows = [table.header, *table.rows] if table.header else table.rows
        return parse_wait_rows([r for r in rows if is_wait_row(r)])
    cols = _columns(table.header)
    out = []
    for r in table.rows:
        def get(name: str) -> int | None:
            if name not in cols or cols[name][0] >= len(r):
                return None
            return _number(r[cols[name][0]], cols[name][1])
        name_i = cols["event_name"][0]
        name = r[name_i].strip() if name_i < len(r) else ""
        count, total = get("count_star"), get("sum_timer_wait")
        if name and count is not None and total is not None:
            out.append(WaitRow(name, count, total, get("min_timer_wait"), get("avg_timer_wait"),
                               get("max_timer_wait")))
    return out



def waits_json(rows: list[WaitRow]) -> dict[str, Any]:
    """docs/json.md: {kind: "ps_waits", rows: [{event_name, count_star, sum_timer_wait, …}]} (ps)."""
    return {"kind": "ps_waits", "rows": [dataclasses.asdict(r) for r in rows]}
