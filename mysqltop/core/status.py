"""SHOW GLOBAL STATUS / VARIABLES maps and the number forms they use."""

from __future__ import annotations

import re
from typing import Any, Mapping

from mysqltop.core.textforms import Table

_INT = re.compile(r"^-?\d{1,40}$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Headers: SHOW [GLOBAL] STATUS/VARIABLES; performance_schema.global_status / information_schema.
_HEADERS = (["variable_name", "value"], ["variable_name", "variable_value"])
# Names that say "this is SHOW STATUS" / "SHOW VARIABLES" when a -N capture has no header.
_STATUS_NAMES = frozenset({"Uptime", "Questions", "Threads_running", "Threads_connected", "Com_commit",
                           "Innodb_buffer_pool_pages_total", "Innodb_data_reads"})
_VARIABLE_NAMES = frozenset({"version", "innodb_buffer_pool_size", "max_connections", "datadir",
                             "innodb_flush_log_at_trx_commit", "port"})


# id(map) → (map, its lower-cased copy): a live source hands the same variables map to every
# sample until it reads them again (every minute), so they are lower-cased once, not per poll.
_LOWERED: dict[int, tuple[Mapping[str, str], dict[str, str]]] = {}
_LOWERED_MAX = 1024


def lower_keys(names: Mapping[str, str]) -> dict[str, str]:
    """{name.lower(): value}; the result is shared between callers: read it, never change it."""
    hit = _LOWERED.get(id(names))
    if hit is not None and hit[0] is names and len(hit[1]) == len(names):
        return hit[1]
    out = {k.lower(): v for k, v in names.items()}
    if len(_LOWERED) >= _LOWERED_MAX:
        _LOWERED.clear()
    _LOWERED[id(names)] = (names, out)
    return out


def status_int(status: dict[str, str], name: str) -> int | None:
    """The integer value of a status variable, None when absent or not a number."""
    value = status.get(name)
    if value is None:
        lower = name.lower()
        value = next((v for k, v in status.items() if k.lower() == lower), None)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):              # a recording's JSON: bounded like the text form
        return value if -(2**64) < value < 2**64 else None
    s = str(value).strip()
    return int(s) if _INT.match(s) else None


def parse_status_rows(rows: list[list[Any]]) -> dict[str, str]:
    """Rows [Variable_name, Value] → {name: value}; values kept as text ("" for NULL)."""
    out: dict[str, str] = {}
    for row in rows:
        if not isinstance(row, (list, tuple)) or not row:
            continue
        name = str(row[0] if row[0] is not None else "").strip()
        if name:
            value = row[1] if len(row) > 1 else None
            out[name] = "" if value is None else str(value)
    return out


def is_status_header(header: list[str]) -> bool:
    return [h.strip().lower() for h in header] in _HEADERS


def headerless_kind(table: Table) -> str | None:
    """A `mysql -N` capture: two columns of identifiers, recognised by well-known names."""
    rows = [table.header, *table.rows] if table.header else table.rows
    if not rows or any(len(r) != 2 or not _NAME.match(r[0].strip()) for r in rows):
        return None
    names = {r[0].strip() for r in rows}
    if names & _STATUS_NAMES:
        return "global_status"
    if names & _VARIABLE_NAMES:
        return "global_variables"
    return None


def status_or_variables(names: list[str], statements: list[str]) -> str:
    """SHOW STATUS names are Capitalised ("Com_commit"); system variables are lower case."""
    for stmt in statements:
        s = stmt.lower()
        if "variables" in s:
            return "global_variables"
        if "status" in s:
            return "global_status"
    upper = sum(1 for n in names if n[:1].isupper())
    return "global_status" if upper * 2 >= len(names) else "global_variables"


def parse_status_table(table: Table) -> dict[str, str]:
    rows = table.rows if is_status_header(table.header) else [table.header, *table.rows]
    return parse_status_rows(rows)



def status_json(variables: dict[str, str], kind: str = "global_status") -> dict[str, Any]:
    """{kind: "global_status" | "global_variables", variables: {name: value}}."""
    return {"kind": kind, "variables": dict(variables)}
