"""SHOW ENGINE INNODB MUTEX (and 5.0's SHOW MUTEX STATUS): rows → MutexRow, summed per name/site.

Forms (Type | Name | Status unless said otherwise):
- 5.0.3–5.0.32 SHOW MUTEX STATUS: Mutex | Module | Count | Spin_waits | Spin_rounds | OS_waits |
  OS_yields | OS_waits_time (ms); 5.0.33+ without UNIV_DEBUG: File | Line | OS_waits.
- 5.1–5.6: "InnoDB | &kernel_mutex | os_waits=242", "InnoDB | buf0buf.c:1234 | os_waits=12"
  (UNIV_DEBUG builds: "count=…, spin_waits=…, spin_rounds=…, os_waits=…, os_yields=…, os_wait_times=…").
- 5.7.8+/8.0: one row per rw-lock *instance* "rwlock: dict0dict.cc:2783 | waits=1", the aggregate
  "sum rwlock: buf0buf.cc:788 | waits=1018" for buffer-block latches, and with
  innodb_monitor_enable='latch' mutexes "LOG_SYS | spins=…,waits=…,calls=…".
- MariaDB 10.2–10.5 INFORMATION_SCHEMA.INNODB_MUTEXES: NAME | CREATE_FILE | CREATE_LINE | OS_WAITS.
MariaDB 10.6+ returns no rows: an empty result is valid.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from mysqltop.core.textforms import Table


@dataclass
class MutexRow:
    name: str                 # "&kernel_mutex", "rwlock", "sum rwlock", "mutex", "buf_pool_mutex"
    site: str | None          # "dict0dict.cc:2783" where the row names one
    os_waits: int | None = None
    spins: int | None = None
    waits: int | None = None
    calls: int | None = None
    instances: int = 1        # rows summed into this one
    spin_rounds: int | None = None   # 5.0 / UNIV_DEBUG builds only
    os_yields: int | None = None
    os_wait_ms: int | None = None    # 5.0 OS_waits_time / os_wait_times (0 unless timed_mutexes)


_SUMMED = ("os_waits", "spins", "waits", "calls", "spin_rounds", "os_yields", "os_wait_ms")

# Status cell keys → field. "os_waits=242"; "spins=0,waits=5,calls=120";
# "count=1203, spin_waits=52, spin_rounds=311, os_waits=9, os_yields=9, os_wait_times=0"
_STATUS_KEYS = {"os_waits": "os_waits", "spins": "spins", "spin_waits": "spins", "waits": "waits",
                "calls": "calls", "count": "calls", "spin_rounds": "spin_rounds",
                "os_yields": "os_yields", "os_wait_times": "os_wait_ms"}
_PAIR = re.compile(r"(\w+)=(\d+)")
STATUS_CELL = re.compile(r"^\s*\w+=\d+(?:\s*,\s*\w+=\d+)*\s*$")

_SRC = r"[^\s:]+\.(?:c|cc|cpp|h|ic|i)"
# "rwlock: dict0dict.cc:2783", "sum rwlock: buf0buf.cc:788"
_KIND_SITE = re.compile(rf"^((?:sum |combined )?(?:rwlock|mutex|sxlock|rw_lock)): ({_SRC}:\d+)$")
# "buf0buf.c:1234", "../../../storage/innobase/fil/fil0fil.c:1313", "combined buf0buf.cc:1120"
_BARE_SITE = re.compile(rf"^((?:combined |sum )?)({_SRC}:\d+)$")
# 5.1.2–5.1.14: "&pool->mutex:mem0pool.c"
_NAME_FILE = re.compile(rf"^([^:]+):({_SRC})$")


def _base(path: str) -> str:
    """Source path as printed → file name: "../../storage/innobase/buf/buf0buf.c:12" → "buf0buf.c:12"."""
    return re.split(r"[/\\]", path.strip())[-1]


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    s = str(value).strip().replace(",", "")
    return int(s) if s.isdigit() and len(s) < 40 else None


def _name_site(name: str) -> tuple[str, str | None]:
    name = " ".join(name.split())
    if m := _KIND_SITE.match(name):
        return m.group(1), _base(m.group(2))
    if m := _BARE_SITE.match(name):
        site = _base(m.group(2))
        return (m.group(1) + site).strip(), site
    if m := _NAME_FILE.match(name):
        return m.group(1), _base(m.group(2))
    return name, None


def _from_status(name: str, status: str) -> MutexRow:
    n, site = _name_site(name)
    row = MutexRow(n, site)
    for key, value in _PAIR.findall(status):
        fld = _STATUS_KEYS.get(key.lower())
        if fld:
            setattr(row, fld, int(value))
    return row


def _sum(rows: list[MutexRow]) -> list[MutexRow]:
    """Sum rows sharing (name, site), first-seen order kept; counts instances."""
    out: dict[tuple[str, str | None], MutexRow] = {}
    for r in rows:
        key = (r.name, r.site)
        acc = out.get(key)
        if acc is None:
            out[key] = dataclasses.replace(r)
            continue
        acc.instances += r.instances
        for f in _SUMMED:
            a, b = getattr(acc, f), getattr(r, f)
            if b is not None:
                setattr(acc, f, b if a is None else a + b)
    return list(out.values())


def parse_mutex_rows(rows: list[list[str]]) -> list[MutexRow]:
    """Rows as the server returns them: [Type, Name, Status]. Empty is valid (MariaDB 10.6+)."""
    parsed = []
    for row in rows:
        if not isinstance(row, (list, tuple)) or len(row) < 3:
            continue
        name, status = str(row[1] or ""), str(row[2] or "")
        if name or status:
            parsed.append(_from_status(name, status))
    return _sum(parsed)


# --- tables from text -------------------------------------------------------------------------

def is_mutex_row(cells: list[str]) -> bool:
    """A headerless [Type, Name, Status] row: "InnoDB | &kernel_mutex | os_waits=242"."""
    return len(cells) == 3 and cells[0].strip().lower() == "innodb" and bool(STATUS_CELL.match(cells[2]))


def mutex_header_kind(header: list[str]) -> str | None:
    """Which mutex table a header names: "engine" | "5.0" | "5.0-file" | "innodb_mutexes"."""
    h = [c.strip().lower() for c in header]
    if h[:3] == ["type", "name", "status"] and len(h) == 3:
        return "engine"
    if {"mutex", "module", "os_waits"} <= set(h):
        return "5.0"
    if {"file", "line", "os_waits"} <= set(h):
        return "5.0-file"
    if {"name", "create_file", "create_line", "os_waits"} <= set(h):
        return "innodb_mutexes"
    return None


def parse_mutex_table(table: Table) -> list[MutexRow]:
    """A mutex table in any of the documented column layouts (see module doc)."""
    kind = mutex_header_kind(table.header)
    if kind in (None, "engine"):
        rows = table.rows if kind else [table.header, *table.rows]
        return parse_mutex_rows([r for r in rows if len(r) >= 3])
    col = {c.strip().lower(): i for i, c in enumerate(table.header)}

    def cell(r: list[str], name: str) -> str:
        i = col.get(name)
        return r[i] if i is not None and i < len(r) else ""

    out = []
    for r in table.rows:
        if kind == "5.0":
            row = MutexRow(cell(r, "mutex").strip(), _base(cell(r, "module")) or None,
                           calls=_int(cell(r, "count")), spins=_int(cell(r, "spin_waits")),
                           spin_rounds=_int(cell(r, "spin_rounds")), os_waits=_int(cell(r, "os_waits")),
                           os_yields=_int(cell(r, "os_yields")), os_wait_ms=_int(cell(r, "os_waits_time")))
        else:
            file = cell(r, "file") if kind == "5.0-file" else cell(r, "create_file")
            line = cell(r, "line") if kind == "5.0-file" else cell(r, "create_line")
            words = file.split()   # INNODB_MUTEXES: "combined buf0buf.cc"
            site = f"{_base(words[-1])}:{line.strip()}" if words else None
            name = cell(r, "name").strip() if kind == "innodb_mutexes" else ""
            prefix = " ".join(words[:-1])
            row = MutexRow(name or " ".join(x for x in (prefix, site) if x), site,
                           os_waits=_int(cell(r, "os_waits")))
        if row.name or row.site:
            out.append(row)
    return _sum(out)



def mutex_json(rows: list[MutexRow]) -> dict[str, Any]:
    """docs/json.md: {kind: "innodb_mutex", rows: [{name, site, os_waits, spins, waits, …}]}."""
    return {"kind": "innodb_mutex", "rows": [dataclasses.asdict(r) for r in rows]}
